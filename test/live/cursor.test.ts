/**
 * The cursor rules (src/live/cursor.ts), one by one: the bound on the log's clock less the overlap
 * window and never before the floor, the quiet organization's bound on the API's Date, the checks
 * of a cursor that cannot be this log's, the ids kept for the next window, and a hand-edited
 * freshness record refused.
 */
import { describe, expect, it } from 'vitest';
import { toNanos, type AuditEvent } from '../../src/live/audit-log.js';
import { OVERLAP_MS, advance, afterFullRead, legacyFreshness, cursorBeyondLogReason, floorReason, futureCursorReason, readBound, readFreshness, unseenEvents, type Freshness } from '../../src/live/cursor.js';

const at = (iso: string) => ({ timestamp: iso, ids: [] as string[] });
const ev = (id: string, timestamp: string): AuditEvent => ({ id, timestamp, event_type: 'UPDATE', target_type: 'APPLICATION' });
const fresh = (f: Partial<Freshness> = {}): Freshness => ({ seen: [], fullReadAt: '2026-11-25T12:00:00Z', ...f });
const nanos = (iso: string | undefined) => (iso === undefined ? undefined : toNanos(iso));
const MIN = 60_000_000_000n;

describe('readBound', () => {
  it('is the cursor less the overlap window, to the nanosecond', () => {
    const b = readBound(at('2026-11-25T16:00:00.000000007Z'), fresh(), {});
    expect(nanos(b)).toBe(toNanos('2026-11-25T16:00:00.000000007Z') - BigInt(OVERLAP_MS) * 1_000_000n);
    expect(OVERLAP_MS).toBe(5 * 60_000);
  });
  it('is never before the floor (the last full read saw every write up to it)', () => {
    expect(nanos(readBound(at('2026-11-25T16:00:00Z'), fresh({ floor: '2026-11-25T15:58:00Z' }), {}))).toBe(toNanos('2026-11-25T15:58:00Z'));
    expect(nanos(readBound(at('2026-11-25T16:00:00Z'), fresh({ floor: '2026-11-25T15:50:00Z' }), {}))).toBe(toNanos('2026-11-25T16:00:00Z') - 5n * MIN);
  });
  it("in a quiet organization (the window near the retention), starts from the API's Date when the previous read began", () => {
    const opts = { serverNow: new Date('2026-11-25T17:00:00Z'), retentionDays: 30 };
    const quiet = readBound(at('2026-10-26T18:00:00Z'), fresh({ serverReadAt: '2026-11-25T16:00:00Z' }), opts);
    expect(nanos(quiet)).toBe(toNanos('2026-11-25T16:00:00Z') - 5n * MIN);
    // Far from the retention, the cursor alone decides, whatever the Date said.
    expect(nanos(readBound(at('2026-11-20T18:00:00Z'), fresh({ serverReadAt: '2026-11-25T16:00:00Z' }), opts))).toBe(toNanos('2026-11-20T18:00:00Z') - 5n * MIN);
    // Without a Date, the cursor too (the API then says if events are gone).
    expect(nanos(readBound(at('2026-10-26T18:00:00Z'), fresh(), opts))).toBe(toNanos('2026-10-26T18:00:00Z') - 5n * MIN);
  });
  it('an empty log: from the Date less the window, or the whole log without one', () => {
    expect(nanos(readBound(null, fresh({ serverReadAt: '2026-11-25T16:00:00Z' }), {}))).toBe(toNanos('2026-11-25T16:00:00Z') - 5n * MIN);
    expect(readBound(null, fresh(), {})).toBeUndefined();
  });
});

