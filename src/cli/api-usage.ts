/**
 * The one stderr line every command that called the API ends with: how many requests it sent and
 * what is left of the rate-limit window, so a CI log shows what a run costs before the budget runs
 * out. On stderr, never in a --json or markdown stdout.
 */
import type { CliIO } from './io.js';

export interface ApiUsage {
  /** HTTP requests sent, retries included. */
  requests: number;
  /** From the last X-RateLimit-Limit / -Remaining headers; absent when the API sent none. */
  limit?: number;
  remaining?: number;
  /** With a refresh cache (--cache): which reader ran, why a full one, and the refresh's requests. */
  refresh?: RefreshReport;
}

export interface RefreshReport {
  reader: 'refresh' | 'full';
  /** Why the full read ran (reader 'full'). */
  reason?: string;
  /** Requests spent on the refresh: the events, the lists they made stale (a refresh given up included). */
  requests: number;
}

/**
 * `104 API requests; 896 of 1000 left in this window`, or only the count without rate-limit headers;
 * with a refresh cache, `5 API requests (3 of them the refresh); ...`.
 */
export function usageLine(u: ApiUsage): string {
  const refresh = u.refresh ? ` (${u.refresh.requests} of them the refresh)` : '';
  const count = `${u.requests} API request${u.requests === 1 ? '' : 's'}${refresh}`;
  if (u.limit === undefined || u.remaining === undefined) return count;
  return `${count}; ${u.remaining} of ${u.limit} left in this window`;
}

/** Why a refresh cache could not be used, on one line: the run's cost is then the full read's. */
export function fullReadLine(r: RefreshReport): string | undefined {
  return r.reader === 'full' ? `Full read of the live state: ${r.reason ?? 'the cache could not be used'}.` : undefined;
}

/**
 * Writes the usage line of a session that was opened (none when the command never got that far),
 * after the line saying why the refresh cache was not used, if it was not.
 */
export function reportUsage(io: CliIO, session: { usage?(): ApiUsage } | undefined): void {
  const u = session?.usage?.();
  if (!u) return;
  const why = u.refresh && fullReadLine(u.refresh);
  if (why) io.stderr.write(why + '\n');
  io.stderr.write(usageLine(u) + '\n');
}
