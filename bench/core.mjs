#!/usr/bin/env node
/**
 * The pure core at scale: CPU time and peak memory of building the desired graph and computing
 * the plan, with the API taken out of the picture (the live records are read once, saved, and
 * loaded in memory).
 *
 *   node bench/core.mjs prep --size 5x10x100 --subset 4x10 --out FILE
 *       (DRIFTLESS_API_URL / DRIFTLESS_API_TOKEN of an emulator populated with --size)
 *       reads the live records of the subset's manifest with driftless's own reader and saves them.
 *   node --expose-gc bench/core.mjs measure FILE
 *       in a fresh process: loads the records, builds the manifest object, then measures
 *       buildGraph, liveStateFromRecords (normalisation) and computePlan; prints one JSON line.
 *
 * Peak memory is the process's maxRSS (getrusage), which includes Node itself and the loaded
 * inputs: an upper bound of what graph + plan need. `rss_before_mb` is the RSS with the inputs
 * loaded, just before the measured work.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { dist } from './lib/paths.mjs';
import { manifestObject, orgSpec, parseSize, subsetSpec } from './lib/spec.mjs';

const FINGERPRINT_KEY = process.env.DRIFTLESS_FINGERPRINT_KEY ?? 'driftless-bench-fingerprint-key';

function parseSubset(s) {
  const m = /^(\d+)x(\d+)$/.exec(s ?? '');
  if (!m) throw new Error(`--subset: expected PxE, got ${s}`);
  return { projects: Number(m[1]), environments: Number(m[2]) };
}

function specFor(size, subset) {
  return subsetSpec(orgSpec(parseSize(size)), parseSubset(subset));
}

const mapToEntries = (m) => [...m.entries()];

async function prep(args) {
  const { buildGraph } = await dist('graph/build.js');
  const { readLiveRecords } = await dist('live/read.js');
  const { portFromClient } = await dist('live/api-port.js');
  const { createApiClient } = await dist('api/index.js');
  const spec = specFor(args.size, args.subset);
  const { graph, diagnostics } = buildGraph(manifestObject(spec));
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new Error(`buildGraph: ${errors.map((d) => d.summary).join('; ')}`);
  const client = createApiClient({ baseUrl: process.env.DRIFTLESS_API_URL, token: process.env.DRIFTLESS_API_TOKEN, parallelism: 8 });
  try {
    const r = await readLiveRecords(portFromClient(client), graph, { parallelism: 8 });
    const out = {
      size: args.size,
      subset: args.subset,
      records: {
        organization: r.organization,
        lists: r.lists,
        environments: mapToEntries(r.environments),
        variables: mapToEntries(r.variables),
        services: mapToEntries(r.services),
        stages: mapToEntries(r.stages),
        statuses: mapToEntries(r.statuses),
      },
    };
    writeFileSync(args.out, JSON.stringify(out));
    process.stdout.write(JSON.stringify({ resources: graph.resources.size, requests: client.stats().total }) + '\n');
  } finally {
    await client.close();
  }
}

async function measure(file) {
  const { buildGraph } = await dist('graph/build.js');
  const { liveStateFromRecords } = await dist('live/fetch.js');
  const { computePlan } = await dist('plan/compute.js');
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  const r = saved.records;
  const records = {
    organization: r.organization,
    lists: r.lists,
    environments: new Map(r.environments),
    variables: new Map(r.variables),
    services: new Map(r.services),
    stages: new Map(r.stages),
    statuses: new Map(r.statuses),
  };
  const manifest = manifestObject(specFor(saved.size, saved.subset));
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const maxRssBeforeKb = process.resourceUsage().maxRSS;

  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const built = buildGraph(manifest);
  const c1 = process.cpuUsage();
  const live = liveStateFromRecords(records, built.graph);
  const c2 = process.cpuUsage();
  const plan = computePlan(built.graph, live, { fingerprintKey: FINGERPRINT_KEY });
  const c3 = process.cpuUsage();
  const t1 = performance.now();
  const maxRssKb = process.resourceUsage().maxRSS;
  const heapAfter = process.memoryUsage().heapUsed;

  const out = {
    resources: built.graph.resources.size,
    live_resources: live.resources.size,
    graph_cpu_ms: 0,
    live_cpu_ms: 0,
    plan_cpu_ms: 0,
    total_cpu_ms: 0,
    wall_ms: Math.round(t1 - t0),
    rss_before_mb: Math.round(rssBefore / 2 ** 20),
    max_rss_before_mb: Math.round(maxRssBeforeKb / 1024),
    peak_rss_mb: Math.round(maxRssKb / 1024),
    heap_after_mb: Math.round(heapAfter / 2 ** 20),
    summary: plan.summary,
    changes: plan.changes.filter((c) => c.status === 'planned' && (c.actions[0] !== 'no-op' || c.deploy)).length,
  };
  const d = (a, b) => (b.user - a.user + (b.system - a.system)) / 1000;
  out.graph_cpu_ms = Math.round(d(c0, c1));
  out.live_cpu_ms = Math.round(d(c1, c2));
  out.plan_cpu_ms = Math.round(d(c2, c3));
  out.total_cpu_ms = Math.round(d(c0, c3));
  process.stdout.write(JSON.stringify(out) + '\n');
}

const [mode, ...rest] = process.argv.slice(2);
const args = {};
for (let i = 0; i < rest.length; i++) if (rest[i].startsWith('--')) args[rest[i].slice(2)] = rest[++i];
if (mode === 'prep') await prep(args);
else if (mode === 'measure') await measure(rest[0]);
else {
  process.stderr.write('usage: core.mjs prep --size PxExS --subset PxE --out FILE | measure FILE\n');
  process.exit(2);
}
