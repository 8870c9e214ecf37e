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
}

/** `104 API requests; 896 of 1000 left in this window`, or only the count without rate-limit headers. */
export function usageLine(u: ApiUsage): string {
  const count = `${u.requests} API request${u.requests === 1 ? '' : 's'}`;
  if (u.limit === undefined || u.remaining === undefined) return count;
  return `${count}; ${u.remaining} of ${u.limit} left in this window`;
}

/** Writes the usage line of a session that was opened (none when the command never got that far). */
export function reportUsage(io: CliIO, session: { usage?(): ApiUsage } | undefined): void {
  const u = session?.usage?.();
  if (u) io.stderr.write(usageLine(u) + '\n');
}
