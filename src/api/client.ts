/**
 * The only code that talks HTTP to the API. No business logic: auth, a bounded queue, timeouts,
 * retries of what is safe to retry, rate-limit pacing, typed errors, request counting.
 *
 * Transport: the global `fetch` with an undici 7 `Agent` as `dispatcher`.
 *  - undici's Agent is loaded when the first request is sent, not when this module loads:
 *    `validate`, `show` and `--help` load this module but never send.
 *  - Only the Agent's own files are loaded (about twenty), not undici's index.js: that one loads
 *    undici's fetch, cookies, WebSocket, mocks and cache stores too (about a hundred and ten files,
 *    ~80 ms of a warm plan's start-up), none of which we use (the requests go through the global
 *    fetch). undici 7 has no "exports" map, so its file path is reachable; the type still comes
 *    from 'undici' (test/cli/startup-imports.test.ts checks what is loaded, and
 *    test/api/transport.test.ts that the Agent still carries the requests).
 *  - The Agent gives a keep-alive pool sized to the parallelism (Node 20's fetch accepts an undici 7
 *    dispatcher; test/api/transport.test.ts proves it against a real node:http server).
 *  - `globalThis.fetch` is looked up at call time, not captured at import, so that nock 14 (which
 *    patches the global fetch, but not `undici.request` nor undici's own `fetch`) can intercept the
 *    client in the fault-handling tests.
 */
import { inspect } from 'node:util';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import { createRequire } from 'node:module';
import type { Agent } from 'undici';
import { ApiError } from './errors.js';
import { authorizationHeader, parseAuthScheme, type AuthScheme } from './auth.js';
import { ConcurrencyQueue } from './queue.js';
import { RateLimitBudget, parseRateLimitHeaders, type RateLimitSnapshot } from './rate-limit.js';
import { decideNext, retryableByDefault, type AttemptOutcome, type AttemptState, type RetryPolicy } from './retry-policy.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { RequestCounter, type RequestStats } from './stats.js';
import { endpointTemplate, fillPath, normaliseBaseUrl, queryString, type PathParams, type Query } from './path.js';
import { serialiseBody } from './redact.js';
import { RateLimitWaitError } from './rate-limit-cap.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** Progress the CLI may show: what is retried, how long the rate limit makes us wait. */
export type ApiEvent =
  | { type: 'request'; method: HttpMethod; path: string; attempt: number }
  | { type: 'response'; method: HttpMethod; path: string; status: number; attempt: number; durationMs: number }
  /** `attempt` is the number of the attempt about to be made (2 for the first retry). */
  | { type: 'retry'; method: HttpMethod; path: string; attempt: number; reason: string; delayMs: number }
  | { type: 'rate-limit-wait'; seconds: number; until: string };

