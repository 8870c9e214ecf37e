/**
 * 429 storms and a spent budget, against the real emulator's rate limit and a proxy answering 429
 * itself: the client waits as long as Retry-After or X-RateLimit-Reset says, tells the user, and
 * never hammers: no request reaches the API during a wait it was told about.
 */
import { describe, expect, it } from 'vitest';
import { startHarness } from '../e2e/helpers.js';
import { census } from '../support/census.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { copyRealistic, referenceCensus, secretEnv } from '../support/realistic.js';
import { record } from '../support/reliability.js';

/** Requests that arrived while the client had been told to wait (50 ms allowed for calls already on the wire). */
function earlyRequests(proxy: Proxy, waits: Array<{ at: number; until: number }>): number {
  return proxy.seen.filter((s) => waits.some((w) => s.at > w.at + 50 && s.at < w.until - 50)).length;
}

describe('rate limit', () => {
  for (const variant of ['Retry-After', 'X-RateLimit-Reset'] as const) {
  it(`a budget of 0 at the start, 429s carrying ${variant}: waits out the window, one 429 at most, then completes the apply`, async () => {
    const ref = await referenceCensus();
    const h = await startHarness({ rateLimit: 25, rateWindowS: 2 });
    const proxy = await startProxy(h.emu.url);
    try {
      const dir = copyRealistic(h);
      // X-RateLimit-Reset variant: the emulator's Retry-After is removed, the client must use the reset time.
      if (variant === 'X-RateLimit-Reset') proxy.stripHeaders = ['retry-after'];
      // Spend the token's whole budget for this window.
      for (let i = 0; i < 25; i++) await fetch(`${h.emu.url}/organization`, { headers: { Authorization: `Token ${h.emu.tokens.ADMIN}` } });
      const r = await h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env: { ...secretEnv(), DRIFTLESS_API_URL: proxy.url } });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout + r.stderr).toMatch(/rate limit/i);
      const tooMany = proxy.seen.filter((s) => s.status === 429);
      // The apply needs more than one window; it paces itself with X-RateLimit-Remaining/Reset.
      expect(proxy.seen.length).toBeGreaterThan(2 * 25);
      expect(tooMany.length).toBeLessThanOrEqual(1);
      const c = await census(h.emu.url, h.emu.tokens.ADMIN);
      expect(c.duplicates).toEqual([]);
      expect(c.counts).toEqual(ref.counts);
      record(`rate-limit-budget-0-${variant.toLowerCase()}`, {
        title: `\`apply\` of examples/realistic starting with a spent budget (emulator \`--rate-limit 25 --rate-window 2\`, 25 requests already made; 429s carry ${variant === 'Retry-After' ? 'Retry-After and X-RateLimit-*' : 'X-RateLimit-* only'}): the client waits for the window, paces itself over the following windows and converges`,
        file: 'test/chaos/rate-limit.test.ts',
        command: 'npm run test:chaos',
        figures: { 'requests sent': proxy.seen.length, '429 received': tooMany.length, 'duplicates found': c.duplicates.length, 'exit code': r.code },
      });
    } finally {
      await proxy.close();
      await h.close();
    }
  });
  }

  for (const variant of ['Retry-After'] as const) {
    it(`a 429 storm answered with ${variant}: nothing is sent before the time it names, and the apply converges`, async () => {
      const ref = await referenceCensus();
      const h = await startHarness();
      const proxy = await startProxy(h.emu.url);
      try {
        const dir = copyRealistic(h);
        // From the 5th request on, for 2.5 s, every request gets a 429 saying "come back in 1 s".
        let stormEnds = Infinity;
        const waits: Array<{ at: number; until: number }> = [];
        proxy.rule = ({ n }) => {
          const now = Date.now();
          if (n === 5) stormEnds = now + 2500;
          if (n < 5 || now > stormEnds) return undefined;
          const resetS = Math.ceil(now / 1000) + 1;
          const headers: Record<string, string> =
            variant === 'Retry-After' ? { 'retry-after': '1' } : { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetS) };
          waits.push({ at: now, until: variant === 'Retry-After' ? now + 1000 : resetS * 1000 });
          return { status: 429, headers, body: { status: 429, error: 'Too Many Requests', message: 'rate limit exceeded' } };
        };
        const r = await h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env: { ...secretEnv(), DRIFTLESS_API_URL: proxy.url } });
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(r.stdout + r.stderr).toMatch(/rate limit: waiting \d+s/i);
        const storm = proxy.seen.filter((s) => s.status === 429);
        expect(storm.length).toBeGreaterThan(0);
        const early = earlyRequests(proxy, waits);
        expect(early).toBe(0);
        // A storm of 2.5 s with 1 s waits: a few rounds of at most the parallelism (8) each.
        expect(storm.length).toBeLessThanOrEqual(8 * 4);
        const c = await census(h.emu.url, h.emu.tokens.ADMIN);
        expect(c.duplicates).toEqual([]);
        expect(c.counts).toEqual(ref.counts);
        record(`rate-limit-storm-${variant.toLowerCase()}`, {
          title: `A 2.5 s storm of 429s carrying only \`${variant}\` (1 s) during \`apply\` of examples/realistic: no request is sent before the time the 429 names, the user is told, the apply converges with no duplicate`,
          file: 'test/chaos/rate-limit.test.ts',
          command: 'npm run test:chaos',
          figures: { 'requests sent': proxy.seen.length, '429 answered': storm.length, 'requests sent during a wait': early, 'duplicates found': c.duplicates.length, 'exit code': r.code },
        });
      } finally {
        await proxy.close();
        await h.close();
      }
    });
  }
});
