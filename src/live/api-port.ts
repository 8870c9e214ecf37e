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
  const status = errorStatus(e);
  if (status === undefined) return true;
  return status >= 500;
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
