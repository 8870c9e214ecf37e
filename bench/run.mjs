#!/usr/bin/env node
/**
 * `npm run bench`: driftless against the per-resource read pattern of the Terraform provider, on
 * the local emulator with injected latency, at growing organization sizes; writes the tables and
 * the verdict on every target of issue 6 to BENCHMARKS.md (between the bench markers) and the raw
 * figures to bench/results/latest.json.
 *
 *   node bench/run.mjs [--quick] [--runs N] [--sizes 1x1x10,1x3x30] [--deploy-ms 5000]
 *                      [--latency 50] [--no-write] [--only plan,baseline,warm,change,target,apply,core,ratelimit,emulator,manifest]
 *                      [--target-sizes 1x3x30,1x10x100,5x10x100]
 *                      [--apply-sizes 1x1x10,1x3x30:1,1x1x100,1x1x100@30000:1] (SIZE[@DEPLOY_MS][:RUNS])
 *
 * --quick: sizes 1x1x10 and 1x3x30, one run each, small core sizes (development).
 *
 * Every driftless run is the real CLI (`driftless plan` / `driftless apply`) in a fresh process;
 * the emulator runs in its own process (bench/lib/emulator-proc.mjs) and counts the requests it
 * serves, so request counts do not rely on the client's own counter.
 */
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { spawnEmulator } from './lib/emulator.mjs';
import { orgSpec, parseSize, writeManifest, SECRET_ENV, STAGES, countResources } from './lib/spec.mjs';
import { runNode, fmtS, log } from './lib/util.mjs';
import { REPO_ROOT, dist } from './lib/paths.mjs';
import { analyseLog, requestBudget, targetBudget } from './lib/analyse.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const CLI = path.join(HERE, 'lib', 'cli.mjs');
const BASELINE = path.join(HERE, 'baseline-provider.mjs');
const CORE = path.join(HERE, 'core.mjs');
const FINGERPRINT_KEY = 'driftless-bench-fingerprint-key';

// ------------------------------------------------------------------------------------------------
// Options

const argv = process.argv.slice(2);
const flag = (n) => argv.includes(`--${n}`);
const opt = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const QUICK = flag('quick');
const RUNS = Number(opt('runs', QUICK ? 1 : 3));
const LATENCY = Number(opt('latency', 50));
const DEPLOY_MS = Number(opt('deploy-ms', 5000));
const SIZES = (opt('sizes', QUICK ? '1x1x10,1x3x30' : '1x1x10,1x3x30,1x10x100,5x10x100')).split(',').map((s) => s.trim());
/** Client parallelism of driftless (CLI --parallelism) and of the baseline; default: driftless's own (8). */
const PARALLELISM = opt('parallelism', undefined);
const PAR_ARGS = PARALLELISM ? ['--parallelism', PARALLELISM] : [];
const ONLY = new Set((opt('only', 'plan,baseline,warm,change,target,apply,core,ratelimit,emulator,manifest')).split(','));
/** Sizes of the pull-request plan with `--target` of one environment (issue 13): those with several environments. */
const TARGET_SIZES = new Set((opt('target-sizes', '1x3x30,1x10x100,5x10x100')).split(',').map((s) => s.trim()));
/** Projects after the first are record copies of it (bench/lib/clone.mjs); --no-clone creates every one through the API. */
const CLONE = !flag('no-clone');
const WRITE = !flag('no-write') && !QUICK; // --quick is for development: it writes nothing
// Time budget (~15 minutes on an idle machine): the provider replay above 100 services (9,500 and
// 47,500 requests: 1 and 5 minutes at 50 ms) and the one-variable change of 5,000 services run
// once; the other figures run --runs times. Apply from empty: SIZE[@DEPLOY_MS][:RUNS]; the row
// with deployments of 30 s per stage shows how the apply's fixed cost (start-up, reads, the first
// stage's configuration) weighs against deployments of a more realistic length (the verdict is
// on the --deploy-ms row).
const BASELINE_ONCE_ABOVE = Number(opt('baseline-once-above', 100));
const CHANGE_ONCE_ABOVE = Number(opt('change-once-above', 1000));
const APPLY_SIZES = (opt('apply-sizes', QUICK ? '1x1x10' : `1x1x10,1x3x30:1,1x1x100,1x1x100@30000:1`)).split(',').map((x) => {
  const [spec, runs] = x.split(':');
  const [label, deployMs] = spec.split('@');
  return { label, deployMs: deployMs ? Number(deployMs) : DEPLOY_MS, runs: runs ? Math.min(Number(runs), RUNS) : RUNS };
});
const RATE_RUNS = Number(opt('rate-runs', 1));
// Full: the issue's case (a plan of ~400 requests against 200 per 20 s). Quick: the same shape,
// smaller (~110 requests against 60 per 5 s), so that it still has to wait.
const RATE = QUICK ? { limit: 60, windowS: 5, size: '1x2x48' } : { limit: 200, windowS: 20, size: '1x4x95' };
/** Pure core: [label, emulator size it is read from, subset PxE]. */
const CORE_CASES = QUICK
  ? [['~1k resources', '1x3x30', '1x3']]
  : [['10k resources', '1x10x100', '1x8'], ['50k resources', '5x10x100', '4x10']];

