/**
 * The rate-limit budget, as the server reports it in `X-RateLimit-*` headers, and the pacing
 * decision derived from it. Pure: time is passed in, nothing here sleeps.
 *
 * Pacing rule: the very first request goes alone (the budget is unknown until it answers); then a
 * request may be sent while `remaining - inFlight > 0`. Requests in flight may or
 * may not already be counted in the last `remaining` the server reported, so counting them again is
 * the safe side: a plan that needs more requests than the budget waits for the reset instead of
 * receiving a 429. When the budget is spent, the next send waits until the reset time (plus a
 * slack, because a Unix timestamp in whole seconds may be rounded down by the server).
 */
export interface RateLimitSnapshot {
  limit?: number;
  remaining?: number;
  /** Epoch milliseconds at which the window resets. */
  resetAt?: number;
  inFlight: number;
  /** Epoch milliseconds before which nothing may be sent (set by a 429's Retry-After). */
  blockedUntil?: number;
}

export interface RateLimitHeaders {
  limit?: number;
  remaining?: number;
  resetAt?: number;
}

/** Headers-like view, so that this module does not depend on fetch's Headers. */
export interface HeaderGetter {
  get(name: string): string | null;
}

/** Reset values below this are taken as "seconds from now" rather than a Unix timestamp. */
const EPOCH_SECONDS_THRESHOLD = 1_000_000_000;

function num(v: string | null): number | undefined {
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export function parseRateLimitHeaders(h: HeaderGetter, nowMs: number): RateLimitHeaders {
  const reset = num(h.get('x-ratelimit-reset'));
  return {
    limit: num(h.get('x-ratelimit-limit')),
    remaining: num(h.get('x-ratelimit-remaining')),
    resetAt: reset === undefined ? undefined : reset < EPOCH_SECONDS_THRESHOLD ? nowMs + reset * 1000 : reset * 1000,
  };
}

/** `Retry-After` is either delta-seconds or an HTTP date; returns epoch ms, or undefined. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs)) return nowMs + Math.max(0, secs) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(nowMs, date);
}

export class RateLimitBudget {
  private limit?: number;
  private remaining?: number;
  private resetAt?: number;
  private blockedUntil?: number;
  private inFlight = 0;
  /** Whether any response (with or without rate-limit headers) has been received. */
  private answered = false;

  constructor(private readonly resetSlackMs = 1000) {}

  snapshot(): RateLimitSnapshot {
    return {
      limit: this.limit,
      remaining: this.remaining,
      resetAt: this.resetAt,
      inFlight: this.inFlight,
      blockedUntil: this.blockedUntil,
    };
  }

  /**
   * How long to wait before sending, in ms: 0 = send now; a number = sleep that long (or until a
   * response arrives, which may change the answer) and ask again.
   */
  delayBeforeSend(nowMs: number): number {
    this.rollWindow(nowMs);
    let blocked = 0;
    if (this.blockedUntil !== undefined) {
      if (nowMs < this.blockedUntil) blocked = this.blockedUntil - nowMs;
      else this.blockedUntil = undefined;
    }
    return Math.max(blocked, this.budgetDelay(nowMs));
  }

  private budgetDelay(nowMs: number): number {
    // Until the first answer, the budget is unknown (another run may have spent it): send one
    // request alone and learn from its headers, rather than a burst that could meet 429s.
    if (!this.answered) return this.inFlight > 0 ? 1000 : 0;
    if (this.remaining === undefined) return 0;
    if (this.remaining - this.inFlight > 0) return 0;
    if (this.resetAt === undefined) {
      // Budget spent and no reset announced: wait for the answers in flight (their headers say
      // more); with nothing in flight there is nothing to learn, so send and let a 429 tell us.
      return this.inFlight > 0 ? 1000 : 0;
    }
    return Math.max(1, this.resetAt + this.resetSlackMs - nowMs);
  }

  /**
   * Whether the budget is known to be spent until a reset or a Retry-After (a wait worth telling
   * the user about), as opposed to a short wait for the answers in flight.
   */
  isExhausted(nowMs: number): boolean {
    if (this.blockedUntil !== undefined && nowMs < this.blockedUntil) return true;
    return this.remaining !== undefined && this.remaining - this.inFlight <= 0 && this.resetAt !== undefined;
  }

  /** Whether a wait of `delayBeforeSend` could be cut short by a response in flight. */
  get hasInFlight(): boolean {
    return this.inFlight > 0;
  }

  onSend(): void {
    this.inFlight++;
  }

  /** Call once per sent request, with the response headers (or none when no response came). */
  onSettled(h: RateLimitHeaders | undefined, nowMs: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (!h) return;
    this.answered = true;
    if (h.limit !== undefined) this.limit = h.limit;
    if (h.remaining === undefined) return;
    const newWindow = h.resetAt !== undefined && (this.resetAt === undefined || h.resetAt > this.resetAt + 500);
    if (newWindow || this.remaining === undefined) {
      this.remaining = h.remaining;
    } else {
      // Responses can arrive out of order: within one window the smallest figure is the latest.
      this.remaining = Math.min(this.remaining, h.remaining);
    }
    if (h.resetAt !== undefined && (newWindow || this.resetAt === undefined)) this.resetAt = h.resetAt;
    this.rollWindow(nowMs);
  }

  /** A 429 told us to stop until `untilMs`. */
  block(untilMs: number): void {
    this.blockedUntil = Math.max(this.blockedUntil ?? 0, untilMs);
  }

  private rollWindow(nowMs: number): void {
    if (this.resetAt !== undefined && nowMs >= this.resetAt + this.resetSlackMs) {
      // A new window: assume the full limit until a response says otherwise.
      this.remaining = this.limit;
      this.resetAt = undefined;
    }
  }
}
