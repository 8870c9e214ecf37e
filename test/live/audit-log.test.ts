import { describe, expect, it } from 'vitest';
import { AuditLogError, latestEventCursor, readEventsSince, toNanos, type AuditEvent } from '../../src/live/audit-log.js';
import { FakeApi, HttpError } from '../apply/fake-api.js';

const ORG = 'org-1';

function ev(id: string, timestamp: string, extra: Partial<AuditEvent> = {}): AuditEvent {
  return { id, timestamp, event_type: 'UPDATE', target_type: 'APPLICATION', origin: 'CONSOLE', triggered_by: 'ops@example.com', ...extra };
}

/** A log served newest first, `pageSize` per page, with links.next carrying a continueToken. */
function fakeLog(all: AuditEvent[], opts: { maxLimitReached?: boolean } = {}): FakeApi {
  const newestFirst = [...all].sort((a, b) => (toNanos(b.timestamp) > toNanos(a.timestamp) ? 1 : -1));
  return new FakeApi().on('GET', `/organization/${ORG}/events`, ({ query }) => {
    const from = query?.fromTimestamp !== undefined ? toNanos(String(query.fromTimestamp)) : undefined;
    const eligible = newestFirst.filter((e) => from === undefined || toNanos(e.timestamp) >= from);
    const start = query?.continueToken !== undefined ? Number(query.continueToken) : 0;
    const size = Number(query?.pageSize ?? 10);
    const page = eligible.slice(start, start + size);
    const more = start + size < eligible.length;
    return {
      events: page,
      organization_max_limit_reached: opts.maxLimitReached === true,
      links: more ? { next: `http://api.example/organization/${ORG}/events?pageSize=${size}&continueToken=${start + size}` } : {},
    };
  });
}

describe('toNanos', () => {
  it('keeps nanoseconds that a Date would lose', () => {
    expect(toNanos('2026-11-25T16:30:00.123456789Z') - toNanos('2026-11-25T16:30:00.123456788Z')).toBe(1n);
    expect(toNanos('2026-11-25T16:30:00Z')).toBe(BigInt(Date.parse('2026-11-25T16:30:00Z')) * 1_000_000n);
    expect(toNanos('2026-11-25T17:30:00.5+01:00')).toBe(toNanos('2026-11-25T16:30:00.500Z'));
  });
  it('refuses what is not a timestamp', () => {
    expect(() => toNanos('yesterday')).toThrow(AuditLogError);
  });
});