const tmpRoot = mkdtempSync(path.join(os.tmpdir(), 'driftless-bench-'));
const results = {
  date: new Date().toISOString(),
  command: `node bench/run.mjs ${argv.join(' ')}`.trim(),
  machine: machine(),
  options: { quick: QUICK, runs: RUNS, latencyMs: LATENCY, deployMs: DEPLOY_MS, sizes: SIZES, parallelism: PARALLELISM ? Number(PARALLELISM) : 8 },
  sizes: [],
  apply: [],
  core: [],
  rateLimit: undefined,
  emulator: undefined,
  errors: [],
};

function machine() {
  const cpus = os.cpus();
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {}
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    commit,
    loadAtStart: os.loadavg().map((x) => x.toFixed(1)).join(' '),
  };
}

function baseEnv(emu, token) {
  return {
    ...process.env,
    ...SECRET_ENV,
    DRIFTLESS_API_URL: emu.url,
    DRIFTLESS_API_TOKEN: token,
    DRIFTLESS_FINGERPRINT_KEY: FINGERPRINT_KEY,
    NO_COLOR: '1',
    BENCH_REPORT_CPU: '1',
  };
}

const readCount = (stdout) => {
  const m = /read with (\d+) API requests?/.exec(stdout);
  return m ? Number(m[1]) : undefined;
};

// ------------------------------------------------------------------------------------------------
// Per size: no-op plan, provider baseline, one-variable change, core prep

