/**
 * `apply` of examples/realistic against an API that fails 10 % and 30 % of its requests (500, 503,
 * dropped connections, half of them after the write was committed), 20 seeds each: it converges in
 * one run, or in two with a clear message after the first; then a plan says "No changes." and the
 * API lists exactly what a fault-free apply creates (no duplicate, nothing lost).
 */
import { describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';
import { census, type Census } from '../support/census.js';
import { startProxy, isWrite, type Proxy } from '../support/proxy.js';
import { copyRealistic, referenceCensus, secretEnv } from '../support/realistic.js';
import { record } from '../support/reliability.js';

const SEEDS = Number(process.env.CHAOS_SEEDS ?? 20);
const STACK = /\n\s+at .*\.[jt]s:\d+/;

/** Seeds run this many at a time (each against its own emulator): most of a run is waiting. */
const POOL = Number(process.env.CHAOS_POOL ?? 4);

interface Tally {
  runs: number;
  requests: number;
  faults: number;
  faultsOnWrites: number;
  oneRun: number;
  twoRuns: number;
  duplicates: number;
  lost: number;
  /** What made first runs fail: "create alert_rule (HTTP 503)"... */
  firstRunFailures: string[];
}

async function oneSeed(rate: number, seed: number, ref: Census, t: Tally): Promise<void> {
  const h = await startHarness({ faultRate: rate, faultSeed: seed });
  const proxy = await startProxy(h.emu.url);
  try {
    await checkSeed(h, proxy, seed, ref, t);
  } finally {
    await proxy.close();
    await h.close();
  }
}

async function checkSeed(h: Harness, proxy: Proxy, seed: number, ref: Census, t: Tally): Promise<void> {
  const dir = copyRealistic(h);
  const env = { ...secretEnv(), DRIFTLESS_API_URL: proxy.url };
  const apply = () => h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env });

  const first = await apply();
  t.runs++;
  const out1 = first.stdout + first.stderr;
  expect(out1, `seed ${seed}`).not.toMatch(STACK);
  if (first.code === 0) {
    t.oneRun++;
  } else {
    expect(first.code, `seed ${seed}: ${out1}`).toBe(1);
    // A clear message: what failed and why, in words (no stack trace, no "[object Object]").
    expect(out1, `seed ${seed}`).toMatch(/Apply failed: \d+ steps? failed|Error: .*failed: /);
    expect(out1).not.toContain('[object Object]');
    for (const row of out1.split('\n').filter((l) => /^\s+failed\s/.test(l))) {
      const [, action, address, detail] = /^\s+failed\s+(\S+)\s+(\S+)\s*(.*)$/.exec(row) ?? [];
      const why = /HTTP \d+|connection failed[^:]*|timeout|interrupted/.exec(detail ?? '')?.[0] ?? 'other';
      t.firstRunFailures.push(`${action} ${String(address).split('/').pop()!.replace(/\..*/, '')} (${why})`);
    }
    if (!/^\s+failed\s/m.test(out1)) t.firstRunFailures.push((/Error: ([^\n]{0,80})/.exec(out1)?.[1] ?? 'other').trim());
    const second = await apply();
    t.runs++;
    expect(second.stdout + second.stderr, `seed ${seed}`).not.toMatch(STACK);
    expect(second.code, `seed ${seed}, second run:\n${second.stdout}\n${second.stderr}`).toBe(0);
    t.twoRuns++;
  }
  t.requests += proxy.seen.length;
  t.faults += proxy.seen.filter((s) => s.injected).length;
  t.faultsOnWrites += proxy.seen.filter((s) => s.injected && isWrite(s)).length;

  h.emu.ctx.options.faultRate = 0;
  const plan = await h.run(['plan', dir], { env });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout, `seed ${seed}`).toContain('No changes.');
  const c = await census(h.emu.url, h.emu.tokens.ADMIN);
  t.duplicates += c.duplicates.length;
  expect(c.duplicates, `seed ${seed}`).toEqual([]);
  for (const [kind, n] of Object.entries(ref.counts)) if ((c.counts[kind] ?? 0) < n) t.lost += n - (c.counts[kind] ?? 0);
  expect(c.counts, `seed ${seed}`).toEqual(ref.counts);
}

async function pool<T>(items: T[], size: number, fn: (x: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: size }, async () => {
    for (let x = queue.shift(); x !== undefined; x = queue.shift()) await fn(x);
  }));
}

describe('apply of examples/realistic under injected faults', () => {
  for (const rate of (process.env.CHAOS_RATES ?? '0.1,0.3').split(',').map(Number)) {
    it(`converges at --fault-rate ${rate} for ${SEEDS} seeds, with no duplicate and nothing lost`, async () => {
      const ref = await referenceCensus();
      expect(ref.counts.service).toBeGreaterThanOrEqual(6);
      const t: Tally = { runs: 0, requests: 0, faults: 0, faultsOnWrites: 0, oneRun: 0, twoRuns: 0, duplicates: 0, lost: 0, firstRunFailures: [] };
      const seeds = Array.from({ length: SEEDS }, (_, i) => (i + 1) * 7919 + Math.round(rate * 100));
      await pool(seeds, POOL, (seed) => oneSeed(rate, seed, ref, t));
      expect(t.faults).toBeGreaterThan(0);
      record(`faults-${rate}`, {
        title: `\`apply\` of examples/realistic with \`--fault-rate ${rate}\` (500, 503, dropped connections, half after the commit), one seed per attempt; then \`plan\` says No changes and the API lists exactly what a fault-free apply creates (${Object.entries(ref.counts).map(([k, v]) => `${v} ${k}`).join(', ')})`,
        file: 'test/chaos/faults.test.ts',
        command: 'npm run test:chaos',
        figures: {
          seeds: SEEDS,
          'apply runs': t.runs,
          'requests sent': t.requests,
          'faults injected': t.faults,
          'faults on writes': t.faultsOnWrites,
          'converged in one run': `${t.oneRun}/${SEEDS}`,
          'converged in two runs': `${t.twoRuns}/${SEEDS}`,
          'not converged': SEEDS - t.oneRun - t.twoRuns,
          'why first runs failed': t.firstRunFailures.length ? t.firstRunFailures.join('; ') : 'none',
          'duplicates found': t.duplicates,
          'resources lost': t.lost,
        },
      });
    });
  }
});
