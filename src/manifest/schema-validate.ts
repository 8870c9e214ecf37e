/**
 * Schema validation of one manifest file against schemas/manifest.schema.json, with ajv errors
 * turned into diagnostics that point at the offending key or value (`file:line:col`) and say what is
 * allowed: the nearest valid key for an unknown one, the allowed values for an enum.
 *
 * Messages never quote a value except an enum/const mismatch (short, and never of a secret field),
 * so that a misplaced secret cannot be echoed by a validation error.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from './codes.js';
import { locate, pointerSegments } from './source-map.js';
import { nearest } from './suggest.js';
import { SERVICE_TYPES } from './types.js';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/** The manifest schema document, found by walking up from this module (src/ and dist/ alike). */
export function manifestSchemaPath(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'schemas', 'manifest.schema.json');
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('schemas/manifest.schema.json not found next to the driftless installation');
}

let compiled: ValidateFunction | undefined;
let schemaDoc: Record<string, unknown> | undefined;

export function manifestSchema(): Record<string, unknown> {
  schemaDoc ??= JSON.parse(readFileSync(manifestSchemaPath(), 'utf8')) as Record<string, unknown>;
  return schemaDoc;
}

function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, verbose: true, discriminator: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(ajv);
    compiled = ajv.compile(manifestSchema());
  }
  return compiled;
}

const COLLECTION_NOUN: Record<string, string> = {
  projects: 'project',
  environments: 'environment',
  variables: 'variable',
  deployment_stages: 'deployment stage',
  clusters: 'cluster',
  annotation_groups: 'annotation group',
  label_groups: 'label group',
  labels: 'label',
  alert_receivers: 'alert receiver',
  alert_rules: 'alert rule',
  webhooks: 'webhook',
  ports: 'port',
};

/** "environment `production`", "application `api`", "the manifest": what a path points into. */
export function describeContext(root: unknown, segments: readonly string[]): string {
  let node: unknown = root;
  let label = 'the manifest';
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (node === null || typeof node !== 'object') break;
    const next = (node as Record<string, unknown>)[seg];
    const collection = segments[i - 1];
    if (Array.isArray(node) && collection && next && typeof next === 'object' && !Array.isArray(next)) {
      const rec = next as Record<string, unknown>;
      const id = [rec.name, rec.key, rec.target_url].find((v) => typeof v === 'string' && v.length <= 80) as string | undefined;
      const noun = collection === 'services' ? (typeof rec.type === 'string' && SERVICE_TYPES.includes(rec.type as never) ? rec.type : 'service') : COLLECTION_NOUN[collection] ?? collection.replace(/s$/, '');
      label = id !== undefined ? `${noun} \`${id}\`` : `${noun} #${Number(seg) + 1}${label === 'the manifest' ? '' : ` of ${label}`}`;
    } else if (!Array.isArray(node) && i === segments.length - 1 && typeof next === 'object' && next !== null && !Array.isArray(next)) {
      label = `\`${seg}\` of ${label}`;
    }
    node = next;
  }
  return label;
}

const TYPE_NAMES: Record<string, string> = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', object: 'a mapping', array: 'a list', null: 'empty' };

function typeOf(v: unknown): string {
  if (v === null || v === undefined) return 'empty';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'number') return Number.isInteger(v) ? 'a number' : 'a decimal number';
  if (typeof v === 'boolean') return `\`${v}\``;
  return 'a string';
}