describe('the checks of a cursor', () => {
  it("newer than the API's clock (2 s allowed for whole seconds)", () => {
    const now = new Date('2026-11-25T16:00:00Z');
    expect(futureCursorReason(at('2026-11-25T16:00:02Z'), now)).toBeUndefined();
    expect(futureCursorReason(at('2026-11-25T16:00:02.000000001Z'), now)).toMatch(/newer than the API's clock \(Date: 2026-11-25T16:00:00.000Z\)/);
    expect(futureCursorReason(at('2027-01-01T00:00:00Z'), undefined)).toBeUndefined();
  });
  it("newer than the log's newest event, when the log was read from before it", () => {
    const c = at('2026-11-25T16:00:00Z');
    expect(cursorBeyondLogReason(c, '2026-11-25T15:55:00Z', [ev('a', '2026-11-25T15:59:00Z')])).toMatch(/newer than the audit log's newest event \(2026-11-25T15:59:00Z\)/);
    expect(cursorBeyondLogReason(c, '2026-11-25T15:55:00Z', [ev('a', '2026-11-25T16:00:00Z')])).toBeUndefined();
    expect(cursorBeyondLogReason(c, '2026-11-25T15:55:00Z', [])).toMatch(/none since the cursor/);
    // Read from after it (quiet organization): nothing to say.
    expect(cursorBeyondLogReason(c, '2026-11-25T16:30:00Z', [])).toBeUndefined();
  });
  it('a floor after the cursor', () => {
    expect(floorReason(at('2026-11-25T16:00:00Z'), fresh({ floor: '2026-11-25T16:00:00Z' }))).toBeUndefined();
    expect(floorReason(at('2026-11-25T16:00:00Z'), fresh({ floor: '2026-11-25T16:00:01Z' }))).toMatch(/floor .* is after its event cursor/);
    expect(floorReason(null, fresh({ floor: '2026-11-25T16:00:01Z' }))).toMatch(/after its event cursor \(none\)/);
  });
});

describe('the window', () => {
  it('skips what the snapshot reflects: ids seen, and everything at or before the floor', () => {
    const events = [ev('old', '2026-11-25T15:59:00Z'), ev('floor', '2026-11-25T16:00:00Z'), ev('seen', '2026-11-25T16:01:00Z'), ev('new', '2026-11-25T16:02:00Z')];
    expect(unseenEvents(events, fresh({ floor: '2026-11-25T16:00:00Z', seen: ['seen'] })).map((e) => e.id)).toEqual(['new']);
  });
  it('advances the cursor to the newest event and keeps the ids of its window (after the floor) for the next run', () => {
    const events = [ev('a', '2026-11-25T15:50:00Z'), ev('b', '2026-11-25T15:56:00Z'), ev('c', '2026-11-25T16:00:00Z'), ev('d', '2026-11-25T16:00:00Z')];
    const r = advance(at('2026-11-25T15:40:00Z'), fresh({ floor: '2026-11-25T15:30:00Z' }), events);
    expect(r.cursor).toEqual({ timestamp: '2026-11-25T16:00:00Z', ids: ['c', 'd'] });
    expect(r.seen).toEqual(['b', 'c', 'd']);
    expect(advance(at('2026-11-25T15:40:00Z'), fresh({ floor: '2026-11-25T15:58:00Z' }), events).seen).toEqual(['c', 'd']);
    // No event: the cursor stays.
    expect(advance(at('2026-11-25T15:40:00Z'), fresh(), []).cursor).toEqual(at('2026-11-25T15:40:00Z'));
  });
});

describe('readFreshness', () => {
  it('reads what a run wrote, and refuses a hand-edited record', () => {
    const good = { floor: '2026-11-25T16:00:00.000000001Z', seen: ['a'], serverReadAt: '2026-11-25T16:00:00.000Z', fullReadAt: '2026-11-25T16:00:00.000Z', verifiedThrough: '/x' };
    expect(readFreshness(good)).toEqual(good);
    expect(readFreshness(undefined)).toBeUndefined();
    for (const bad of [null, [], { ...good, seen: 'a' }, { ...good, floor: 'yesterday' }, { ...good, fullReadAt: 3 }, { ...good, verifiedThrough: 1 }, { ...good, serverReadAt: 'x' }]) {
      expect(readFreshness(bad), JSON.stringify(bad)).toHaveProperty('unreadable');
    }
  });
});

describe('the freshness a snapshot starts with', () => {
  it('of a snapshot written before freshness existed: the cursor is its floor and its ids are what it had seen', () => {
    expect(legacyFreshness({ timestamp: '2026-11-25T16:00:00Z', ids: ['a', 'b'] }, '2026-11-25T16:00:01Z')).toStrictEqual({ floor: '2026-11-25T16:00:00Z', seen: ['a', 'b'], fullReadAt: '2026-11-25T16:00:01Z' });
    expect(legacyFreshness(null, '2026-11-25T16:00:01Z')).toStrictEqual({ seen: [], fullReadAt: '2026-11-25T16:00:01Z' });
  });

  it("of a full read: the log's newest event is the floor, and the read began at the API's clock when it said it", () => {
    const server = new Date('2026-11-25T16:00:05Z');
    const machine = new Date('2026-11-25T15:59:00Z');
    expect(afterFullRead(at('2026-11-25T16:00:00Z'), server, machine)).toStrictEqual({ floor: '2026-11-25T16:00:00Z', seen: [], serverReadAt: '2026-11-25T16:00:05.000Z', fullReadAt: '2026-11-25T16:00:05.000Z' });
    expect(afterFullRead(null, undefined, machine)).toStrictEqual({ seen: [], fullReadAt: '2026-11-25T15:59:00.000Z' });
  });

  it('reads back without the optional fields a run did not write', () => {
    expect(readFreshness({ seen: [], fullReadAt: '2026-11-25T16:00:00.000Z' })).toStrictEqual({ seen: [], fullReadAt: '2026-11-25T16:00:00.000Z' });
    expect(readFreshness({ seen: [1], fullReadAt: '2026-11-25T16:00:00.000Z' })).toStrictEqual({ unreadable: 'its freshness record is unreadable (seen)' });
    expect(readFreshness('x')).toStrictEqual({ unreadable: 'its freshness record is unreadable (not an object)' });
  });
});

describe('more of the window', () => {
  it('takes the overlap asked for', () => {
    expect(nanos(readBound(at('2026-11-25T16:00:00Z'), fresh(), { overlapMs: 60_000 }))).toBe(toNanos('2026-11-25T16:00:00Z') - MIN);
    const events = [ev('a', '2026-11-25T15:58:00Z'), ev('b', '2026-11-25T15:59:30Z'), ev('c', '2026-11-25T16:00:00Z')];
    expect(advance(null, fresh(), events, 60_000).seen).toEqual(['b', 'c']);
  });

  it('a quiet organization whose previous read began before the cursor keeps the cursor bound', () => {
    const opts = { serverNow: new Date('2026-11-25T17:00:00Z'), retentionDays: 30 };
    expect(nanos(readBound(at('2026-10-26T18:00:00Z'), fresh({ serverReadAt: '2026-10-26T17:00:00Z' }), opts))).toBe(toNanos('2026-10-26T18:00:00Z') - 5n * MIN);
  });

  it('never moves the cursor back to an older event, and has none with no cursor and no event', () => {
    const c = { timestamp: '2026-11-25T16:00:00Z', ids: ['x'] };
    expect(advance(c, fresh(), [ev('old', '2026-11-25T15:59:00Z')]).cursor).toEqual(c);
    expect(advance(null, fresh(), [])).toEqual({ cursor: null, seen: [] });
    expect(advance(null, fresh(), [ev('b', '2026-11-25T16:00:00Z'), ev('a', '2026-11-25T16:00:00Z')])).toEqual({ cursor: { timestamp: '2026-11-25T16:00:00Z', ids: ['a', 'b'] }, seen: ['a', 'b'] });
  });

  it('an event at the floor itself is reflected; one a nanosecond later is not', () => {
    const events = [ev('at', '2026-11-25T16:00:00Z'), ev('after', '2026-11-25T16:00:00.000000001Z')];
    expect(unseenEvents(events, fresh({ floor: '2026-11-25T16:00:00Z' })).map((e) => e.id)).toEqual(['after']);
    expect(unseenEvents(events, fresh()).map((e) => e.id)).toEqual(['at', 'after']);
  });
});
