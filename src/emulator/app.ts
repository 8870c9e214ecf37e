/**
 * Builds the fastify application of the emulator: validation from schemas/api (ajv), errors in the
 * shape of seed 7, authentication and scopes (seed 5), the rate limit (seed 8), pagination (seed 4.1),
 * injected latency and faults, persistence before every answer, and every route plugin served at
 * the root and (by URL rewrite) under /api/v1 (seed 9), described by GET /openapi.json.
 *
 * Why fastify: its schema-first routes give us ajv validation, per-route response serialisation
 * (here projector.ts: drops any field the schema does not list) and, through @fastify/swagger, the
 * OpenAPI document, all from the same JSON Schemas; a hand-written router would need three copies.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { EmulatorContext } from './context.js';
import { ApiError, describeValidationError, errorBody, type AjvErrorLike } from './errors.js';
import { defaultRequirement, findToken, organizationOfRequest, organizationRefusal, parseAuthorization, scopeCovers, type RouteAuthConfig } from './auth.js';
import { bodyNeverAsked, continueIfExpected, createEmulatorServer } from './http-server.js';
import { firstMalformedString } from './well-formed.js';
import { NUMBER_LIMIT, firstUnsafeNumber, withNumericBounds } from './numeric-bounds.js';
import { RateLimiter } from './rate-limit.js';
import { decideFault, seededRandom, type Fault } from './faults.js';
import { initializers, routePlugins } from './routes/index.js';
import { checkPageParams, paginate } from './pagination.js';
import { projector } from './projector.js';
import { extractComponents } from './openapi-components.js';
import { auditedState, closeWindow, openWindow, runInWindow, type AuditWindow } from './audit/recorder.js';
import { identityOf } from './audit/identity.js';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/** Fields a client may never send (seed: read-only in responses, never accepted as input). */
export const READ_ONLY_FIELDS = ['id', 'created_at', 'updated_at'];

declare module 'fastify' {
  interface FastifyContextConfig extends RouteAuthConfig {
    /** Let a top-level `id` through (bodies where `id` is an input, e.g. terraform deploy). */
    allowIdInBody?: boolean;
  }
  interface FastifyRequest {
    fault?: Fault;
    /** The audit window of a write request (audit/recorder.ts). */
    auditWindow?: AuditWindow;
  }
}

// One pair of ajv instances per process. Bodies are validated strictly (no type coercion: "5" is
// not an integer); path and query parameters arrive as strings and are coerced. Unknown body
// fields are dropped, as the real service ignores them; read-only fields are refused by a hook.
// `verbose` gives each error its schema, so a range error can state the whole allowed range.
const bodyAjv = new Ajv({ strict: false, coerceTypes: false, removeAdditional: true, useDefaults: false, allErrors: false, verbose: true });
const paramAjv = new Ajv({ strict: false, coerceTypes: true, useDefaults: true, allErrors: false, verbose: true });
addFormats(bodyAjv);
addFormats(paramAjv);
type Validator = ReturnType<Ajv['compile']>;
/** Compiled validators by schema text: many routes share schemas, and tests start many emulators. */
const compiledValidators = new Map<string, Validator>();

/**
 * A validator compiled on its first use: compiling ~300 route schemas up front was most of an
 * emulator's start-up time, which every test and benchmark pays; most runs use a few routes.
 */
function lazyValidator(schema: unknown, isBody: boolean): (data: unknown) => boolean {
  let compiled: Validator | undefined;
  const validate = (data: unknown): boolean => {
    if (!compiled) {
      const key = `${isBody ? 'b' : 'p'}${JSON.stringify(schema)}`;
      compiled = compiledValidators.get(key);
      // Every numeric field gets a range (numeric-bounds.ts): no 1e308 where an instance count goes.
      if (!compiled) compiledValidators.set(key, (compiled = (isBody ? bodyAjv : paramAjv).compile(withNumericBounds(schema) as object)));
    }
    const ok = compiled(data) as boolean;
    (validate as { errors?: unknown }).errors = compiled.errors;
    return ok;
  };
  return validate;
}

