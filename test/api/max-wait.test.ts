/**
 * The cap on a rate-limit wait (maxWaitMs, from --max-wait): a request whose wait for a spent
 * budget or a 429's Retry-After would exceed it fails unsent with a RateLimitWaitError that says
 * when the window resets and what is left of it; within the cap the client waits as before.
 * Time is injected: nothing here waits for real.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, isRateLimitWaitError, RateLimitWaitError, type ApiClientOptions } from '../../src/api/index.js';
import { budgetText, describeCappedWait, isoSecond, localTime, spokenDuration } from '../../src/api/rate-limit-cap.js';
import { BASE, half, T0, virtualTime } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

const epoch = (ms: number) => String(Math.floor(ms / 1000));

function setup(extra: Partial<ApiClientOptions> = {}) {
  const time = virtualTime();
  const c = createApiClient({ baseUrl: BASE, token: 'tok', now: time.clock, sleep: time.sleep, random: half, resetSlackMs: 0, timeZone: 'UTC', ...extra });
  return { c, time };
}

const spent = (resetMs: number) => ({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': epoch(resetMs) });

describe('maxWaitMs', () => {
  it('fails the next request, unsent and without sleeping, when the spent budget resets after the cap', async () => {
    const scope = nock(BASE).get('/organization').reply(200, {}, spent(T0 + 3_449_000));
    const { c, time } = setup({ maxWaitMs: 60_000 });
    await c.get('/organization');
    expect(c.waitBeyondCap()).toBeInstanceOf(RateLimitWaitError);
    const err = await c.get('/organization').catch((e: unknown) => e);
    expect(scope.isDone()).toBe(true);
    expect(time.sleeps).toEqual([]);
    expect(isRateLimitWaitError(err)).toBe(true);
    expect(err).toMatchObject({ kind: 'rate-limit-wait', method: 'GET', path: '/organization', wait: { waitMs: 3_449_000, maxWaitMs: 60_000, resetAt: T0 + 3_449_000, limit: 1000, remaining: 0 } });
    expect((err as Error).message).toBe(
      'the API rate limit is spent and the next request would wait 57 min 29 s, more than the maximum wait of 1 min (--max-wait or DRIFTLESS_MAX_WAIT). ' +
        'The window resets at 2026-01-01T12:57:29Z (Jan 1, 2026, 12:57:29 PM UTC, in 57 min 29 s); 1000 of 1000 requests of this window used, 0 left.',
    );
    expect(c.stats().total).toBe(1);
  });

  it('waits as before when the reset comes within the cap', async () => {
    const scope = nock(BASE).get('/organization').reply(200, {}, spent(T0 + 30_000)).get('/organization').reply(200, {}, { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '999', 'X-RateLimit-Reset': epoch(T0 + 3_630_000) });
    const { c, time } = setup({ maxWaitMs: 60_000 });
    await c.get('/organization');
    expect(c.waitBeyondCap()).toBeUndefined();
    await c.get('/organization');
    expect(scope.isDone()).toBe(true);
    expect(time.sleeps).toEqual([30_000]);
  });

  it("caps a 429's Retry-After too; without rate-limit headers the message gives what this run sent", async () => {
    const scope = nock(BASE).get('/organization').reply(429, {}, { 'Retry-After': '600' });
    const { c, time } = setup({ maxWaitMs: 0 });
    const err = await c.get('/organization').catch((e: unknown) => e);
    expect(scope.isDone()).toBe(true);
    expect(time.sleeps).toEqual([]);
    expect(err).toMatchObject({ kind: 'rate-limit-wait', wait: { waitMs: 600_000, resetAt: T0 + 600_000, sent: 1 } });
    expect((err as Error).message).toContain('in 10 min); this run sent 1 request.');
  });

  it('without a cap, never refuses', async () => {
    const scope = nock(BASE).get('/organization').reply(200, {}, spent(T0 + 3_449_000));
    const { c } = setup();
    await c.get('/organization');
    expect(scope.isDone()).toBe(true);
    expect(c.waitBeyondCap()).toBeUndefined();
  });
});

describe('the wording', () => {
  it('spoken durations', () => {
    expect(spokenDuration(0)).toBe('0 s');
    expect(spokenDuration(4_200)).toBe('5 s');
    expect(spokenDuration(60_000)).toBe('1 min');
    expect(spokenDuration(3_449_000)).toBe('57 min 29 s');
    expect(spokenDuration(3_600_000)).toBe('1 h');
    expect(spokenDuration(7_500_000)).toBe('2 h 5 min');
  });

  it('ISO to the second in UTC, and local time in the given zone (UTC for an unknown one)', () => {
    expect(isoSecond(T0 + 1_500)).toBe('2026-01-01T12:00:02Z');
    expect(localTime(T0, 'Asia/Tokyo')).toBe('Jan 1, 2026, 9:00:00 PM GMT+9');
    expect(localTime(T0, 'Not/AZone')).toBe('Jan 1, 2026, 12:00:00 PM UTC');
  });

  it("the budget: the window's requests used and left, else what this run sent", () => {
    expect(budgetText({ limit: 1000, remaining: 96, sent: 104 })).toBe('904 of 1000 requests of this window used, 96 left');
    expect(budgetText({ sent: 2 })).toBe('this run sent 2 requests');
    expect(describeCappedWait({ waitMs: 90_000, maxWaitMs: 30_000, resetAt: T0 + 90_000, sent: 1 }, T0, 'UTC')).toContain('would wait 1 min 30 s, more than the maximum wait of 30 s');
  });
});
