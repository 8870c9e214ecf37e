/**
 * Finding 9: a tampered plan file destroyed a database. The file's checksum was a plain sha256 of
 * part of it: setting `plan.options.allow_data_loss`, turning the blocked database delete into
 * `planned` and recomputing the checksum made `apply --auto-approve FILE` destroy the database.
 *
 * Now the whole file is sealed with a keyed MAC (computed here independently: HMAC-SHA256 under a
 * key derived from DRIFTLESS_FINGERPRINT_KEY) and what an apply may destroy comes from its own
 * command line only.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { SECRET_ENV, appManifest, servicesByName } from '../e2e/fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const DB = 'project.e2e/environment.dev/database.db';
type Doc = Record<string, any>;

/** Everything apply could write, to show that a refused apply wrote nothing. */
function snapshot(): string {
  const s = h.emu.state;
  return JSON.stringify([s.projects, s.environments, s.services, s.variables, s.deploymentStages, s.backups, s.operations]);
}

const readPlan = (file = 'p.plan'): Doc => JSON.parse(readFileSync(join(h.dir, file), 'utf8'));
const writePlan = (doc: Doc, file = 'p.plan') => writeFileSync(join(h.dir, file), JSON.stringify(doc, null, 2));

/** The seal as the documentation defines it, computed here (never with driftless's code). */
function sealWith(doc: Doc, fingerprintKey: string, keySource: 'env' | 'fallback' = 'env'): Doc {
  const sealKey = createHmac('sha256', fingerprintKey).update('driftless plan-file seal v1').digest();
  const keyId = createHmac('sha256', sealKey).update('driftless plan-file key id v1').digest('hex').slice(0, 16);
  const { seal: _old, ...body } = doc;
  const seal = { algorithm: 'hmac-sha256', key_source: keySource, key_id: keyId };
  return { ...body, seal: { ...seal, mac: createHmac('sha256', sealKey).update(JSON.stringify({ ...body, seal })).digest('hex') } };
}

/** The attack of the finding: the data-loss guard lifted inside the file. */
function liftDataLossGuard(doc: Doc): Doc {
  const d = structuredClone(doc);
  d.plan.options.allow_data_loss = true;
  const c = d.plan.changes.find((x: Doc) => x.address === DB);
  c.status = 'planned';
  d.plan.applyable = true;
  d.plan.summary.destroy = (d.plan.summary.destroy ?? 0) + 1;
  return d;
}

/** A database applied, then removed from a manifest that prunes services: a blocked delete. */
async function setUpBlockedDatabaseDelete(planFlags: string[] = []): Promise<string> {
  h = await startHarness();
  h.write({ 'm/main.yaml': appManifest({ withDatabase: true }) });
  expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
  h.write({ 'm/main.yaml': appManifest({ pruneServices: true }) });
  const p = await h.run(['plan', 'm', '--out', 'p.plan', ...planFlags], { env: SECRET_ENV });
  expect(p.code).toBe(0);
  return servicesByName(h).get('db')!.id as string;
}

async function expectRefusedUnchanged(argv: string[], message: string, env: Record<string, string> = SECRET_ENV, label = message): Promise<void> {
  const before = snapshot();
  const r = await h.run(argv, { env });
  expect(r.code, label).toBe(1);
  expect(r.stderr, label).toContain(message);
  expect(snapshot(), label).toBe(before);
  expect(h.emu.state.backups, label).toEqual({});
}

