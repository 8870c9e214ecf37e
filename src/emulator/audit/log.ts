/**
 * The organization's audit log: append, retention, cap, and the queries of
 * `GET /organization/{id}/events` and `/targets`.
 *
 * Events live in `state.auditEvents` (so `--data` persists them like every record, one journal line
 * per event) and, for the queries, in an array sorted by timestamp that is rebuilt from the state
 * once per emulator. Timestamps strictly increase (timestamps.ts), so an append is a push.
 *
 * Retention: an event older than the organization's `organization_plan.audit_logs_retention_in_days`
 * (or `--audit-retention`, when shorter) is gone; so is the oldest event beyond `auditMaxEvents`.
 * `state.auditDroppedThrough` remembers the newest event dropped: a query whose range reaches back
 * to it, or further back than the retention, is answered `organization_max_limit_reached: true`
 * (what it asks for is, or may be, partly gone).
 *
 * A log that misbehaves as a real one may (tests of the clients that rely on it): `--audit-drop
 * RATE` never records that fraction of events (and says nothing of it: no
 * `organization_max_limit_reached`), `--audit-delay DURATION` lists an event only that long after
 * its write, with the write's timestamp (so it appears behind a cursor a client already holds).
 */
import { randomUUID } from 'node:crypto';
import type { EmulatorContext } from '../context.js';
import type { AuditEvent } from '../state.js';
import { seededRandom } from '../faults.js';
import { formatNanos, nextNanos, parseNanos } from './timestamps.js';

export const DEFAULT_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;

interface Entry {
  ns: bigint;
  event: AuditEvent;
}

class AuditLog {
  readonly entries: Entry[];
  /** Decides which events `--audit-drop` loses: its own stream of the fault seed, so request faults do not shift it. */
  private readonly dropRandom: () => number;
  constructor(private readonly ctx: EmulatorContext) {
    this.dropRandom = seededRandom((ctx.options.faultSeed ^ 0x5eed_a0d1) >>> 0);
    this.entries = Object.values(ctx.state.auditEvents ?? {})
      .map((event) => ({ ns: parseNanos(event.timestamp) ?? 0n, event }))
      .sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0));
  }

  append(fields: Omit<AuditEvent, 'id' | 'timestamp'>): AuditEvent {
    const last = this.entries[this.entries.length - 1]?.ns;
    const ns = nextNanos(this.ctx.clock.now().getTime(), last);
    const event: AuditEvent = { id: randomUUID(), timestamp: formatNanos(ns), ...fields };
    const rate = this.ctx.options.auditDropRate;
    // A lost event: the write happened, the log never says so.
    if (rate > 0 && (rate >= 1 || this.dropRandom() < rate)) return event;
    this.entries.push({ ns, event });
    this.ctx.state.auditEvents[event.id] = event;
    this.prune();
    return event;
  }

  /** Drops what is older than the retention and what is beyond the cap, oldest first. */
  prune(): void {
    const cutoff = BigInt(this.ctx.clock.now().getTime() - retentionMs(this.ctx)) * 1_000_000n;
    const cap = this.ctx.options.auditMaxEvents;
    let n = 0;
    while (n < this.entries.length && (this.entries[n].ns < cutoff || this.entries.length - n > cap)) n++;
    if (n === 0) return;
    for (const { event } of this.entries.slice(0, n)) delete this.ctx.state.auditEvents[event.id];
    this.ctx.state.auditDroppedThrough = this.entries[n - 1].event.timestamp;
    this.entries.splice(0, n);
  }
}

const logs = new WeakMap<EmulatorContext, AuditLog>();

export function auditLog(ctx: EmulatorContext): AuditLog {
  let log = logs.get(ctx);
  if (!log) logs.set(ctx, (log = new AuditLog(ctx)));
  return log;
}

/** The retention in force: the organization's plan, shortened by `--audit-retention`. */
export function retentionMs(ctx: EmulatorContext): number {
  const days = Number(ctx.state.organization.organization_plan?.audit_logs_retention_in_days);
  const planMs = (Number.isFinite(days) && days > 0 ? days : DEFAULT_RETENTION_DAYS) * DAY_MS;
  const option = ctx.options.auditRetentionMs;
  return option !== undefined && option < planMs ? option : planMs;
}

export interface EventFilter {
  from?: bigint;
  to?: bigint;
  eventType?: string;
  targetType?: string;
  targetId?: string;
  subTargetType?: string;
  triggeredBy?: string;
  origin?: string;
  projectId?: string;
  environmentId?: string;
}

export function matches(e: AuditEvent, f: EventFilter): boolean {
  return (
    (f.eventType === undefined || e.event_type === f.eventType) &&
    (f.targetType === undefined || e.target_type === f.targetType) &&
    (f.targetId === undefined || e.target_id === f.targetId) &&
    (f.subTargetType === undefined || e.sub_target_type === f.subTargetType) &&
    (f.triggeredBy === undefined || e.triggered_by.toLowerCase() === f.triggeredBy.toLowerCase()) &&
    (f.origin === undefined || e.origin === f.origin) &&
    (f.projectId === undefined || e.project_id === f.projectId) &&
    (f.environmentId === undefined || e.environment_id === f.environmentId)
  );
}

