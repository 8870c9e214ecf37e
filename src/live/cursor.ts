/**
 * Where the refresh reads the audit log from, and what it may skip: on the server's clocks only.
 *
 * A cursor is the log's own newest event (its timestamp is the server's clock), never this
 * machine's clock: a run on a machine whose clock is hours fast, or a steady skew, cannot move the
 * bound past events not yet read. Pure: no request, no clock read (the caller passes the API's
 * `Date`), so every rule here is tested without time passing.
 *
 * - The bound is the cursor less an overlap window (OVERLAP_MS): an event the log shows late, with
 *   an earlier timestamp than the cursor, is still read. Events of the window the snapshot already
 *   reflects are skipped by id (`seen`), and so is everything at or before the newest event when
 *   the last full read began (`floor`: that read saw every write logged up to then, late or not;
 *   the bound is never before it, so a warm run right after a full read does not read the window).
 * - A cursor newer than the API's `Date`, or than the log's newest event, was not written by a
 *   run against this log (forged, or of a log that lost events): the caller reads everything.
 * - In a quiet organization the cursor may be older than the log's retention while nothing since
 *   was lost; the bound is then taken from the API's `Date` when the previous read began (still
 *   the server's clock), less the window, so that the API does not answer that events are gone.
 */
import { toNanos, type AuditEvent, type EventCursor } from './audit-log.js';

/**
 * How late an event may appear in the log (after events with later timestamps) and still be read
 * at once. Every warm run reads the window again (one page per 100 events written in it), so it is
 * a trade: a later event is found by the rotation of ./verify.ts instead, within ceil(lists / N) runs.
 */
export const OVERLAP_MS = 5 * 60_000;
/** The API's `Date` has whole seconds, and the log's clock may run a little apart from it. */
export const CLOCK_TOLERANCE_MS = 2_000;
/** A quiet-organization bound is used once the cursor's window comes this close to the retention. */
const RETENTION_MARGIN_MS = 3_600_000;

const NS_PER_MS = 1_000_000n;

/** What the snapshot keeps of the log besides its cursor (the cache file's `freshness`). */
export interface Freshness {
  /** Events at or before this instant (the log's clock) are reflected in the snapshot. */
  floor?: string;
  /** Ids of the events in the overlap window before the cursor that the snapshot reflects. */
  seen: string[];
  /** The API's `Date` when this snapshot's read began, when it sent one. */
  serverReadAt?: string;
  /** When the last full read began: the API's clock when it said it, else this machine's. */
  fullReadAt: string;
  /** The rotation of the verification (./verify.ts): the last request key it re-read. */
  verifiedThrough?: string;
}

/** A snapshot written before `freshness` existed: its cursor's ids are what it had seen. */
export function legacyFreshness(cursor: EventCursor | null, readAt: string): Freshness {
  return { ...(cursor ? { floor: cursor.timestamp } : {}), seen: cursor?.ids ?? [], fullReadAt: readAt };
}

/** The freshness of a full read that began with the log's newest event `cursor`. */
export function afterFullRead(cursor: EventCursor | null, serverNow: Date | undefined, machineNow: Date): Freshness {
  return {
    ...(cursor ? { floor: cursor.timestamp } : {}),
    seen: [],
    ...(serverNow ? { serverReadAt: serverNow.toISOString() } : {}),
    fullReadAt: (serverNow ?? machineNow).toISOString(),
  };
}

/** Why a cursor cannot be this log's (newer than the API's clock), or undefined. */
export function futureCursorReason(cursor: EventCursor | null, serverNow: Date | undefined): string | undefined {
  if (!cursor || !serverNow) return undefined;
  if (toNanos(cursor.timestamp) <= BigInt(serverNow.getTime() + CLOCK_TOLERANCE_MS) * NS_PER_MS) return undefined;
  return `the cache's event cursor (${cursor.timestamp}) is newer than the API's clock (Date: ${serverNow.toISOString()})`;
}

/**
 * Why the floor cannot be right: every run leaves it at or before its cursor (a full read sets
 * both to the log's newest event), so a floor after the cursor was not written by driftless, and
 * would hide every event up to it.
 */
export function floorReason(cursor: EventCursor | null, freshness: Freshness): string | undefined {
  if (freshness.floor === undefined) return undefined;
  if (cursor && toNanos(freshness.floor) <= toNanos(cursor.timestamp)) return undefined;
  return `the cache's floor (${freshness.floor}) is after its event cursor (${cursor ? cursor.timestamp : 'none'})`;
}

/**
 * The instant to read the log from (inclusive), or undefined for the whole log (an empty log when
 * the snapshot was taken, and no server date to start from).
 */
