/**
 * The organization's audit log (`GET /organization/{id}/events`, getOrganizationEvents): the events
 * since a cursor, every page followed, oldest first.
 *
 * Used by the refresh reader (which lists an event touches) and by drift (who changed what). The
 * exported API is small on purpose: `readEventsSince`, `latestEventCursor`, the `AuditEvent` type and
 * the nanosecond timestamp helpers.
 *
 * Timestamps are nanosecond-precise (`2026-11-25T16:30:00.123456789Z`): they are compared as
 * integers of nanoseconds, never as JavaScript dates (milliseconds would merge distinct events).
 */
import type { ApiPort, Query } from './api-port.js';

export interface AuditEvent {
  id: string;
  /** ISO 8601 with up to nanosecond precision, as the API returned it. */
  timestamp: string;
  event_type: string;
  target_type: string;
  target_id?: string | null;
  target_name?: string;
  sub_target_type?: string | null;
  change?: string;
  origin?: string;
  triggered_by?: string;
  project_id?: string | null;
  project_name?: string;
  environment_id?: string | null;
  environment_name?: string;
}

/** Where a reader stopped: the newest event seen, and the ids of the events at exactly that instant. */
export interface EventCursor {
  timestamp: string;
  /** Events at `timestamp` already accounted for (fromTimestamp may or may not include its bound). */
  ids: string[];
}

export interface EventsSince {
  /** Oldest first; the events of `since.ids` left out. */
  events: AuditEvent[];
  /** The API says older events than asked for are gone (the organization's retention). */
  maxLimitReached: boolean;
  /** The cursor after these events (unchanged when there were none). */
  cursor: EventCursor | undefined;
  /** Requests sent. */
  requests: number;
}

export class AuditLogError extends Error {}

const PAGE_SIZE = 100;
/** A refresh that needs more pages than this costs more than the full read it replaces. */
const MAX_PAGES = 50;

export function eventsPath(organizationId: string): string {
  return `/organization/${organizationId}/events`;
}

/**
 * Every event after `since` (all the log holds when undefined), following `links.next`.
 * Throws the port's error when the endpoint fails (a 403/404 tells the caller the log is not
 * available to this token), and AuditLogError on an answer it cannot read.
 */
export async function readEventsSince(api: ApiPort, organizationId: string, since: EventCursor | undefined, opts: { maxPages?: number } = {}): Promise<EventsSince> {
  const maxPages = opts.maxPages ?? MAX_PAGES;
    // The bound as the API wrote it (RFC 3339 with nanoseconds); it includes events at that instant.
  const base: Query = { pageSize: PAGE_SIZE, ...(since ? { fromTimestamp: since.timestamp } : {}) };
  const seen = new Set(since?.ids ?? []);
  const byId = new Map<string, AuditEvent>();
  let maxLimitReached = false;
  let requests = 0;
  let token: string | undefined;
  const tokensUsed = new Set<string>();
  for (;;) {
    if (requests >= maxPages) throw new AuditLogError(`more than ${maxPages} pages of events since the last run`);
    const page = await api.get<unknown>(eventsPath(organizationId), token === undefined ? base : { ...base, continueToken: token });
    requests++;
    const parsed = parsePage(page);
    if (parsed.maxLimitReached) maxLimitReached = true;
    for (const e of parsed.events) {
      if (seen.has(e.id)) continue;
      // Bound inclusive or not, an event before the cursor is not new.
      if (since && toNanos(e.timestamp) < toNanos(since.timestamp)) continue;
      byId.set(e.id, e);
    }
    const next = parsed.next === undefined ? undefined : continueTokenOf(parsed.next);
    if (next === undefined || parsed.events.length === 0) break;
    // A token already followed would loop forever.
    if (tokensUsed.has(next)) throw new AuditLogError('the events endpoint returned the same page token twice');
    tokensUsed.add(next);
    token = next;
  }
  const events = [...byId.values()].sort(compareEvents);
  return { events, maxLimitReached, cursor: cursorAfter(since, events), requests };
}

/**
 * The cursor of a full read: the newest event the log holds now (one request), or undefined when the
 * log is empty. Taken BEFORE the lists are read, so that a change made during the read is replayed
 * by the next run rather than lost.
 */
export async function latestEventCursor(api: ApiPort, organizationId: string): Promise<{ cursor: EventCursor | undefined; maxLimitReached: boolean }> {
  const page = parsePage(await api.get<unknown>(eventsPath(organizationId), { pageSize: 1 }));
  // Whatever order the page has, its newest event is the bound.
  const newest = [...page.events].sort(compareEvents).at(-1);
  return { cursor: newest ? cursorAfter(undefined, [newest]) : undefined, maxLimitReached: page.maxLimitReached };
}

/** `2026-11-25T16:30:00.123456789Z` (any precision, any offset) -> nanoseconds since the epoch. */
export function toNanos(timestamp: string): bigint {
  if (/^\d+$/.test(timestamp)) return BigInt(timestamp);
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/.exec(timestamp);
  if (!m) throw new AuditLogError(`unreadable event timestamp ${JSON.stringify(timestamp.slice(0, 40))}`);
  const seconds = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(seconds)) throw new AuditLogError(`unreadable event timestamp ${JSON.stringify(timestamp.slice(0, 40))}`);
  return BigInt(seconds) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

export function compareEvents(a: AuditEvent, b: AuditEvent): number {
  const d = toNanos(a.timestamp) - toNanos(b.timestamp);
  return d < 0n ? -1 : d > 0n ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function cursorAfter(since: EventCursor | undefined, events: readonly AuditEvent[]): EventCursor | undefined {
  const last = events.at(-1);
  if (!last) return since;
  const at = toNanos(last.timestamp);
  const ids = events.filter((e) => toNanos(e.timestamp) === at).map((e) => e.id);
  // Events of the previous cursor at the same instant stay accounted for.
  if (since && toNanos(since.timestamp) === at) ids.push(...since.ids);
  return { timestamp: last.timestamp, ids: [...new Set(ids)].sort() };
}

interface Page {
  events: AuditEvent[];
  maxLimitReached: boolean;
  next?: string;
}

function parsePage(body: unknown): Page {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { events?: unknown }).events)) {
    throw new AuditLogError('the events endpoint answered without an events list');
  }
  const b = body as { events: unknown[]; organization_max_limit_reached?: unknown; links?: { next?: unknown } };
  const events = b.events.map((e, i) => {
    const ev = e as Partial<AuditEvent> | null;
    if (!ev || typeof ev.id !== 'string' || typeof ev.timestamp !== 'string' || typeof ev.event_type !== 'string' || typeof ev.target_type !== 'string') {
      throw new AuditLogError(`event ${i} of a page lacks its id, timestamp, event_type or target_type`);
    }
    toNanos(ev.timestamp);
    return ev as AuditEvent;
  });
  const next = typeof b.links?.next === 'string' && b.links.next !== '' ? b.links.next : undefined;
  return { events, maxLimitReached: b.organization_max_limit_reached === true, ...(next ? { next } : {}) };
}

/** `links.next` is a URL (absolute or relative) whose continueToken names the next page. */
function continueTokenOf(next: string): string | undefined {
  try {
    return new URL(next, 'http://relative.invalid').searchParams.get('continueToken') ?? undefined;
  } catch {
    return undefined;
  }
}
