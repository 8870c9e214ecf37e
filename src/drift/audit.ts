/**
 * Drift's read of the audit log: only the events since the earliest write or deployment of a
 * drifted object (./changed-by.ts windowStart), a few pages at most, and none when nothing drifted
 * or when the events the refresh read in the same run already say who made each change.
 * Where the log cannot be read -- a 403 (the token may not read it), a 404 (an API without it), an
 * answer the reader does not understand, more pages than a drift report is worth -- the report keeps
 * the timestamps' inference, and says that it is one and why.
 */
import { errorStatus, isRateLimitWaitRefusal, type ApiPort } from '../live/api-port.js';
import { AuditLogError, compareEvents, readEventsSince, type AuditEvent } from '../live/audit-log.js';
import type { LiveState } from '../model/resource.js';
import { attributeFromAuditLog, inferredReport, partlyInferredReport, settledByWindow, windowStart, type OwnWriter } from './changed-by.js';
import type { DriftReport } from './detect.js';

/** More pages than this (100 events each) since the window's start: the inference is kept. */
export const DRIFT_EVENT_PAGES = 10;

/**
 * `known`: the events this run's refresh already read (every event since the cache's cursor). An
 * item they settle (./changed-by.ts settledByWindow) is attributed from them; the log is read again
 * only for the others, from their own window's start, so a drift of recent edits costs no request
 * more than the refresh's.
 */
export async function attributeDrift(api: ApiPort, report: DriftReport, live: LiveState, own: OwnWriter, known?: readonly AuditEvent[]): Promise<DriftReport> {
  if (report.items.length === 0) return report;
  const pending = known ? report.items.filter((i) => !settledByWindow(i, live, known, own)) : report.items;
  if (known && pending.length === 0) return attributeFromAuditLog(report, live, known, own);
  const start = windowStart({ ...report, items: pending });
  try {
    const read = await readEventsSince(api, live.organizationId, start ? { timestamp: start, ids: [] } : undefined, { maxPages: DRIFT_EVENT_PAGES });
    return attributeFromAuditLog(report, live, known ? mergeEvents(read.events, known) : read.events, own);
  } catch (e) {
    // A wait beyond --max-wait stops the run (exit 1) as anywhere else.
    if (isRateLimitWaitRefusal(e)) throw e;
    // What the refresh's events settle stays attributed from them.
    return known ? partlyInferredReport(report, live, known, own, unavailableReason(e)) : inferredReport(report, unavailableReason(e));
  }
}

/** Both reads' events, each once, oldest first. */
function mergeEvents(a: readonly AuditEvent[], b: readonly AuditEvent[]): AuditEvent[] {
  const byId = new Map<string, AuditEvent>();
  for (const e of [...a, ...b]) byId.set(e.id, e);
  return [...byId.values()].sort(compareEvents);
}

function unavailableReason(e: unknown): string {
  if (e instanceof AuditLogError) return `the audit log could not be used: ${e.message}`;
  const status = errorStatus(e);
  if (status === 403) return 'the token may not read the audit log (403)';
  if (status === 404) return 'the API has no audit log (404)';
  const kind = (e as { kind?: unknown } | null)?.kind;
  return `the audit log could not be read (${status ? `HTTP ${status}` : typeof kind === 'string' ? kind : 'no answer'})`;
}