export interface EventPage {
  events: AuditEvent[];
  /** continueToken of the next (older) page, when there is one. */
  next?: string;
  /** stepBackToken of the previous (newer) page, when there is one. */
  previous?: string;
  limitReached: boolean;
}

export type PageCursor = { continueFrom?: bigint; stepBackFrom?: bigint };

/**
 * One page, newest first. Without a token: the newest `pageSize` matching events; `continueToken`
 * T: the newest ones strictly older than T; `stepBackToken` T: the oldest ones strictly newer than
 * T (still shown newest first). `from`/`to` bound the range, both inclusive.
 */
export function queryEvents(ctx: EmulatorContext, f: EventFilter, cursor: PageCursor, pageSize: number): EventPage {
  const log = auditLog(ctx);
  log.prune();
  const entries = log.entries;
  const shown = visibleNow(ctx);
  const inRange = (x: Entry) => shown(x) && (f.from === undefined || x.ns >= f.from) && (f.to === undefined || x.ns <= f.to) && matches(x.event, f);
  const page: Entry[] = [];
  if (cursor.stepBackFrom !== undefined) {
    for (let i = firstAfter(entries, cursor.stepBackFrom); i < entries.length && page.length < pageSize; i++) if (inRange(entries[i])) page.push(entries[i]);
    page.reverse();
  } else {
    const below = cursor.continueFrom;
    for (let i = (below === undefined ? entries.length : firstAtOrAfter(entries, below)) - 1; i >= 0 && page.length < pageSize; i--) if (inRange(entries[i])) page.push(entries[i]);
  }
  const anyOlder = (than: bigint) => {
    for (let i = firstAtOrAfter(entries, than) - 1; i >= 0; i--) if (inRange(entries[i])) return true;
    return false;
  };
  const anyNewer = (than: bigint) => {
    for (let i = firstAfter(entries, than); i < entries.length; i++) if (inRange(entries[i])) return true;
    return false;
  };
  let next: string | undefined;
  let previous: string | undefined;
  if (page.length > 0) {
    const newest = page[0].ns;
    const oldest = page[page.length - 1].ns;
    if (anyOlder(oldest)) next = formatNanos(oldest);
    if (anyNewer(newest)) previous = formatNanos(newest);
  } else if (cursor.continueFrom !== undefined && anyNewer(cursor.continueFrom - 1n)) {
    previous = formatNanos(cursor.continueFrom - 1n);
  } else if (cursor.stepBackFrom !== undefined && anyOlder(cursor.stepBackFrom + 1n)) {
    next = formatNanos(cursor.stepBackFrom + 1n);
  }
  return { events: page.map((x) => x.event), next, previous, limitReached: limitReached(ctx, f.from) };
}

/**
 * Whether events the query asks for may be gone: it reaches back to the newest event ever dropped
 * (no `from`, or a `from` at or before it), or its `from` is older than the retention (whatever was
 * there is gone, or would be). A cursor newer than both missed nothing.
 */
export function limitReached(ctx: EmulatorContext, from: bigint | undefined): boolean {
  const dropped = ctx.state.auditDroppedThrough ? parseNanos(ctx.state.auditDroppedThrough) : undefined;
  if (from === undefined) return dropped !== undefined;
  const cutoff = BigInt(ctx.clock.now().getTime() - retentionMs(ctx)) * 1_000_000n;
  return from < cutoff || (dropped !== undefined && from <= dropped);
}

/** Every matching event, oldest first (the targets route). */
export function allEvents(ctx: EmulatorContext, f: EventFilter): AuditEvent[] {
  const log = auditLog(ctx);
  log.prune();
  const shown = visibleNow(ctx);
  return log.entries.filter((x) => shown(x) && (f.from === undefined || x.ns >= f.from) && (f.to === undefined || x.ns <= f.to) && matches(x.event, f)).map((x) => x.event);
}

/** `--audit-delay`: whether an event is listed yet (its write is at least the delay old). */
function visibleNow(ctx: EmulatorContext): (x: Entry) => boolean {
  const delay = ctx.options.auditDelayMs;
  if (!(delay > 0)) return () => true;
  const newest = BigInt(Math.floor(ctx.clock.now().getTime() - delay)) * 1_000_000n;
  return (x) => x.ns <= newest;
}

/** Index of the first entry at or after `ns`. */
function firstAtOrAfter(entries: Entry[], ns: bigint): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid].ns < ns) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first entry strictly after `ns`. */
function firstAfter(entries: Entry[], ns: bigint): number {
  return firstAtOrAfter(entries, ns + 1n);
}
