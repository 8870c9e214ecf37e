/**
 * The plan memo (src/cli/plan-memo.ts) against what the audit log does not say: a reused plan is
 * the plan a `plan --cache` from the very same cache file (the memo removed) makes at that moment,
 * also when an object is gone with no event and the rotation reaches its lists (the probe's reads
 * are sent before the reader asks for anything: a list gone is not taken for one nobody needs),
 * in the run after that, and when the probe is refused; with the same requests, in every format.
 * (Found in review: each of the first three failed before the fix.)
 */
import { cpSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAN_MEMO_FILE_NAME, PLAN_MEMO_LINK_FILE_NAME } from '../../src/cli/plan-memo.js';
import { CACHE_FILE_NAME } from '../../src/live/cache-file.js';
import { keysToVerify } from '../../src/live/verify.js';
import { stalenessOf, topologyOf } from '../../src/live/touched.js';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function planDoc(stdout: string): unknown {
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  delete doc.timestamp;
  delete doc.request_count;
  return doc;
}

const run = (cache: string, ...more: string[]) => h!.run(['plan', 'm', '--format', 'json', '--cache', cache, ...more], { env: SECRET_ENV });

/** The next key the rotation verifies from the cache file in `dir` (as readLiveRecordsCached picks it on a quiet run). */
function nextRotationKey(dir: string): string {
  const doc = JSON.parse(readFileSync(join(h!.dir, dir, CACHE_FILE_NAME), 'utf8')) as { payload: { responses: Record<string, unknown>; freshness?: { verifiedThrough?: string } } };
  const responses = doc.payload.responses;
  const staleness = stalenessOf([], topologyOf(responses));
  if ('reason' in staleness) throw new Error(staleness.reason);
  const keys = Object.keys(responses).filter((k) => responses[k] !== null);
  return keysToVerify(keys, staleness, doc.payload.freshness?.verifiedThrough, 1)[0]!;
}

/** A copy of cache dir `from` without the memo: a plan there is made from the very same cache file. */
function withoutMemo(from: string, to: string): void {
  rmSync(join(h!.dir, to), { recursive: true, force: true });
  cpSync(join(h!.dir, from), join(h!.dir, to), { recursive: true });
  rmSync(join(h!.dir, to, PLAN_MEMO_FILE_NAME), { force: true });
  rmSync(join(h!.dir, to, PLAN_MEMO_LINK_FILE_NAME), { force: true });
}

/**
 * The app fixture applied, then warm plans with a rotation of one key per run until the next key
 * the rotation verifies is one of the dev environment's own lists; dev's id.
 */
async function appliedUntilRotationReachesDev(): Promise<string> {
  h = await startHarness();
  h.write({ 'm/main.yaml': appManifest() });
  expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
  const devId = String(Object.values(h.emu.state.environments).find((e) => e.name === 'dev')!.id);
  for (let i = 0; i < 40; i++) {
    const r = await run('c', '--verify-requests', '1');
    expect(r.code, r.stderr).toBe(0);
    if (i >= 2 && nextRotationKey('c').startsWith(`/environment/${devId}/`)) return devId;
  }
  throw new Error('the rotation never reached a list of the dev environment in 40 runs');
}

describe('a reused plan and an object gone without an event', () => {
  it('whose list the rotation reads: not reused, the full read a refresh from the same cache makes', async () => {
    const devId = await appliedUntilRotationReachesDev();
    // The environment disappears with no audit event (an event lost, as the refresh's rotation is there to catch).
    delete h!.emu.state.environments[devId];
    withoutMemo('c', 'fresh');

    const reused = await run('c', '--verify-requests', '1');
    const fresh = await run('fresh', '--verify-requests', '1');
    const full = await h!.run(['plan', 'm', '--format', 'json'], { env: { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: '' } });
    expect(planDoc(fresh.stdout)).toEqual(planDoc(full.stdout));
    // Not the plan that still has dev.
    expect(planDoc(reused.stdout)).toEqual(planDoc(fresh.stdout));
  }, 120_000);

  it('and in the run after that (no link renewed onto a cache that dropped the lists gone)', async () => {
    const devId = await appliedUntilRotationReachesDev();
    delete h!.emu.state.environments[devId];
    const first = await run('c', '--verify-requests', '1');
    expect(first.code).toBe(0);
    // The next run, from the cache the reused run left.
    const keyNow = nextRotationKey('c');
    withoutMemo('c', 'fresh2');
    const second = await run('c', '--verify-requests', '1');
    const fresh = await run('fresh2', '--verify-requests', '1');
    expect({ keyNow, reusedAgain: planDoc(second.stdout) }).toEqual({ keyNow, reusedAgain: planDoc(fresh.stdout) });
  }, 120_000);
});