async function benchSize(label) {
  const size = parseSize(label);
  const spec = orgSpec(size);
  const counts = countResources(spec);
  const out = { label, size, counts, budget: requestBudget(size), plan: [], baseline: [], change: [], target: [], targetBudget: targetBudget(size), warm: undefined };
  results.sizes.push(out);
  log(`${label}: populating the emulator (${counts.services} services, ${counts.total} resources)`);
  const emu = await spawnEmulator({ deployDurationMs: DEPLOY_MS });
  try {
    const pop = await emu.populate(spec, FINGERPRINT_KEY, { clone: CLONE });
    out.populate = { ms: pop.totalMs, requests: pop.requests, clonedProjects: pop.clonedProjects ?? 0 };
    log(`${label}: populated in ${fmtS(pop.totalMs)} (${pop.requests} API calls in-process)`);
    const dir = path.join(tmpRoot, `manifest-${label}`);
    writeManifest(spec, dir);
    await emu.set({ latencyMs: LATENCY });
    const readEnv = baseEnv(emu, emu.tokens.READ);

    if (ONLY.has('plan')) {
      for (let i = 0; i < RUNS; i++) {
        await emu.stats({ reset: true });
        const r = await runNode([CLI, 'plan', dir, '--detailed-exitcode', ...PAR_ARGS], { env: readEnv });
        const s = await emu.stats({ reset: true });
        out.plan.push({
          wallMs: r.wallMs,
          cpuMs: r.cpuMs,
          maxRssMb: r.maxRssMb,
          exit: r.code,
          requests: s.total,
          clientRequests: readCount(r.stdout),
          serverSpanMs: s.last - s.first,
          status: s.byStatus,
          byRoute: s.byRoute,
          noop: r.code === 0,
          stderr: r.code === 0 ? undefined : (r.stderr + r.stdout).slice(0, 2000),
        });
        log(`${label}: plan ${i + 1}/${RUNS}: ${fmtS(r.wallMs)}, ${s.total} requests, exit ${r.code}`);
      }
    }

    if (ONLY.has('baseline')) {
      const n = counts.services > BASELINE_ONCE_ABOVE ? 1 : RUNS;
      for (let i = 0; i < n; i++) {
        await emu.stats({ reset: true });
        const r = await runNode([BASELINE, ...PAR_ARGS], { env: readEnv });
        const s = await emu.stats({ reset: true });
        if (!r.json) throw new Error(`baseline failed: ${r.stderr.slice(0, 500)}`);
        out.baseline.push({
          wallMs: r.json.wallMs,
          requests: r.json.requests,
          serverRequests: s.total - r.json.discoveryRequests,
          notServed: r.json.notServed,
          failed: r.json.failed,
          byKind: r.json.byKind,
          parallelism: r.json.parallelism,
        });
        log(`${label}: baseline ${i + 1}/${n}: ${fmtS(r.json.wallMs)}, ${r.json.requests} requests`);
      }
    }

    for (const [clabel, from, subset] of CORE_CASES) {
      if (!ONLY.has('core') || from !== label) continue;
      await emu.set({ latencyMs: 0 });
      const file = path.join(tmpRoot, `core-${subset}.json`);
      const r = await runNode([CORE, 'prep', '--size', label, '--subset', subset, '--out', file], { env: readEnv });
      if (r.code !== 0) results.errors.push(`core prep ${clabel}: ${r.stderr.slice(0, 500)}`);
      else results.core.push({ label: clabel, file, from, subset, prep: r.json, runs: [] });
      await emu.set({ latencyMs: LATENCY });
    }

    /** The manifest the live organization matches (the one-variable change applies others). */
    let liveDir = dir;

    if (ONLY.has('target') && TARGET_SIZES.has(label)) {
      // A pull request that changes one variable of one environment, planned with --target of that
      // environment: its reads, plus the few every plan needs, whatever the organization's size.
      const tdir = path.join(tmpRoot, `manifest-${label}-target`);
      const tspec = orgSpec(size, { changed: 'pr' });
      writeManifest(tspec, tdir);
      const address = `project.${tspec.projects[0].name}/environment.${tspec.projects[0].environments[0].name}`;
      for (let i = 0; i < RUNS; i++) {
        await emu.stats({ reset: true });
        const r = await runNode([CLI, 'plan', tdir, '--target', address, '--detailed-exitcode', ...PAR_ARGS], { env: readEnv });
        const s = await emu.stats({ reset: true });
        // Exit 2: the plan has the pull request's change (and nothing else, checked by the count).
        out.target.push({ address, wallMs: r.wallMs, cpuMs: r.cpuMs, exit: r.code, requests: s.total, clientRequests: readCount(r.stdout), partial: r.stdout.startsWith('Partial plan (--target)'), changes: /Plan: 0 to add, 1 to change, 0 to destroy/.exec(r.stdout) !== null, stderr: r.code === 2 ? undefined : (r.stderr + r.stdout).slice(0, 2000) });
        log(`${label}: targeted plan ${i + 1}/${RUNS}: ${fmtS(r.wallMs)}, ${s.total} requests, exit ${r.code}`);
      }
      rmSync(tdir, { recursive: true, force: true });
    }

    if (ONLY.has('change')) {
      const n = counts.services > CHANGE_ONCE_ABOVE ? 1 : RUNS;
      const adminEnv = baseEnv(emu, emu.tokens.ADMIN);
      for (let i = 0; i < n; i++) {
        const cdir = path.join(tmpRoot, `manifest-${label}-change-${i}`);
        writeManifest(orgSpec(size, { changed: `c${i + 1}` }), cdir);
        await emu.stats({ reset: true });
        await emu.log(true);
        const r = await runNode([CLI, 'apply', cdir, '--auto-approve', ...PAR_ARGS], { env: adminEnv });
        const entries = await emu.log(false);
        await emu.stats({ reset: true });
        out.change.push({ wallMs: r.wallMs, cpuMs: r.cpuMs, exit: r.code, ...analyseLog(entries), stderr: r.code === 0 ? undefined : (r.stderr + r.stdout).slice(-2000) });
        log(`${label}: one-variable change ${i + 1}/${n}: ${fmtS(r.wallMs)}, exit ${r.code}`);
        // The organization now matches this manifest: the warm runs below start from it.
        if (r.code === 0) liveDir = cdir;
        if (i < n - 1 || r.code !== 0) rmSync(cdir, { recursive: true, force: true });
      }
    }

    // Last of each size: the warm runs' console edits leave the organization drifted, which would
    // turn the no-op, targeted and one-change figures above into something else.
    if (ONLY.has('warm')) await benchWarm(label, emu, liveDir, readEnv, out);
  } finally {
    await emu.close();
  }
}