function showValue(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  const clean = s.replace(/[\x00-\x1f\x7f`]/g, '?');
  return clean.length > 40 ? clean.slice(0, 37) + '...' : clean;
}

function convert(root: unknown, file: string, e: ErrorObject): Diagnostic | undefined {
  const segs = pointerSegments(e.instancePath);
  const field = segs.length ? segs[segs.length - 1]! : undefined;
  const parentSegs = segs.slice(0, -1);
  const where = describeContext(root, segs);
  const listName = parentSegs[parentSegs.length - 1];
  const fieldLabel =
    field === undefined
      ? 'the manifest'
      : /^\d+$/.test(field) && listName !== undefined
        ? `item ${Number(field) + 1} of \`${listName}\` of ${describeContext(root, parentSegs.slice(0, -1))}`
        : `\`${field}\` of ${describeContext(root, parentSegs)}`;
  const range = (extra: string[] = [], key = false) => locate(root, [...segs, ...extra], { key }) ?? { file, start: { line: 1, col: 1 } };
  const ps = e.parentSchema as Record<string, unknown> | undefined;

  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys((ps?.properties as Record<string, unknown>) ?? {});
      const guess = nearest(key, allowed);
      return error('schema.unknown-key', `unknown key \`${showValue(key)}\` in ${where}`, {
        detail: `${guess ? `Did you mean \`${guess}\`? ` : ''}Allowed keys: ${allowed.join(', ')}.`,
        range: range([key], true),
      });
    }
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      return error('schema.missing-key', `${where} is missing \`${missing}\``, {
        detail: describeProperty(ps, missing),
        range: range(),
      });
    }
    case 'type': {
      const expected = String((e.params as { type: string }).type)
        .split(',')
        .map((t) => TYPE_NAMES[t] ?? t)
        .join(' or ');
      const got = typeOf(e.data);
      const quoteHint = expected === 'a string' && (typeof e.data === 'number' || typeof e.data === 'boolean') ? ' Quote it to make it a string: "…".' : '';
      return error('schema.wrong-type', `${fieldLabel} must be ${expected}, not ${got}`, {
        detail: `${ps?.description ?? ''}${quoteHint}`.trim() || undefined,
        range: range(),
      });
    }
    case 'enum': {
      const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String);
      const guess = typeof e.data === 'string' ? nearest(e.data, allowed) : undefined;
      return error('schema.not-allowed', `${fieldLabel} is \`${showValue(e.data)}\`, which is not an allowed value`, {
        detail: `${guess ? `Did you mean \`${guess}\`? ` : ''}Allowed values: ${allowed.join(', ')}.`,
        range: range(),
      });
    }
    case 'const':
      return error('schema.not-allowed', `${fieldLabel} must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`, { range: range() });
    case 'discriminator': {
      const p = e.params as { error: string; tag: string; tagValue: unknown };
      const kinds = [...SERVICE_TYPES];
      if (p.error === 'mapping') {
        const guess = typeof p.tagValue === 'string' ? nearest(p.tagValue, kinds) : undefined;
        return error('schema.not-allowed', `unknown service type \`${showValue(p.tagValue)}\` in ${where}`, {
          detail: `${guess ? `Did you mean \`${guess}\`? ` : ''}Allowed types: ${kinds.join(', ')}.`,
          range: locate(root, [...segs, 'type']) ?? range(),
        });
      }
      return error('schema.missing-key', `${where} needs a \`type\``, { detail: `Allowed types: ${kinds.join(', ')}.`, range: range() });
    }
    case 'pattern': {
      const ref = e.schemaPath.includes('/definitions/name/')
        ? 'Names are 1 to 255 characters with no path separator (/ or \\), no control or invisible formatting character, no template syntax (${ or {{) and no leading or trailing space.'
        : e.schemaPath.includes('/definitions/variable_key/')
          ? 'Keys are letters, digits, underscores, dots and dashes, and do not start with a digit.'
          : String(ps?.description ?? `It must match ${String((e.params as { pattern: string }).pattern)}.`);
      const isName = e.schemaPath.includes('/definitions/name/') || e.schemaPath.includes('/definitions/variable_key/');
      const what = e.schemaPath.includes('/definitions/variable_key/') ? 'key' : 'name';
      // `name` of a project is the project's own name: "not a valid project name" says it all.
      const own = field === 'name' || field === 'key' ? describeContext(root, parentSegs).split(' `')[0] : undefined;
      const summary = isName
        ? own
          ? `\`${showValue(e.data)}\` is not a valid ${own} ${what}`
          : `\`${showValue(e.data)}\` is not a valid ${what} (${fieldLabel})`
        : `${fieldLabel} has the wrong format`;
      return error('schema.bad-format', summary, { detail: ref, range: range() });
    }
    case 'format':
      return error('schema.bad-format', `${fieldLabel} must be a valid ${(e.params as { format: string }).format}`, { detail: ps?.description as string | undefined, range: range() });
    case 'minLength':
      return error('schema.too-short', `${fieldLabel} must not be empty`, { range: range() });
    case 'maxLength': {
      // The limit is on the text: `$${` is the YAML spelling of a literal `${` (one character less).
      const value = segs.reduce<unknown>((node, seg) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined), root);
      if (typeof value === 'string' && [...value.replaceAll('$${', '${')].length <= (e.params as { limit: number }).limit) return undefined;
      return error('schema.too-long', `${fieldLabel} is longer than ${(e.params as { limit: number }).limit} characters`, { range: range() });
    }
    case 'minItems':
      return error('schema.too-few', `${fieldLabel} needs at least ${(e.params as { limit: number }).limit} item(s)`, { detail: ps?.description as string | undefined, range: range() });
    case 'minProperties':
      return error('schema.too-few', `${fieldLabel} needs at least ${(e.params as { limit: number }).limit} entry`, { detail: ps?.description as string | undefined, range: range() });
    case 'uniqueItems': {
      const p = e.params as { i: number; j: number };
      return error('schema.duplicate-item', `${fieldLabel} lists the same value twice (items ${Math.min(p.i, p.j) + 1} and ${Math.max(p.i, p.j) + 1})`, { range: locate(root, [...segs, String(p.i)]) ?? range() });
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const p = e.params as { comparison: string; limit: number };
      return error('schema.out-of-range', `${fieldLabel} must be ${p.comparison} ${p.limit}`, { detail: ps?.description as string | undefined, range: range() });
    }
    case 'propertyNames': {
      const name = (e.params as { propertyName: string }).propertyName;
      return error('schema.bad-format', `key \`${showValue(name)}\` of ${fieldLabel} is not valid`, { detail: 'Keys are letters, digits, underscores and dashes, not starting with a digit or dash.', range: range([name], true) });
    }
    case 'if':
    case 'oneOf':
      return undefined;
    default:
      return error('schema.invalid', `${fieldLabel} ${e.message ?? 'is invalid'}`, { range: range() });
  }
}