describe('a refused probe', () => {
  it('the walk after it takes a rotation 404 of a list it needs for the change the log did not explain', async () => {
    const devId = await appliedUntilRotationReachesDev();
    delete h!.emu.state.environments[devId];
    // A live answer the plan does not use changes (a cluster status field): the probe refuses.
    for (const c of Object.values(h!.emu.state.clusters)) (c as Record<string, unknown>).description = 'edited with no event';
    withoutMemo('c', 'fresh');
    const linkIno = statSync(join(h!.dir, 'c', PLAN_MEMO_LINK_FILE_NAME)).ino;
    const refused = await run('c', '--verify-requests', '1');
    const fresh = await run('fresh', '--verify-requests', '1');
    // Not reused (the link is not renewed), and a full read that says why, as from the same cache without a memo.
    expect(statSync(join(h!.dir, 'c', PLAN_MEMO_LINK_FILE_NAME)).ino).toBe(linkIno);
    expect(refused.stderr).toMatch(/^Full read of the live state: the audit log did not explain a change to project\.e2e\/environment\.dev/m);
    expect(planDoc(refused.stdout)).toEqual(planDoc(fresh.stdout));
  }, 120_000);
});

describe('the requests of a reused plan', () => {
  it('a reused plan sends the requests (and reports the count) a fresh refresh from the same cache file sends', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    for (let i = 0; i < 3; i++) expect((await run('c')).code).toBe(0);
    withoutMemo('c', 'fresh');
    const reused = await run('c');
    const fresh = await run('fresh');
    const count = (r: { stdout: string; stderr: string }) => ({ request_count: (JSON.parse(r.stdout) as { request_count: number }).request_count, line: /^\d+ API requests? \(\d+ of them the refresh\)/m.exec(r.stderr)?.[0] });
    expect(count(reused)).toEqual(count(fresh));
  }, 120_000);
});

describe('a plan with every kind of change, in every format', () => {
  it('reused and made from the same cache file print the same (human, json, markdown, github, --out)', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ withWorker: true }) });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    h.write({ 'm/main.yaml': appManifest({ cpu: 500, tag: '1.28', pruneServices: true, logLevel: 'debug', stages: true }) });
    for (let i = 0; i < 3; i++) expect((await run('c')).code).toBe(0);
    const norm = (s: string) => s.replace(/\d+ API requests?/g, 'N API requests').replace(/"timestamp": ?"[^"]*"/g, '').replace(/"created_at": ?"[^"]*"/g, '').replace(/"request_count": ?\d+/g, '').replace(/\b[ab]\.plan\b/g, 'X.plan').replace(/\d+ of \d+ left/g, '');
    for (const format of ['human', 'json', 'markdown', 'github']) {
      withoutMemo('c', 'fresh');
      const memoIno = statSync(join(h.dir, 'c', PLAN_MEMO_FILE_NAME)).ino;
      const a = await h.run(['plan', 'm', '--format', format, '--cache', 'c', '--out', 'a.plan', '--detailed-exitcode'], { env: SECRET_ENV });
      expect(statSync(join(h.dir, 'c', PLAN_MEMO_FILE_NAME)).ino).toBe(memoIno);
      const b = await h.run(['plan', 'm', '--format', format, '--cache', 'fresh', '--out', 'b.plan', '--detailed-exitcode'], { env: SECRET_ENV });
      expect({ format, code: a.code, out: norm(a.stdout), err: norm(a.stderr) }).toEqual({ format, code: b.code, out: norm(b.stdout), err: norm(b.stderr) });
      const file = (f: string) => { const d = JSON.parse(readFileSync(join(h!.dir, f), 'utf8')); delete d.created_at; delete d.seal; delete d.mac; return norm(JSON.stringify(d)); };
      expect(file('a.plan')).toEqual(file('b.plan'));
    }
  }, 120_000);
});
