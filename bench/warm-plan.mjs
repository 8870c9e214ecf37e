#!/usr/bin/env node
/**
 * Issue 21: a warm no-op `plan --cache` and `validate` of an exported manifest, as ratios to
 * `node -e 0` measured in the same run (the floor of any Node.js command on this machine).
 *
 *   node bench/warm-plan.mjs [--sizes 1x10x100,5x10x100] [--runs 5] [--latency 50] [--json]
 *                            [--profile DIR]
 *
 * Per size: the emulator (its own process) is populated with the benchmark's organization
 * (bench/lib/spec.mjs: 10 variables and 2 secrets per service), `driftless export` writes it as
 * one manifest file (secrets as ${env:} placeholders), a cold `plan --cache DIR` fills the caches,
 * then --runs warm no-op plans and --runs `validate`s of the same file run, each the real CLI in a
 * fresh process. Prints medians of wall time, CPU and peak RSS, and each as a ratio to the median
 * of --runs `node -e 0`. --profile DIR: one more warm plan and validate under `node --cpu-prof`,
 * profiles written to DIR (summarise with bench/profile-summary.mjs).
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { spawnEmulator } from './lib/emulator.mjs';
import { exportedOrganization, CLI } from './lib/exported-org.mjs';
import { orgSpec, parseSize, countResources } from './lib/spec.mjs';
import { median, runNode, fmtS, log } from './lib/util.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const SIZES = opt('sizes', '1x10x100').split(',');
const RUNS = Number(opt('runs', 5));
const LATENCY = Number(opt('latency', 50));
const PROFILE = opt('profile', undefined);
const JSON_OUT = argv.includes('--json');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'driftless-bench-warm-'));
const out = { date: new Date().toISOString(), load: os.loadavg().map((x) => x.toFixed(1)).join(' '), runs: RUNS, latencyMs: LATENCY, floorMs: undefined, sizes: [] };

async function floor() {
  const xs = [];
  for (let i = 0; i < RUNS; i++) xs.push((await runNode(['-e', '0'])).wallMs);
  return median(xs);
}

const stat = (rs) => ({ wallMs: Math.round(median(rs.map((r) => r.wallMs))), cpuMs: median(rs.map((r) => r.cpuMs)), maxRssMb: Math.max(...rs.map((r) => r.maxRssMb ?? 0)), exits: [...new Set(rs.map((r) => r.code))] });

try {
  for (const label of SIZES) {
    const spec = orgSpec(parseSize(label));
    const counts = countResources(spec);
    log(`${label}: populating (${counts.services} services, ${counts.total} resources)`);
    const emu = await spawnEmulator({ deployDurationMs: 5000 });
    try {
      const { env, file, bytes } = await exportedOrganization(emu, spec, { dir: tmp, label });
      await emu.set({ latencyMs: LATENCY });
      const cache = path.join(tmp, `cache-${label}`);
      const plan = (extra = []) => runNode([...extra, CLI, 'plan', file, '--cache', cache, '--detailed-exitcode'], { env });
      const validate = (extra = []) => runNode([...extra, CLI, 'validate', file], { env });
      const cold = await plan();
      if (cold.code !== 0) throw new Error(`cold plan exited ${cold.code}: ${(cold.stderr + cold.stdout).slice(-1500)}`);
      log(`${label}: ${(bytes / 1e6).toFixed(2)} MB manifest; cold plan ${fmtS(cold.wallMs)}`);
      const warm = [];
      const val = [];
      for (let i = 0; i < RUNS; i++) {
        warm.push(await plan());
        val.push(await validate());
      }
      const floorMs = await floor();
      const row = { label, services: counts.services, resources: counts.total, manifestBytes: bytes, floorMs: Math.round(floorMs), cold: stat([cold]), warm: stat(warm), validate: stat(val) };
      row.warm.ratio = +(row.warm.wallMs / floorMs).toFixed(1);
      row.validate.ratio = +(row.validate.wallMs / floorMs).toFixed(1);
      out.sizes.push(row);
      log(`${label}: node -e 0 ${fmtS(floorMs)}; warm plan ${fmtS(row.warm.wallMs)} (${row.warm.ratio}x, cpu ${row.warm.cpuMs} ms, rss ${row.warm.maxRssMb} MB, exit ${row.warm.exits}); validate ${fmtS(row.validate.wallMs)} (${row.validate.ratio}x, cpu ${row.validate.cpuMs} ms, rss ${row.validate.maxRssMb} MB)`);
      if (PROFILE) {
        mkdirSync(PROFILE, { recursive: true });
        await plan(['--cpu-prof', '--cpu-prof-dir', path.join(PROFILE, `plan-${label}`)]);
        await validate(['--cpu-prof', '--cpu-prof-dir', path.join(PROFILE, `validate-${label}`)]);
      }
    } finally {
      await emu.close();
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
if (JSON_OUT) process.stdout.write(`${JSON.stringify(out)}\n`);
