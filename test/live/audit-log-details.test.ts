/**
 * The audit log reader's details that decide what a warm run trusts: timestamps read exactly (no
 * partial match, offsets with or without a colon, nanosecond integers), events of one instant
 * ordered by id, pages that hold nothing usable, events that are not objects, and the events of the
 * previous cursor's instant still accounted for.
 */
import { describe, expect, it } from 'vitest';
import { AuditLogError, compareEvents, latestEventCursor, readEventsSince, toNanos, type AuditEvent } from '../../src/live/audit-log.js';
import { FakeApi } from '../apply/fake-api.js';

const ORG = 'org-1';
const ev = (id: string, timestamp: string, extra: Partial<AuditEvent> = {}): AuditEvent => ({ id, timestamp, event_type: 'UPDATE', target_type: 'APPLICATION', ...extra });
const serve = (...pages: unknown[]) => {
  let n = 0;
  return new FakeApi().on('GET', `/organization/${ORG}/events`, () => structuredClone(pages[Math.min(n++, pages.length - 1)]));
};

describe('toNanos', () => {
  it('reads an integer of nanoseconds as it is', () => {
    expect(toNanos('1764088200123456789')).toBe(1764088200123456789n);
  });

  it('reads an offset written with or without a colon', () => {
    expect(toNanos('2026-11-25T17:30:00+0100')).toBe(toNanos('2026-11-25T16:30:00Z'));
    expect(toNanos('2026-11-25T14:30:00-02:00')).toBe(toNanos('2026-11-25T16:30:00Z'));
  });

  it('refuses a timestamp with anything before or after it, or an impossible date, saying which', () => {
    for (const bad of ['x2026-11-25T16:30:00Z', '2026-11-25T16:30:00Zx', '2026-11-25T16:30:00', '12a', '2026-13-45T16:30:00Z']) {
      expect(() => toNanos(bad), bad).toThrow(AuditLogError);
    }
    expect(() => toNanos('2026-11-25T16:30:00Zx')).toThrow('unreadable event timestamp "2026-11-25T16:30:00Zx"');
    expect(() => toNanos('2026-13-45T16:30:00Z')).toThrow('unreadable event timestamp "2026-13-45T16:30:00Z"');
    expect(() => toNanos(`${'9'.repeat(30)}Z`)).toThrow(`unreadable event timestamp "${'9'.repeat(30)}Z"`);
    expect(() => toNanos(`x${'9'.repeat(60)}`)).toThrow(`unreadable event timestamp "x${'9'.repeat(39)}"`);
  });
});

describe('compareEvents', () => {
  it('orders by time, then by id within one instant', () => {
    const t = '2026-11-25T16:00:00Z';
    expect(compareEvents(ev('a', t), ev('b', t))).toBe(-1);
    expect(compareEvents(ev('b', t), ev('a', t))).toBe(1);
    expect(compareEvents(ev('a', t), ev('a', t))).toBe(0);
    expect(compareEvents(ev('z', t), ev('a', '2026-11-25T16:00:00.000000001Z'))).toBe(-1);
    expect(compareEvents(ev('a', '2026-11-25T16:00:00.000000001Z'), ev('z', t))).toBe(1);
  });
});