export function readBound(cursor: EventCursor | null, freshness: Freshness, opts: { serverNow?: Date; retentionDays?: number; overlapMs?: number }): string | undefined {
  const window = BigInt(opts.overlapMs ?? OVERLAP_MS) * NS_PER_MS;
  const overlap = cursor ? toNanos(cursor.timestamp) - window : undefined;
  // Never before the floor: the full read saw every write up to it, logged late or not, and
  // reading that part of the window again would cost pages of events (an apply's) for nothing.
  const floor = freshness.floor !== undefined ? toNanos(freshness.floor) : undefined;
  const fromCursor = overlap !== undefined && floor !== undefined && floor > overlap ? floor : overlap;
  const began = freshness.serverReadAt ? BigInt(Date.parse(freshness.serverReadAt)) * NS_PER_MS - window : undefined;
  if (fromCursor === undefined) return began === undefined ? undefined : nanosToIso(began);
  if (began !== undefined && opts.serverNow && opts.retentionDays !== undefined) {
    const retained = BigInt(opts.serverNow.getTime() - opts.retentionDays * 86_400_000 + RETENTION_MARGIN_MS) * NS_PER_MS;
    // Every event after the cursor appeared after the previous read began: from then on, nothing is lost.
    if (fromCursor < retained && began > fromCursor) return nanosToIso(began);
  }
  return nanosToIso(fromCursor);
}

/**
 * Why the log cannot be the one the cursor was taken from: read from at or before the cursor, it
 * holds no event at or after it (the cursor's own event would be there). Undefined when it does,
 * or when the bound is after the cursor (quiet organization: the cursor's event was not asked for).
 */
export function cursorBeyondLogReason(cursor: EventCursor | null, bound: string | undefined, events: readonly AuditEvent[]): string | undefined {
  if (!cursor) return undefined;
  const at = toNanos(cursor.timestamp);
  if (bound !== undefined && toNanos(bound) > at) return undefined;
  const newest = events.at(-1);
  if (newest && toNanos(newest.timestamp) >= at) return undefined;
  return `the cache's event cursor (${cursor.timestamp}) is newer than the audit log's newest event (${newest ? newest.timestamp : 'none since the cursor'})`;
}

/** The events the snapshot does not reflect yet: not seen by id, and after the floor. */
export function unseenEvents(events: readonly AuditEvent[], freshness: Freshness): AuditEvent[] {
  const seen = new Set(freshness.seen);
  const floor = freshness.floor !== undefined ? toNanos(freshness.floor) : undefined;
  return events.filter((e) => !seen.has(e.id) && (floor === undefined || toNanos(e.timestamp) > floor));
}

/**
 * The cursor and the ids seen after a refresh that read `events` (every event since the bound,
 * seen before or not, oldest first): the newest event is the cursor; the ids within the overlap
 * window before it are kept, so that the next run, reading that window again, skips them. (An id
 * of the previous window not read again lies before this run's bound, and every later bound is
 * later still: it is never read again.)
 */
export function advance(cursor: EventCursor | null, freshness: Freshness, events: readonly AuditEvent[], overlapMs = OVERLAP_MS): { cursor: EventCursor | null; seen: string[] } {
  const newest = events.at(-1);
  const next: EventCursor | null =
    newest && (!cursor || toNanos(newest.timestamp) >= toNanos(cursor.timestamp))
      ? { timestamp: newest.timestamp, ids: events.filter((e) => toNanos(e.timestamp) === toNanos(newest.timestamp)).map((e) => e.id).sort() }
      : cursor;
  if (!next) return { cursor: null, seen: [] };
  const windowStart = toNanos(next.timestamp) - BigInt(overlapMs) * NS_PER_MS;
  const floor = freshness.floor !== undefined ? toNanos(freshness.floor) : undefined;
  const seen = events.filter((e) => toNanos(e.timestamp) >= windowStart && (floor === undefined || toNanos(e.timestamp) > floor)).map((e) => e.id);
  return { cursor: next, seen: [...new Set(seen)].sort() };
}

function nanosToIso(ns: bigint): string {
  const ms = ns / NS_PER_MS;
  const rest = ns % NS_PER_MS;
  const iso = new Date(Number(ms)).toISOString(); // 2026-11-25T16:00:00.123Z
  return `${iso.slice(0, -1)}${String(rest).padStart(6, '0')}Z`;
}

/** The `freshness` of a cache file, checked field by field (a hand-edited file is refused, not trusted). */
export function readFreshness(raw: unknown): Freshness | { unreadable: string } | undefined {
  if (raw === undefined) return undefined;
  const bad = (what: string) => ({ unreadable: `its freshness record is unreadable (${what})` });
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return bad('not an object');
  const f = raw as Record<string, unknown>;
  const stamp = (v: unknown) => typeof v === 'string' && isTimestamp(v);
  if (f.floor !== undefined && !stamp(f.floor)) return bad('floor');
  if (!Array.isArray(f.seen) || !f.seen.every((x) => typeof x === 'string')) return bad('seen');
  if (f.serverReadAt !== undefined && !stamp(f.serverReadAt)) return bad('serverReadAt');
  if (!stamp(f.fullReadAt)) return bad('fullReadAt');
  if (f.verifiedThrough !== undefined && typeof f.verifiedThrough !== 'string') return bad('verifiedThrough');
  return {
    ...(f.floor !== undefined ? { floor: f.floor as string } : {}),
    seen: f.seen as string[],
    ...(f.serverReadAt !== undefined ? { serverReadAt: f.serverReadAt as string } : {}),
    fullReadAt: f.fullReadAt as string,
    ...(f.verifiedThrough !== undefined ? { verifiedThrough: f.verifiedThrough as string } : {}),
  };
}

function isTimestamp(v: string): boolean {
  try {
    toNanos(v);
    return true;
  } catch {
    return false;
  }
}