// ------------------------------------------------------------------------------------------------
// Warm runs (issue 13): the refresh cache (`--cache DIR`) after one cold run that fills it

/**
 * A warm no-op plan and drift, then a drift after 3 edits made in the console (the emulator's
 * CONSOLE token: three variables of services of three environments), each with the cache of the
 * run before. Requests are the emulator's own count of driftless's token.
 */
async function benchWarm(label, emu, dir, env, out) {
  const cacheDir = path.join(tmpRoot, `cache-${label}`);
  const cached = ['--cache', cacheDir];
  const w = { cold: undefined, plan: [], drift: [], consoleDrift: [] };
  out.warm = w;
  const run = async (argv) => {
    await emu.stats({ reset: true });
    const r = await runNode([CLI, ...argv, dir, ...cached, ...PAR_ARGS], { env });
    const s = await emu.stats({ reset: true });
    const full = /^Full read of the live state: (.*)$/m.exec(r.stderr);
    const usage = /\((\d+) of them the refresh\)/.exec(r.stderr);
    return { wallMs: r.wallMs, cpuMs: r.cpuMs, exit: r.code, requests: s.total, refreshRequests: usage ? Number(usage[1]) : undefined, fullRead: full ? full[1] : undefined, byRoute: s.byRoute, stderr: r.code === 0 || r.code === 2 ? undefined : (r.stderr + r.stdout).slice(-1000) };
  };
  w.cold = await run(['plan', '--detailed-exitcode']);
  log(`${label}: cold plan filling the cache: ${fmtS(w.cold.wallMs)}, ${w.cold.requests} requests (${w.cold.fullRead ?? 'refreshed?'})`);
  // The lists a warm run could answer from the cache (the organization and the clusters are read
  // every run): the rotation of --verify-requests N re-reads each within ceil(lists / N) warm runs.
  w.lists = cachedLists(cacheDir);
  log(`${label}: ${w.lists} cached lists: an unlogged change is seen within ceil(${w.lists} / 5) = ${Math.ceil(w.lists / 5)} warm runs at the default --verify-requests 5`);
  for (let i = 0; i < RUNS; i++) {
    w.plan.push(await run(['plan', '--detailed-exitcode']));
    log(`${label}: warm no-op plan ${i + 1}/${RUNS}: ${fmtS(w.plan.at(-1).wallMs)}, ${w.plan.at(-1).requests} requests, exit ${w.plan.at(-1).exit}`);
  }
  for (let i = 0; i < RUNS; i++) {
    w.drift.push(await run(['drift']));
    log(`${label}: warm no-op drift ${i + 1}/${RUNS}: ${fmtS(w.drift.at(-1).wallMs)}, ${w.drift.at(-1).requests} requests, exit ${w.drift.at(-1).exit}`);
  }
  for (let i = 0; i < RUNS; i++) {
    const edits = await consoleEdits(emu, 3, `console-${i}`);
    const r = await run(['drift']);
    w.consoleDrift.push({ ...r, edits });
    log(`${label}: drift after 3 console edits ${i + 1}/${RUNS}: ${fmtS(r.wallMs)}, ${r.requests} requests, exit ${r.exit}`);
  }
}