describe('readEventsSince', () => {
  it('returns the events of one instant ordered by id, all in the cursor', async () => {
    const t = '2026-11-25T16:00:00Z';
    const r = await readEventsSince(serve({ events: [ev('c', t), ev('a', t), ev('b', t)] }), ORG, undefined);
    expect(r.events.map((e) => e.id)).toEqual(['a', 'b', 'c']);
    expect(r.cursor).toEqual({ timestamp: t, ids: ['a', 'b', 'c'] });
  });

  it("keeps the previous cursor's ids when the new events are at its instant, not when they are later", async () => {
    const t = '2026-11-25T16:00:00Z';
    const same = await readEventsSince(serve({ events: [ev('b', t)] }), ORG, { timestamp: t, ids: ['a'] });
    expect(same.cursor).toEqual({ timestamp: t, ids: ['a', 'b'] });
    const later = await readEventsSince(serve({ events: [ev('b', '2026-11-25T16:00:01Z')] }), ORG, { timestamp: t, ids: ['a'] });
    expect(later.cursor).toEqual({ timestamp: '2026-11-25T16:00:01Z', ids: ['b'] });
    const none = await readEventsSince(serve({ events: [] }), ORG, { timestamp: t, ids: ['a'] });
    expect(none.cursor).toEqual({ timestamp: t, ids: ['a'] });
    expect(none.requests).toBe(1);
  });

  it('leaves out an event before the bound, keeps one at it', async () => {
    const t = '2026-11-25T16:00:00.000000005Z';
    const r = await readEventsSince(serve({ events: [ev('before', '2026-11-25T16:00:00.000000004Z'), ev('at', t), ev('after', '2026-11-25T16:00:00.000000006Z')] }), ORG, { timestamp: t, ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(['at', 'after']);
  });

  it('stops at a page with nothing on it even when it links a next one', async () => {
    const api = serve({ events: [], links: { next: '/organization/org-1/events?continueToken=2' } }, { events: [ev('x', '2026-11-25T16:00:00Z')] });
    const r = await readEventsSince(api, ORG, undefined);
    expect(r.events).toEqual([]);
    expect(r.requests).toBe(1);
  });

  it('goes on past a page that holds only unreadable events, and says them', async () => {
    const api = serve({ events: [{ id: 'bad' }], links: { next: '/organization/org-1/events?continueToken=2' } }, { events: [ev('x', '2026-11-25T16:00:00Z')] });
    const r = await readEventsSince(api, ORG, undefined);
    expect(r.events.map((e) => e.id)).toEqual(['x']);
    expect(r.requests).toBe(2);
    expect(r.unreadable).toEqual(['an event (id bad) without a readable timestamp or an event_type or a target_type']);
  });

  it('stops when links.next names no parameter, or cannot be read', async () => {
    for (const next of ['/organization/org-1/events', 'http://[bad']) {
      const api = serve({ events: [ev('x', '2026-11-25T16:00:00Z')], links: { next } }, { events: [ev('y', '2026-11-25T16:00:01Z')] });
      const r = await readEventsSince(api, ORG, undefined);
      expect(r.requests, next).toBe(1);
    }
  });

  it('says what an event that is not an object is, and refuses an answer that is not one', async () => {
    const r = await readEventsSince(serve({ events: [null, 'text', [1], ev('x', '2026-11-25T16:00:00Z')] }), ORG, undefined);
    expect(r.events.map((e) => e.id)).toEqual(['x']);
    expect(r.unreadable).toEqual(['an event that is not an object', 'an event that is not an object', 'an event that is not an object']);
    for (const body of [null, 'events', { events: 'x' }]) {
      await expect(readEventsSince(serve(body), ORG, undefined)).rejects.toThrow('the events endpoint answered without an events list');
    }
  });

  it('tells two events without an id apart by their content, whatever the order of their keys', async () => {
    const a = { timestamp: '2026-11-25T16:00:00Z', event_type: 'UPDATE', target_type: 'APPLICATION', target_id: 's1' };
    const b = { target_id: 's1', target_type: 'APPLICATION', event_type: 'UPDATE', timestamp: '2026-11-25T16:00:00Z' };
    const c = { ...a, target_id: 's2' };
    const r = await readEventsSince(serve({ events: [a, b, c] }), ORG, undefined);
    expect(r.events).toHaveLength(2);
    expect(r.events[0]!.id).toMatch(/^content:[0-9a-f]{32}$/);
    expect(r.events[0]!.id).not.toBe(r.events[1]!.id);
  });

  it('says an unusable event by its type and id as far as it has them, never its change', async () => {
    const r = await readEventsSince(serve({ events: [{ event_type: 'DELETE', change: 'secret text' }, { id: 'i'.repeat(80), target_type: 'DATABASE', timestamp: 'x' }] }), ORG, undefined);
    expect(r.unreadable).toEqual([`an event DELETE without a readable timestamp or a target_type`, `an event of DATABASE (id ${'i'.repeat(64)}) without a readable timestamp or an event_type`]);
  });
});

describe('latestEventCursor', () => {
  it('takes the newest event of the page whatever its order, and passes organization_max_limit_reached on', async () => {
    const api = serve({ events: [ev('old', '2026-11-25T16:00:00Z'), ev('new', '2026-11-25T16:00:01Z')], organization_max_limit_reached: true });
    expect(await latestEventCursor(api, ORG)).toEqual({ cursor: { timestamp: '2026-11-25T16:00:01Z', ids: ['new'] }, maxLimitReached: true });
    expect(api.calls[0]!.query).toEqual({ pageSize: 1 });
  });
});

describe('readEventsSince on a server that ignores fromTimestamp', () => {
  const t = (i: number) => `2026-11-25T16:00:0${i}Z`;
  const all = Array.from({ length: 10 }, (_, i) => ev(`e${i}`, t(i)));
  /** Pages of two, in the order given, linked by continueToken; fromTimestamp not applied. */
  const paged = (order: AuditEvent[]) =>
    new FakeApi().on('GET', `/organization/${ORG}/events`, ({ query }) => {
      const start = Number(query?.continueToken ?? 0);
      const more = start + 2 < order.length;
      return { events: order.slice(start, start + 2), links: more ? { next: `/organization/${ORG}/events?continueToken=${start + 2}` } : {} };
    });

  it('newest first: stops at the first page that reaches below the bound, and keeps only the events since it', async () => {
    const api = paged([...all].reverse());
    const r = await readEventsSince(api, ORG, { timestamp: t(5), ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(['e5', 'e6', 'e7', 'e8', 'e9']);
    expect(r.requests).toBe(3);
  });

  it('oldest first: reads every page (the newer events come last)', async () => {
    const api = paged(all);
    const r = await readEventsSince(api, ORG, { timestamp: t(5), ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(['e5', 'e6', 'e7', 'e8', 'e9']);
    expect(r.requests).toBe(5);
  });
});
