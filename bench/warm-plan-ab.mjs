#!/usr/bin/env node
/**
 * Two builds' warm no-op `plan --cache`, interleaved against one emulator (populated once), with
 * the emulator's request log of every run: the CPU and wall time of each build, and whether both
 * send the same requests (method, path and query, as a multiset) and how they spread in time.
 *
 *   node bench/warm-plan-ab.mjs --before DIST [--after DIST] [--size 1x10x100] [--runs 8]
 *                               [--latency 50] [--profile DIR [--profiles N]] [--log] [--keep DIR] [--json]
 *
 * --before / --after: dist/ directories (--after defaults to this checkout's dist/). Each build
 * has its own cache directory (cold plan first, at no latency), then --runs warm plans each,
 * alternating which build goes first. At the end one `plan --json` of each, compared with the
 * timestamps taken out. --profile DIR: --profiles N (1) more warm plans of each under
 * `node --cpu-prof`, into DIR/before and DIR/after; --log:
 * every request of every run (arrival after the spawn, duration, status, URL).
 *
 * Per run it prints: wall, CPU, peak RSS, the number of requests, `first` (from the spawn to the
 * first request reaching the emulator), `span` (from the first request's arrival to the last
 * answer), `last answer` (from the spawn to the last answer sent) and `rounds` (how many times the client had no request in flight between its first and
 * last: each is a gap of at least one latency).
 */
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnEmulator } from './lib/emulator.mjs';
import { exportedOrganization, CLI } from './lib/exported-org.mjs';
import { orgSpec, parseSize, countResources } from './lib/spec.mjs';
import { median, log, fmtS } from './lib/util.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const HERE = path.dirname(fileURLToPath(import.meta.url));
const BEFORE = opt('before', undefined);
const AFTER = opt('after', path.join(HERE, '..', 'dist'));
const SIZE = opt('size', '1x10x100');
const RUNS = Number(opt('runs', 8));
const LATENCY = Number(opt('latency', 50));
const PROFILE = opt('profile', undefined);
if (!BEFORE) {
  process.stderr.write('usage: node bench/warm-plan-ab.mjs --before DIST [--after DIST] [--size 1x10x100] [--runs 8] [--latency 50]\n');
  process.exit(2);
}

/** Runs bench/lib/cli.mjs with a build; the spawn time on this machine's clock (the emulator's log uses the same). */
function run(distDir, args, env, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    const spawnedAt = Date.now();
    const t0 = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], { env: { ...env, DRIFTLESS_DIST: distDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      let usage = {};
      stderr = stderr.replace(/^##bench (.*)\n?/m, (_, j) => ((usage = JSON.parse(j)), ''));
      resolve({ code, wallMs, spawnedAt, stdout, stderr, cpuMs: usage.cpu_ms, maxRssMb: usage.max_rss_mb });
    });
  });
}

/** first, span, rounds and the sorted requests of one run's log entries ([start, duration, route, status, raw]). */
function timeline(entries, spawnedAt) {
  if (entries.length === 0) return { requests: 0, firstMs: NaN, spanMs: NaN, rounds: 0, set: [] };
  const iv = entries.map(([t, d]) => [t, t + d]).sort((a, b) => a[0] - b[0]);
  let rounds = 1;
  let end = iv[0][1];
  for (const [s, e] of iv.slice(1)) {
    if (s > end) rounds++;
    end = Math.max(end, e);
  }
  return { requests: entries.length, firstMs: iv[0][0] - spawnedAt, spanMs: end - iv[0][0], lastMs: end - spawnedAt, rounds, set: entries.map((e) => e[4]).sort() };
}

const withoutTimes = (text) => JSON.stringify(JSON.parse(text), (k, v) => (/(^|_)(at|time|timestamp|date)$|generated/i.test(k) ? undefined : v));