export async function buildApp(ctx: EmulatorContext): Promise<FastifyInstance> {
  // Writes made while a request is handled become audit events (audit/recorder.ts); wrapped before
  // anything (initializers, indexes keyed by the state) sees the state.
  ctx.state = auditedState(ctx.state);
  const limiter = new RateLimiter(ctx.options.rateLimit, ctx.options.rateWindowS, ctx.clock);
  const rateHeaders = (authorization: string | undefined) => {
    const token = findToken(ctx.state.tokens, parseAuthorization(authorization));
    // Unknown tokens share one bucket, so garbage tokens cannot grow the limiter without bound.
    const rate = limiter.hit(token ? token.token : 'unauthenticated');
    return { token, rate, headers: { 'X-RateLimit-Limit': String(rate.limit), 'X-RateLimit-Remaining': String(rate.remaining), 'X-RateLimit-Reset': String(rate.reset) } };
  };
  const app = Fastify({
    logger: false,
    // Errors fastify raises before routing (a malformed %-escape in the URL) get the same shape.
    frameworkErrors: (err, req, reply) => {
      const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
      reply.headers(rateHeaders(req.headers.authorization).headers);
      (reply as FastifyReply).code(status).send(errorBody(status, err.code === 'FST_ERR_BAD_URL' ? 'the URL is not valid: a %-escape is malformed' : err.message));
    },
    // Seed 9: the API is served at the root and under /api/v1. Rewriting the prefix away (rather
    // than registering every route twice) halves start-up work and keeps one route table.
    rewriteUrl: (req) => stripVersionPrefix(req.url ?? '/'),
    bodyLimit: ctx.options.bodyLimitBytes,
    // Expect: 100-continue, listen backlog and timeouts: see http-server.ts.
    serverFactory: (handler) => createEmulatorServer(handler, ctx.options.bodyLimitBytes),
    forceCloseConnections: true,
    exposeHeadRoutes: false,
    return503OnClosing: true,
  });

  app.setValidatorCompiler(({ schema, httpPart }) => lazyValidator(schema, httpPart === 'body'));

  // Responses keep exactly the fields their schema declares (see projector.ts).
  app.setSerializerCompiler(({ schema }) => {
    const project = projector(schema as Record<string, unknown>);
    return (data) => JSON.stringify(project(data));
  });

  // JSON bodies: an empty body is "no body" (clients send Content-Type on bodiless POSTs), a
  // malformed one is a 400 saying where it broke, and `__proto__` keys are refused.
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser('text/plain'); // the API speaks JSON only: anything else is a 415
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    if (nestingDepth(text) > MAX_JSON_DEPTH) {
      return done(new ApiError(400, `malformed JSON body: nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    try {
      done(null, JSON.parse(text, (k, v) => {
        if (k === '__proto__') throw new SyntaxError("key '__proto__' is not allowed");
        return v;
      }));
    } catch (err) {
      done(new ApiError(400, `malformed JSON body: ${withoutInput((err as Error).message)}`), undefined);
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Infrastructure Management REST API (driftless emulator)',
        version: '1.0.0',
        description: 'Served at the root and under /api/v1. Errors are {status, error, message}.',
      },
      servers: [{ url: '/' }, { url: '/api/v1' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer' },
          ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <api-token>' },
        },
      },
      security: [{ bearerAuth: [] }, { ApiKeyAuth: [] }],
    },
    transformObject: (documentObject) => extractComponents((documentObject as { openapiObject: Record<string, any> }).openapiObject) as any,
  });

  const faultRandom = seededRandom(ctx.options.faultSeed);

  app.addHook('onRequest', async (req, reply) => {
    if (ctx.options.latencyMs > 0) await ctx.sleep(ctx.options.latencyMs);
    const config = (req.routeOptions.config ?? {}) as RouteAuthConfig;
    const { token, rate, headers } = rateHeaders(req.headers.authorization);
    reply.headers(headers);
    if (!rate.allowed) {
      throw new ApiError(429, `rate limit of ${rate.limit} requests per ${ctx.options.rateWindowS} s exceeded; retry after ${rate.retryAfterS} s`, {
        'Retry-After': String(rate.retryAfterS),
      });
    }
    if (!config.public) {
      if (!req.headers.authorization) throw new ApiError(401, "missing Authorization header: send 'Authorization: Token <api-token>' or 'Bearer <jwt>'");
      if (!token) throw new ApiError(401, "invalid or unknown token in the Authorization header (schemes 'Token' and 'Bearer' are accepted)");
      const need = config.scope ?? defaultRequirement(req.method);
      if (!scopeCovers(token.scope, need)) {
        throw new ApiError(403, `this token has scope ${token.scope}; ${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]} needs ${need}`);
      }
      if (!config.providerCatalog) {
        const refusal = organizationRefusal(token, organizationOfRequest(req.params, ctx.state.organization.id));
        if (refusal) throw new ApiError(403, refusal);
      }
    }
    const fault = req.url.endsWith('/openapi.json') ? undefined : decideFault(faultRandom, ctx.options.faultRate);
    if (fault?.when === 'before') {
      if (fault.kind === 'drop') {
        reply.hijack();
        req.raw.socket.destroy();
        return;
      }
      throw new ApiError(fault.kind, 'injected fault (--fault-rate): the request was not processed');
    }
    req.fault = fault;
  });

  // Authenticated, allowed and routed: only now may a client waiting on `Expect: 100-continue` send its body.
  app.addHook('preParsing', async (req, reply, payload) => {
    continueIfExpected(req.raw, reply.raw);
    return payload;
  });

  app.addHook('preValidation', async (req) => {
    // A bodiless POST/PUT on a route that takes a body is an empty object: required fields are
    // then reported by name, and all-optional bodies (stage moves, validations) need no `{}`.
    if (req.body === undefined && req.routeOptions.schema?.body && req.method !== 'GET') req.body = {};
    // A nullable query parameter (seed 4.1: "pageSize is a number or null") given as the literal
    // `null` is null, that is the default, as when it is left out.
    const qProps = (req.routeOptions.schema?.querystring as { properties?: Record<string, { nullable?: boolean }> } | undefined)?.properties;
    const query = req.query as Record<string, unknown> | undefined;
    if (qProps && query && typeof query === 'object') {
      for (const [k, v] of Object.entries(query)) if (v === 'null' && qProps[k]?.nullable === true) delete query[k];
    }
    const body = req.body;
    // JSON may carry lone UTF-16 surrogates (`"\ud800"`): no name or text of the platform can hold one.
    for (const [part, value] of [['query parameter', query], ['request body', body]] as const) {
      const malformed = firstMalformedString(value);
      if (malformed !== undefined) {
        throw new ApiError(400, `${part}: field '${malformed || '(root)'}' is not well-formed Unicode (it holds a lone UTF-16 surrogate); send valid UTF-8 text`);
      }
    }
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const allowId = (req.routeOptions.config as { allowIdInBody?: boolean } | undefined)?.allowIdInBody;
      for (const f of READ_ONLY_FIELDS) {
        if (f === 'id' && allowId) continue;
        if (Object.prototype.hasOwnProperty.call(body, f)) throw new ApiError(400, `request body: field '${f}' is read-only and cannot be set`);
      }
    }
  });

  app.addHook('preHandler', async (req) => {
    if (req.method === 'GET') checkPageParams(req.query);
    // After validation, which gave typed fields their own range: this catches the free-form parts.
    const unsafe = firstUnsafeNumber(req.body);
    if (unsafe !== undefined) {
      throw new ApiError(400, `request body: field '${unsafe || '(root)'}' must be a number from ${-NUMBER_LIMIT} to ${NUMBER_LIMIT} (larger ones are not carried exactly by JSON)`);
    }
  });

  // Last preHandler: the handler runs inside the request's audit window, so its writes are
  // remembered with who made them; they become events when the answer is sent, below.
  app.addHook('preHandler', (req, _reply, done) => {
    if (req.method === 'GET' || req.method === 'HEAD') return done();
    const token = findToken(ctx.state.tokens, parseAuthorization(req.headers.authorization));
    const ua = req.headers['user-agent'];
    req.auditWindow = openWindow(identityOf(token), typeof ua === 'string' ? ua.slice(0, 512) : null);
    runInWindow(req.auditWindow, done);
  });

  app.addHook('preSerialization', async (req, _reply, payload) => paginate(req.method, req.query, payload));

  // The API's clock is the emulator's, which a test may set apart from this machine's (clock
  // skew): its Date header says that clock, as a real server's says its own.
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('date', ctx.clock.now().toUTCString());
    return payload;
  });

  // Before the commit below, so that the events are durable with the writes they describe.
  app.addHook('onSend', async (req, _reply, payload) => {
    if (req.auditWindow) closeWindow(ctx, req.auditWindow);
    return payload;
  });

  app.addHook('onSend', async (req, reply, payload) => {
    // Durable before acknowledged: with --data this appends to the journal and waits for fsync.
    await ctx.commitForAck();
    // Answered without reading the body it held back: the client may still send it, so this
    // connection cannot carry another request.
    if (bodyNeverAsked(req.raw)) reply.header('connection', 'close');
    const fault = req.fault;
    if (fault?.when === 'after') {
      if (fault.kind === 'drop') {
        req.raw.socket.destroy();
        return payload;
      }
      reply.code(fault.kind);
      reply.header('content-type', 'application/json; charset=utf-8');
      return JSON.stringify(errorBody(fault.kind, 'injected fault (--fault-rate): the request was processed but the answer was lost'));
    }
    return payload;
  });

  app.setErrorHandler((err: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) => {
    const { status, message, headers } = toErrorResponse(err);
    if (status >= 500 && !(err instanceof ApiError)) {
      ctx.logger.error(`${req.method} ${req.url.split('?')[0]} failed: ${err.name}: ${err.message}`);
    }
    if (headers) reply.headers(headers);
    reply.code(status).send(errorBody(status, message));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(404, `no such endpoint: ${req.method} ${req.url.split('?')[0]}`));
  });

  for (const init of initializers) init(ctx);

  await app.register(async (scoped) => {
    scoped.get('/openapi.json', { schema: { summary: 'OpenAPI 3.0 description of this API', response: { 200: { type: 'object', additionalProperties: true } } } }, async () => app.swagger());
    for (const plugin of routePlugins) await plugin(scoped, ctx);
  });
  return app;
}

/**
 * V8 quotes a slice of the input in JSON syntax errors (`Unexpected token 'x', "{"token": x..." is
 * not valid JSON`); the body may hold a secret, so only the position survives.
 */
export function withoutInput(message: string): string {
  return message.replace(/,\s*".*" is not valid JSON$/s, ' (not valid JSON)').replace(/"[^"]*"/g, '…');
}

/** No API body nests anywhere near this; deeper input could overflow the stack when stored and served. */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), without parsing it. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92 /* \\ */) i++;
    } else if (ch === 123 /* { */ || ch === 91 /* [ */) {
      if (++depth > max) max = depth;
    } else if (ch === 125 /* } */ || ch === 93 /* ] */) {
      depth--;
    }
  }
  return max;
}

export const VERSION_PREFIX = '/api/v1';

export function stripVersionPrefix(url: string): string {
  if (url === VERSION_PREFIX) return '/';
  if (url.startsWith(`${VERSION_PREFIX}/`)) return url.slice(VERSION_PREFIX.length);
  if (url.startsWith(`${VERSION_PREFIX}?`)) return `/${url.slice(VERSION_PREFIX.length)}`;
  return url;
}

function toErrorResponse(err: FastifyError | ApiError): { status: number; message: string; headers?: Record<string, string> } {
  if (err instanceof ApiError) return { status: err.statusCode, message: err.message, headers: err.headers };
  const fe = err as FastifyError;
  if (fe.validation && fe.validation.length > 0) {
    return { status: 400, message: describeValidationError(fe.validation[0] as unknown as AjvErrorLike, fe.validationContext ?? 'body') };
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: 'request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: "unsupported Content-Type: send 'application/json'" };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'request body does not match its Content-Length' };
  }
  const status = fe.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, message: fe.message };
  return { status: 500, message: 'internal error of the emulator' };
}
