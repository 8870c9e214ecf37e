/**
 * The setup of the warm benchmarks (bench/warm-plan.mjs, bench/manifest-warm.mjs,
 * bench/warm-plan-ab.mjs): the benchmark organization populated into an emulator and exported by
 * `driftless export`, as a user who adopted driftless would have it, with the environment its
 * `${env:}` secrets read. One copy, so that the three measure the same manifest.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { countResources, SECRET_ENV } from './spec.mjs';
import { runNode } from './util.mjs';

export const FINGERPRINT_KEY = 'driftless-bench-fingerprint-key';
/** driftless as bin/driftless.js runs it, from DRIFTLESS_DIST when set (bench/lib/cli.mjs). */
export const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cli.mjs');

/**
 * Populates `emu` with `spec` and exports it into `dir`, named after `label`: one file while it
 * stays under the 2 MiB a manifest file may be, above 1,000 services the export's directory layout
 * (a file per project and environment). `exportEnv` is added to the export's environment (a
 * build's DRIFTLESS_DIST).
 *
 * Returns `file` (the manifest path to give the CLI), its `files` and their size in `bytes`, the
 * environment of a read-only run against `emu` (`env`) with a value for each secret the export
 * names, and how many of those names were not already set (`variables`).
 */
export async function exportedOrganization(emu, spec, { dir, label, exportEnv = {} }) {
  await emu.populate(spec, FINGERPRINT_KEY, { clone: true });
  const env = { ...process.env, ...SECRET_ENV, DRIFTLESS_API_URL: emu.url, DRIFTLESS_API_TOKEN: emu.tokens.READ, DRIFTLESS_FINGERPRINT_KEY: FINGERPRINT_KEY, NO_COLOR: '1', BENCH_REPORT_CPU: '1' };
  const layout = countResources(spec).services > 1000 ? 'directory' : 'file';
  const file = path.join(dir, layout === 'file' ? `${label}.yaml` : label);
  const ex = await runNode([CLI, 'export', '--out', file, '--layout', layout], { env: { ...env, ...exportEnv } });
  if (ex.code !== 0) throw new Error(`export exited ${ex.code}: ${ex.stderr.slice(0, 1000)}`);
  const files = layout === 'file' ? [file] : readdirSync(file, { recursive: true }).map((f) => path.join(file, f)).filter((f) => f.endsWith('.yaml'));
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  // The export names each secret after where it is (PROJECT_00_ENV_01_SVC_002_SECRET_A): each
  // one gets the value the organization was populated with.
  let variables = 0;
  for (const [, name] of files.map((f) => readFileSync(f, 'utf8')).join('\n').matchAll(/\$\{env:([A-Z0-9_]+)\}/g)) {
    const from = Object.keys(SECRET_ENV).find((k) => name.endsWith(k.replace(/^BENCH_/, '')));
    if (!from) throw new Error(`exported manifest reads \${env:${name}}, which the benchmark does not know`);
    if (env[name] === undefined) variables++;
    env[name] = SECRET_ENV[from];
  }
  return { env, file, files, bytes, variables };
}
