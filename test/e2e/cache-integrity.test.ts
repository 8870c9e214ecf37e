/**
 * A refresh cache that cannot make driftless do harm, end to end against the emulator (issue 18):
 * a cache edited by someone who can write it (its unkeyed checksum recomputed) fails its MAC and is
 * a full read; a cache forged WITH the key still cannot make apply delete a live object (deletes
 * are confirmed by a live read); a cache or a plan file nested beyond the JSON depth limit is a
 * reason, not a crash; manifests sharing a cache keep each other's lists; a --target run reads
 * through the cache.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { editProjectVariable } from '../../src/demo/console.js';
import { portFromClient } from '../../src/live/api-port.js';
import { listResults } from '../../src/live/read.js';
import { cacheFilePath, readCacheFile, writeCacheFile } from '../../src/live/cache-file.js';
import type { LiveSnapshot } from '../../src/live/refresh.js';
import { packageVersion } from '../../src/cli/package-version.js';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const USAGE = /^(\d+) API requests? \((\d+) of them the refresh\); \d+ of \d+ left in this window$/;
const HOOKS = 'version: 1\nwebhooks:\n  - target_url: https://hooks.example.com/driftless\n    kind: STANDARD\n    events: [DEPLOYMENT_STARTED]\n';

function usage(stderr: string): { requests: number; refresh: number } {
  const m = USAGE.exec(stderr.trimEnd().split('\n').pop()!);
  expect(m, stderr).not.toBeNull();
  return { requests: Number(m![1]), refresh: Number(m![2]) };
}

function fullReadLine(stderr: string): string | undefined {
  return stderr.split('\n').find((l) => l.startsWith('Full read of the live state: '));
}

const keyOf = () => ({ key: h!.env.DRIFTLESS_FINGERPRINT_KEY!, source: 'env' as const });
const identity = () => ({ apiUrl: h!.emu.url, driftlessVersion: packageVersion(), keyOf });
const cacheDir = () => join(h!.dir, 'cache');
// These runs count the refresh's own requests: the rolling verification (--verify-requests, which
// would add its re-reads and find a forged cache on its own) is off here and tested in
// refresh-freshness.test.ts.
const NO_VERIFY = ['--verify-requests', '0'];
const plan = (dir: string, ...more: string[]) => h!.run(['plan', dir, '--format', 'json', '--cache', 'cache', ...NO_VERIFY, ...more], { env: SECRET_ENV });

function snapshotOf(): LiveSnapshot {
  const s = readCacheFile(cacheDir(), identity());
  if ('unusable' in s) throw new Error(s.unusable);
  return s;
}

/** The cached service list of the environment that holds `name`, and that service's record. */
function cachedService(s: LiveSnapshot, name: string): { key: string; id: string } {
  for (const [key, body] of Object.entries(s.responses)) {
    if (!/^\/environment\/[^/]+\/services$/.test(key)) continue;
    const rec = listResults(body).find((r) => r.name === name);
    if (rec) return { key, id: rec.id };
  }
  throw new Error(`no service ${name} in the cache`);
}

/** The live services of the environment whose list is `key`, read as a person would (console token). */
async function liveServices(key: string): Promise<Array<{ id: string; name: unknown }>> {
  const client = createApiClient({ baseUrl: h!.emu.url, token: h!.emu.tokens.CONSOLE!, authScheme: 'Bearer' });
  try {
    return listResults(await portFromClient(client).get(key)).map((r) => ({ id: r.id, name: r.name }));
  } finally {
    await client.close();
  }
}

/** A deployed organization (api and web, services pruned) and a warm cache of it. */
async function deployedWithCache(): Promise<void> {
  h = await startHarness();
  h.write({ 'm/main.yaml': appManifest({ pruneServices: true }) });
  const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
  expect(applied.code, applied.stderr).toBe(0);
  const cold = await plan('m');
  expect(cold.code, cold.stderr).toBe(0);
}

