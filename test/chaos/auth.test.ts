/**
 * A token revoked (401) or stripped of a permission (403) in the middle of an apply stops it with a
 * clear message naming the token; a 403 on a read is never taken as "the resource does not exist"
 * (no plan to create what is merely hidden, and no write at all).
 */
import { describe, expect, it } from 'vitest';
import { startHarness } from '../e2e/helpers.js';
import { startProxy, isWrite } from '../support/proxy.js';
import { copyRealistic, secretEnv } from '../support/realistic.js';
import { record } from '../support/reliability.js';

const PARALLELISM = 8;
const AFTER_WRITES = Number(process.env.AUTH_AFTER_WRITES ?? 8);

describe('401 and 403', () => {
  for (const status of [401, 403] as const) {
    it(`a ${status} on every request after the eighth write stops the apply with a clear message and no further writes beyond those in flight`, async () => {
      const h = await startHarness();
      const proxy = await startProxy(h.emu.url);
      try {
        const dir = copyRealistic(h);
        // The refusal starts once eight writes went through: in the middle of the apply.
        let FROM = Infinity;
        proxy.rule = ({ n, method }) => {
          if (FROM === Infinity && method !== 'GET' && proxy.seen.filter((s) => s.method !== 'GET' && s.status > 0 && s.status < 300).length >= AFTER_WRITES) FROM = n;
          return n >= FROM ? { status, body: { status, error: status === 401 ? 'Unauthorized' : 'Forbidden', message: status === 401 ? 'invalid or expired token' : 'the token lacks the permission for this call' } } : undefined;
        };
        const r = await h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env: { ...secretEnv(), DRIFTLESS_API_URL: proxy.url } });
        const out = r.stdout + r.stderr;
        expect(r.code, out).toBe(1);
        expect(out).toMatch(status === 401 ? /HTTP 401/ : /HTTP 403/);
        expect(out).toMatch(status === 401 ? /API token is missing, invalid or expired/ : /permission/);
        expect(out).not.toMatch(/\n\s+at .*\.[jt]s:\d+/);
        // Stopped: once refused, at most the requests already in flight were sent; no retry of a 401/403.
        const refused = proxy.seen.filter((s) => s.n >= FROM);
        expect(refused.length).toBeLessThanOrEqual(PARALLELISM);
        expect(refused.filter(isWrite).length).toBeLessThanOrEqual(PARALLELISM);
        record(`auth-${status}`, {
          title: `Every request after the eighth successful write answered ${status} during \`apply\` of examples/realistic: the apply stops (exit 1) with a message pointing at the token${status === 403 ? "'s permissions" : ''}, sending nothing after the refusal beyond what was in flight`,
          file: 'test/chaos/auth.test.ts',
          command: 'npm run test:chaos',
          figures: { 'requests before the refusal': FROM - 1, [`requests answered ${status}`]: refused.length, 'exit code': r.code },
        });
      } finally {
        await proxy.close();
        await h.close();
      }
    });
  }

  it('a 403 on a read is not "does not exist": the plan fails, nothing is planned for creation, apply writes nothing', async () => {
    const h = await startHarness();
    const proxy = await startProxy(h.emu.url);
    try {
      const dir = copyRealistic(h);
      const env = { ...secretEnv(), DRIFTLESS_API_URL: proxy.url };
      const first = await h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env });
      expect(first.code).toBe(0);
      const forbidden = [/^\/environment\/[^/]+\/services$/, /^\/variable$/, /^\/organization\/[^/]+\/alert-rules$/, /^\/organization\/[^/]+\/webhook$/, /^\/project\/[^/]+\/environment$/];
      let plans = 0;
      for (const pattern of forbidden) {
        proxy.rule = ({ method, path }) => (method === 'GET' && pattern.test(path) ? { status: 403 } : undefined);
        const before = proxy.seen.length;
        const p = await h.run(['plan', dir, '--format', 'json'], { env });
        expect(p.code, `${pattern}: ${p.stdout}`).toBe(1);
        expect(p.stdout, String(pattern)).not.toContain('"create"');
        expect(p.stderr).toMatch(/HTTP 403/);
        const a = await h.run(['apply', dir, '--auto-approve'], { env });
        expect(a.code).toBe(1);
        expect(proxy.seen.slice(before).filter(isWrite), String(pattern)).toEqual([]);
        plans++;
      }
      record('auth-403-read', {
        title: 'A 403 on one of the list reads (services, variables, alert rules, webhooks, environments) of an applied organization: `plan` fails with the 403 instead of planning to create what it cannot see, and `apply` sends no write',
        file: 'test/chaos/auth.test.ts',
        command: 'npm run test:chaos',
        figures: { 'reads forbidden (one at a time)': forbidden.length, 'plans that proposed a create': 0, 'plan and apply pairs': plans, 'writes sent': 0 },
      });
    } finally {
      await proxy.close();
      await h.close();
    }
  });
});