const tmp = mkdtempSync(path.join(os.tmpdir(), 'driftless-bench-ab-'));
const emu = await spawnEmulator({ deployDurationMs: 5000 });
const out = { date: new Date().toISOString(), load: os.loadavg().map((x) => x.toFixed(2)).join(' '), size: SIZE, runs: RUNS, latencyMs: LATENCY, before: BEFORE, after: AFTER, results: {} };
try {
  const spec = orgSpec(parseSize(SIZE));
  const counts = countResources(spec);
  log(`${SIZE}: populating (${counts.services} services)`);
  const { env, file: target } = await exportedOrganization(emu, spec, { dir: tmp, label: SIZE, exportEnv: { DRIFTLESS_DIST: AFTER } });
  const builds = { before: BEFORE, after: AFTER };
  const plan = (which, extra = [], nodeArgs = []) => run(builds[which], ['plan', target, '--cache', path.join(tmp, `cache-${which}`), '--detailed-exitcode', ...extra], env, nodeArgs);
  for (const which of Object.keys(builds)) {
    const cold = await plan(which);
    if (cold.code !== 0) throw new Error(`${which}: cold plan exited ${cold.code}: ${(cold.stderr + cold.stdout).slice(-1500)}`);
    log(`${which.padEnd(6)} cold plan (no latency): ${fmtS(cold.wallMs)} cpu ${cold.cpuMs} ms rss ${cold.maxRssMb} MB`);
    out.cold = { ...out.cold, [which]: { wallMs: Math.round(cold.wallMs), cpuMs: cold.cpuMs, maxRssMb: cold.maxRssMb } };
    out.results[which] = [];
  }
  await emu.set({ latencyMs: LATENCY });
  for (let i = 0; i < RUNS; i++) {
    for (const which of i % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      await emu.log(true);
      const r = await plan(which);
      const entries = await emu.log(false);
      if (r.code !== 0) throw new Error(`${which}: warm plan exited ${r.code}: ${(r.stderr + r.stdout).slice(-1500)}`);
      const t = timeline(entries, r.spawnedAt);
      out.results[which].push({ wallMs: Math.round(r.wallMs), cpuMs: r.cpuMs, maxRssMb: r.maxRssMb, ...t });
      if (argv.includes('--log')) {
        const lines = [...entries.map(([t, d, , st, raw]) => [t, `request ${raw}: ${d} ms, ${st}`]), ...[...r.stderr.matchAll(/^##t (\d+) (.*)$/gm)].map((m) => [Number(m[1]), `(client) ${m[2]}`])];
        for (const [t, what] of lines.sort((a, b) => a[0] - b[0])) log(`  +${t - r.spawnedAt} ms ${what}`);
      }
      log(`${which.padEnd(6)} ${fmtS(r.wallMs)} cpu ${r.cpuMs} ms rss ${r.maxRssMb} MB; ${t.requests} requests, first at ${t.firstMs} ms, span ${t.spanMs} ms, last answer at ${t.lastMs} ms, ${t.rounds} rounds`);
    }
  }
  // The same requests (ids and queries included): both caches were filled from the same state, and
  // the rotation moves on each run, so run i of one build is compared with run i of the other.
  const sameSets = out.results.before.every((b, i) => JSON.stringify(b.set) === JSON.stringify(out.results.after[i].set));
  const jsonOf = async (which) => withoutTimes((await plan(which, ['--json'])).stdout);
  const sameJson = (await jsonOf('before')) === (await jsonOf('after'));
  const summary = {};
  for (const which of Object.keys(builds)) {
    const rs = out.results[which];
    summary[which] = { wallMs: median(rs.map((r) => r.wallMs)), cpuMs: median(rs.map((r) => r.cpuMs)), maxRssMb: Math.max(...rs.map((r) => r.maxRssMb)), requests: median(rs.map((r) => r.requests)), firstMs: median(rs.map((r) => r.firstMs)), spanMs: median(rs.map((r) => r.spanMs)), lastMs: median(rs.map((r) => r.lastMs)), rounds: median(rs.map((r) => r.rounds)) };
  }
  out.summary = { ...summary, sameRequestShapes: sameSets, samePlanJson: sameJson, loadAfter: os.loadavg().map((x) => x.toFixed(2)).join(' ') };
  for (const which of Object.keys(builds)) {
    const s = summary[which];
    log(`${which.padEnd(6)} median: wall ${s.wallMs} ms, cpu ${s.cpuMs} ms, rss max ${s.maxRssMb} MB, ${s.requests} requests, first ${s.firstMs} ms, span ${s.spanMs} ms, last answer ${s.lastMs} ms, ${s.rounds} rounds`);
  }
  log(`same request shapes run by run: ${sameSets}; same plan --json: ${sameJson}; load ${out.load} -> ${out.summary.loadAfter}`);
  if (PROFILE) {
    // Interleaved, as the runs above; each profile's (idle) time is the wait for the API.
    for (let i = 0; i < Number(opt('profiles', 1)); i++) for (const which of Object.keys(builds)) await plan(which, [], ['--cpu-prof', '--cpu-prof-dir', path.join(PROFILE, which)]);
  }
  // --keep DIR: the after build's cache directory is copied there (to measure its file in process).
  if (opt('keep', undefined)) cpSync(path.join(tmp, 'cache-after'), opt('keep'), { recursive: true });
} finally {
  await emu.close();
  rmSync(tmp, { recursive: true, force: true });
}
if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(out)}\n`);