describe('a cache edited by someone who can write it', () => {
  it('renamed service, unkeyed sha256 recomputed: the MAC fails, a full read runs, and apply deletes nothing', async () => {
    await deployedWithCache();
    const api = cachedService(snapshotOf(), 'api');
    const file = cacheFilePath(cacheDir());
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    for (const r of doc.payload.responses[api.key].results) if (r.id === api.id) r.name = 'api-old';
    doc.checksum = `sha256:${createHash('sha256').update(JSON.stringify(doc.payload)).digest('hex')}`;
    writeFileSync(file, JSON.stringify(doc));

    const r = await h!.run(['apply', 'm', '--auto-approve', '--cache', 'cache', ...FAST], { env: SECRET_ENV });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fullReadLine(r.stderr)).toBe(`Full read of the live state: the cache ${file} fails its seal: it was edited after driftless wrote it.`);
    expect(r.stdout).toContain('No changes.');
    expect(await liveServices(api.key)).toContainEqual({ id: api.id, name: 'api' });
    // The full read left a good cache: the next run refreshes from it.
    expect(fullReadLine((await plan('m')).stderr)).toBeUndefined();
  });

  it('a cache sealed with another DRIFTLESS_FINGERPRINT_KEY is a full read that says so', async () => {
    await deployedWithCache();
    const r = await plan('m', '--refresh', 'auto');
    expect(fullReadLine(r.stderr)).toBeUndefined();
    const other = await h!.run(['plan', 'm', '--format', 'json', '--cache', 'cache'], { env: { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: 'another-key-0123456789abcdef' } });
    expect(other.code, other.stderr).toBe(0);
    expect(fullReadLine(other.stderr)).toBe(`Full read of the live state: the cache ${cacheFilePath(cacheDir())} was sealed with another key (DRIFTLESS_FINGERPRINT_KEY differs from the run that wrote it).`);
  });

  it('without DRIFTLESS_FINGERPRINT_KEY the cache is sealed with the fallback key, with a warning', async () => {
    await deployedWithCache();
    const r = await h!.run(['plan', 'm', '--cache', 'fallback'], { env: { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: undefined as unknown as string } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`DRIFTLESS_FINGERPRINT_KEY is not set: the refresh cache in ${join(h!.dir, 'fallback')} is sealed with a key derived from the organization id`);
    const again = await h!.run(['plan', 'm', '--cache', 'fallback'], { env: { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: undefined as unknown as string } });
    expect(fullReadLine(again.stderr)).toBeUndefined();
  });
});

