/** Seed section 8: per-token budget, X-RateLimit-* on every response, 429 with Retry-After. */
import { afterEach, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';

let c: Client | undefined;
afterEach(async () => {
  await c?.em.close();
  c = undefined;
});

describe('rate limit', () => {
  it('counts down per token, then answers 429 with Retry-After until the window resets', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    c = await startClient({ rateLimit: 3, rateWindowS: 60, clock: { now: () => new Date(now) } });
    const reset = String(now / 1000 + 60);
    for (const remaining of ['2', '1', '0']) {
      const r = await c.get('/organization');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      expect(r.headers.get('x-ratelimit-remaining')).toBe(remaining);
      expect(r.headers.get('x-ratelimit-reset')).toBe(reset);
    }
    now += 15_000;
    const limited = await c.get('/organization');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ status: 429, error: 'Too Many Requests' });
    expect(limited.body.message).toContain('3 requests per 60 s');
    expect(limited.headers.get('retry-after')).toBe('45');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');

    // Another token has its own budget.
    expect((await c.get('/organization', c.em.tokens.READ)).status).toBe(200);

    now += 45_000;
    const again = await c.get('/organization');
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('puts the headers on error responses too (401, 404, 400)', async () => {
    c = await startClient({ rateLimit: 1000 });
    for (const r of [await c.get('/organization', null), await c.get('/nowhere'), await c.post(`/organization/${c.em.organizationId}/project`, {})]) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(r.headers.get('x-ratelimit-reset')).toMatch(/^\d{10}$/);
    }
  });

  it('defaults to 1000 requests per hour', async () => {
    const { startEmulator } = await import('../../src/emulator/server.js');
    const em = await startEmulator();
    try {
      const r = await fetch(`${em.url}/organization`, { headers: { authorization: `Token ${em.tokens.READ}` } });
      expect(r.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('999');
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      expect(reset - Date.now() / 1000).toBeGreaterThan(3500);
    } finally {
      await em.close();
    }
  });
});
