/**
 * The refresh cache end to end (`--cache DIR` / DRIFTLESS_CACHE_DIR, `--refresh full`), against the
 * emulator's audit log: a warm no-op plan costs a handful of requests, an edit made in the console
 * is seen, an apply leaves a cache the next run uses, the plan is the one a full read makes, the
 * file holds no secret and no token, and every reason for a full read is said on one line.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { editApplicationCpu, editProjectVariable } from '../../src/demo/console.js';
import { portFromClient } from '../../src/live/api-port.js';
import { cacheFilePath, readCacheFile, writeCacheFile } from '../../src/live/cache-file.js';
import { packageVersion } from '../../src/cli/package-version.js';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest } from './fixtures.js';
import { runChild } from '../support/child.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const USAGE = /^(\d+) API requests? \((\d+) of them the refresh\); \d+ of \d+ left in this window$/;

async function harness(): Promise<Harness> {
  h = await startHarness();
  h.write({ 'm/main.yaml': appManifest() });
  return h;
}

/** The JSON plan's resource changes, without what differs between two runs (timestamps, counts). */
function changesOf(stdout: string): unknown {
  const plan = JSON.parse(stdout);
  return { summary: plan.summary, resource_changes: plan.resource_changes };
}

function usage(stderr: string): { requests: number; refresh: number } {
  const m = USAGE.exec(stderr.trimEnd().split('\n').pop()!);
  expect(m, stderr).not.toBeNull();
  return { requests: Number(m![1]), refresh: Number(m![2]) };
}

function fullReadLine(stderr: string): string | undefined {
  return stderr.split('\n').find((l) => l.startsWith('Full read of the live state: '));
}

/** Edits as a person in the console: the CONSOLE token, straight to the API. */
async function consoleEdit(harness: Harness, edit: (api: ReturnType<typeof portFromClient>, org: string) => Promise<unknown>): Promise<void> {
  const client = createApiClient({ baseUrl: harness.emu.url, token: harness.emu.tokens.CONSOLE!, authScheme: 'Bearer' });
  try {
    await edit(portFromClient(client), harness.emu.organizationId);
  } finally {
    await client.close();
  }
}

/** The key the runs seal the cache with (the harness's DRIFTLESS_FINGERPRINT_KEY), for caches made by hand. */
const keyOf = () => ({ key: h!.env.DRIFTLESS_FINGERPRINT_KEY!, source: 'env' as const });

const plan = (cache: string, ...more: string[]) => h!.run(['plan', 'm', '--format', 'json', '--cache', cache, ...more], { env: SECRET_ENV });
// A true full read, also under `npm run test:warm` (whose harness sets DRIFTLESS_CACHE_DIR).
const fullPlan = () => h!.run(['plan', 'm', '--format', 'json'], { env: { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: '' } });

