/**
 * Seed section 8: a fixed window per token (1000 requests per hour by default). Every response
 * carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix seconds); once the
 * budget is spent the answer is 429 with Retry-After until the window resets.
 */
import type { Clock } from './context.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix timestamp (seconds) at which the window resets. */
  reset: number;
  retryAfterS: number;
}

export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  constructor(
    readonly limit: number,
    readonly windowS: number,
    readonly clock: Clock,
  ) {}

  hit(key: string): RateDecision {
    const now = this.clock.now().getTime();
    let w = this.#windows.get(key);
    if (!w || now >= w.start + this.windowS * 1000) {
      w = { start: now, count: 0 };
      this.#windows.set(key, w);
    }
    const resetMs = w.start + this.windowS * 1000;
    const allowed = w.count < this.limit;
    if (allowed) w.count++;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - w.count),
      reset: Math.ceil(resetMs / 1000),
      retryAfterS: Math.max(1, Math.ceil((resetMs - now) / 1000)),
    };
  }
}
