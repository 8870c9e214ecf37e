/**
 * The plan memo (issue 21, src/cli/plan-memo.ts): a warm `plan --cache DIR` whose manifest bytes,
 * resolved values, options and live answers are all what they were prints the last plan without
 * making it again; anything that changed (a byte, an environment value, a `${file:}`, an option, a
 * console edit, a live answer the audit log never mentions, the memo itself) makes the plan as
 * always. Whether a run reused the memo is read from the files: a reuse rewrites only the link
 * (the memo file keeps its inode), a new plan kept replaces the memo (a new inode).
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { portFromClient } from '../../src/live/api-port.js';
import { editProjectVariable } from '../../src/demo/console.js';
import { PLAN_MEMO_FILE_NAME, PLAN_MEMO_LINK_FILE_NAME } from '../../src/cli/plan-memo.js';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const memoFile = () => join(h!.dir, 'c', PLAN_MEMO_FILE_NAME);
const linkFile = () => join(h!.dir, 'c', PLAN_MEMO_LINK_FILE_NAME);
const inode = (f: string) => (existsSync(f) ? statSync(f).ino : undefined);

/** What a run did with the memo, read from the cache directory before and after it. */
async function observed(run: () => Promise<{ code: number; stdout: string; stderr: string }>) {
  const before = { memo: inode(memoFile()), link: inode(linkFile()) };
  const r = await run();
  const after = { memo: inode(memoFile()), link: inode(linkFile()) };
  const reused = before.memo !== undefined && after.memo === before.memo && after.link !== before.link;
  const kept = after.memo !== undefined && after.memo !== before.memo;
  return { ...r, reused, kept };
}

/** The plan document without what differs run by run (its timestamp, its request count). */
function planDoc(stdout: string): unknown {
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  delete doc.timestamp;
  delete doc.request_count;
  return doc;
}

const plan = (...more: string[]) => observed(() => h!.run(['plan', 'm', '--format', 'json', '--cache', 'c', ...more], { env: SECRET_ENV }));
// A true full read, also under `npm run test:warm` (whose harness sets DRIFTLESS_CACHE_DIR).
const fullPlan = (...more: string[]) => h!.run(['plan', 'm', '--format', 'json', ...more], { env: { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: '' } });

/** Every byte of every file under `dir`. */
function allBytes(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name), 'latin1'))
    .join('');
}

async function applied(manifest = appManifest(), files: Record<string, string> = {}): Promise<void> {
  h = await startHarness();
  h.write({ 'm/main.yaml': manifest, ...files });
  const r = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
  expect(r.code, r.stderr).toBe(0);
}

/** A cold plan (full read: nothing kept), a quiet warm one (its plan kept), then one that reuses it. */
async function warmedUp(): Promise<void> {
  const cold = await plan();
  expect(cold.code, cold.stderr).toBe(0);
  expect(cold.kept).toBe(false);
  const warm = await plan();
  expect(warm.code, warm.stderr).toBe(0);
  expect(warm.kept).toBe(true);
  const again = await plan();
  expect(again.code, again.stderr).toBe(0);
  expect(again.reused).toBe(true);
}

async function consoleEdit(edit: (api: ReturnType<typeof portFromClient>, org: string) => Promise<unknown>): Promise<void> {
  const client = createApiClient({ baseUrl: h!.emu.url, token: h!.emu.tokens.CONSOLE!, authScheme: 'Bearer' });
  try {
    await edit(portFromClient(client), h!.emu.organizationId);
  } finally {
    await client.close();
  }
}

