/**
 * Rate limiting: 429s are waited out (Retry-After, else X-RateLimit-Reset), and the client paces
 * itself with X-RateLimit-Remaining so that a run needing more requests than the budget never
 * receives a 429. Time is injected: nothing here waits for real.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, type ApiClientOptions } from '../../src/api/index.js';
import { parseRateLimitHeaders, parseRetryAfter, RateLimitBudget } from '../../src/api/rate-limit.js';
import { BASE, half, parkedTime, recorder, T0, until, virtualTime } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

function setup(extra: Partial<ApiClientOptions> = {}) {
  const time = virtualTime();
  const rec = recorder();
  const c = createApiClient({ baseUrl: BASE, token: 'tok', now: time.clock, sleep: time.sleep, random: half, onEvent: rec.onEvent, ...extra });
  return { c, time, events: rec.events };
}

const epoch = (ms: number) => String(Math.floor(ms / 1000));

describe('429', () => {
  it('waits Retry-After seconds, tells the user, and retries (a 429 was not applied, even for a POST)', async () => {
    const scope = nock(BASE)
      .post('/organization/o1/project')
      .reply(429, { message: 'slow down' }, { 'Retry-After': '7' })
      .post('/organization/o1/project')
      .reply(200, { id: 'p1' });
    const { c, time, events } = setup();
    expect(await c.post('/organization/{organizationId}/project', { params: { organizationId: 'o1' }, body: { name: 'x' } })).toEqual({ id: 'p1' });
    expect(scope.isDone()).toBe(true);
    expect(time.sleeps).toEqual([7000]);
    expect(events).toContainEqual({ type: 'retry', method: 'POST', path: '/organization/o1/project', attempt: 2, reason: 'rate limited (HTTP 429)', delayMs: 7000 });
    expect(events).toContainEqual({ type: 'rate-limit-wait', seconds: 7, until: new Date(T0 + 7000).toISOString() });
    expect(c.stats()).toMatchObject({ total: 2, rateLimited: 1, rateLimitWaitMs: 7000 });
  });

  it('accepts Retry-After as an HTTP date', async () => {
    const scope = nock(BASE)
      .get('/organization')
      .reply(429, {}, { 'Retry-After': new Date(T0 + 12_000).toUTCString() })
      .get('/organization')
      .reply(200, {});
    const { c, time } = setup();
    await c.get('/organization');
    expect(scope.isDone()).toBe(true);
    expect(time.sleeps).toEqual([12_000]);
  });

  it('without Retry-After, waits until X-RateLimit-Reset (plus the slack)', async () => {
    const scope = nock(BASE)
      .get('/organization')
      .reply(429, {}, { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': epoch(T0 + 30_000) })
      .get('/organization')
      .reply(200, {}, { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '99', 'X-RateLimit-Reset': epoch(T0 + 3_630_000) });
    const { c, time } = setup({ resetSlackMs: 1000 });
    await c.get('/organization');
    expect(scope.isDone()).toBe(true);
    expect(time.sleeps).toEqual([31_000]);
    expect(c.rateLimit()).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('gives up with rate-limited after rateLimitRetries 429s in a row', async () => {
    const scope = nock(BASE).get('/organization').times(3).reply(429, { message: 'budget 0' }, { 'Retry-After': '1' });
    const { c } = setup({ rateLimitRetries: 2 });
    const err = await c.get('/organization').catch((e: unknown) => e);
    expect(scope.isDone()).toBe(true);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ kind: 'rate-limited', status: 429, attempts: 3, serverMessage: 'budget 0' });
  });
});

describe('proactive pacing', () => {
  it('when Remaining reaches 0, waits until Reset before sending the next request', async () => {
    const { c, time, events } = setup({ resetSlackMs: 500 });
    const sentAt: number[] = [];
    const scope = nock(BASE)
      .get('/organization')
      .reply(() => {
        sentAt.push(time.now);
        return [200, {}, { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': epoch(T0 + 20_000) }];
      })
      .get('/organization')
      .reply(() => {
        sentAt.push(time.now);
        return [200, {}, { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '9', 'X-RateLimit-Reset': epoch(T0 + 40_000) }];
      });
    await c.get('/organization');
    await c.get('/organization');
    expect(scope.isDone()).toBe(true);
    expect(sentAt).toEqual([T0, T0 + 20_500]);
    expect(events).toContainEqual({ type: 'rate-limit-wait', seconds: 21, until: new Date(T0 + 20_500).toISOString() });
    expect(c.stats().rateLimited).toBe(0);
  });

  it('counts requests in flight against the remaining budget', async () => {
    const time = parkedTime();
    const c = createApiClient({ baseUrl: BASE, token: 'tok', now: time.clock, sleep: time.sleep, parallelism: 8, resetSlackMs: 0 });
    let remaining = 3;
    let replies = 0;
    const scope = nock(BASE)
      .get(/\/project\/.*/)
      .times(6)
      .reply(() => {
        replies++;
        if (time.now >= T0 + 10_000) remaining = 100;
        remaining--;
        return [200, {}, { 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': String(remaining), 'X-RateLimit-Reset': epoch(T0 + 10_000) }];
      });
    await c.get('/project/{projectId}', { params: { projectId: 'first' } }); // learns: 2 remaining
    const all = Promise.all([1, 2, 3, 4, 5].map((i) => c.get('/project/{projectId}', { params: { projectId: `p${i}` } })));
    await until(() => time.parked.length === 3 && c.rateLimit().inFlight === 0, 'the 3 extra requests to wait');
    // Only the 2 units left were spent; the 3 others wait for the reset without being sent.
    expect(replies).toBe(3);
    expect(c.rateLimit()).toMatchObject({ remaining: 0, inFlight: 0 });
    expect(time.parked.length).toBe(3);
    expect(time.parked.every((p) => p.ms === 10_000)).toBe(true);
    time.releaseAll();
    await all;
    expect(replies).toBe(6);
    expect(scope.isDone()).toBe(true);
    expect(c.stats()).toMatchObject({ total: 6, rateLimited: 0 });
  });

  it('a run needing 3x the budget never receives a 429 from a fixed-window server', async () => {
    const LIMIT = 10;
    const WINDOW = 60_000;
    const { c, time, events } = setup({ parallelism: 4 });
    let windowStart = T0;
    let used = 0;
    let got429 = 0;
    const scope = nock(BASE)
      .get(/\/environment\/.*\/services/)
      .times(1000)
      .reply(() => {
        if (time.now >= windowStart + WINDOW) {
          windowStart += Math.floor((time.now - windowStart) / WINDOW) * WINDOW;
          used = 0;
        }
        // Reset rounded down to whole seconds, as a careless server would do.
        const headers = { 'X-RateLimit-Limit': String(LIMIT), 'X-RateLimit-Reset': epoch(windowStart + WINDOW) };
        if (used >= LIMIT) {
          got429++;
          return [429, { message: 'rate limited' }, { ...headers, 'X-RateLimit-Remaining': '0', 'Retry-After': '1' }];
        }
        used++;
        return [200, { results: [] }, { ...headers, 'X-RateLimit-Remaining': String(LIMIT - used) }];
      });
    const calls = Array.from({ length: 30 }, (_, i) => c.get('/environment/{environmentId}/services', { params: { environmentId: `e${i}` } }));
    await Promise.all(calls);
    expect(scope.pendingMocks()).toHaveLength(1); // the interceptor was used (and is still armed)
    expect(got429).toBe(0);
    expect(c.stats()).toMatchObject({ total: 30, rateLimited: 0 });
    expect(time.now).toBeGreaterThanOrEqual(T0 + 2 * WINDOW);
    expect(events.filter((e) => e.type === 'rate-limit-wait')).toHaveLength(2);
  });
});