/** A fetch-compatible function (the global fetch, or a test double). */
export type FetchLike = (url: string, init: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

export interface ApiClientOptions {
  baseUrl: string;
  /** Kept in a private field; it appears in no error, event, log or inspect output. */
  token: string;
  /** 'Token', 'Bearer' or 'auto' (default: Bearer for a JWT, Token otherwise). Case-insensitive. */
  authScheme?: AuthScheme | 'auto' | string;
  /** Requests in flight at most (default 8); also the size of the keep-alive pool. */
  parallelism?: number;
  /** Per attempt, including reading the body (default 30 s). */
  timeoutMs?: number;
  /** Retries of a retryable failure (5xx, timeout, dropped connection), default 4. */
  retries?: number;
  /**
   * Retries of a quick retryable failure (5xx, dropped connection), default 6, or `retries` when
   * that is given: a timeout costs a whole request timeout, a 5xx a few milliseconds.
   */
  fastRetries?: number;
  /** How many 429s in a row one request waits out before giving up (default 20). */
  rateLimitRetries?: number;
  onEvent?: (event: ApiEvent) => void;
  /** Epoch milliseconds; injectable so that tests control time. */
  now?: () => number;
  /** Resolves after `ms`, or early when `signal` aborts. Injectable so that tests do not wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** [0,1) source for the backoff jitter. */
  random?: () => number;
  userAgent?: string;
  /** When it aborts, no new request is sent; requests in flight finish. */
  signal?: AbortSignal;
  backoff?: BackoffOptions;
  /**
   * Longest rate-limit wait accepted, in ms (--max-wait): a request whose wait for the budget would
   * be longer fails with a RateLimitWaitError, unsent, instead of sleeping. Default: no cap.
   */
  maxWaitMs?: number;
  /** IANA zone for the local time in a RateLimitWaitError's message (default: the process's). */
  timeZone?: string;
  /** Extra wait after X-RateLimit-Reset, for servers that round the timestamp down (default 1000). */
  resetSlackMs?: number;
  /** Transport override (tests, in-process servers). Default: global fetch + undici Agent. */
  fetch?: FetchLike;
}

export interface RequestOptions {
  params?: PathParams;
  query?: Query;
  /** JSON body; `SecretValue`s inside are revealed only into the wire body. */
  body?: unknown;
  /**
   * Opt a POST into retries: for actions with no side effect when they fail (validation calls,
   * reads expressed as POST). PUT, GET and DELETE are retried anyway.
   */
  retry?: boolean;
  /** Overrides the client's timeout for this call (e.g. a long-running parse). */
  timeoutMs?: number;
}

export interface ApiResponse<T> {
  status: number;
  body: T;
}

/** Transport failures that happen before a byte of the request left: safe to retry, even a POST. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);


export interface ApiClient {
  request<T = unknown>(method: HttpMethod, pathTemplate: string, opts?: RequestOptions): Promise<T>;
  call<T = unknown>(method: HttpMethod, pathTemplate: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  get<T = unknown>(pathTemplate: string, opts?: RequestOptions): Promise<T>;
  post<T = unknown>(pathTemplate: string, opts?: RequestOptions): Promise<T>;
  put<T = unknown>(pathTemplate: string, opts?: RequestOptions): Promise<T>;
  delete<T = unknown>(pathTemplate: string, opts?: RequestOptions): Promise<T>;
  /** Requests sent so far (retries included), by method and by endpoint template. */
  stats(): RequestStats;
  resetStats(): void;
  rateLimit(): RateLimitSnapshot;
  /**
   * The error the next request would fail with now because its rate-limit wait exceeds the cap
   * (undefined without a cap, or when it could be sent within it): lets apply refuse before its
   * first write instead of failing in the middle.
   */
  waitBeyondCap(): RateLimitWaitError | undefined;
  /** Requests holding a slot now, waiting for one, and the most ever held at once. */
  load(): { active: number; waiting: number; peak: number };
  /**
   * The API's clock: the `Date` header of the latest answer (second precision), or undefined
   * before the first answer or when the server sends none. The refresh cache measures ages and
   * checks its cursor against it, never against this machine's clock.
   */
  serverDate(): Date | undefined;
  readonly baseUrl: string;
  readonly parallelism: number;
  /** Closes the keep-alive pool. */
  close(): Promise<void>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  return new HttpApiClient(options);
}

/** undici's Agent class from its own file (see the header comment: not undici's index.js). */
function loadAgentClass(): typeof Agent {
  return createRequire(import.meta.url)('undici/lib/dispatcher/agent.js') as typeof Agent;
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleepTimer(ms, undefined, { signal });
  } catch {
    // aborted: the caller checks the signal
  }
}

class HttpApiClient implements ApiClient {
  readonly baseUrl: string;
  readonly parallelism: number;
  readonly #authorization: string;
  /** Strings that must never leave the client: the token and the header built from it. */
  readonly #forbidden: string[];
  /** The keep-alive pool, created with the first request (undefined until then, or with a `fetch` override). */
  #agent?: Agent;
  readonly #fetch: FetchLike;
  readonly #queue: ConcurrencyQueue;
  readonly #budget: RateLimitBudget;
  readonly #counter = new RequestCounter();
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #fastRetries: number;
  readonly #rateLimitRetries: number;
  readonly #onEvent?: (e: ApiEvent) => void;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #userAgent: string;
  readonly #signal?: AbortSignal;
  readonly #backoff: BackoffOptions;
  readonly #maxWaitMs?: number;
  readonly #timeZone?: string;
  #announcedWaitUntil = 0;
  #settled = deferred();
  #serverDate?: Date;