describe('plan --cache: the last plan reused when nothing changed', () => {
  it('a reused plan is the plan a full read makes, in every format, with the same requests as the refresh it stands for; no secret value is kept', async () => {
    await applied();
    await warmedUp();
    const full = await fullPlan();
    for (let i = 0; i < 2; i++) {
      const reused = await plan();
      expect(reused.reused).toBe(true);
      expect(planDoc(reused.stdout)).toEqual(planDoc(full.stdout));
      // The requests of a warm no-op refresh: the organization, the audit log, the clusters, the rotation.
      expect(reused.stderr).toMatch(/^\d+ API requests \(\d+ of them the refresh\)/m);
    }
    // The human plan and the exit code of --detailed-exitcode, reused and made.
    const human = await observed(() => h!.run(['plan', 'm', '--cache', 'c', '--detailed-exitcode'], { env: SECRET_ENV }));
    expect(human.reused).toBe(true);
    const made = await h!.run(['plan', 'm', '--detailed-exitcode'], { env: { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: '' } });
    expect(human.code).toBe(made.code);
    expect(human.stdout.replace(/\d+ API requests?/g, 'N API requests')).toBe(made.stdout.replace(/\d+ API requests?/g, 'N API requests'));
    expect(allBytes(join(h!.dir, 'c'))).not.toContain(SECRET);
  });

  it('a pending change is reused as planned, and an apply makes the next plan afresh', async () => {
    await applied();
    h!.write({ 'm/main.yaml': appManifest({ cpu: 500 }) });
    await plan();
    const kept = await plan();
    expect(kept.code).toBe(0);
    expect(kept.kept).toBe(true);
    const reused = await plan();
    expect(reused.reused).toBe(true);
    expect(planDoc(reused.stdout)).toEqual(planDoc((await fullPlan()).stdout));
    expect(JSON.stringify(planDoc(reused.stdout))).toContain('"update"');

    expect((await h!.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    const after = await plan();
    expect(after.reused).toBe(false);
    expect(planDoc(after.stdout)).toEqual(planDoc((await fullPlan()).stdout));
  });

  it('is not reused when the manifest, an environment value, a ${file:} or an option changed: each is planned', async () => {
    const manifest = appManifest().replace('value: "on"', 'value: ${file:flag.txt}');
    await applied(manifest, { 'm/flag.txt': 'on' });
    await warmedUp();

    // One byte of the manifest.
    h!.write({ 'm/main.yaml': manifest.replace('value: info', 'value: infO') });
    const byte = await plan();
    expect(byte.reused).toBe(false);
    expect(byte.stdout).toContain('infO');
    h!.write({ 'm/main.yaml': manifest });
    await plan();
    expect((await plan()).reused).toBe(true);

    // A secret's value in the environment (the files did not change).
    const rotated = await observed(() => h!.run(['plan', 'm', '--format', 'json', '--cache', 'c'], { env: { E2E_API_KEY: `${SECRET}-rotated` } }));
    expect(rotated.reused).toBe(false);
    expect(planDoc(rotated.stdout)).toEqual(planDoc((await h!.run(['plan', 'm', '--format', 'json'], { env: { E2E_API_KEY: `${SECRET}-rotated`, DRIFTLESS_CACHE_DIR: '' } })).stdout));
    expect(JSON.stringify(planDoc(rotated.stdout))).toContain('"update"');
    await plan();
    expect((await plan()).reused).toBe(true);

    // The content of a ${file:} the manifest reads.
    h!.write({ 'm/flag.txt': 'off' });
    const file = await plan();
    expect(file.reused).toBe(false);
    expect(planDoc(file.stdout)).toEqual(planDoc((await fullPlan()).stdout));
    expect(JSON.stringify(planDoc(file.stdout))).toContain('"update"');
    h!.write({ 'm/flag.txt': 'on' });
    await plan();
    expect((await plan()).reused).toBe(true);

    // A secret's variable no longer set: the same error as without a cache, before any request.
    const unset = await observed(() => h!.run(['plan', 'm', '--cache', 'c'], { env: { E2E_API_KEY: '' } }));
    const unsetFresh = await h!.run(['plan', 'm'], { env: { E2E_API_KEY: '', DRIFTLESS_CACHE_DIR: '' } });
    expect(unset.reused).toBe(false);
    expect(unset.code).toBe(1);
    expect(unset.stderr).toBe(unsetFresh.stderr);
    expect(unset.stderr).not.toMatch(/API requests?/);
    expect((await plan()).reused).toBe(true);

    // An option that shapes the plan.
    const option = await plan('--max-destroy', '0');
    expect(option.reused).toBe(false);
    expect(planDoc(option.stdout)).toEqual(planDoc((await fullPlan('--max-destroy', '0')).stdout));
  });

  it('is not reused after a console edit, nor when a list read live on every run changed without an event', async () => {
    await applied();
    await warmedUp();
    await consoleEdit((api, org) => editProjectVariable(api, org, 'e2e', 'LOG_LEVEL', 'debug'));
    const edited = await plan();
    expect(edited.reused).toBe(false);
    expect(planDoc(edited.stdout)).toEqual(planDoc((await fullPlan()).stdout));
    expect(JSON.stringify(planDoc(edited.stdout))).toContain('"update"');
    expect((await h!.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    await warmedUp();

    // The clusters are read live on every run, and the audit log does not follow them: a cluster
    // renamed straight in the emulator's state, with no event, changes what the plan resolves.
    const cluster = Object.values(h!.emu.state.clusters).find((c) => c.name === 'staging-cluster')!;
    cluster.name = 'staging-cluster-renamed';
    const renamed = await plan();
    expect(renamed.reused).toBe(false);
    expect(renamed.stdout + renamed.stderr).toContain('staging-cluster');
    const full = await fullPlan();
    expect(renamed.code).toBe(full.code);
    expect(planDoc(renamed.stdout)).toEqual(planDoc(full.stdout));
  });

  it('a memo edited by hand, sealed with another key or pointing at another cache file is not used', async () => {
    await applied();
    await warmedUp();
    // The plan in the memo edited (the seal no longer holds): the plan is made.
    const text = readFileSync(memoFile(), 'utf8');
    expect(text).toContain('"no-op"');
    writeFileSync(memoFile(), text.replace('"no-op"', '"delete"'));
    const edited = await plan();
    expect(edited.reused).toBe(false);
    expect(edited.stdout).not.toContain('"delete"');
    expect(planDoc(edited.stdout)).toEqual(planDoc((await fullPlan()).stdout));

    // The link edited (it names the memo, the inputs, the options): not used either.
    await plan();
    expect((await plan()).reused).toBe(true);
    const linkText = readFileSync(linkFile(), 'utf8');
    const forged = linkText.replace('"allowDataLoss":false', '"allowDataLoss":true ');
    expect(forged).not.toBe(linkText);
    writeFileSync(linkFile(), forged);
    const linkEdited = await plan();
    expect(linkEdited.reused).toBe(false);
    expect(planDoc(linkEdited.stdout)).toEqual(planDoc((await fullPlan()).stdout));

    // Another fingerprint key: the memo cannot be checked, so it is not used.
    await plan();
    const otherKey = await observed(() => h!.run(['plan', 'm', '--format', 'json', '--cache', 'c'], { env: { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: 'another-key-0123456789abcdef-xyz' } }));
    expect(otherKey.reused).toBe(false);

    // Without DRIFTLESS_FINGERPRINT_KEY (the fallback key, which anyone knowing the organization id
    // can derive) no plan is kept, and none is reused.
    const fallback = { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: undefined as unknown as string };
    const noKey = () => observed(() => h!.run(['plan', 'm', '--format', 'json', '--cache', 'nokey'], { env: fallback }));
    const memoOf = () => join(h!.dir, 'nokey', PLAN_MEMO_FILE_NAME);
    for (let i = 0; i < 3; i++) expect((await noKey()).code).toBe(0);
    expect(existsSync(join(h!.dir, 'nokey', 'driftless-live-state.json'))).toBe(true);
    expect(existsSync(memoOf())).toBe(false);

    // The refresh cache file written by another run (here: a targeted plan, which keeps no memo):
    // the link names the file the plan was made from, no longer there.
    await plan();
    await plan();
    const targeted = await observed(() => h!.run(['plan', 'm', '--format', 'json', '--cache', 'c', '--target', 'project.e2e'], { env: SECRET_ENV }));
    expect(targeted.reused).toBe(false);
    expect(targeted.kept).toBe(false);
    const next = await plan();
    expect(next.reused).toBe(false);
    expect(planDoc(next.stdout)).toEqual(planDoc((await fullPlan()).stdout));
  });
});
