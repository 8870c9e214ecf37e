/**
 * The narrow slice of the HTTP client that live-state reading and apply need.
 *
 * Reading and applying are written against this interface rather than the client module, so they
 * can be unit-tested with an in-memory fake and so the client's transport concerns (auth, retries,
 * rate-limit pacing) stay in src/api. `requestCount` is the number of HTTP requests sent so far,
 * retries included, which is what the request budget counts.
 */
export type Query = Record<string, string | number | boolean | undefined>;

export interface ApiPort {
  get<T = unknown>(path: string, query?: Query): Promise<T>;
  post<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T>;
  put<T = unknown>(path: string, body?: unknown): Promise<T>;
  delete(path: string, query?: Query): Promise<void>;
  /** Requests sent so far through this port (retries included). */
  readonly requestCount: number;
  /** The API's clock: the `Date` header of the latest answer, when the server sent one. */
  serverDate?(): Date | undefined;
  /**
   * A port whose reads go to the API whatever a cache would answer (the refresh cache's port,
   * src/live/refresh.ts): what a plan deletes with its parent is read so (src/live/read.ts). A port
   * without it reads live already.
   */
  live?(): ApiPort;
}

/** The HTTP status of an API error, when the server answered at all. */
export function errorStatus(e: unknown): number | undefined {
  if (e && typeof e === 'object') {
    const o = e as { status?: unknown; statusCode?: unknown };
    if (typeof o.status === 'number') return o.status;
    if (typeof o.statusCode === 'number') return o.statusCode;
  }
  return undefined;
}

/**
 * A write whose outcome is unknown: the server may have committed it before the answer was lost
 * (connection dropped, timeout, 5xx). Such a create must be resolved by looking the object up
 * before it is retried, or a duplicate may be created.
 */
export function isAmbiguousFailure(e: unknown): boolean {
  const kind = (e as { kind?: unknown } | null)?.kind;
  if (typeof kind === 'string') return ['ambiguous', 'server', 'timeout', 'network'].includes(kind);
  const status = errorStatus(e);
  // No answer at all (status unknown or 0) is as ambiguous as a 5xx.
  return status === undefined || status === 0 || status >= 500;
}

/** A 404: the object is gone (deleted out of band, or its parent was). */
export function isNotFound(e: unknown): boolean {
  return (e as { kind?: unknown } | null)?.kind === 'not-found' || errorStatus(e) === 404;
}

/** A 401 or 403: the token itself was refused, so every further request would be too. */
export function isAuthRefusal(e: unknown): boolean {
  const kind = (e as { kind?: unknown } | null)?.kind;
  const status = errorStatus(e);
  return kind === 'unauthorized' || kind === 'forbidden' || status === 401 || status === 403;
}

/**
 * A request not sent because its wait for the rate limit would exceed --max-wait: every further
 * request would wait as long, so an apply starts no more steps.
 */
export function isRateLimitWaitRefusal(e: unknown): boolean {
  return (e as { kind?: unknown } | null)?.kind === 'rate-limit-wait';
}

export function errorMessage(e: unknown): string {
  if (e && typeof e === 'object') {
    const o = e as { message?: unknown; body?: unknown };
    const body = o.body as { message?: unknown } | undefined;
    if (body && typeof body.message === 'string' && body.message) return body.message;
    if (typeof o.message === 'string' && o.message) return o.message;
  }
  return String(e);
}

/** The subset of src/api's ApiClient this adapter needs (structural, so tests can pass a fake). */
export interface ClientLike {
  get<T>(path: string, opts?: { query?: Query }): Promise<T>;
  post<T>(path: string, opts?: { query?: Query; body?: unknown }): Promise<T>;
  put<T>(path: string, opts?: { body?: unknown }): Promise<T>;
  delete<T>(path: string, opts?: { query?: Query }): Promise<T>;
  stats(): { total: number };
  serverDate?(): Date | undefined;
}

/**
 * An ApiPort over the real client. Paths are passed already filled in: the ids in them are UUIDs
 * the API itself returned, and the client only substitutes `{name}` templates.
 */
export function portFromClient(client: ClientLike): ApiPort {
  return {
    get: (path, query) => client.get(path, { query }),
    post: (path, body, query) => client.post(path, { body, query }),
    put: (path, body) => client.put(path, { body }),
    delete: async (path, query) => {
      await client.delete(path, { query });
    },
    get requestCount() {
      return client.stats().total;
    },
    serverDate: () => client.serverDate?.(),
  };
}
