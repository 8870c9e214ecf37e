/**
 * The cap on a rate-limit wait (`--max-wait`, DRIFTLESS_MAX_WAIT): when the budget is spent and the
 * next request would wait longer than the cap, the client fails it with a RateLimitWaitError
 * instead of sleeping, so that a CI job fails in seconds with the reset time rather than sitting
 * silent until its own timeout kills it. Pure text and data; the client decides when.
 */
import { ApiError } from './errors.js';

export interface CappedWait {
  /** How long the request would have had to wait, in ms. */
  waitMs: number;
  /** The cap it exceeded, in ms. */
  maxWaitMs: number;
  /** Epoch ms at which the window resets (or a 429's Retry-After ends). */
  resetAt: number;
  /** From X-RateLimit-Limit / -Remaining, when the server sent them. */
  limit?: number;
  remaining?: number;
  /** Requests this run sent so far. */
  sent: number;
}

/** "45 s", "57 min 29 s", "2 h 5 min": a wait a reader takes in at a glance. */
export function spokenDuration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.round((s % 3600) / 60);
  return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ''}`;
}

/** ISO 8601 in UTC to the second (a machine or a colleague in another zone), e.g. 2026-11-25T15:50:00Z. */
export function isoSecond(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The same instant on the reader's clock, with its zone, e.g. "Nov 25, 2026, 4:50:00 PM GMT+1". */
export function localTime(ms: number, timeZone?: string): string {
  const at = new Date(Math.ceil(ms / 1000) * 1000);
  try {
    return new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'long', ...(timeZone ? { timeZone } : {}) }).format(at);
  } catch {
    // An unknown TZ name: UTC is still right, only less convenient.
    return new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'long', timeZone: 'UTC' }).format(at);
  }
}

/**
 * "1000 of 1000 requests of this window used, 0 left" from the server's headers; without them,
 * what this run sent.
 */
export function budgetText(w: { limit?: number; remaining?: number; sent: number }): string {
  if (w.limit === undefined || w.remaining === undefined) return `this run sent ${w.sent} request${w.sent === 1 ? '' : 's'}`;
  return `${Math.max(0, w.limit - w.remaining)} of ${w.limit} requests of this window used, ${w.remaining} left`;
}

export function describeCappedWait(w: CappedWait, now: number, timeZone?: string): string {
  return (
    `the API rate limit is spent and the next request would wait ${spokenDuration(w.waitMs)}, more than the maximum wait of ` +
    `${spokenDuration(w.maxWaitMs)} (--max-wait or DRIFTLESS_MAX_WAIT). The window resets at ${isoSecond(w.resetAt)} ` +
    `(${localTime(w.resetAt, timeZone)}, in ${spokenDuration(w.resetAt - now)}); ${budgetText(w)}.`
  );
}

/** A request not sent because its rate-limit wait would exceed the cap: nothing of it reached the API. */
export class RateLimitWaitError extends ApiError {
  readonly wait: CappedWait;

  constructor(method: string, path: string, wait: CappedWait, now: number, timeZone?: string) {
    super({ kind: 'rate-limit-wait', method, path, attempts: 0 });
    this.wait = wait;
    // The message is the whole story (a step failure shows e.message): the reset time and the budget.
    this.message = describeCappedWait(wait, now, timeZone);
  }
}

export function isRateLimitWaitError(e: unknown): e is RateLimitWaitError {
  return e instanceof RateLimitWaitError;
}