describe('header parsing', () => {
  it('reads a Unix timestamp reset, and small values as seconds from now', () => {
    const h = (o: Record<string, string>) => ({ get: (n: string) => o[n.toLowerCase()] ?? null });
    expect(parseRateLimitHeaders(h({ 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '1767270000' }), T0)).toEqual({
      limit: 1000,
      remaining: 7,
      resetAt: 1_767_270_000_000,
    });
    expect(parseRateLimitHeaders(h({ 'x-ratelimit-reset': '30' }), T0).resetAt).toBe(T0 + 30_000);
    expect(parseRateLimitHeaders(h({ 'x-ratelimit-remaining': 'lots' }), T0).remaining).toBeUndefined();
  });

  it('reads Retry-After in seconds or as a date, and ignores garbage', () => {
    expect(parseRetryAfter('3', T0)).toBe(T0 + 3000);
    expect(parseRetryAfter(new Date(T0 + 5000).toUTCString(), T0)).toBe(T0 + 5000);
    expect(parseRetryAfter('soon', T0)).toBeUndefined();
    expect(parseRetryAfter(null, T0)).toBeUndefined();
  });

  it('sends the first request alone: the budget is unknown until it answers', () => {
    const b = new RateLimitBudget(0);
    expect(b.delayBeforeSend(T0)).toBe(0);
    b.onSend();
    expect(b.delayBeforeSend(T0)).toBeGreaterThan(0);
    b.onSettled({}, T0); // an answer without rate-limit headers: nothing to pace on
    expect(b.delayBeforeSend(T0)).toBe(0);
  });

  it('keeps the smallest remaining within a window, whatever order answers arrive in', () => {
    const b = new RateLimitBudget(0);
    b.onSend();
    b.onSend();
    b.onSettled({ limit: 10, remaining: 4, resetAt: T0 + 1000 }, T0);
    b.onSettled({ limit: 10, remaining: 5, resetAt: T0 + 1000 }, T0);
    expect(b.snapshot()).toMatchObject({ remaining: 4, inFlight: 0 });
    expect(b.delayBeforeSend(T0)).toBe(0);
    b.onSettled({ limit: 10, remaining: 0, resetAt: T0 + 1000 }, T0);
    expect(b.delayBeforeSend(T0 + 200)).toBe(800);
    expect(b.delayBeforeSend(T0 + 1000)).toBe(0);
  });
});