  constructor(o: ApiClientOptions) {
    if (typeof o.token !== 'string' || o.token.trim() === '') {
      throw new Error('no API token: set DRIFTLESS_API_TOKEN');
    }
    if (!/^[\x21-\x7e]+$/.test(o.token.trim())) {
      // An HTTP header carries visible ASCII only; say so without echoing the token.
      throw new Error('the API token contains spaces, line breaks or non-ASCII characters: check DRIFTLESS_API_TOKEN');
    }
    this.baseUrl = normaliseBaseUrl(o.baseUrl);
    this.parallelism = o.parallelism ?? 8;
    this.#queue = new ConcurrencyQueue(this.parallelism);
    const token = o.token.trim();
    this.#authorization = authorizationHeader(token, parseAuthScheme(o.authScheme));
    this.#forbidden = [this.#authorization, token];
    this.#timeoutMs = positive(o.timeoutMs ?? 30_000, 'timeoutMs');
    this.#retries = nonNegative(o.retries ?? 4, 'retries');
    this.#fastRetries = nonNegative(o.fastRetries ?? o.retries ?? 6, 'fastRetries');
    this.#rateLimitRetries = nonNegative(o.rateLimitRetries ?? 20, 'rateLimitRetries');
    this.#onEvent = o.onEvent;
    this.#now = o.now ?? Date.now;
    this.#sleep = o.sleep ?? defaultSleep;
    this.#random = o.random ?? Math.random;
    this.#userAgent = o.userAgent ?? 'driftless';
    this.#signal = o.signal;
    this.#backoff = o.backoff ?? DEFAULT_BACKOFF;
    this.#budget = new RateLimitBudget(o.resetSlackMs ?? 1000);
    if (o.maxWaitMs !== undefined) this.#maxWaitMs = nonNegativeNumber(o.maxWaitMs, 'maxWaitMs');
    this.#timeZone = o.timeZone;
    if (o.fetch) {
      this.#fetch = o.fetch;
    } else {
      const connections = this.parallelism;
      const agent = (): Agent => (this.#agent ??= new (loadAgentClass())({ connections, keepAliveTimeout: 10_000, pipelining: 1 }));
      // Looked up per call so that an interceptor installed later (nock) sees the request.
      this.#fetch = async (url, init) => globalThis.fetch(url, { ...init, dispatcher: agent() } as unknown as RequestInit);
    }
    this.#signal?.addEventListener('abort', () => this.#queue.rejectWaiting(() => new Error('aborted')), { once: true });
  }

  [inspect.custom](): string {
    return `ApiClient { baseUrl: '${this.baseUrl}', parallelism: ${this.parallelism}, token: [hidden] }`;
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl, parallelism: this.parallelism };
  }

  stats(): RequestStats {
    return this.#counter.snapshot();
  }

  resetStats(): void {
    this.#counter.reset();
  }

  rateLimit(): RateLimitSnapshot {
    return this.#budget.snapshot();
  }

  waitBeyondCap(): RateLimitWaitError | undefined {
    const now = this.#now();
    return this.#cappedWait('-', '-', now, this.#budget.delayBeforeSend(now));
  }

