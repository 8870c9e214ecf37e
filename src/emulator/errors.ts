/**
 * Errors as seed section 7: every error response is `{status, error, message}` where `error` is
 * the HTTP reason phrase and `message` says what is wrong, where, and what is allowed.
 *
 * Route code throws `ApiError`s (through the helpers below); app.ts turns them, fastify's own
 * errors (validation, malformed JSON, body too large, unknown route) and anything unexpected into
 * this shape. Messages never contain request bodies, headers or secret values.
 */
import { STATUS_CODES } from 'node:http';
import { describeRange } from './numeric-bounds.js';

export interface ErrorBody {
  status: number;
  error: string;
  message: string;
}

export class ApiError extends Error {
  readonly statusCode: number;
  readonly headers?: Record<string, string>;
  constructor(statusCode: number, message: string, headers?: Record<string, string>) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

export function errorBody(status: number, message: string): ErrorBody {
  return { status, error: reasonPhrase(status), message };
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message: string) => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const conflict = (message: string) => new ApiError(409, message);
export const notFound = (what: string, id: string) => new ApiError(404, `${what} '${id}' not found`);

/** 400 naming a field: `field 'cpu': must be at most 2000 (maximum_cpu)`. */
export const invalidField = (field: string, problem: string) => new ApiError(400, `field '${field}': ${problem}`);

/** The subset of an ajv error object that we read. */
export interface AjvErrorLike {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  /** The failing keyword's schema (ajv `verbose`). */
  parentSchema?: { minimum?: unknown; maximum?: unknown };
}

/** `/ports/0/internal_port` -> `ports[0].internal_port` */
export function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** One readable sentence per ajv error, naming the field and what is allowed. */
export function describeValidationError(e: AjvErrorLike, part: string): string {
  const where = part === 'body' ? 'request body' : part === 'querystring' ? 'query parameter' : part === 'params' ? 'path parameter' : part;
  switch (e.keyword) {
    case 'required':
      return `${where}: field '${fieldPath(e.instancePath, String(e.params.missingProperty))}' is required`;
    case 'additionalProperties':
      return `${where}: field '${fieldPath(e.instancePath, String(e.params.additionalProperty))}' is not allowed`;
    case 'enum': {
      const allowed = (e.params.allowedValues as unknown[] | undefined)?.map(String).join(', ');
      return `${where}: field '${fieldPath(e.instancePath) || '(root)'}' must be one of: ${allowed}`;
    }
    case 'type':
      return `${where}: field '${fieldPath(e.instancePath) || '(root)'}' must be ${describeType(String(e.params.type))}`;
    case 'maxLength':
      return `${where}: field '${fieldPath(e.instancePath)}' must be at most ${e.params.limit} characters`;
    case 'minLength':
      return `${where}: field '${fieldPath(e.instancePath)}' must be at least ${e.params.limit} characters`;
    case 'minItems':
      return `${where}: field '${fieldPath(e.instancePath)}' must have at least ${e.params.limit} item(s)`;
    case 'maxItems':
      return `${where}: field '${fieldPath(e.instancePath)}' must have at most ${e.params.limit} item(s)`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const range = describeRange(e.parentSchema);
      return `${where}: field '${fieldPath(e.instancePath)}' ${e.message ?? 'is out of range'}${range ? ` (allowed: ${range})` : ''}`;
    }
    case 'format':
      return `${where}: field '${fieldPath(e.instancePath)}' must be a valid ${e.params.format}`;
    case 'pattern': {
      const pattern = String(e.params.pattern);
      const text = pattern.startsWith('^P(') ? 'an ISO 8601 duration of days, hours, minutes and seconds such as PT30S, PT5M, PT1H30M or P1D' : `text matching ${pattern}`;
      return `${where}: field '${fieldPath(e.instancePath)}' must be ${text}`;
    }
    default:
      return `${where}: field '${fieldPath(e.instancePath) || '(root)'}' ${e.message ?? 'is invalid'}`;
  }
}

function describeType(t: string): string {
  if (t === 'integer') return 'an integer';
  if (t === 'object' || t === 'array') return `an ${t}`;
  return `a ${t}`;
}
