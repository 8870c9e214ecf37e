/**
 * What to do after one attempt: return, fail with a typed error, retry after a backoff, or wait
 * for the rate limit and send again. Pure: the client loop (client.ts) carries out the decision.
 *
 * The rules (see docs/troubleshooting.md, "Timeouts and retries"):
 *  - 2xx: done. 3xx: fail (redirects are not followed: the token would travel elsewhere).
 *  - 429: wait (Retry-After, else X-RateLimit-Reset) and resend, whatever the method: a 429 was
 *    not applied. Give up after `rateLimitRetries`.
 *  - 5xx, timeout, dropped connection: retry when the request is retryable (GET/PUT/DELETE, or a
 *    POST that opted in); a POST that may have been applied is `ambiguous` instead.
 *  - A connection refused before anything was sent is retried whatever the method.
 *  - Other 4xx: fail with the kind of the status.
 */
import { kindForStatus, type ApiErrorInit } from './errors.js';
import { parseRateLimitHeaders, parseRetryAfter } from './rate-limit.js';
import { scrub } from './redact.js';

export type AttemptOutcome =
  | { type: 'response'; status: number; headers: Headers; text: string }
  | { type: 'timeout' }
  | { type: 'network'; code?: string; sent: boolean };

export type Decision =
  | { type: 'done'; status: number; text: string }
  | { type: 'fail'; error: Omit<ApiErrorInit, 'method' | 'path' | 'attempts'> }
  /** Retry after the backoff, and not sooner than `minDelayMs`. */
  | { type: 'retry'; reason: string; minDelayMs: number }
  /** Resend once the rate limit allows; `untilMs` undefined = the server did not say when. */
  | { type: 'rate-limited'; untilMs?: number };

export interface AttemptState {
  /** Retryable failures so far (5xx, timeouts, dropped connections). */
  failures: number;
  /** 429s so far. */
  rateLimited: number;
}

export interface RetryPolicy {
  /** GET/PUT/DELETE, or a POST that opted in. */
  retryable: boolean;
  /** Retries after timeouts (each one cost a whole request timeout). */
  retries: number;
  /**
   * Retries after quick failures (5xx, dropped or refused connection): cheap to repeat, and a
   * flaky API produces several in a row more often than a dead one produces timeouts. Default:
   * `retries`.
   */
  fastRetries?: number;
  rateLimitRetries: number;
}

/**
 * POSTs that change nothing: validating an alert receiver (new or existing) only sends it a test
 * message, so a dropped connection or a 5xx is retried like a read (at worst one more test
 * message). Every caller gets this, not only the ones that remember to opt in.
 */
const SIDE_EFFECT_FREE_POST = /^\/alert-receivers\/(?:[^/?]+\/)?validate(?:\?|$)/;

/** Whether a request may be repeated after a failure that leaves its outcome unknown. */
export function retryableByDefault(method: string, path: string): boolean {
  if (method === 'GET' || method === 'PUT' || method === 'DELETE') return true;
  return method === 'POST' && SIDE_EFFECT_FREE_POST.test(path);
}

/** Longest wait a 5xx's Retry-After may impose on one retry. */
const MAX_SERVER_RETRY_AFTER_MS = 60_000;
const MAX_MESSAGE = 500;

export function decideNext(outcome: AttemptOutcome, state: AttemptState, policy: RetryPolicy, nowMs: number, secrets: readonly string[]): Decision {
  if (outcome.type !== 'response') {
    const code = outcome.type === 'network' ? outcome.code : undefined;
    const safeToRepeat = policy.retryable || (outcome.type === 'network' && !outcome.sent);
    if (!safeToRepeat) return { type: 'fail', error: { kind: 'ambiguous', reason: outcome.type, code } };
    const budget = outcome.type === 'timeout' ? policy.retries : (policy.fastRetries ?? policy.retries);
    if (state.failures >= budget) return { type: 'fail', error: { kind: outcome.type, code } };
    const reason = outcome.type === 'timeout' ? 'timeout' : `connection failed${code ? ` (${code})` : ''}`;
    return { type: 'retry', reason, minDelayMs: 0 };
  }

  const { status, headers } = outcome;
  if (status < 300) return { type: 'done', status, text: outcome.text };
  if (status < 400) {
    const location = (headers.get('location') ?? '').split(/[?#]/)[0];
    return {
      type: 'fail',
      error: {
        kind: 'validation',
        status,
        serverMessage: `the API answered with a redirect${location ? ` to ${scrub(location, secrets)}` : ''}: check the API URL (DRIFTLESS_API_URL)`,
      },
    };
  }

  const message = serverMessage(outcome.text, secrets);
  if (status === 429) {
    if (state.rateLimited >= policy.rateLimitRetries) return { type: 'fail', error: { kind: 'rate-limited', status, serverMessage: message } };
    return { type: 'rate-limited', untilMs: parseRetryAfter(headers.get('retry-after'), nowMs) ?? parseRateLimitHeaders(headers, nowMs).resetAt };
  }

  const kind = kindForStatus(status, message ?? '');
  if (kind !== 'server') return { type: 'fail', error: { kind, status, serverMessage: message } };
  if (!policy.retryable) return { type: 'fail', error: { kind: 'ambiguous', reason: 'server', status, serverMessage: message } };
  if (state.failures >= (policy.fastRetries ?? policy.retries)) return { type: 'fail', error: { kind: 'server', status, serverMessage: message } };
  // A 503 may say when to come back: never sooner than that (within reason).
  const after = parseRetryAfter(headers.get('retry-after'), nowMs);
  return { type: 'retry', reason: `HTTP ${status}`, minDelayMs: after === undefined ? 0 : Math.min(MAX_SERVER_RETRY_AFTER_MS, after - nowMs) };
}

/** The server's `{message}` (or `detail`, `error`), one line, bounded, with secrets scrubbed. */
export function serverMessage(text: string, secrets: readonly string[]): string | undefined {
  let msg: string | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') {
      const o = parsed as Record<string, unknown>;
      const m = o.message ?? o.detail ?? o.error;
      if (typeof m === 'string') msg = m;
    } else if (typeof parsed === 'string') {
      msg = parsed;
    }
  } catch {
    msg = text;
  }
  if (!msg) return undefined;
  msg = scrub(msg, secrets)
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim();
  if (msg.length > MAX_MESSAGE) msg = `${msg.slice(0, MAX_MESSAGE)}…`;
  return msg || undefined;
}
