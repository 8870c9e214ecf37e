/**
 * Ctrl-C semantics (the caller's AbortSignal stops new requests, lets those in flight finish) and
 * the bounded queue.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient } from '../../src/api/index.js';
import { ConcurrencyQueue } from '../../src/api/queue.js';
import { BASE, parkedTime, until } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

const kindOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof ApiError ? e.kind : `other: ${String(e)}`));

describe('abort', () => {
  it('lets the request in flight finish and sends none of the queued ones', async () => {
    const ac = new AbortController();
    const c = createApiClient({ baseUrl: BASE, token: 't', parallelism: 1, signal: ac.signal });
    let received = 0;
    const scope = nock(BASE)
      .post('/organization/o/project')
      .delay(50)
      .reply(() => {
        received++;
        return [200, { id: 'p1' }];
      });
    const inFlight = c.post<{ id: string }>('/organization/{organizationId}/project', { params: { organizationId: 'o' }, body: { name: 'a' } });
    const queued = [kindOf(c.get('/organization')), kindOf(c.get('/organization'))];
    await until(() => c.load().waiting === 2, 'two queued requests');
    ac.abort();
    expect(await inFlight).toEqual({ id: 'p1' });
    expect(await Promise.all(queued)).toEqual(['aborted', 'aborted']);
    expect(await kindOf(c.get('/organization'))).toBe('aborted');
    expect(scope.isDone()).toBe(true);
    expect(received).toBe(1);
    expect(c.stats().total).toBe(1);
  });

  it('stops waiting for the rate limit when aborted', async () => {
    const ac = new AbortController();
    const time = parkedTime();
    const c = createApiClient({ baseUrl: BASE, token: 't', signal: ac.signal, now: time.clock, sleep: time.sleep });
    const scope = nock(BASE).get('/organization').reply(429, {}, { 'Retry-After': '3600' });
    const result = kindOf(c.get('/organization'));
    await until(() => time.parked.length === 1, 'the rate-limit wait');
    ac.abort();
    expect(await result).toBe('aborted');
    expect(scope.isDone()).toBe(true);
    expect(c.stats().total).toBe(1);
  });

  it('does not retry after an abort', async () => {
    const ac = new AbortController();
    const time = parkedTime();
    const c = createApiClient({ baseUrl: BASE, token: 't', signal: ac.signal, now: time.clock, sleep: time.sleep });
    const scope = nock(BASE).get('/organization').reply(503);
    const result = kindOf(c.get('/organization'));
    await until(() => time.parked.length === 1, 'the backoff');
    ac.abort();
    expect(await result).toBe('aborted');
    expect(scope.isDone()).toBe(true);
    expect(c.stats().total).toBe(1);
  });
});

describe('ConcurrencyQueue', () => {
  it('runs at most `size` holders, in arrival order', async () => {
    const q = new ConcurrencyQueue(2);
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const all = [1, 2, 3, 4].map((i) =>
      q.acquire().then((release) => {
        order.push(i);
        releases.push(release);
      }),
    );
    await until(() => order.length === 2);
    expect(q.active).toBe(2);
    expect(q.waiting).toBe(2);
    releases[0]!();
    releases[0]!(); // releasing twice frees one slot only
    await until(() => order.length === 3);
    expect(q.active).toBe(2);
    releases[1]!();
    await Promise.all(all);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(q.peakActive).toBe(2);
  });
});
