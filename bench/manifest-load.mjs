#!/usr/bin/env node
/**
 * Loading a large manifest (issue 11, finding 13: one 1.9 MB manifest took 8.5 s to validate):
 * `driftless validate` of a generated ~2 MB manifest file, the real CLI in a fresh process each
 * run, and the loader alone (loadManifest, in this process, after one warm-up run).
 *
 *   node bench/manifest-load.mjs [--runs 5] [--mb 2] [--json]
 *
 * The manifest is one project of the benchmark's own shape (bench/lib/spec.mjs: services with 12
 * variables each, deployment stages, secrets from the environment), with as many environments of
 * 100 services as it takes to reach --mb megabytes (2 MB: 20 environments, 2,000 services), 99 of
 * whose applications merge shared settings from an anchor. The secrets are set, so that validate
 * resolves them as plan would. Prints a table, or with --json
 * one JSON line (for bench/run.mjs).
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { dist } from './lib/paths.mjs';
import { orgSpec, projectYaml, SECRET_ENV } from './lib/spec.mjs';
import { median, runNode } from './lib/util.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const RUNS = Number(opt('runs', 5));
const TARGET_BYTES = Number(opt('mb', 2)) * 1_000_000;
const JSON_OUT = argv.includes('--json');
const CLI = path.join(path.dirname(new URL(import.meta.url).pathname), 'lib', 'cli.mjs');

/**
 * The project's YAML with shared settings: the first application is anchored (`&app`) and the next
 * 99 merge it (`<<: *app`), as manifests that share service settings do. Aliases were the slow path
 * of issue 11 (each one walked the whole document: 99 merges made a 1.9 MB file take 5 s of CPU).
 */
function manifestYaml(project) {
  let n = 0;
  return projectYaml(project).replace(/^ {10}- type: application\n/gm, (line) => {
    n++;
    if (n === 1) return '          - &app\n            type: application\n';
    return n <= 100 ? '          - <<: *app\n            type: application\n' : line;
  });
}

/** The smallest one-project spec whose YAML reaches the target size. */
function specOfSize(bytes) {
  for (let environments = 1; ; environments++) {
    const spec = orgSpec({ projects: 1, environments, services: 100 });
    const text = manifestYaml(spec.projects[0]);
    const size = Buffer.byteLength(text);
    if (size >= bytes || environments >= 200) return { text, size, environments };
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'driftless-bench-manifest-'));
try {
  const { text, size, environments } = specOfSize(TARGET_BYTES);
  const file = path.join(dir, 'project-00.yaml');
  writeFileSync(file, text);
  const env = { ...process.env, ...SECRET_ENV, BENCH_REPORT_CPU: '1' };

  const cli = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await runNode([CLI, 'validate', file], { env });
    if (r.code !== 0) throw new Error(`validate exited ${r.code}: ${(r.stderr + r.stdout).slice(0, 1000)}`);
    cli.push({ wallMs: Math.round(r.wallMs), cpuMs: r.cpuMs, maxRssMb: r.maxRssMb });
  }

  // The floor of any Node.js command, measured in the same run: validate's figure as a ratio to it
  // (issue 21's target: at most 8 times for a 2 MB manifest).
  const floor = [];
  for (let i = 0; i < RUNS; i++) floor.push(Math.round((await runNode(['-e', '0'])).wallMs));

  const { loadManifestSync } = await dist('manifest/load.js');
  const load = () => {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const res = loadManifestSync([file], { env: { ...process.env, ...SECRET_ENV }, cwd: dir });
    const c = process.cpuUsage(c0);
    if (!res.manifest) throw new Error(`the manifest does not load: ${res.diagnostics.slice(0, 3).map((d) => d.summary).join('; ')}`);
    return { wallMs: Math.round(performance.now() - t0), cpuMs: Math.round((c.user + c.system) / 1000) };
  };
  load(); // warm-up: module loading and JIT are the CLI figure's business
  const inProcess = Array.from({ length: RUNS }, load);

  const out = {
    bytes: size,
    environments,
    services: environments * 100,
    runs: RUNS,
    cli,
    load: inProcess,
    median_cli_wall_ms: median(cli.map((x) => x.wallMs)),
    median_cli_cpu_ms: median(cli.map((x) => x.cpuMs)),
    max_cli_rss_mb: Math.max(...cli.map((x) => x.maxRssMb ?? 0)),
    median_node_floor_ms: median(floor),
    cli_to_floor: +(median(cli.map((x) => x.wallMs)) / median(floor)).toFixed(1),
    median_load_wall_ms: median(inProcess.map((x) => x.wallMs)),
    median_load_cpu_ms: median(inProcess.map((x) => x.cpuMs)),
    load_average: os.loadavg().map((x) => x.toFixed(1)).join(' '),
  };
  if (JSON_OUT) process.stdout.write(JSON.stringify(out) + '\n');
  else {
    process.stdout.write(
      [
        `manifest: ${(size / 1e6).toFixed(2)} MB, 1 project, ${environments} environments, ${environments * 100} services; ${RUNS} runs (load average ${out.load_average})`,
        `driftless validate (fresh process): median ${out.median_cli_wall_ms} ms wall, ${out.median_cli_cpu_ms} ms CPU, peak RSS ${out.max_cli_rss_mb} MB; ${out.cli_to_floor}x node -e 0 (${out.median_node_floor_ms} ms)`,
        `loadManifest alone (warm): median ${out.median_load_wall_ms} ms wall, ${out.median_load_cpu_ms} ms CPU`,
      ].join('\n') + '\n',
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