/** How many lists the refresh cache in `dir` holds that a warm run may answer from it. */
function cachedLists(dir) {
  try {
    const doc = JSON.parse(readFileSync(path.join(dir, 'driftless-live-state.json'), 'utf8'));
    return Object.keys(doc.payload.responses).filter((k) => k !== '/organization' && !/^\/organization\/[^/]+\/cluster(\/|$)/.test(k)).length;
  } catch {
    return undefined;
  }
}

/** `n` variables set to `value` as a console user: one service variable in each of `n` environments. */
async function consoleEdits(emu, n, value) {
  const token = emu.tokens.CONSOLE;
  if (!token) throw new Error('the emulator has no CONSOLE token');
  const call = async (method, p, body) => {
    const res = await fetch(`${emu.url}${p}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  };
  const list = (x) => (Array.isArray(x) ? x : x.results ?? []);
  const org = list(await call('GET', '/organization'))[0] ?? (await call('GET', '/organization'));
  const envs = [];
  for (const p of list(await call('GET', `/organization/${org.id}/project`))) {
    for (const e of list(await call('GET', `/project/${p.id}/environment`))) envs.push(e);
    if (envs.length >= n) break;
  }
  const edited = [];
  for (const e of envs.slice(0, n)) {
    const svc = list(await call('GET', `/environment/${e.id}/services`)).find((s) => s.service_type === 'APPLICATION' || s.service_type === 'CONTAINER');
    if (!svc) continue;
    const scope = svc.service_type;
    const v = list(await call('GET', `/variable?parent_id=${svc.id}&scope=${scope}`)).find((x) => x.scope === scope && !x.is_secret && x.variable_type === 'VALUE');
    if (!v) continue;
    await call('PUT', `/variable/${v.id}`, { key: v.key, value });
    edited.push(`${e.name}/${svc.name}/${v.key}`);
  }
  if (edited.length < n) throw new Error(`only ${edited.length} of ${n} console edits could be made`);
  return edited;
}

// ------------------------------------------------------------------------------------------------
// Apply from an empty organization

async function benchApply({ label, runs, deployMs }) {
  const size = parseSize(label);
  const spec = orgSpec(size);
  const dir = path.join(tmpRoot, `manifest-apply-${label}`);
  writeManifest(spec, dir);
  const out = { label, size, counts: countResources(spec), deployMs, stages: STAGES.length, criticalPathMs: STAGES.length * deployMs, runs: [] };
  results.apply.push(out);
  for (let i = 0; i < runs; i++) {
    const emu = await spawnEmulator({ deployDurationMs: deployMs });
    try {
      await emu.set({ latencyMs: LATENCY });
      await emu.log(true);
      const r = await runNode([CLI, 'apply', dir, '--auto-approve', ...PAR_ARGS], { env: baseEnv(emu, emu.tokens.ADMIN) });
      const entries = await emu.log(false);
      const summary = await emu.summary();
      out.runs.push({ wallMs: r.wallMs, cpuMs: r.cpuMs, exit: r.code, deployed: summary.deployed, ...analyseLog(entries), stderr: r.code === 0 ? undefined : (r.stderr + r.stdout).slice(-2000) });
      log(`apply ${label} ${i + 1}/${runs}: ${fmtS(r.wallMs)}, exit ${r.code}, ${summary.deployed}/${summary.services} deployed`);
    } finally {
      await emu.close();
    }
  }
}

/** The deploy phase with one batch per stage (apply) against one batch for the environment. */
async function benchBatching() {
  const r = await runNode([path.join(HERE, 'deploy-batching.mjs'), '--size', QUICK ? '1x1x10' : '1x1x100', '--deploy-ms', String(DEPLOY_MS), '--latency', String(LATENCY)]);
  if (!r.json) throw new Error(`deploy-batching: ${r.stderr.slice(-500)}`);
  results.batching = r.json;
  log(`deploy batching: per stage ${fmtS(r.json.perStage.ms)}, one batch ${fmtS(r.json.oneBatch.ms)} (critical path ${fmtS(r.json.criticalPathMs)})`);
}

// ------------------------------------------------------------------------------------------------
// Pure core

async function benchCore() {
  for (const c of results.core) {
    for (let i = 0; i < RUNS; i++) {
      const r = await runNode(['--expose-gc', CORE, 'measure', c.file]);
      if (!r.json) {
        results.errors.push(`core ${c.label}: ${r.stderr.slice(0, 500)}`);
        break;
      }
      c.runs.push(r.json);
      log(`core ${c.label} ${i + 1}/${RUNS}: ${r.json.resources} resources, ${r.json.total_cpu_ms} ms CPU, peak RSS ${r.json.peak_rss_mb} MB`);
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Rate limit: a plan that needs about twice the window's budget

async function benchRateLimit() {
  const size = parseSize(RATE.size);
  const spec = orgSpec(size);
  const dir = path.join(tmpRoot, 'manifest-ratelimit');
  writeManifest(spec, dir);
  const emu = await spawnEmulator({ rateLimit: RATE.limit, rateWindowS: RATE.windowS, deployDurationMs: DEPLOY_MS });
  const out = { ...RATE, needed: requestBudget(size), runs: [] };
  results.rateLimit = out;
  try {
    await emu.populate(spec, FINGERPRINT_KEY);
    await emu.applyRateLimit();
    await emu.set({ latencyMs: LATENCY });
    const n = Math.min(RUNS, RATE_RUNS);
    for (let i = 0; i < n; i++) {
      await emu.stats({ reset: true });
      const r = await runNode([CLI, 'plan', dir, '--detailed-exitcode'], { env: baseEnv(emu, emu.tokens.READ) });
      const s = await emu.stats({ reset: true });
      const waitLines = r.stderr.split('\n').filter((l) => /rate limit/i.test(l));
      out.runs.push({ wallMs: r.wallMs, cpuMs: r.cpuMs, exit: r.code, requests: s.total, status429: s.byStatus['429'] ?? 0, waitLines, clientRequests: readCount(r.stdout) });
      log(`rate limit ${i + 1}/${n}: ${fmtS(r.wallMs)}, ${s.total} requests, ${s.byStatus['429'] ?? 0} × 429, exit ${r.code}`);
    }
  } finally {
    await emu.close();
  }
}

// ------------------------------------------------------------------------------------------------
// Emulator throughput (issue 2): bench/emulator-throughput.mjs prints its own table

async function benchEmulator() {
  const script = path.join(HERE, 'emulator-throughput.mjs');
  if (!existsSync(script)) {
    results.emulator = { missing: true };
    return;
  }
  const r = await runNode([script, '--json', ...(QUICK ? ['--seconds', '1'] : [])]);
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {}
  results.emulator = { exit: r.code, json, stdout: json ? undefined : r.stdout, stderr: r.code === 0 ? undefined : r.stderr.slice(-1000) };
}

// ------------------------------------------------------------------------------------------------
// Manifest loading (issue 11): bench/manifest-load.mjs validates a generated 2 MB manifest

async function benchManifestLoad() {
  const r = await runNode([path.join(HERE, 'manifest-load.mjs'), '--json', '--runs', String(QUICK ? 1 : Math.max(RUNS, 5))]);
  if (!r.json) throw new Error(`manifest-load: ${r.stderr.slice(-500)}`);
  results.manifestLoad = r.json;
  log(`manifest load: ${(r.json.bytes / 1e6).toFixed(2)} MB, validate median ${fmtS(r.json.median_cli_wall_ms)} (${r.json.median_cli_cpu_ms} ms CPU), loader alone ${r.json.median_load_wall_ms} ms`);
}

// ------------------------------------------------------------------------------------------------

/** --rerender FILE: the tables and verdicts of saved raw figures, without measuring again. */
async function rerender(file) {
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  const { renderReport, evaluateTargets } = await import('./lib/report.mjs');
  saved.targets = evaluateTargets(saved);
  const md = renderReport(saved);
  process.stdout.write(md + '\n');
  if (WRITE) {
    writeFileSync(file, JSON.stringify(saved, null, 2) + '\n');
    writeReport(md);
  }
}

async function main() {
  // Other engineers rebuild dist/ while the benchmark runs (npm test builds first): every child
  // process loads a private snapshot taken now, so a half-written file never breaks a run.
  if (!process.env.DRIFTLESS_DIST) {
    const snapshot = path.join(REPO_ROOT, '.bench-dist');
    rmSync(snapshot, { recursive: true, force: true });
    cpSync(path.join(REPO_ROOT, 'dist'), snapshot, { recursive: true });
    process.env.DRIFTLESS_DIST = snapshot;
  }
  try {
    const { DEFAULT_POLL_INTERVAL_MS, DEFAULT_MAX_POLL_INTERVAL_MS } = await dist('apply/deploy.js');
    results.options.pollIntervalMs = DEFAULT_POLL_INTERVAL_MS;
    results.options.maxPollIntervalMs = DEFAULT_MAX_POLL_INTERVAL_MS;
  } catch {}
  log(`driftless benchmark: ${results.command} (${results.machine.cpu}, ${results.machine.cores} cores, Node ${results.machine.node})`);
  const t0 = Date.now();
  // Raw figures are saved after every step, so that an interrupted run keeps what it measured.
  const partial = path.join(HERE, 'results', 'partial.json');
  const step = async (name, fn) => {
    try {
      await fn();
    } catch (e) {
      results.errors.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
      log(`${name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (WRITE) {
      mkdirSync(path.dirname(partial), { recursive: true });
      writeFileSync(partial, JSON.stringify(results, null, 2) + '\n');
    }
  };
  if (ONLY.has('emulator')) await step('emulator throughput', benchEmulator);
  const perSize = ['plan', 'baseline', 'warm', 'change', 'target', 'core'].some((x) => ONLY.has(x));
  if (perSize) for (const s of SIZES) await step(`size ${s}`, () => benchSize(s));
  if (ONLY.has('core')) await step('core', benchCore);
  if (ONLY.has('apply')) for (const a of APPLY_SIZES) await step(`apply ${a.label}${a.deployMs === DEPLOY_MS ? '' : ` (${a.deployMs} ms per stage)`}`, () => benchApply(a));
  if (ONLY.has('apply')) await step('deploy batching', benchBatching);
  if (ONLY.has('ratelimit')) await step('rate limit', benchRateLimit);
  if (ONLY.has('manifest')) await step('manifest load', benchManifestLoad);
  results.durationS = Math.round((Date.now() - t0) / 1000);
  results.machine.loadAtEnd = os.loadavg().map((x) => x.toFixed(1)).join(' ');
  for (const c of results.core) delete c.file;

  const { renderReport, evaluateTargets } = await import('./lib/report.mjs');
  results.targets = evaluateTargets(results);
  const md = renderReport(results);
  process.stdout.write(md + '\n');
  if (WRITE) {
    mkdirSync(path.join(HERE, 'results'), { recursive: true });
    writeFileSync(path.join(HERE, 'results', 'latest.json'), JSON.stringify(results, null, 2) + '\n');
    rmSync(partial, { force: true });
    writeReport(md);
  }
  rmSync(tmpRoot, { recursive: true, force: true });
  log(`done in ${results.durationS} s`);
}

const BEGIN = '<!-- bench:begin (generated by `npm run bench`; edit outside these markers) -->';
const END = '<!-- bench:end -->';

function writeReport(md) {
  const file = path.join(REPO_ROOT, 'BENCHMARKS.md');
  const block = `${BEGIN}\n${md}\n${END}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n\n' + block + '\n';
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a >= 0 && b > a) text = text.slice(0, a) + block + text.slice(b + END.length);
  else if (!text.includes(block)) text = text.trimEnd() + '\n\n' + block + '\n';
  writeFileSync(file, text);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  (opt('rerender') ? rerender(opt('rerender')) : main()).catch((e) => {
    log(`benchmark failed: ${e instanceof Error ? e.stack : String(e)}`);
    rmSync(tmpRoot, { recursive: true, force: true });
    process.exitCode = 1;
  });
}