describe('readEventsSince', () => {
  const events = Array.from({ length: 250 }, (_, i) => ev(`e${String(i).padStart(3, '0')}`, `2026-11-25T16:00:00.${String(1000 + i).padStart(9, '0')}Z`));

  it('follows links.next over every page and returns the events oldest first', async () => {
    const api = fakeLog(events);
    const r = await readEventsSince(api, ORG, undefined);
    expect(r.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(r.requests).toBe(3);
    expect(api.calls.map((c) => c.query?.continueToken)).toEqual([undefined, '100', '200']);
    expect(r.cursor).toEqual({ timestamp: events[249]!.timestamp, ids: ['e249'] });
    expect(r.maxLimitReached).toBe(false);
  });

  it('asks from the cursor, to the nanosecond, and leaves out the events the cursor already counted', async () => {
    const api = fakeLog(events);
    const since = { timestamp: events[247]!.timestamp, ids: ['e247'] };
    const r = await readEventsSince(api, ORG, since);
    expect(api.calls[0]!.query?.fromTimestamp).toBe('2026-11-25T16:00:00.000001247Z');
    expect(r.events.map((e) => e.id)).toEqual(['e248', 'e249']);
  });

  it('keeps two events of one nanosecond apart, and both in the cursor', async () => {
    const same = '2026-11-25T16:00:01.000000001Z';
    const api = fakeLog([ev('a', same), ev('b', same)]);
    const r = await readEventsSince(api, ORG, undefined);
    expect(r.events.map((e) => e.id)).toEqual(['a', 'b']);
    expect(r.cursor).toEqual({ timestamp: same, ids: ['a', 'b'] });
    // A third event at that instant, seen by the next run, is new; the two are not.
    const later = fakeLog([ev('a', same), ev('b', same), ev('c', same)]);
    const r2 = await readEventsSince(later, ORG, r.cursor);
    expect(r2.events.map((e) => e.id)).toEqual(['c']);
    expect(r2.cursor).toEqual({ timestamp: same, ids: ['a', 'b', 'c'] });
  });

  it('with no new event, keeps the cursor and costs one request', async () => {
    const api = fakeLog(events.slice(0, 3));
    const since = { timestamp: events[2]!.timestamp, ids: ['e002'] };
    const r = await readEventsSince(api, ORG, since);
    expect(r.events).toEqual([]);
    expect(r.cursor).toEqual(since);
    expect(r.requests).toBe(1);
  });

  it('reports organization_max_limit_reached', async () => {
    const r = await readEventsSince(fakeLog(events.slice(0, 2), { maxLimitReached: true }), ORG, undefined);
    expect(r.maxLimitReached).toBe(true);
  });

  it('passes the endpoint refusal on to the caller', async () => {
    const api = new FakeApi().on('GET', `/organization/${ORG}/events`, () => {
      throw new HttpError(403, 'forbidden');
    });
    await expect(readEventsSince(api, ORG, undefined)).rejects.toMatchObject({ status: 403 });
  });

  it('refuses an answer without events, and a page token that loops', async () => {
    await expect(readEventsSince(new FakeApi().on('GET', `/organization/${ORG}/events`, () => ({ results: [] })), ORG, undefined)).rejects.toThrow(AuditLogError);
    const loop = new FakeApi().on('GET', `/organization/${ORG}/events`, () => ({ events: [ev('x', '2026-11-25T16:00:00Z')], links: { next: '/organization/org-1/events?continueToken=same' } }));
    await expect(readEventsSince(loop, ORG, undefined)).rejects.toThrow(/same page token/);
  });

  it('stops at a page cap rather than reading an unbounded log', async () => {
    await expect(readEventsSince(fakeLog(events), ORG, undefined, { maxPages: 2 })).rejects.toThrow(/more than 2 pages/);
  });
});

describe('latestEventCursor', () => {
  it('is the newest event, with one request', async () => {
    const api = fakeLog([ev('old', '2026-11-25T16:00:00.000000001Z'), ev('new', '2026-11-25T16:00:00.000000002Z')]);
    expect(await latestEventCursor(api, ORG)).toEqual({ cursor: { timestamp: '2026-11-25T16:00:00.000000002Z', ids: ['new'] }, maxLimitReached: false });
    expect(api.calls).toHaveLength(1);
  });
  it('is undefined for an empty log', async () => {
    expect((await latestEventCursor(fakeLog([]), ORG)).cursor).toBeUndefined();
  });
});

/**
 * Issue 19: the reference (getOrganizationEvents) requires no field of an event, promises no order,
 * lets pageSize default to 10 with no maximum, and does not say whether fromTimestamp survives a
 * continueToken. The reader relies on none of it.
 */
describe('readEventsSince relies only on what the reference promises', () => {
  const at = (i: number) => `2026-11-25T16:00:00.${String(1000 + i).padStart(9, '0')}Z`;
  const events = Array.from({ length: 25 }, (_, i) => ev(`e${String(i).padStart(2, '0')}`, at(i)));

  /** A log with its own page size and order; `keepFrom`: whether links.next carries fromTimestamp. */
  function log(all: AuditEvent[], o: { size: number; order: 'newest' | 'oldest' | 'shuffled'; keepFrom: boolean }): FakeApi {
    return new FakeApi().on('GET', `/organization/${ORG}/events`, ({ query }) => {
      const from = query?.fromTimestamp !== undefined ? toNanos(String(query.fromTimestamp)) : undefined;
      const sorted = [...all].filter((e) => from === undefined || toNanos(e.timestamp) >= from).sort((a, b) => (toNanos(b.timestamp) > toNanos(a.timestamp) ? 1 : -1));
      if (o.order === 'oldest') sorted.reverse();
      const start = query?.continueToken !== undefined ? Number(query.continueToken) : 0;
      const page = sorted.slice(start, start + o.size);
      // Within a page, 'shuffled' swaps neighbours: no order at all.
      if (o.order === 'shuffled') for (let i = 0; i + 1 < page.length; i += 2) [page[i], page[i + 1]] = [page[i + 1]!, page[i]!];
      const more = start + o.size < sorted.length;
      const fromPart = o.keepFrom && query?.fromTimestamp !== undefined ? `&fromTimestamp=${encodeURIComponent(String(query.fromTimestamp))}` : '';
      return { events: page, links: more ? { next: `https://api.example/organization/${ORG}/events?continueToken=${start + o.size}${fromPart}` } : {} };
    });
  }

  for (const order of ['newest', 'oldest', 'shuffled'] as const) {
    for (const size of [1, 7, 10]) {
      it(`pages ${order} first, ${size} per page: every event since the bound, once, oldest first`, async () => {
        const api = log(events, { size, order, keepFrom: true });
        const r = await readEventsSince(api, ORG, { timestamp: at(5), ids: [] });
        expect(r.events.map((e) => e.id)).toEqual(events.slice(5).map((e) => e.id));
        expect(r.cursor?.timestamp).toBe(at(24));
        expect(r.unreadable).toEqual([]);
      });
    }
  }

  it('follows links.next as the server wrote it, and never adds fromTimestamp to a continueToken itself', async () => {
    const api = log(events, { size: 10, order: 'newest', keepFrom: false });
    const r = await readEventsSince(api, ORG, { timestamp: at(12), ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(events.slice(12).map((e) => e.id));
    expect(api.calls[0]!.query).toEqual({ pageSize: 100, fromTimestamp: at(12) });
    for (const c of api.calls.slice(1)) expect(c.query?.fromTimestamp).toBeUndefined();
    // Newest first without the bound: once a page goes below it, the older pages are not read.
    expect(api.calls).toHaveLength(2);
  });

  it('a server that drops fromTimestamp and pages oldest first: every page is read, the events since the bound kept', async () => {
    const api = log(events, { size: 10, order: 'oldest', keepFrom: false });
    // The first page honours the bound; the next ones (without it) start from the oldest event.
    const r = await readEventsSince(api, ORG, { timestamp: at(12), ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(events.slice(12).map((e) => e.id));
  });

  it('reads a page whose events lack id, timestamp, event_type or target_type: the usable ones are kept, the others said', async () => {
    const noId = { timestamp: at(3), event_type: 'UPDATE', target_type: 'APPLICATION', target_id: 's1' };
    const page = {
      events: [ev('ok', at(1)), noId, { id: 'no-time', event_type: 'DELETE', target_type: 'DATABASE' }, { id: 'no-type', timestamp: at(4), target_type: 'APPLICATION' }, { id: 'no-target', timestamp: at(5), event_type: 'UPDATE' }, { id: 'bad-time', timestamp: 'yesterday', event_type: 'UPDATE', target_type: 'APPLICATION' }],
    };
    const api = new FakeApi().on('GET', `/organization/${ORG}/events`, () => structuredClone(page));
    const r = await readEventsSince(api, ORG, undefined);
    expect(r.events.map((e) => e.target_id ?? e.id)).toEqual(['ok', 's1']);
    // Known by its content: the same event read again is the same event.
    const again = await readEventsSince(api, ORG, undefined);
    expect(again.events[1]!.id).toBe(r.events[1]!.id);
    expect(r.events[1]!.id).toMatch(/^content:/);
    expect(r.unreadable).toEqual([
      'an event DELETE of DATABASE (id no-time) without a readable timestamp',
      'an event of APPLICATION (id no-type) without an event_type',
      'an event UPDATE (id no-target) without a target_type',
      'an event UPDATE of APPLICATION (id bad-time) without a readable timestamp',
    ]);
  });
});

/**
 * The reference promises no order across pages either, nor that fromTimestamp is honoured: a page
 * reaching below the bound proves nothing about the pages still to come unless the pages have shown
 * themselves newest first, each after the one before.
 */
describe('readEventsSince and the order of the pages', () => {
  const at = (i: number) => `2026-11-25T16:00:00.${String(1000 + i).padStart(9, '0')}Z`;
  const events = Array.from({ length: 25 }, (_, i) => ev(`e${String(i).padStart(2, '0')}`, at(i)));

  /**
   * A server that ignores fromTimestamp: the whole log cut into pages of `size` (chunks taken oldest
   * first), served in `pageOrder` (indexes of the chunks), each page listed newest first.
   */
  function ignoringBound(pageOrder: (chunks: number) => number[], size = 10): FakeApi {
    const chunks: AuditEvent[][] = [];
    for (let i = 0; i < events.length; i += size) chunks.push(events.slice(i, i + size).reverse());
    const order = pageOrder(chunks.length);
    return new FakeApi().on('GET', `/organization/${ORG}/events`, ({ query }) => {
      const n = query?.continueToken !== undefined ? Number(query.continueToken) : 0;
      const more = n + 1 < order.length;
      return { events: chunks[order[n]!], links: more ? { next: `/organization/${ORG}/events?continueToken=${n + 1}` } : {} };
    });
  }

  it('pages going oldest to newest, each newest first: every page is read, no event since the bound lost', async () => {
    const api = ignoringBound((n) => [...Array(n).keys()]);
    const r = await readEventsSince(api, ORG, { timestamp: at(12), ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(events.slice(12).map((e) => e.id));
    expect(r.cursor?.timestamp).toBe(at(24));
    expect(r.requests).toBe(3);
  });

  it('pages in no order (middle, newest, oldest): every event since the bound, once', async () => {
    const api = ignoringBound(() => [1, 2, 0]);
    const r = await readEventsSince(api, ORG, { timestamp: at(12), ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(events.slice(12).map((e) => e.id));
    expect(r.requests).toBe(3);
  });

  it('one page below the bound is not enough: the next page is read, and stops the reading once it is older still', async () => {
    // Newest first across pages (e24..e20, e19..e10, e09..e00 with size 5: the newest chunk first).
    const api = ignoringBound((n) => [...Array(n).keys()].reverse(), 5);
    const r = await readEventsSince(api, ORG, { timestamp: at(22), ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(['e22', 'e23', 'e24']);
    // The first page (e24..e20) reaches below the bound, but only the second (e19..e15, older
    // still) shows the order: the three pages after it are not read.
    expect(r.requests).toBe(2);
  });

  it('pages that keep their order past a page cap: the reader gives up with a reason rather than guess', async () => {
    const api = ignoringBound((n) => [...Array(n).keys()], 5);
    await expect(readEventsSince(api, ORG, { timestamp: at(12), ids: [] }, { maxPages: 3 })).rejects.toThrow(/more than 3 pages/);
  });

  it('a server that honours fromTimestamp, newest first: one request with no new event, as many as its pages otherwise', async () => {
    const log = (all: AuditEvent[]) =>
      new FakeApi().on('GET', `/organization/${ORG}/events`, ({ query }) => {
        const from = toNanos(String(query!.fromTimestamp));
        const eligible = all.filter((e) => toNanos(e.timestamp) >= from).reverse();
        const start = Number(query?.continueToken ?? 0);
        const next = start + 10 < eligible.length ? { next: `/organization/${ORG}/events?continueToken=${start + 10}&fromTimestamp=${encodeURIComponent(String(query!.fromTimestamp))}` } : {};
        return { events: eligible.slice(start, start + 10), links: next };
      });
    const idle = await readEventsSince(log(events), ORG, { timestamp: at(24), ids: ['e24'] });
    expect(idle.events).toEqual([]);
    expect(idle.requests).toBe(1);
    const busy = await readEventsSince(log(events), ORG, { timestamp: at(0), ids: ['e00'] });
    expect(busy.events.map((e) => e.id)).toEqual(events.slice(1).map((e) => e.id));
    expect(busy.requests).toBe(3);
  });
});

describe('readEventsSince: events of one instant split across pages', () => {
  const t = (s: number) => `2026-11-25T16:00:${String(s).padStart(2, '0')}.000000000Z`;
  /** The pages as given, each with a links.next to the following one. */
  function pages(list: AuditEvent[][]): FakeApi {
    return new FakeApi().on('GET', `/organization/${ORG}/events`, ({ query }) => {
      const n = Number(query?.continueToken ?? 0);
      return { events: list[n], links: n + 1 < list.length ? { next: `/organization/${ORG}/events?continueToken=${n + 1}` } : {} };
    });
  }

  it('a page that ends at the very instant of the bound is not the last one read: the next may hold more of that instant', async () => {
    const api = pages([[ev('a', t(30)), ev('b', t(20))], [ev('c', t(20)), ev('d', t(10))], [ev('e', t(10)), ev('f', t(5))], [ev('g', t(1))]]);
    const r = await readEventsSince(api, ORG, { timestamp: t(10), ids: [] });
    expect(r.events.map((e) => e.id)).toEqual(['d', 'e', 'b', 'c', 'a']);
    // Newest first across pages, each at or before the one before: the third page, below the
    // bound, ends the reading; the fourth is not asked for.
    expect(r.requests).toBe(3);
  });
});
