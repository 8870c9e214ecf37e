/**
 * Exponential backoff with "equal jitter": half of the exponential step is fixed, half random, so
 * that clients retrying together spread out but none retries immediately.
 */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 15_000 };

/** `attempt` is 1 for the first retry. `random` returns a number in [0, 1). */
export function backoffDelay(attempt: number, random: () => number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const step = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}
