/**
 * Finding 7 (messages that mislead): a blocked database delete still counted in "1 to destroy",
 * and plan exited 0 under --detailed-exitcode, so the pull-request check went green on a plan whose
 * apply is refused.
 *
 * Now: a blocked change is counted as blocked only (summary line, JSON `summary`), the JSON change
 * says why and which flag allows it, and `plan --detailed-exitcode` exits 1 while a change is
 * blocked (without --detailed-exitcode, plan exits 0 and lists it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { previewManifest } from './guards-support.js';

let h: Harness;
afterEach(async () => h?.close());

const DATABASE = ['          - type: database', '            name: db', '            database_type: POSTGRESQL', '            version: "16"', '            mode: CONTAINER', '            storage: 10', ''].join('\n');
const PRUNE_SERVICES = '        prune:\n          services: true\n';

describe('finding 7: a blocked database delete', () => {
  it('finding 7: a blocked database delete is not counted as to destroy, and plan --detailed-exitcode exits 1', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': previewManifest('staging-cluster', { extraServices: DATABASE }) });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    // The database leaves the manifest, and the environment prunes its services.
    h.write({ 'm/main.yaml': previewManifest('staging-cluster', { envExtra: PRUNE_SERVICES }) });

    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 0 to destroy, 0 to deploy; 1 blocked (not done, not counted).');
    expect(plan.stdout).toContain('! project.shop/environment.preview/database.db: destroys the data of a database (needs --allow-data-loss)');

    const detailed = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(detailed.code).toBe(1);
    expect(detailed.stderr).toContain('1 change of this plan is blocked; apply refuses it without --allow-data-loss.');

    const json = JSON.parse((await h.run(['plan', 'm', '--json'])).stdout) as {
      summary: Record<string, number>;
      resource_changes: Array<{ address: string; status: string; change: { actions: string[] }; blocked?: unknown }>;
    };
    expect(json.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0, blocked: 1 });
    const db = json.resource_changes.find((c) => c.address === 'project.shop/environment.preview/database.db')!;
    expect(db).toMatchObject({ status: 'blocked', change: { actions: ['delete'] }, blocked: { reasons: ['destroys the data of a database'], flags: ['--allow-data-loss'] } });

    const md = await h.run(['plan', 'm', '--format', 'markdown']);
    expect(md.stdout).toContain('**Plan: 0 to add, 0 to change, 0 to destroy, 0 to deploy; 1 blocked (not done, not counted).**');
    expect(md.stdout).not.toContain('destroys or replaces');

    // With the flag it is a real deletion: counted, and a change for --detailed-exitcode.
    const allowed = await h.run(['plan', 'm', '--allow-data-loss', '--detailed-exitcode']);
    expect(allowed.code).toBe(2);
    expect(allowed.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy, 0 to deploy.');
    expect(Object.values(h.emu.state.services).map((s) => s.name).sort()).toEqual(['api', 'db']);
  });
});
