#!/usr/bin/env node
/**
 * Issue 20: the requests and time of `driftless preview` for examples/platform's template (12
 * services: 2 databases, 2 jobs, 8 applications and containers, in 4 deployment stages), in an
 * organization that also holds the benchmark's other projects (their size must not show in the
 * preview's figures):
 *
 *   node bench/preview.mjs [--org 1x3x30] [--latency 50] [--deploy-duration 2000] [--json]
 *
 * The emulator (its own process) is populated with the benchmark's organization of --org, then
 * examples/platform is applied (staging and production, 24 services). Measured, each the real CLI
 * in a fresh process, with the round trip of --latency:
 *   1. `preview up --number 1`, cold (no cache): creates pr-1 and deploys its 12 services;
 *   2. `preview up --number 2 --cache DIR` (fills the cache), then `preview up --number 3 --cache DIR` (warm);
 *   3. a second `preview up --number 1` with a new commit of one service (only it redeploys), and
 *      the same for pr-3 with the warm cache;
 *   4. `preview down --number 1`.
 * Requests are the CLI's own count (its closing usage line); times are wall times.
 */
import os from 'node:os';
import path from 'node:path';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnEmulator } from './lib/emulator.mjs';
import { orgSpec, parseSize, countResources } from './lib/spec.mjs';
import { runNode, fmtS, log } from './lib/util.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const ORG = opt('org', '1x3x30');
const LATENCY = Number(opt('latency', 50));
const DEPLOY_MS = Number(opt('deploy-duration', 2000));
const JSON_OUT = argv.includes('--json');
const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, 'lib', 'cli.mjs');
const EXAMPLE = path.join(here, '..', 'examples', 'platform');
const FINGERPRINT_KEY = 'driftless-bench-fingerprint-key';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'driftless-bench-preview-'));
/** The closing usage line (`42 API requests; ...`), the last of stderr: the plan's own line counts only its reads. */
const requestsOf = (stderr) => {
  const all = [...stderr.matchAll(/^(\d+) API requests?(?: \([^)]*\))?(?:;|$)/gm)];
  return Number(all.at(-1)?.[1] ?? NaN);
};
/** The plan's reads (`... N API requests ...` of the plan's summary line), for the split. */
const planReadsOf = (stderr) => Number(/Plan: [^\n]*?(\d+) API requests?/.exec(stderr)?.[1] ?? /No changes[^\n]*?(\d+) API requests?/.exec(stderr)?.[1] ?? NaN);

const emu = await spawnEmulator({ deployDurationMs: DEPLOY_MS });
const rows = [];
try {
  const spec = orgSpec(parseSize(ORG));
  log(`populating ${ORG} (${countResources(spec).services} services)`);
  await emu.populate(spec, FINGERPRINT_KEY);
  const manifest = path.join(tmp, 'platform');
  cpSync(EXAMPLE, manifest, { recursive: true });
  const env = { ...process.env, DRIFTLESS_API_URL: emu.url, DRIFTLESS_API_TOKEN: emu.tokens.ADMIN, DRIFTLESS_FINGERPRINT_KEY: FINGERPRINT_KEY, STRIPE_TEST_SECRET_KEY: 'sk_test_bench', STRIPE_LIVE_SECRET_KEY: 'sk_live_bench', NO_COLOR: '1' };
  const applied = await runNode([CLI, 'apply', manifest, '--auto-approve'], { env });
  if (applied.code !== 0) throw new Error(`apply of examples/platform failed:\n${applied.stderr}`);
  await emu.set({ latencyMs: LATENCY });
  const cache = path.join(tmp, 'cache');
  const step = async (label, args) => {
    const r = await runNode([CLI, 'preview', ...args], { env });
    if (r.code !== 0) throw new Error(`${label} failed (exit ${r.code}):\n${r.stderr}`);
    const row = { step: label, requests: requestsOf(r.stderr), planReads: planReadsOf(r.stderr), wallMs: Math.round(r.wallMs) };
    rows.push(row);
    log(`${label}: ${row.requests} requests (plan reads ${row.planReads}), ${fmtS(row.wallMs)}`);
  };
  const up = (n, extra = []) => ['up', manifest, '--project', 'storefront', '--number', String(n), '--format', 'json', ...extra];
  await step('up, cold (no cache): creates pr-1, deploys 12 services', up(1, ['--set', 'catalog-api.git_repository.branch=pr-1']));
  await step('up --cache, first (fills the cache): pr-2', up(2, ['--cache', cache]));
  await step('up --cache, warm: pr-3', up(3, ['--cache', cache]));
  await step('second up of pr-1, one service on a new commit', up(1, ['--set', 'catalog-api.git_repository.branch=pr-1', '--set', 'catalog-api.git_commit_id=4f2a9c1d']));
  await step('second up of pr-3 --cache (warm), one service on a new commit', up(3, ['--cache', cache, '--set', 'catalog-api.git_commit_id=4f2a9c1d']));
  await step('down pr-1 (with its 2 databases)', ['down', manifest, '--project', 'storefront', '--number', '1']);
} finally {
  await emu.close();
  rmSync(tmp, { recursive: true, force: true });
}

if (JSON_OUT) process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), org: ORG, latencyMs: LATENCY, deployDurationMs: DEPLOY_MS, load: os.loadavg().map((x) => x.toFixed(1)).join(' '), rows })}\n`);
else {
  process.stdout.write(`| step | requests | of them the plan's reads | time |\n|---|---|---|---|\n`);
  for (const r of rows) process.stdout.write(`| ${r.step} | ${r.requests} | ${Number.isFinite(r.planReads) ? r.planReads : '-'} | ${fmtS(r.wallMs)} |\n`);
}