function describeProperty(ps: Record<string, unknown> | undefined, key: string): string | undefined {
  const props = ps?.properties as Record<string, { description?: string }> | undefined;
  const d = props?.[key]?.description;
  return d ? `\`${key}\`: ${d}` : undefined;
}

/** Validates one parsed file (a partial manifest). All problems at once, in source order. */
export function validateManifestSchema(value: unknown, file: string): Diagnostic[] {
  const validate = validator();
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  // A propertyNames failure also reports the inner pattern error on the same path: keep one.
  const hasPropertyNames = new Set(errors.filter((e) => e.keyword === 'propertyNames').map((e) => e.instancePath));
  // A value of the wrong type also fails its range and format checks: report the type only. A URL
  // that fails `format` usually fails `pattern` too: report the format only.
  const wrongType = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  const badFormat = new Set(errors.filter((e) => e.keyword === 'format').map((e) => e.instancePath));
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const e of errors) {
    if (hasPropertyNames.has(e.instancePath) && e.keyword === 'pattern' && (e as ErrorObject & { propertyName?: string }).propertyName) continue;
    if (wrongType.has(e.instancePath) && e.keyword !== 'type') continue;
    if (badFormat.has(e.instancePath) && e.keyword === 'pattern') continue;
    const d = convert(value, file, e);
    if (!d) continue;
    const k = `${d.code}|${d.summary}|${d.range?.start.line}:${d.range?.start.col}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(d);
  }
  return out;
}
