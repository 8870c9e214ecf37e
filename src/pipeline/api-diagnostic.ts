/** apiDiagnostic: an API failure as a diagnostic, for every stage and command that reads or writes. */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import { isApiError, isRateLimitWaitError } from '../api/index.js';

/** An API failure as a diagnostic: what failed and what to do (never a header or a token). */
export function apiDiagnostic(e: unknown, doing: string): Diagnostic {
  if (isRateLimitWaitError(e)) {
    // Not a failure of the API: the run chose not to wait. Say when to come back, and how to wait.
    return error('api.rate-limit-wait', `${doing} stopped: ${e.message}`, {
      detail: 'Run again after the reset, or allow a longer wait with a larger --max-wait (or DRIFTLESS_MAX_WAIT); without either, driftless waits for the reset.',
    });
  }
  if (isApiError(e)) {
    const detail: Record<string, string> = {
      unauthorized: 'Check DRIFTLESS_API_TOKEN: it is missing, invalid or expired.',
      forbidden: 'The token lacks the permission for this call; use a token with the Read scope (plan) or Write and Deploy scopes (apply).',
      network: 'Check DRIFTLESS_API_URL and that the API is reachable.',
      timeout: 'The API did not answer in time; try again, or lower --parallelism.',
      'rate-limited': 'The API rate limit was exhausted; wait for the window to reset and try again.',
    };
    return error(`api.${e.kind}`, `${doing} failed: ${e.message}`, detail[e.kind] ? { detail: detail[e.kind] } : {});
  }
  return error('api.error', `${doing} failed: ${e instanceof Error ? e.message : String(e)}`);
}
