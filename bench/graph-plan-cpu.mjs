#!/usr/bin/env node
/**
 * CPU of buildGraph and computePlan alone, in process, on a manifest loaded as the warm plan loads
 * it (through the manifest load cache) and the live state the warm plan reads (through the refresh
 * cache): what the two stages cost without start-up, loading and reading.
 *
 *   node bench/graph-plan-cpu.mjs ENV.json [--runs 7] [--plan-out FILE]
 *
 * ENV.json: {"env": {...}, "file": MANIFEST, "cache": DIR}, the variables, manifest and cache
 * directory of a warm `plan --cache` against an emulator populated with bench/lib/spec.mjs (the
 * emulator must be running: the live state is read once, as the CLI reads it, through runPlan).
 * DRIFTLESS_DIST selects the build (bench/lib/paths.mjs), so two builds can be run interleaved.
 *
 * Prints one JSON line: the CPU (user + system, process.cpuUsage) of the first buildGraph and
 * computePlan after the pipeline's own (JIT still warming, as in a CLI run) and the medians of
 * --runs more, with the garbage they leave collected between runs (--expose-gc) so that each run
 * pays for its own collections only. --plan-out writes the last plan's JSON (the same inputs give
 * the same plan whatever the build: compare two builds' files).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dist } from './lib/paths.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const RUNS = Number(opt('runs', 7));
const PLAN_OUT = opt('plan-out', undefined);
const { env, file, cache } = JSON.parse(readFileSync(argv[0], 'utf8'));
Object.assign(process.env, env);

const { runPlan } = await dist('cli/run-plan.js');
const { buildGraph } = await dist('graph/build.js');
const { computePlan } = await dist('plan/compute.js');

const result = await runPlan([file], { cache }, { env: process.env, cwd: process.cwd() });
await result.session?.close();
if (!result.plan || !result.manifest || !result.live) throw new Error(`the plan did not run: ${result.diagnostics.map((d) => d.summary).join('; ')}`);
const { manifest, live } = result;
const options = { fingerprintKey: result.fingerprintKey, checks: [] };

const cpu = (f) => {
  const a = process.cpuUsage();
  const v = f();
  const b = process.cpuUsage(a);
  return { ms: (b.user + b.system) / 1000, v };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const graphMs = [];
const planMs = [];
let plan;
for (let i = 0; i <= RUNS; i++) {
  globalThis.gc?.();
  const g = cpu(() => buildGraph(manifest));
  globalThis.gc?.();
  const p = cpu(() => computePlan(g.v.graph, live, options));
  graphMs.push(g.ms);
  planMs.push(p.ms);
  plan = p.v;
}
if (PLAN_OUT) writeFileSync(PLAN_OUT, JSON.stringify(plan));
const r = (x) => Math.round(x);
process.stdout.write(
  `${JSON.stringify({
    resources: result.graph.resources.size,
    live: live.resources.size,
    first: { buildGraph: r(graphMs[0]), computePlan: r(planMs[0]) },
    median: { buildGraph: r(median(graphMs.slice(1))), computePlan: r(median(planMs.slice(1))) },
    runs: RUNS,
  })}\n`,
);