describe('finding 9: a plan file is a sealed, bounded authority', () => {
  it('finding 9: the reported attack (guard lifted, plain checksum recomputed) is refused and the database kept', async () => {
    const dbId = await setUpBlockedDatabaseDelete();
    const doc = liftDataLossGuard(readPlan());
    delete doc.seal;
    doc.checksum = 'sha256:' + createHash('sha256').update(JSON.stringify(doc.plan)).digest('hex');
    writePlan(doc);
    await expectRefusedUnchanged(['apply', '--auto-approve', 'p.plan', ...FAST], 'p.plan has no seal');
    expect(servicesByName(h).get('db')?.id).toBe(dbId);
  });

  it('finding 9: any edit (options, an action status, api_url, organization_id, manifest_paths) is refused, nothing written', async () => {
    await setUpBlockedDatabaseDelete();
    const original = readPlan();
    const edits: Array<[string, (d: Doc) => void]> = [
      ['options', (d) => (d.plan.options.allow_data_loss = true)],
      ['status', (d) => (d.plan.changes.find((c: Doc) => c.address === DB).status = 'planned')],
      ['api_url', (d) => (d.api_url = d.plan.api_url = 'http://127.0.0.1:1')],
      ['organization_id', (d) => (d.organization_id = d.plan.organization_id = '00000000-0000-4000-8000-000000000000')],
      ['manifest_paths', (d) => (d.manifest_paths = ['elsewhere'])],
    ];
    for (const [what, edit] of edits) {
      const d = structuredClone(original);
      edit(d);
      writePlan(d);
      // Tells which file, and that it was edited.
      await expectRefusedUnchanged(['apply', '--auto-approve', 'p.plan', ...FAST], 'p.plan was edited after it was written', SECRET_ENV, `edited ${what}`);
    }
    // The untouched file verifies: it is refused only for its blocked delete.
    writePlan(original);
    await expectRefusedUnchanged(['apply', 'p.plan', ...FAST], `${DB}: delete is blocked`);
    // A flag on the apply does not unblock what the saved plan blocks: the plan is made again.
    await expectRefusedUnchanged(['apply', 'p.plan', '--allow-data-loss', ...FAST], 'The saved plan p.plan blocks this change: make it again with the flag');
  });

  it('finding 9: even a correctly re-sealed file gets no more than the command line allows', async () => {
    const dbId = await setUpBlockedDatabaseDelete();
    writePlan(sealWith(liftDataLossGuard(readPlan()), h.env.DRIFTLESS_FINGERPRINT_KEY));
    await expectRefusedUnchanged(['apply', '--auto-approve', 'p.plan', ...FAST], '--allow-data-loss');
    expect(servicesByName(h).get('db')?.id).toBe(dbId);
  });

  it('finding 9: flags of the apply bound a valid file planned with --allow-data-loss (--allow-data-loss, --max-destroy)', async () => {
    await setUpBlockedDatabaseDelete(['--allow-data-loss']);
    expect(readPlan().plan.changes.find((c: Doc) => c.address === DB).status).toBe('planned');
    await expectRefusedUnchanged(['apply', 'p.plan', ...FAST], `${DB}: the plan deletes a database and --allow-data-loss was not given`);
    await expectRefusedUnchanged(['apply', 'p.plan', '--allow-data-loss', '--max-destroy', '0', ...FAST], 'more than --max-destroy 0 allows');
    const r = await h.run(['apply', 'p.plan', '--allow-data-loss', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(0);
    expect(Object.values(h.emu.state.backups)).toHaveLength(1);
    const db = servicesByName(h).get('db');
    expect(db === undefined || /DELET(E|ING)/.test(String(h.emu.state.serviceStatuses[db.id]?.state))).toBe(true);
  });

  it('finding 9: a file read with another key is refused as such, and an empty key is an error', async () => {
    await setUpBlockedDatabaseDelete();
    await expectRefusedUnchanged(
      ['apply', 'p.plan', ...FAST],
      "p.plan was sealed with another key than this apply's DRIFTLESS_FINGERPRINT_KEY",
      { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: 'another-key-0123456789abcdef' },
    );
    await expectRefusedUnchanged(['apply', 'p.plan', ...FAST], 'DRIFTLESS_FINGERPRINT_KEY is set but empty', { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: '' });
    // plan too: an empty key is never taken as a key, and no plan file is written with it.
    const p = await h.run(['plan', 'm', '--out', 'empty.plan'], { env: { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: '' } });
    expect(p.code).toBe(1);
    expect(p.stderr).toContain('DRIFTLESS_FINGERPRINT_KEY is set but empty');
    expect(() => readFileSync(join(h.dir, 'empty.plan'))).toThrow();
  });

  it('finding 9: without DRIFTLESS_FINGERPRINT_KEY, apply does not take the manifest paths of a file anyone could re-seal', async () => {
    h = await startHarness();
    // No DRIFTLESS_FINGERPRINT_KEY: plan and apply use the key derived from the organization id.
    const env = { ...SECRET_ENV, DRIFTLESS_FINGERPRINT_KEY: undefined as unknown as string };
    h.write({ 'm/main.yaml': appManifest() });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env })).code).toBe(0);
    h.write({ 'm/main.yaml': appManifest({ logLevel: 'debug' }), 'ev/main.yaml': appManifest({ logLevel: 'pwned' }) });
    expect((await h.run(['plan', 'm', '--out', 'p.plan'], { env })).code).toBe(0);
    expect((await h.run(['plan', 'ev', '--out', 'ev.plan'], { env })).code).toBe(0);
    const original = readPlan();
    expect(original.manifest_paths).toEqual(['m']);
    // The forger edits the file (its plan and the manifest it names) and re-seals it: the key is
    // derived from the organization id written in the file itself.
    const forged = { ...structuredClone(original), plan: readPlan('ev.plan').plan, manifest_paths: ['ev'] };
    writePlan(sealWith(forged, `driftless-fallback-fingerprint-key:${original.organization_id}`, 'fallback'));
    await expectRefusedUnchanged(['apply', '--auto-approve', 'p.plan', ...FAST], 'p.plan was sealed without DRIFTLESS_FINGERPRINT_KEY: apply does not take the manifest paths it names (ev)', env);
    const r = await h.run(['apply', '--auto-approve', 'p.plan', ...FAST], { env });
    expect(r.stderr).toContain('Give the manifest paths on the command line (`driftless apply p.plan PATH...`), or set DRIFTLESS_FINGERPRINT_KEY');
    const logLevel = () => Object.values(h.emu.state.variables).find((v) => v.key === 'LOG_LEVEL')?.value;
    expect(logLevel()).toBe('info');
    // With the manifest named on the command line, the forged plan is compared with it and refused.
    await expectRefusedUnchanged(['apply', '--auto-approve', 'p.plan', 'm', ...FAST], 'the change it needs now differs from the saved one', env);
    // The genuine file, applied with its manifest named, applies.
    writePlan(original);
    await expectRefusedUnchanged(['apply', '--auto-approve', 'p.plan', ...FAST], 'apply does not take the manifest paths it names (m)', env);
    const ok = await h.run(['apply', '--auto-approve', 'p.plan', 'm', ...FAST], { env });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(logLevel()).toBe('debug');
  });

  it('finding 9: a saved plan whose deploy pin (git_commit_id) changed since is refused', async () => {
    h = await startHarness();
    const pinned = (commit: string) => appManifest().replace('            dockerfile_path: Dockerfile\n', `            dockerfile_path: Dockerfile\n            git_commit_id: ${commit}\n`);
    h.write({ 'm/main.yaml': pinned('a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1') });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    h.write({ 'm/main.yaml': pinned('b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2') });
    expect((await h.run(['plan', 'm', '--out', 'p.plan'], { env: SECRET_ENV })).code).toBe(0);
    h.write({ 'm/main.yaml': pinned('c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3') });
    await expectRefusedUnchanged(['apply', 'p.plan', ...FAST], 'project.e2e/environment.dev/application.api: the change it needs now differs from the saved one');
    expect(servicesByName(h).get('api')!.git_repository.deployed_commit_id).toBe('a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1');
  });
});