describe('a delete is sent only for an id a live read in this run confirmed', () => {
  it('a cache forged with the right key (valid MAC) renaming a deployed service: apply refuses, the service stays', async () => {
    await deployedWithCache();
    const s = snapshotOf();
    const web = cachedService(s, 'web');
    const forged = structuredClone(s);
    for (const r of listResults(forged.responses[web.key])) if (r.id === web.id) r.name = 'web-old';
    // What goes with a deleted service (its variables) is read for the plan; the forger adds it too,
    // so that the plan believes the cache entirely.
    forged.responses[`/variable?parent_id=${web.id}&scope=CONTAINER`] = { results: [] };
    writeCacheFile(cacheDir(), forged, identity());

    // The plan from the forged cache believes it (the cache is sealed): the apply must not.
    const planned = await plan('m');
    expect(fullReadLine(planned.stderr)).toBeUndefined();
    const doc = JSON.parse(planned.stdout);
    expect(doc.resource_changes.find((c: { address: string }) => c.address === 'project.e2e/environment.dev/container.web-old')?.change.actions).toEqual(['delete']);

    writeCacheFile(cacheDir(), forged, identity());
    const r = await h!.run(['apply', 'm', '--auto-approve', '--cache', 'cache', ...NO_VERIFY, ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(fullReadLine(r.stderr)).toBeUndefined();
    expect(r.stderr).toContain(`project.e2e/environment.dev/container.web-old: not deleted: the live object with id ${web.id} is named "web", not "web-old"`);
    expect(r.stderr).toContain('Nothing was changed. Run the command again with --refresh full');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(await liveServices(web.key)).toContainEqual({ id: web.id, name: 'web' });
    const services = await liveServices(web.key);
    expect(services.map((x) => x.name).sort()).toEqual(['api', 'web']);
  });

  it('a true delete planned from a warm cache goes through, confirmed by one list read per parent', async () => {
    await deployedWithCache();
    // web leaves the manifest: a real delete, planned from the warm cache.
    h!.write({ 'm/main.yaml': appManifest({ pruneServices: true }).replace(/\n {10}- type: container\n {12}name: web\n[\s\S]*?(?=\n {10}- type: |\n*$)/, '\n') });
    // The first plan of the removal reads what goes with web (its variables), which no run read
    // before; the cache holds it from then on.
    await plan('m');
    const planned = await plan('m');
    expect(fullReadLine(planned.stderr)).toBeUndefined();
    expect(JSON.parse(planned.stdout).summary).toMatchObject({ destroy: 1 });
    const web = cachedService(snapshotOf(), 'web');
    const r = await h!.run(['apply', 'm', '--auto-approve', '--cache', 'cache', ...NO_VERIFY, ...FAST], { env: SECRET_ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(fullReadLine(r.stderr)).toBeUndefined();
    expect(r.stdout).toContain('1 destroyed');
    // 3 for the refresh, 1 token probe, 1 read of dev's service list confirming web, 1 batched delete.
    expect(usage(r.stderr)).toEqual({ requests: 6, refresh: 3 });
    // The platform deletes in the background: the service leaves the list shortly after.
    await expect.poll(async () => (await liveServices(web.key)).map((x) => x.name), { timeout: 5000, interval: 100 }).toEqual(['api']);
  });
});

describe('JSON nested beyond the limit', () => {
  it('a 200,000-deep cache file is a full read with its reason, then the cache is good again', async () => {
    await deployedWithCache();
    const file = cacheFilePath(cacheDir());
    writeFileSync(file, `${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    const p = await h!.run(['plan', 'm', '--cache', 'cache'], { env: SECRET_ENV });
    expect(p.code, p.stderr).toBe(0);
    expect(fullReadLine(p.stderr)).toBe(`Full read of the live state: the cache ${file} is corrupt or partial (nested deeper than 128 levels (at character 129)).`);
    expect(p.stdout).toContain('No changes.');
    writeFileSync(file, `{"checksum":"x","payload":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}`);
    for (const command of ['drift', 'apply']) {
      writeFileSync(file, `{"checksum":"x","payload":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}`);
      const r = await h!.run([command, 'm', '--cache', 'cache', ...(command === 'apply' ? ['--auto-approve', ...FAST] : [])], { env: SECRET_ENV });
      expect(r.code, command + r.stderr).toBe(0);
      expect(r.stderr).not.toContain('Maximum call stack');
      // The 129th "{" of the payload: after `{"checksum":"x","payload":` and 127 `{"a":`.
      expect(fullReadLine(r.stderr)).toBe(`Full read of the live state: the cache ${file} is corrupt or partial (nested deeper than 128 levels (at character 662)).`);
    }
    expect(fullReadLine((await plan('m')).stderr)).toBeUndefined();
  });

  it('show of a plan file nested beyond the limit: a clear error, not an internal error', async () => {
    await deployedWithCache();
    const out = await h!.run(['plan', 'm', '--out', 'plan.json'], { env: SECRET_ENV });
    expect(out.code, out.stderr).toBe(0);
    const text = readFileSync(join(h!.dir, 'plan.json'), 'utf8');
    writeFileSync(join(h!.dir, 'deep.json'), text.replace(/\}\s*$/, `,"deep":${'['.repeat(200_000)}${']'.repeat(200_000)}}`));
    const r = await h!.run(['show', 'deep.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('internal error');
    expect(r.stderr).toContain('deep.json is not a driftless plan file: nested deeper than 128 levels');
    const applied = await h!.run(['apply', 'deep.json', '--auto-approve'], { env: SECRET_ENV });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('nested deeper than 128 levels');
  });
});

describe('manifests sharing one cache keep each other\'s lists', () => {
  it('a plan of other files, and an export --project, do not narrow the cache: the next full plan is warm', async () => {
    await deployedWithCache();
    h!.write({ 'hooks/hooks.yaml': HOOKS });
    const hooks = await plan('hooks');
    expect(hooks.code, hooks.stderr).toBe(0);
    expect(fullReadLine(hooks.stderr)).toBe("Full read of the live state: the manifest needs lists the cache does not hold (1: the organization's webhooks).");
    const warm = await plan('m');
    expect(fullReadLine(warm.stderr)).toBeUndefined();
    expect(usage(warm.stderr)).toEqual({ requests: 3, refresh: 3 });
    const hooksWarm = await plan('hooks');
    expect(fullReadLine(hooksWarm.stderr)).toBeUndefined();
    expect(usage(hooksWarm.stderr)).toEqual({ requests: 2, refresh: 2 });

    const exp = await h!.run(['export', '--project', 'e2e', '--cache', 'cache'], { env: SECRET_ENV });
    expect(exp.code, exp.stderr).toBe(0);
    const afterExport = await plan('m');
    expect(fullReadLine(afterExport.stderr)).toBeUndefined();
    expect(usage(afterExport.stderr)).toEqual({ requests: 3, refresh: 3 });
    const exportWarm = await h!.run(['export', '--project', 'e2e', '--cache', 'cache'], { env: SECRET_ENV });
    expect(fullReadLine(exportWarm.stderr)).toBeUndefined();
    expect(exportWarm.stdout).toBe(exp.stdout);
  });

  it('a list made stale by an event that this run does not need is dropped, not re-read; the run that needs it reads it', async () => {
    await deployedWithCache();
    h!.write({ 'hooks/hooks.yaml': HOOKS });
    await plan('hooks');
    const api = cachedService(snapshotOf(), 'api');
    const client = createApiClient({ baseUrl: h!.emu.url, token: h!.emu.tokens.CONSOLE!, authScheme: 'Bearer' });
    try {
      await editProjectVariable(portFromClient(client), h!.emu.organizationId, 'e2e', 'LOG_LEVEL', 'debug');
    } finally {
      await client.close();
    }
    const hooksWarm = await plan('hooks');
    expect(fullReadLine(hooksWarm.stderr)).toBeUndefined();
    // The organization and the audit log: the lists the edit made stale are not this manifest's.
    expect(usage(hooksWarm.stderr)).toEqual({ requests: 2, refresh: 2 });
    // Kept as "to re-read" (null), not as an answer, and not re-read by this run.
    const held = snapshotOf().responses;
    expect(held[api.key]).toBeNull();
    const variableLists = Object.keys(held).filter((k) => k.startsWith('/variable?'));
    expect(variableLists.length).toBeGreaterThan(0);
    for (const k of variableLists) expect(held[k], k).toBeNull();
    expect(held[`/organization/${h!.emu.organizationId}/project`]).not.toBeNull();

    const m = await plan('m');
    expect(fullReadLine(m.stderr)).toBeUndefined();
    const changed = (JSON.parse(m.stdout).resource_changes as Array<{ address: string; change: { actions: string[] } }>).filter((c) => c.change.actions.includes('update')).map((c) => c.address);
    expect(changed).toEqual(['project.e2e/variable.LOG_LEVEL']);
  });

  it('the full-read line names the lists the cache lacks: a count and the first three', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    await plan('m');
    const s = snapshotOf();
    const envKey = cachedService(s, 'api').key;
    for (const k of Object.keys(s.responses)) if (k.startsWith('/environment/') || k.startsWith('/variable')) delete s.responses[k];
    writeCacheFile(cacheDir(), s, identity());
    const r = await plan('m');
    expect(r.code, r.stderr).toBe(0);
    expect(envKey).toMatch(/^\/environment\//);
    // The services of dev are lacking, so no service covers the project's variables: a third list.
    expect(fullReadLine(r.stderr)).toBe('Full read of the live state: the manifest needs lists the cache does not hold (3: the services of environment "dev", the service statuses of environment "dev", the variables of project "e2e").');
  });
});

describe('--target reads through the cache', () => {
  it('a warm targeted plan costs what a warm full plan costs, and writes back what it read without narrowing the cache', async () => {
    await deployedWithCache();
    const warm = await plan('m');
    expect(usage(warm.stderr)).toEqual({ requests: 3, refresh: 3 });
    const targeted = await plan('m', '--target', 'project.e2e/environment.dev/application.api');
    expect(targeted.code, targeted.stderr).toBe(0);
    expect(fullReadLine(targeted.stderr)).toBeUndefined();
    expect(usage(targeted.stderr)).toEqual({ requests: 3, refresh: 3 });
    expect(JSON.parse(targeted.stdout).summary).toMatchObject({ add: 0, change: 0, destroy: 0 });
    const after = await plan('m');
    expect(fullReadLine(after.stderr)).toBeUndefined();
    expect(usage(after.stderr)).toEqual({ requests: 3, refresh: 3 });
  });

  it('a cold targeted run leaves only what it read: the next full plan says which lists it lacks', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    const targeted = await plan('m', '--target', 'project.e2e/variable.LOG_LEVEL');
    expect(targeted.code, targeted.stderr).toBe(0);
    expect(fullReadLine(targeted.stderr)).toBe(`Full read of the live state: no cache in ${cacheDir()} yet.`);
    const full = await plan('m');
    expect(fullReadLine(full.stderr)).toMatch(/^Full read of the live state: the manifest needs lists the cache does not hold \(\d+: .*\)\.$/);
    expect(fullReadLine((await plan('m')).stderr)).toBeUndefined();
  });
});
