/**
 * What goes with a deleted project or environment is read live before the delete (issue 18: the
 * cascade "read live"; a delete is never sent on the cache's word alone). With an audit log that
 * records nothing (`serve --audit-drop 1`) and the rotation off, a database made in the console
 * after the cache was written is unknown to the cached plan: apply must not delete its parent,
 * which would take the database with it, unlisted and without --allow-data-loss.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const MANIFEST = `version: 1
prune: { projects: true }
projects:
  - name: tmp
    prune: { environments: true }
    environments:
      - name: e1
        mode: DEVELOPMENT
        cluster: staging-cluster
        services:
          - type: application
            name: api
            git_repository: { url: https://github.com/driftless-examples/hello-web.git, branch: main }
            dockerfile_path: Dockerfile
      - name: e2
        mode: DEVELOPMENT
        cluster: staging-cluster
`;
const CACHED = ['--cache', 'cache', '--verify-requests', '0'];
const env = { DRIFTLESS_CACHE_DIR: '' };

async function consoleDatabase(harness: Harness, environment: string, name: string): Promise<void> {
  const emu = harness.emu;
  const envId = Object.values(emu.state.environments).find((e) => e.name === environment)!.id as string;
  const res = await fetch(`${emu.url}/environment/${envId}/database`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.tokens.CONSOLE}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE' }),
  });
  expect(res.status).toBe(201);
}

const databaseLeft = (harness: Harness, name: string) =>
  Object.values(harness.emu.state.services).some((s) => s.name === name && !/DELET/.test(String(harness.emu.state.serviceStatuses[s.id as string]?.state ?? '')));

describe('a deleted parent holding a service the cache does not know', () => {
  for (const removed of ['project', 'environment'] as const) {
    it(`${removed}: the warm plan lists the database and apply refuses it without --allow-data-loss, deleting nothing`, async () => {
      h = await startHarness({ refreshCache: false, auditDropRate: 1 });
      h.write({ 'm/main.yaml': MANIFEST });
      const applied = await h.run(['apply', 'm', '--auto-approve', '--no-deploy', ...FAST, ...CACHED], { env });
      expect(applied.code, applied.stderr).toBe(0);
      // The removal planned once before the console edit: the cache holds what goes with it.
      h.write({ 'm/main.yaml': removed === 'project' ? 'version: 1\nprune: { projects: true }\nprojects: []\n' : MANIFEST.slice(0, MANIFEST.indexOf('      - name: e2')) });
      expect((await h.run(['plan', 'm', ...CACHED], { env })).code).toBe(0);
      const warm = await h.run(['plan', 'm', ...CACHED], { env });
      expect(warm.code, warm.stderr).toBe(0);
      expect(warm.stderr).not.toMatch(/^Full read/m);

      await consoleDatabase(h, 'e2', 'orders-db');
      const r = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...CACHED], { env });
      expect(r.code, r.stdout + r.stderr).toBe(1);
      // What goes with the deleted parent is read live even in a warm run: the plan lists the
      // database and blocks it (before, only apply's live check caught it: apply.delete-unconfirmed).
      expect(r.stderr).toMatch(/error\[apply\.blocked\]: project\.tmp(\/environment\.e2)? \(with \d+ objects? that go(es)? with it\): delete is blocked: .*destroys the data of the database that goes with it \((environment\.e2\/)?database\.orders-db\): re-run with --allow-data-loss/);
      expect(databaseLeft(h, 'orders-db')).toBe(true);
      expect(Object.values(h.emu.state.environments).map((e) => e.name).sort()).toEqual(['e1', 'e2']);
    });
  }

  it('environment: a warm plan reads what goes with it live, lists the database and blocks it without --allow-data-loss', async () => {
    h = await startHarness({ refreshCache: false, auditDropRate: 1 });
    h.write({ 'm/main.yaml': MANIFEST });
    expect((await h.run(['apply', 'm', '--auto-approve', '--no-deploy', ...FAST, ...CACHED], { env })).code).toBe(0);
    h.write({ 'm/main.yaml': MANIFEST.slice(0, MANIFEST.indexOf('      - name: e2')) });
    expect((await h.run(['plan', 'm', ...CACHED], { env })).code).toBe(0);
    await consoleDatabase(h, 'e2', 'orders-db');
    const r = await h.run(['plan', 'm', ...CACHED], { env });
    // The refresh ran (no full read), yet the database made while the log missed it is in the plan.
    expect(r.stderr).not.toMatch(/^Full read/m);
    expect(r.code, r.stdout + r.stderr).not.toBe(1);
    expect(r.stdout).toMatch(/# project\.tmp\/environment\.e2\/database\.orders-db will be destroyed\n[^]*?# BLOCKED: needs --allow-data-loss\n {2}- database "orders-db"/);
    const allowed = await h.run(['plan', 'm', '--allow-data-loss', ...CACHED], { env });
    expect(allowed.code, allowed.stdout + allowed.stderr).not.toBe(1);
    expect(allowed.stdout).toContain('# project.tmp/environment.e2/database.orders-db will be destroyed');
    expect(allowed.stdout).not.toContain('BLOCKED');
  });

  it('nothing unknown in it: the delete of a warm plan goes through, what goes with it confirmed live', async () => {
    h = await startHarness({ refreshCache: false, auditDropRate: 1 });
    h.write({ 'm/main.yaml': MANIFEST });
    expect((await h.run(['apply', 'm', '--auto-approve', '--no-deploy', ...FAST, ...CACHED], { env })).code).toBe(0);
    h.write({ 'm/main.yaml': MANIFEST.slice(0, MANIFEST.indexOf('      - name: e1')) + MANIFEST.slice(MANIFEST.indexOf('      - name: e2')) });
    expect((await h.run(['plan', 'm', ...CACHED], { env })).code).toBe(0);
    const r = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...CACHED], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/^Full read/m);
    expect(r.stdout).toMatch(/Apply complete! Resources: 0 added, 0 changed, 2 destroyed/);
    expect(Object.values(h.emu.state.environments).map((e) => e.name)).toEqual(['e2']);
  });
});
