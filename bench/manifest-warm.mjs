#!/usr/bin/env node
/**
 * The manifest stage of a warm run, before and after a change, interleaved (issue 21):
 *
 *   node bench/manifest-warm.mjs [--sizes 1x10x100,5x10x100] [--runs 5] [--before /tmp/bm-before/dist]
 *                                [--plan-runs 5]
 *
 * Per size: the emulator is populated as bench/warm-plan.mjs does, `driftless export` writes the
 * manifest (one `${env:}` variable per secret), and each build (--before, and this checkout's
 * dist/) fills a cache directory of its own with a cold `plan --cache`. Then, alternating the two
 * builds: --runs in-process loads on a load-cache hit (bench/lib/load-once.mjs: process.cpuUsage
 * around loadManifest, in a fresh process each), and --plan-runs warm `plan --json --cache` (the
 * process's CPU), whose outputs must be identical between the builds. Prints medians.
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnEmulator } from './lib/emulator.mjs';
import { exportedOrganization, CLI } from './lib/exported-org.mjs';
import { orgSpec, parseSize, countResources } from './lib/spec.mjs';
import { median, runNode, log } from './lib/util.mjs';
import { REPO_ROOT } from './lib/paths.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const SIZES = opt('sizes', '1x10x100').split(',');
const RUNS = Number(opt('runs', 5));
const PLAN_RUNS = Number(opt('plan-runs', 5));
const BEFORE = path.resolve(opt('before', '/tmp/bm-before/dist'));
const AFTER = path.join(REPO_ROOT, 'dist');
const HERE = path.dirname(new URL(import.meta.url).pathname);
const LOAD_ONCE = path.join(HERE, 'lib', 'load-once.mjs');
const builds = { before: BEFORE, after: AFTER };

const tmp = mkdtempSync(path.join(os.tmpdir(), 'driftless-bench-manwarm-'));
const results = { date: new Date().toISOString(), load: os.loadavg().map((x) => x.toFixed(1)).join(' '), sizes: [] };
try {
  for (const label of SIZES) {
    const spec = orgSpec(parseSize(label));
    const counts = countResources(spec);
    log(`${label}: populating (${counts.services} services)`);
    const emu = await spawnEmulator({ deployDurationMs: 5000 });
    try {
      const { env: base, file, bytes, variables } = await exportedOrganization(emu, spec, { dir: tmp, label, exportEnv: { DRIFTLESS_DIST: AFTER } });
      log(`${label}: ${(bytes / 1e6).toFixed(2)} MB, ${variables} secret variables, ${Object.keys(base).length} in the environment`);
      await emu.set({ latencyMs: 50 });
      const envOf = (b) => ({ ...base, DRIFTLESS_DIST: builds[b] });
      const cacheOf = (b) => path.join(tmp, `cache-${label}-${b}`);
      const plan = (b) => runNode([CLI, 'plan', file, '--cache', cacheOf(b), '--json'], { env: envOf(b) });
      for (const b of Object.keys(builds)) {
        const cold = await plan(b);
        if (cold.code !== 0) throw new Error(`${b}: cold plan exited ${cold.code}: ${(cold.stderr + cold.stdout).slice(-1500)}`);
      }
      const loads = { before: [], after: [] };
      for (let i = 0; i < RUNS; i++) {
        for (const b of i % 2 ? ['before', 'after'] : ['after', 'before']) {
          const r = await runNode([LOAD_ONCE, file, cacheOf(b)], { env: envOf(b) });
          if (r.code !== 0 || !r.json) throw new Error(`${b}: load-once exited ${r.code}: ${r.stderr.slice(0, 1500)}`);
          loads[b].push(r.json);
        }
      }
      const plans = { before: [], after: [] };
      const rss = { before: [], after: [] };
      const outputs = { before: new Set(), after: new Set() };
      for (let i = 0; i < PLAN_RUNS; i++) {
        for (const b of i % 2 ? ['before', 'after'] : ['after', 'before']) {
          const r = await plan(b);
          if (r.code !== 0) throw new Error(`${b}: warm plan exited ${r.code}: ${(r.stderr + r.stdout).slice(-1500)}`);
          plans[b].push(r.cpuMs);
          rss[b].push(r.maxRssMb);
          // Timestamps aside (the plan's creation time), the outputs must be the same bytes.
          outputs[b].add(r.stdout.replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"/g, '"<time>"'));
        }
      }
      const same = outputs.before.size === 1 && outputs.after.size === 1 && [...outputs.before][0] === [...outputs.after][0];
      if (!same && process.env.BENCH_KEEP_DIFF) for (const b of Object.keys(builds)) [...outputs[b]].forEach((o, i) => writeFileSync(path.join(process.env.BENCH_KEEP_DIFF, `${label}-${b}-${i}.json`), o));
      const row = {
        label,
        services: counts.services,
        manifestBytes: bytes,
        secretVariables: variables,
        load: Object.fromEntries(Object.keys(builds).map((b) => [b, { firstCpuMs: +median(loads[b].map((x) => x.cpuMs)).toFixed(1), secondCpuMs: +median(loads[b].map((x) => x.secondCpuMs)).toFixed(1), diagnostics: loads[b][0].diagnostics, services: loads[b][0].services }])),
        warmPlanCpuMs: Object.fromEntries(Object.keys(builds).map((b) => [b, median(plans[b])])),
        warmPlanCpuRuns: plans,
        warmPlanPeakRssMb: Object.fromEntries(Object.keys(builds).map((b) => [b, Math.max(...rss[b])])),
        planJsonIdentical: same,
      };
      results.sizes.push(row);
      log(`${label}: ${JSON.stringify(row)}`);
    } finally {
      await emu.close();
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
results.loadAfter = os.loadavg().map((x) => x.toFixed(1)).join(' ');
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
