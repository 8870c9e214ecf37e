/**
 * Property: whatever the budget, the window, the number of requests, the parallelism and the
 * order in which answers come back, a client pacing itself on X-RateLimit-* headers never
 * receives a 429 from a fixed-window server, and every request succeeds.
 *
 * The server is simulated behind the client's `fetch` option (each answer is delayed by a random
 * number of event-loop turns), on virtual time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApiClient, type FetchLike } from '../../src/api/index.js';
import { virtualTime } from './helpers.js';

interface Scenario {
  limit: number;
  windowS: number;
  requests: number;
  parallelism: number;
  roundDown: boolean;
  delays: number[];
}

function fixedWindowServer(s: Scenario, now: () => number) {
  let start = -Infinity;
  let count = 0;
  let tooMany = 0;
  let served = 0;
  let call = 0;
  const fetch: FetchLike = async () => {
    const turns = s.delays[call++ % s.delays.length]!;
    for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
    const t = now();
    if (t >= start + s.windowS * 1000) {
      start = t;
      count = 0;
    }
    const resetMs = start + s.windowS * 1000;
    const reset = s.roundDown ? Math.floor(resetMs / 1000) : Math.ceil(resetMs / 1000);
    const headers = { 'x-ratelimit-limit': String(s.limit), 'x-ratelimit-reset': String(reset), 'content-type': 'application/json' };
    if (count >= s.limit) {
      tooMany++;
      return new Response('{"message":"rate limited"}', { status: 429, headers: { ...headers, 'x-ratelimit-remaining': '0', 'retry-after': '1' } });
    }
    count++;
    served++;
    return new Response('{"results":[]}', { status: 200, headers: { ...headers, 'x-ratelimit-remaining': String(s.limit - count) } });
  };
  return { fetch, stats: () => ({ tooMany, served }) };
}

describe('rate-limit pacing (property)', () => {
  it('never receives a 429 and completes every request', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          limit: fc.integer({ min: 1, max: 12 }),
          windowS: fc.integer({ min: 1, max: 120 }),
          requests: fc.integer({ min: 1, max: 40 }),
          parallelism: fc.integer({ min: 1, max: 8 }),
          roundDown: fc.boolean(),
          delays: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 10 }),
        }),
        async (s) => {
          const time = virtualTime(Date.UTC(2026, 0, 1, 12, 0, 0, 250));
          const server = fixedWindowServer(s, time.clock);
          const client = createApiClient({
            baseUrl: 'http://sim.test',
            token: 't',
            parallelism: s.parallelism,
            now: time.clock,
            sleep: time.sleep,
            fetch: server.fetch,
          });
          await Promise.all(Array.from({ length: s.requests }, (_, i) => client.get('/project/{projectId}', { params: { projectId: `p${i}` } })));
          expect(server.stats()).toEqual({ tooMany: 0, served: s.requests });
          expect(client.stats()).toMatchObject({ total: s.requests, rateLimited: 0 });
        },
      ),
      { numRuns: 60 },
    );
  });
});
