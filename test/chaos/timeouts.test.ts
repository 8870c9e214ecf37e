/**
 * Latency spikes and a server that stops answering. The request timeout is configurable
 * (DRIFTLESS_REQUEST_TIMEOUT, seconds); reads are retried with jittered exponential backoff and each
 * retry is shown on stderr; a create whose answer never came is looked up by name, never blindly
 * sent again; a server that never answers ends in a clear error after the retries, not a hang.
 */
import { describe, expect, it } from 'vitest';
import { startHarness } from '../e2e/helpers.js';
import { census } from '../support/census.js';
import { startProxy, isWrite } from '../support/proxy.js';
import { copyRealistic, referenceCensus, secretEnv } from '../support/realistic.js';
import { record } from '../support/reliability.js';

const RETRY_LINE = /^API: (GET|PUT|DELETE|POST) (\S+) failed \(([^)]+)\); retrying \(attempt (\d+)\) in (\d+)ms$/gm;

describe('timeouts and retries', () => {
  it('a server that stops answering: each attempt times out at DRIFTLESS_REQUEST_TIMEOUT, the read is retried 4 times with jittered backoff shown to the user, then a clear error', async () => {
    const h = await startHarness();
    const proxy = await startProxy(h.emu.url);
    try {
      const dir = copyRealistic(h);
      proxy.rule = () => 'hang';
      const r = await h.run(['plan', dir], { env: { ...secretEnv(), DRIFTLESS_API_URL: proxy.url, DRIFTLESS_REQUEST_TIMEOUT: '0.3' } });
      expect(r.code).toBe(1);
      const retries = [...r.stderr.matchAll(RETRY_LINE)];
      expect(retries.map((m) => [m[1], m[3], m[4]])).toEqual([
        ['GET', 'timeout', '2'],
        ['GET', 'timeout', '3'],
        ['GET', 'timeout', '4'],
        ['GET', 'timeout', '5'],
      ]);
      // Equal-jitter exponential backoff: retry i waits between half and all of 250ms x 2^(i-1).
      const delays = retries.map((m) => Number(m[5]));
      delays.forEach((d, i) => {
        const step = 250 * 2 ** i;
        expect(d).toBeGreaterThanOrEqual(step / 2);
        expect(d).toBeLessThanOrEqual(step);
      });
      expect(r.stderr).toMatch(/did not answer in time/);
      expect(r.stderr).not.toMatch(/\n\s+at .*\.[jt]s:\d+/);
      // One request at a time (the first goes alone), 5 attempts, then it stops.
      expect(proxy.seen.map((s) => s.method + ' ' + s.path)).toEqual(Array(5).fill('GET /organization'));
      record('timeouts-dead-server', {
        title: 'A server that accepts connections but never answers: `plan` with DRIFTLESS_REQUEST_TIMEOUT=0.3 times out each attempt, retries the read 4 times with jittered exponential backoff (each retry printed with its delay), then fails with a clear message',
        file: 'test/chaos/timeouts.test.ts',
        command: 'npm run test:chaos',
        figures: { 'requests sent': proxy.seen.length, 'retries shown': retries.length, 'backoff delays (ms)': delays.join(', '), 'exit code': r.code },
      });
    } finally {
      await proxy.close();
      await h.close();
    }
  });

  it('an invalid DRIFTLESS_REQUEST_TIMEOUT is refused before any request, naming the variable', async () => {
    const h = await startHarness();
    const proxy = await startProxy(h.emu.url);
    try {
      const dir = copyRealistic(h);
      for (const bad of ['0', '-1', 'ten', '1e3', '7200']) {
        const r = await h.run(['plan', dir], { env: { ...secretEnv(), DRIFTLESS_API_URL: proxy.url, DRIFTLESS_REQUEST_TIMEOUT: bad } });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('DRIFTLESS_REQUEST_TIMEOUT must be a number of seconds');
      }
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
      await h.close();
    }
  });

  it('latency spikes: timed-out reads are retried and the plan succeeds; a create whose answer is lost is looked up, not sent twice', async () => {
    const ref = await referenceCensus();
    const h = await startHarness();
    const proxy = await startProxy(h.emu.url);
    try {
      const dir = copyRealistic(h);
      const env = { ...secretEnv(), DRIFTLESS_API_URL: proxy.url, DRIFTLESS_REQUEST_TIMEOUT: '0.5' };
      // Spikes: three reads never answered; the project's create reaches the API, its answer never comes back.
      const spikes = new Set([2, 3, 6]);
      let swallowed = 0;
      proxy.rule = ({ n, method, path }) => {
        if (spikes.has(n) && method === 'GET') return 'hang';
        if (method === 'POST' && /^\/organization\/[^/]+\/project$/.test(path) && swallowed++ === 0) return 'swallow';
        return undefined;
      };
      const a = await h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env });
      expect(a.code, a.stdout + a.stderr).toBe(0);
      const retries = [...a.stderr.matchAll(RETRY_LINE)];
      expect(retries.filter((m) => m[1] === 'GET' && m[3] === 'timeout').length).toBeGreaterThanOrEqual(3);
      // Never a blind retry of a write: the project was created once, and found by a look-up.
      expect(retries.filter((m) => m[1] === 'POST')).toEqual([]);
      const projectPosts = proxy.seen.filter((s) => s.method === 'POST' && /\/project$/.test(s.path));
      expect(projectPosts).toHaveLength(1);
      const c = await census(h.emu.url, h.emu.tokens.ADMIN);
      expect(c.duplicates).toEqual([]);
      expect(c.counts).toEqual(ref.counts);
      const p = await h.run(['plan', dir], { env });
      expect(p.stdout).toContain('No changes.');
      record('timeouts-spikes', {
        title: 'Latency spikes during `apply` of examples/realistic (DRIFTLESS_REQUEST_TIMEOUT=0.5): reads that never answer are retried (shown on stderr) and the apply converges; the project create whose answer was lost is looked up by name, not sent again',
        file: 'test/chaos/timeouts.test.ts',
        command: 'npm run test:chaos',
        figures: {
          'requests sent': proxy.seen.length,
          'reads left unanswered': [...spikes].length,
          'creates whose answer was lost': 1,
          'retries shown': retries.length,
          'writes retried blindly': retries.filter((m) => m[1] === 'POST').length,
          'duplicates found': c.duplicates.length,
          'exit code': a.code,
        },
      });
      expect(proxy.seen.filter(isWrite).length).toBeGreaterThan(0);
    } finally {
      await proxy.close();
      await h.close();
    }
  });
});