describe('the refresh cache', () => {
  it('warm: a no-op plan reads the organization, the audit log and the clusters only, and plans what a full read plans', async () => {
    await harness();
    expect((await h!.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    const cold = await plan('cache');
    expect(cold.code, cold.stderr).toBe(0);
    expect(fullReadLine(cold.stderr)).toBe(`Full read of the live state: no cache in ${join(h!.dir, 'cache')} yet.`);
    // What the log costs, without the rotation's re-reads (--verify-requests 0)...
    const warm = await plan('cache', '--verify-requests', '0');
    expect(warm.code, warm.stderr).toBe(0);
    expect(fullReadLine(warm.stderr)).toBeUndefined();
    // The clusters are always read: an upgrade ends with no audit event.
    expect(usage(warm.stderr)).toEqual({ requests: 3, refresh: 3 });
    expect(JSON.parse(warm.stdout).request_count).toBe(3);
    // ... and by default, N = 5 more: a few cached lists read again to check the cache.
    const checked = await plan('cache');
    expect(fullReadLine(checked.stderr)).toBeUndefined();
    expect(usage(checked.stderr)).toEqual({ requests: 8, refresh: 8 });
    expect(changesOf(checked.stdout)).toEqual(changesOf(warm.stdout));
    expect(changesOf(warm.stdout)).toEqual(changesOf((await fullPlan()).stdout));
    expect(JSON.parse(warm.stdout).summary).toMatchObject({ add: 0, change: 0, destroy: 0 });
  });

  it('console edits are seen: the plan from the cache equals the full read\'s, change for change', async () => {
    await harness();
    expect((await h!.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    await plan('cache');
    await consoleEdit(h!, (api, org) => editProjectVariable(api, org, 'e2e', 'LOG_LEVEL', 'debug'));
    await consoleEdit(h!, (api, org) => editApplicationCpu(api, org, 'e2e', 'dev', 'api', 500));
    // The lists the two edits touched, without the rotation's re-reads.
    const warm = await plan('cache', '--verify-requests', '0');
    expect(fullReadLine(warm.stderr)).toBeUndefined();
    const full = await fullPlan();
    expect(changesOf(warm.stdout)).toEqual(changesOf(full.stdout));
    const changed = (JSON.parse(warm.stdout).resource_changes as Array<{ address: string; change: { actions: string[] } }>).filter((c) => c.change.actions.includes('update')).map((c) => c.address);
    expect(changed.sort()).toEqual(['project.e2e/environment.dev/application.api', 'project.e2e/variable.LOG_LEVEL'].sort());
    // Fewer requests than the full read: the lists the two edits touched, not the organization.
    expect(usage(warm.stderr).requests).toBeLessThan(JSON.parse(full.stdout).request_count);
  });

  it('an apply leaves a cache the next run uses: its own writes are events too', async () => {
    await harness();
    const env = { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: join(h!.dir, 'cache') };
    const first = await h!.run(['apply', 'm', '--auto-approve', ...FAST], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(fullReadLine(first.stderr)).toMatch(/no cache in .* yet/);
    h!.write({ 'm/main.yaml': appManifest({ cpu: 500, logLevel: 'warn' }) });
    const second = await h!.run(['apply', 'm', '--auto-approve', ...FAST], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(fullReadLine(second.stderr)).toBeUndefined();
    const drift = await h!.run(['drift', 'm', '--format', 'json'], { env });
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(fullReadLine(drift.stderr)).toBeUndefined();
    const warm = await h!.run(['plan', 'm', '--format', 'json'], { env });
    expect(changesOf(warm.stdout)).toEqual(changesOf((await fullPlan()).stdout));
    expect(JSON.parse(warm.stdout).summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
  });

  it('holds no secret value, no token, no fingerprint key', async () => {
    await harness();
    expect((await h!.run(['apply', 'm', '--auto-approve', ...FAST, '--cache', 'cache'], { env: SECRET_ENV })).code).toBe(0);
    await plan('cache');
    const text = readFileSync(cacheFilePath(join(h!.dir, 'cache')), 'utf8');
    expect(text).toContain('"api_url"');
    expect(text).not.toContain(SECRET);
    for (const token of Object.values(h!.emu.tokens)) expect(text).not.toContain(token);
    expect(text).not.toContain(h!.env.DRIFTLESS_FINGERPRINT_KEY);
    expect(text).not.toMatch(/authorization/i);
  });

  describe('a full read, and one line saying why', () => {
    it('--refresh full', async () => {
      await harness();
      await plan('cache');
      const r = await plan('cache', '--refresh', 'full');
      expect(fullReadLine(r.stderr)).toBe('Full read of the live state: --refresh full.');
      expect(changesOf(r.stdout)).toEqual(changesOf((await fullPlan()).stdout));
    });

    it('a corrupt or partial cache file, then a good one again', async () => {
      await harness();
      await plan('cache');
      const file = cacheFilePath(join(h!.dir, 'cache'));
      writeFileSync(file, readFileSync(file, 'utf8').slice(0, 100));
      const r = await plan('cache');
      expect(r.code).toBe(0);
      expect(fullReadLine(r.stderr)).toBe(`Full read of the live state: the cache ${file} is corrupt or partial (not JSON).`);
      expect(fullReadLine((await plan('cache')).stderr)).toBeUndefined();
    });

    it('a cache of another driftless version, or of another API URL', async () => {
      await harness();
      await plan('cache');
      const dir = join(h!.dir, 'cache');
      const snap = readCacheFile(dir, { apiUrl: h!.emu.url, driftlessVersion: packageVersion(), keyOf });
      expect('unusable' in snap).toBe(false);
      writeCacheFile(dir, snap as Exclude<typeof snap, { unusable: string }>, { apiUrl: h!.emu.url, driftlessVersion: '0.0.1', keyOf });
      expect(fullReadLine((await plan('cache')).stderr)).toBe(`Full read of the live state: the cache was written by driftless 0.0.1, this is ${packageVersion()}.`);
      writeCacheFile(dir, snap as Exclude<typeof snap, { unusable: string }>, { apiUrl: 'http://127.0.0.1:1', driftlessVersion: packageVersion(), keyOf });
      expect(fullReadLine((await plan('cache')).stderr)).toBe('Full read of the live state: the cache is of another API URL (http://127.0.0.1:1).');
    });

    it('a cache of another organization at the same API URL', async () => {
      await harness();
      await plan('cache');
      const dir = join(h!.dir, 'cache');
      const snap = readCacheFile(dir, { apiUrl: h!.emu.url, driftlessVersion: packageVersion(), keyOf }) as Exclude<ReturnType<typeof readCacheFile>, { unusable: string }>;
      writeCacheFile(dir, { ...snap, organizationId: '00000000-0000-4000-8000-000000000000' }, { apiUrl: h!.emu.url, driftlessVersion: packageVersion(), keyOf });
      expect(fullReadLine((await plan('cache')).stderr)).toBe('Full read of the live state: the cache is of another organization.');
    });

    it('a cache older than the organization\'s audit log retention', async () => {
      await harness();
      await plan('cache');
      const dir = join(h!.dir, 'cache');
      const snap = readCacheFile(dir, { apiUrl: h!.emu.url, driftlessVersion: packageVersion(), keyOf }) as Exclude<ReturnType<typeof readCacheFile>, { unusable: string }>;
      // Older by the API's clock (its Date header when the read began), whatever this machine's said.
      const before = new Date(Date.now() - 31 * 86_400_000).toISOString();
      writeCacheFile(dir, { ...snap, readAt: before, freshness: { ...snap.freshness!, serverReadAt: before } }, { apiUrl: h!.emu.url, driftlessVersion: packageVersion(), keyOf });
      expect(fullReadLine((await plan('cache')).stderr)).toBe("Full read of the live state: the cache is older than the audit log's retention (30 days).");
    });

    it('events since the cursor that the log no longer holds (organization_max_limit_reached)', async () => {
      h = await startHarness({ auditRetentionMs: 300 });
      h.write({ 'm/main.yaml': appManifest() });
      expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
      await plan('cache');
      await new Promise((r) => setTimeout(r, 600));
      await consoleEdit(h, (api, org) => editProjectVariable(api, org, 'e2e', 'LOG_LEVEL', 'debug'));
      await new Promise((r) => setTimeout(r, 600));
      const r = await plan('cache');
      expect(fullReadLine(r.stderr)).toBe('Full read of the live state: the audit log no longer holds every event since the cache was written (organization_max_limit_reached).');
      expect(changesOf(r.stdout)).toEqual(changesOf((await fullPlan()).stdout));
    });

    it('a manifest that now needs lists the cache never read', async () => {
      await harness();
      await plan('cache');
      h!.write({ 'm/hooks.yaml': 'version: 1\nwebhooks:\n  - target_url: https://hooks.example.com/driftless\n    kind: STANDARD\n    events: [DEPLOYMENT_STARTED]\n' });
      const r = await plan('cache');
      expect(fullReadLine(r.stderr)).toBe("Full read of the live state: the manifest needs lists the cache does not hold (1: the organization's webhooks).");
      expect(changesOf(r.stdout)).toEqual(changesOf((await fullPlan()).stdout));
    });
  });

  it('DRIFTLESS_CACHE_DIR, and --cache on drift, graph and export too', async () => {
    await harness();
    const env = { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: join(h!.dir, 'c') };
    await h!.run(['plan', 'm'], { env });
    for (const argv of [['drift', 'm'], ['graph', 'm'], ['plan', 'm']]) {
      const r = await h!.run(argv, { env });
      expect(fullReadLine(r.stderr), argv.join(' ')).toBeUndefined();
      expect(usage(r.stderr).refresh, argv.join(' ')).toBeGreaterThan(0);
    }
    const exp = await h!.run(['export', '--cache', 'e'], { env: SECRET_ENV });
    expect(exp.code, exp.stderr).toBe(0);
    expect(fullReadLine(exp.stderr)).toMatch(/no cache in/);
    const again = await h!.run(['export', '--cache', 'e'], { env: SECRET_ENV });
    expect(fullReadLine(again.stderr)).toBeUndefined();
    expect(again.stdout).toBe(exp.stdout);
    // A cache a plan wrote lacks lists an export reads: the line names the export, which has no manifest.
    const afterPlan = await h!.run(['export', '--cache', 'c'], { env: SECRET_ENV });
    expect(afterPlan.code, afterPlan.stderr).toBe(0);
    expect(fullReadLine(afterPlan.stderr)).toBe(
      "Full read of the live state: the export needs lists the cache does not hold (5: the organization's annotations groups, the organization's labels groups, the organization's alert receivers and 2 more).",
    );
  });

  it('runs sharing a cache at once, as separate processes, never corrupt it', async () => {
    await harness();
    const env = { ...h!.env, ...SECRET_ENV, DRIFTLESS_CACHE_DIR: join(h!.dir, 'shared') };
    const runs = Array.from({ length: 6 }, () => runChild(['plan', 'm', '--format', 'json'], { cwd: h!.dir, env }));
    const results = await Promise.all(runs.map((c) => c.exited));
    for (const [i, r] of results.entries()) expect(r.code, runs[i]!.stderr()).toBe(0);
    for (const c of runs) expect(changesOf(c.stdout())).toEqual(changesOf(runs[0]!.stdout()));
    // Whole files only (no temporary file left): the refresh cache and the manifest load cache,
    // and the plan memo with its link when a run refreshed from the cache another had just written
    // (src/cli/plan-memo.ts: whether one did depends on timing).
    const files = readdirSync(join(h!.dir, 'shared')).sort();
    const memo = ['driftless-plan-memo-link.json', 'driftless-plan-memo.json'];
    expect(files.filter((f) => !memo.includes(f))).toEqual(['driftless-live-state.json', 'driftless-manifest.json']);
    expect([0, 2]).toContain(files.filter((f) => memo.includes(f)).length);
    const after = await h!.run(['plan', 'm', '--format', 'json'], { env });
    expect(fullReadLine(after.stderr)).toBeUndefined();
    expect(changesOf(after.stdout)).toEqual(changesOf(runs[0]!.stdout()));
  });
});
