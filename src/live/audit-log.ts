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
import { createHash } from 'node:crypto';
import { routes } from '../api/routes.js';
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
  /**
   * Events of the answer the reader could not use (no timestamp, an unreadable one, no event_type
   * or target_type), each said in a few words: the reference requires none of these fields, so a
   * page holding such an event is read, and the caller decides (the refresh gives way to a full
   * read; drift attributes from the others).
   */
  unreadable: string[];
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
  return routes.auditEvents(organizationId);
}

/**
 * Every event after `since` (all the log holds when undefined), following `links.next`.
 * Throws the port's error when the endpoint fails (a 403/404 tells the caller the log is not
 * available to this token), and AuditLogError on an answer it cannot read.
 *
 * It relies on no more than the reference promises: pages in any order and of any size (every
 * page is sorted here), `links.next` followed with exactly the query the server wrote in it (the
 * reference does not say whether `fromTimestamp` survives a `continueToken`, or is honoured at all:
 * events before the bound are left out here, and the reading stops before links.next ends only when
 * two pages or more have gone newest first, each at or before the one before, down below the bound; in any
 * other order every page is read, up to `maxPages`, past which the caller falls back to a full read
 * with the reason), and events that lack any field (an event without `id` is known by
 * its content; one without a usable timestamp or type is reported in `unreadable`).
 */
export async function readEventsSince(api: ApiPort, organizationId: string, since: EventCursor | undefined, opts: { maxPages?: number } = {}): Promise<EventsSince> {
  const maxPages = opts.maxPages ?? MAX_PAGES;
  // The bound as the API wrote it (RFC 3339 with nanoseconds); it includes events at that instant.
  const first: Query = { pageSize: PAGE_SIZE, ...(since ? { fromTimestamp: since.timestamp } : {}) };
  const bound = since ? toNanos(since.timestamp) : undefined;
  const seen = new Set(since?.ids ?? []);
  const byId = new Map<string, AuditEvent>();
  const unreadable = new Map<string, string>();
  let maxLimitReached = false;
  let requests = 0;
  let query = first;
  const tokensUsed = new Set<string>();
  // Whether every page so far lay entirely at or before the page before it (whatever the order
  // within each page): the only order in which a page reaching below the bound shows that the pages
  // still to come hold nothing newer. The reference promises no order, so one page cannot show it
  // (the next may be newer: a server that ignores fromTimestamp and pages oldest to newest).
  let newestFirst = true;
  let pagesWithEvents = 0;
  let previousOldest: bigint | undefined;
  for (;;) {
    if (requests >= maxPages) throw new AuditLogError(`more than ${maxPages} pages of events since the last run`);
    const page = parsePage(await api.get<unknown>(eventsPath(organizationId), query));
    requests++;
    if (page.maxLimitReached) maxLimitReached = true;
    for (const [key, why] of page.unreadable) unreadable.set(key, why);
    for (const e of page.events) {
      if (seen.has(e.id)) continue;
      // Bound inclusive or not (or ignored), an event before the cursor is not new.
      if (bound !== undefined && toNanos(e.timestamp) < bound) continue;
      byId.set(e.id, e);
    }
    if (page.events.length > 0) {
      if (previousOldest !== undefined && page.newest! > previousOldest) newestFirst = false;
      previousOldest = page.oldest;
      pagesWithEvents++;
    }
    if (page.next === undefined || page.events.length + page.unreadable.size === 0) break;
    // Two pages or more, each older than the one before, and this one below the bound: every further page is
    // older still. A server that honours fromTimestamp never gets here: it ends at links.next.
    if (bound !== undefined && newestFirst && pagesWithEvents >= 2 && page.oldest! < bound) break;
    const next = nextQuery(page.next);
    if (next === undefined) break;
    const token = JSON.stringify(Object.entries(next).sort());
    // A page asked for already would loop forever.
    if (tokensUsed.has(token)) throw new AuditLogError('the events endpoint returned the same page token twice');
    tokensUsed.add(token);
    query = next;
  }
  const events = [...byId.values()].sort(compareEvents);
  return { events, unreadable: [...unreadable.values()], maxLimitReached, cursor: cursorAfter(since, events), requests };
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
  /** As the page listed them. */
  events: AuditEvent[];
  /** Key (id, or content) -> what makes the event unusable. */
  unreadable: Map<string, string>;
  newest?: bigint;
  oldest?: bigint;
  maxLimitReached: boolean;
  next?: string;
}

function parsePage(body: unknown): Page {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { events?: unknown }).events)) {
    throw new AuditLogError('the events endpoint answered without an events list');
  }
  const b = body as { events: unknown[]; organization_max_limit_reached?: unknown; links?: { next?: unknown } };
  const events: AuditEvent[] = [];
  const unreadable = new Map<string, string>();
  let newest: bigint | undefined;
  let oldest: bigint | undefined;
  for (const raw of b.events) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      unreadable.set(`content:${contentKey(raw)}`, 'an event that is not an object');
      continue;
    }
    const ev = raw as Record<string, unknown>;
    // The reference requires no field: an event without an id is known by its content, so that
    // the same event on two pages, or in two runs' overlapping windows, still counts once.
    const id = typeof ev.id === 'string' && ev.id !== '' ? ev.id : `content:${contentKey(ev)}`;
    const at = typeof ev.timestamp === 'string' ? nanosOrUndefined(ev.timestamp) : undefined;
    const missing = [at === undefined ? 'a readable timestamp' : '', typeof ev.event_type === 'string' ? '' : 'an event_type', typeof ev.target_type === 'string' ? '' : 'a target_type'].filter(Boolean);
    if (missing.length > 0) {
      unreadable.set(id, `an event ${describeRaw(ev)}without ${missing.join(' or ')}`);
      continue;
    }
    newest = newest === undefined || at! > newest ? at : newest;
    oldest = oldest === undefined || at! < oldest ? at : oldest;
    events.push({ ...(ev as unknown as AuditEvent), id });
  }
  const next = typeof b.links?.next === 'string' && b.links.next !== '' ? b.links.next : undefined;
  return { events, unreadable, ...(newest !== undefined ? { newest, oldest } : {}), maxLimitReached: b.organization_max_limit_reached === true, ...(next ? { next } : {}) };
}

function nanosOrUndefined(timestamp: string): bigint | undefined {
  try {
    return toNanos(timestamp);
  } catch {
    return undefined;
  }
}

/** What little names an unusable event: its id or type, when it has them (never its change text). */
function describeRaw(ev: Record<string, unknown>): string {
  const parts = [typeof ev.event_type === 'string' ? ev.event_type : '', typeof ev.target_type === 'string' ? `of ${ev.target_type}` : '', typeof ev.id === 'string' ? `(id ${ev.id.slice(0, 64)})` : ''].filter(Boolean);
  return parts.length > 0 ? `${parts.join(' ')} ` : '';
}

function contentKey(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

/**
 * JSON with the keys of every object sorted: one event, one text, whatever order the server wrote.
 * Below a few levels a value is cut short: an event is shallow, and a hostile one must not exhaust
 * the stack.
 */
function canonicalJson(value: unknown, depth = 0): string {
  if (depth > 16) return '"…"';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The query of the next page: exactly the parameters `links.next` carries (a URL, absolute or
 * relative; only its query is used, never its host). Undefined when it names no parameter.
 */
function nextQuery(next: string): Query | undefined {
  try {
    const params = new URL(next, 'http://relative.invalid').searchParams;
    const q: Query = {};
    for (const [k, v] of params) q[k] = v;
    return Object.keys(q).length > 0 ? q : undefined;
  } catch {
    return undefined;
  }
}
