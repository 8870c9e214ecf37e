/**
 * Typed API failures. Callers branch on `kind`, never on message text.
 *
 * An ApiError carries the method, the path (never a query string), the HTTP status and the
 * server's own `message`, but never the request body (it may hold secret values) and never a
 * header (the Authorization header holds the token).
 */
export type ApiErrorKind =
  | 'unauthorized' // 401: token missing, invalid or expired
  | 'forbidden' // 403: token lacks the permission; NOT a sign that the resource is absent
  | 'not-found' // 404
  | 'conflict' // 409 / 412: name taken, operation in progress
  | 'validation' // 400 / 422 and other 4xx: the request itself is wrong
  | 'rate-limited' // 429 still returned after the retry budget for 429s was spent
  | 'server' // 5xx on a request that may safely be retried (after retries were exhausted)
  | 'timeout' // no answer within timeoutMs (after retries, for idempotent requests)
  | 'network' // connection refused / reset / DNS (after retries, for idempotent requests)
  | 'ambiguous' // a non-idempotent request failed in a way that leaves unknown whether it applied
  | 'billing' // refused because of the organization's billing restriction
  | 'aborted' // the caller's AbortSignal fired before the request was sent
  | 'rate-limit-wait'; // not sent: the rate-limit wait would exceed the cap (--max-wait)

export interface ApiErrorInit {
  kind: ApiErrorKind;
  method: string;
  path: string;
  status?: number;
  /** The server's `message` (already scrubbed of secrets), or a description of the local failure. */
  serverMessage?: string;
  /** For `ambiguous`: what happened (server error, timeout or dropped connection). */
  reason?: 'server' | 'timeout' | 'network';
  /** Number of attempts made, retries included. */
  attempts?: number;
  /** Low-level error code of a transport failure (ECONNRESET, ...). Never a header or a body. */
  code?: string;
}

const KIND_TEXT: Record<ApiErrorKind, string> = {
  unauthorized: 'the API token is missing, invalid or expired',
  forbidden: 'the API token lacks the permission for this operation',
  'not-found': 'not found',
  conflict: 'conflict',
  validation: 'the API rejected the request',
  'rate-limited': 'rate limit exceeded',
  server: 'server error',
  timeout: 'no response in time',
  network: 'network error',
  ambiguous: 'the request may or may not have been applied',
  billing: "refused because of the organization's billing restriction",
  aborted: 'interrupted before the request was sent',
  'rate-limit-wait': 'not sent: the rate-limit wait would exceed the maximum wait',
};

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly method: string;
  readonly path: string;
  /** HTTP status, 0 when no response was received (timeout, network, aborted). */
  readonly status: number;
  readonly serverMessage?: string;
  readonly reason?: 'server' | 'timeout' | 'network';
  readonly attempts: number;
  readonly code?: string;

  constructor(init: ApiErrorInit) {
    super(formatMessage(init));
    this.kind = init.kind;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status ?? 0;
    this.serverMessage = init.serverMessage;
    this.reason = init.reason;
    this.attempts = init.attempts ?? 1;
    this.code = init.code;
  }

  /** True when retrying the same call later could succeed without changing anything. */
  get transient(): boolean {
    return ['rate-limited', 'server', 'timeout', 'network'].includes(this.kind);
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

function formatMessage(init: ApiErrorInit): string {
  const status = init.status ? ` (HTTP ${init.status})` : '';
  let text = `${init.method} ${init.path}${status}: ${KIND_TEXT[init.kind]}`;
  if (init.kind === 'ambiguous' && init.reason) {
    const what = { server: 'server error', timeout: 'timed out', network: 'connection dropped' }[init.reason];
    text += ` (${what}${init.code ? ` ${init.code}` : ''})`;
  } else if (init.code) {
    text += ` (${init.code})`;
  }
  if (init.serverMessage) text += `: ${init.serverMessage}`;
  return text;
}

/** Maps an HTTP error status (and the server's message) to an error kind. */
export function kindForStatus(status: number, serverMessage = ''): ApiErrorKind {
  if (status === 402) return 'billing';
  if (status >= 400 && status < 500 && status !== 401 && status !== 404 && status !== 429 && /billing/i.test(serverMessage)) {
    // The seed leaves the status of a billing refusal open; the message names it.
    return 'billing';
  }
  switch (status) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not-found';
    case 409:
    case 412:
      return 'conflict';
    case 429:
      return 'rate-limited';
  }
  if (status >= 500) return 'server';
  return 'validation';
}