  /** A RateLimitWaitError when waiting `delay` for the spent budget would exceed the cap. */
  #cappedWait(method: string, path: string, now: number, delay: number): RateLimitWaitError | undefined {
    if (this.#maxWaitMs === undefined || delay <= this.#maxWaitMs || !this.#budget.isExhausted(now)) return undefined;
    const b = this.#budget.snapshot();
    const blocked = b.blockedUntil !== undefined && b.blockedUntil > now ? b.blockedUntil : undefined;
    const resetAt = Math.max(blocked ?? 0, b.resetAt ?? 0) || now + delay;
    const wait = { waitMs: delay, maxWaitMs: this.#maxWaitMs, resetAt, sent: this.#counter.snapshot().total, ...(b.limit !== undefined ? { limit: b.limit } : {}), ...(b.remaining !== undefined ? { remaining: Math.max(0, b.remaining - b.inFlight) } : {}) };
    return new RateLimitWaitError(method, path, wait, now, this.#timeZone);
  }

  load(): { active: number; waiting: number; peak: number } {
    return { active: this.#queue.active, waiting: this.#queue.waiting, peak: this.#queue.peakActive };
  }

  async close(): Promise<void> {
    await this.#agent?.close();
  }

  serverDate(): Date | undefined {
    return this.#serverDate;
  }

  get<T>(p: string, o?: RequestOptions): Promise<T> {
    return this.request<T>('GET', p, o);
  }
  post<T>(p: string, o?: RequestOptions): Promise<T> {
    return this.request<T>('POST', p, o);
  }
  put<T>(p: string, o?: RequestOptions): Promise<T> {
    return this.request<T>('PUT', p, o);
  }
  delete<T>(p: string, o?: RequestOptions): Promise<T> {
    return this.request<T>('DELETE', p, o);
  }

  async request<T>(method: HttpMethod, pathTemplate: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.call<T>(method, pathTemplate, opts)).body;
  }

  async call<T>(method: HttpMethod, pathTemplate: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const path = fillPath(pathTemplate, opts.params);
    if (this.#signal?.aborted) throw this.#abortedError(method, path);
    const url = this.baseUrl + path + queryString(opts.query);
    const body = opts.body === undefined ? undefined : serialiseBody(opts.body);
    const secrets = body ? [...this.#forbidden, ...body.secrets] : this.#forbidden;
    const retryable = opts.retry ?? retryableByDefault(method, pathTemplate);
    const endpoint = endpointTemplate(pathTemplate);
    const headers: Record<string, string> = {
      authorization: this.#authorization,
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    if (body) headers['content-type'] = 'application/json';

    let release: () => void;
    try {
      release = await this.#queue.acquire();
    } catch {
      throw this.#abortedError(method, path);
    }
    const policy: RetryPolicy = { retryable, retries: this.#retries, fastRetries: this.#fastRetries, rateLimitRetries: this.#rateLimitRetries };
    const state: AttemptState = { failures: 0, rateLimited: 0 };
    try {
      for (let attempt = 1; ; attempt++) {
        await this.#reserveBudget(method, path);
        this.#counter.recordSend(method, endpoint, attempt > 1);
        this.#emit({ type: 'request', method, path, attempt });
        const started = this.#now();
        const outcome = await this.#attempt(url, method, headers, body?.json, opts.timeoutMs ?? this.#timeoutMs);
        const now = this.#now();
        this.#budget.onSettled(outcome.type === 'response' ? parseRateLimitHeaders(outcome.headers, now) : undefined, now);
        this.#notifySettled();
        if (outcome.type === 'response') {
          const date = Date.parse(outcome.headers.get('date') ?? '');
          if (!Number.isNaN(date)) this.#serverDate = new Date(date);
          this.#emit({ type: 'response', method, path, status: outcome.status, attempt, durationMs: now - started });
          if (outcome.status === 429) this.#counter.recordRateLimited();
        }

        const next = decideNext(outcome, state, policy, now, secrets);
        switch (next.type) {
          case 'done':
            return { status: next.status, body: parseBody<T>(next.text) };
          case 'fail':
            throw new ApiError({ ...next.error, method, path, attempts: attempt });
          case 'rate-limited': {
            state.rateLimited++;
            const until = next.untilMs ?? now + backoffDelay(state.rateLimited, this.#random, this.#backoff);
            // The wait itself happens in #reserveBudget, which every request goes through.
            this.#budget.block(until);
            this.#emit({ type: 'retry', method, path, attempt: attempt + 1, reason: 'rate limited (HTTP 429)', delayMs: Math.max(0, until - now) });
            break;
          }
          case 'retry':
            state.failures++;
            await this.#backoffBeforeRetry(method, path, attempt, state.failures, next.reason, next.minDelayMs);
            break;
        }
      }
    } finally {
      release();
    }
  }

  async #attempt(url: string, method: HttpMethod, headers: Record<string, string>, body: string | undefined, timeoutMs: number): Promise<AttemptOutcome> {
    // Deliberately not the caller's signal: on Ctrl-C, requests in flight finish.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    try {
      const res = await this.#fetch(url, { method, headers, body, signal: timeout.signal, redirect: 'manual' });
      const text = await res.text();
      return { type: 'response', status: res.status, headers: res.headers, text };
    } catch (e) {
      if (timeout.signal.aborted) return { type: 'timeout' };
      const code = errorCode(e);
      return { type: 'network', code, sent: code === undefined || !NOT_SENT_CODES.has(code) };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Rate-limit pacing: returns once this request may be sent, having counted it as in flight in
   * the same synchronous step as the check (so concurrent callers cannot all take the last unit).
   * Wakes up early when a response in flight may have changed the budget.
   */
  async #reserveBudget(method: string, path: string): Promise<void> {
    for (;;) {
      if (this.#signal?.aborted) throw this.#abortedError(method, path);
      const now = this.#now();
      const delay = this.#budget.delayBeforeSend(now);
      if (delay <= 0) {
        this.#budget.onSend();
        return;
      }
      const capped = this.#cappedWait(method, path, now, delay);
      if (capped) throw capped;
      const until = now + delay;
      if (this.#budget.isExhausted(now) && until > this.#announcedWaitUntil + 1000) {
        this.#announcedWaitUntil = until;
        this.#emit({ type: 'rate-limit-wait', seconds: Math.ceil(delay / 1000), until: new Date(until).toISOString() });
      }
      await this.#sleepUntilSettledOr(delay);
      this.#counter.recordWait(Math.max(0, this.#now() - now));
    }
  }

  /**
   * Sleeps `ms`, but returns as soon as a request in flight settles (its headers may grant budget)
   * or the caller's signal aborts.
   */
  async #sleepUntilSettledOr(ms: number): Promise<void> {
    if (!this.#budget.hasInFlight) return this.#sleep(ms, this.#signal);
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    this.#signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([this.#sleep(ms, stop.signal), this.#settled.promise]);
    } finally {
      stop.abort();
      this.#signal?.removeEventListener('abort', onAbort);
    }
  }

  #notifySettled(): void {
    const done = this.#settled.resolve;
    this.#settled = deferred();
    done();
  }

  async #backoffBeforeRetry(method: HttpMethod, path: string, attempt: number, failures: number, reason: string, minDelayMs = 0): Promise<void> {
    if (this.#signal?.aborted) throw this.#abortedError(method, path);
    const delayMs = Math.max(minDelayMs, backoffDelay(failures, this.#random, this.#backoff));
    this.#emit({ type: 'retry', method, path, attempt: attempt + 1, reason, delayMs });
    await this.#sleep(delayMs, this.#signal);
    if (this.#signal?.aborted) throw this.#abortedError(method, path);
  }

  #abortedError(method: string, path: string): ApiError {
    return new ApiError({ kind: 'aborted', method, path, attempts: 0 });
  }

  #emit(e: ApiEvent): void {
    if (!this.#onEvent) return;
    try {
      this.#onEvent(e);
    } catch {
      // A broken listener must not break requests.
    }
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function parseBody<T>(text: string): T {
  if (text.trim() === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as T;
  }
}

function errorCode(e: unknown): string | undefined {
  const pick = (x: unknown): string | undefined =>
    x && typeof x === 'object' && typeof (x as { code?: unknown }).code === 'string' ? (x as { code: string }).code : undefined;
  const cause = e && typeof e === 'object' ? (e as { cause?: unknown }).cause : undefined;
  const code = pick(cause) ?? pick(e);
  return code && /^[A-Z0-9_]+$/.test(code) ? code : undefined;
}

function positive(n: number, name: string): number {
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${n}`);
  return n;
}

function nonNegativeNumber(n: number, name: string): number {
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${n}`);
  return n;
}

function nonNegative(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${n}`);
  return n;
}
