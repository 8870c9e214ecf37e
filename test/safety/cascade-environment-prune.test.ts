/**
 * Issue 18, "Cascades in the plan": deleting an environment (pruned: removed from Git while its
 * project has `prune: {environments: true}`) or a project (`prune: {projects: true}`) deletes
 * everything in it. The plan must say so: every object that goes with it listed (read live: the
 * service lists of an environment the manifest no longer declares), each database in it blocked
 * without --allow-data-loss and backed up before the deletion, and --max-destroy and the summary
 * counting every object that disappears. Before: the plan showed only `- environment
 * "preview-pr-999"`, nothing blocked, --max-destroy 1 passed, and no backup was taken.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { destroyedCount, disappeared, ownedObjects, settledObjects } from './guards-support.js';

let h: Harness;
afterEach(async () => h?.close());

const PREVIEW = 'project.shop/environment.preview-pr-999';

/** An environment holding a deployed application with a variable, a database, a stage and a variable of its own. */
const previewEnv = (name: string) => `      - name: ${name}
        mode: DEVELOPMENT
        cluster: staging-cluster
        variables:
          - key: GREETING
            value: hello
        deployment_stages:
          - name: data
            services: [db]
        services:
          - type: application
            name: api
            git_repository: { url: https://github.com/acme/api.git }
            dockerfile_path: Dockerfile
            variables:
              - key: MODE
                value: preview
          - type: database
            name: db
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            storage: 10
`;

const envManifest = (withPreview: boolean) => `version: 1
projects:
  - name: shop
    prune: { environments: true }
    environments:
      - name: staging
        mode: STAGING
        cluster: staging-cluster
${withPreview ? previewEnv('preview-pr-999') : ''}`;

/** Everything that goes with the preview environment, children first. */
const CASCADE = [
  `${PREVIEW}/variable.GREETING`,
  `${PREVIEW}/deployment_stage.data`,
  `${PREVIEW}/database.db`,
  `${PREVIEW}/application.api/variable.MODE`,
  `${PREVIEW}/application.api`,
];

const apply = (...extra: string[]) => h.run(['apply', 'm', '--auto-approve', ...FAST, ...extra]);

describe('issue 18: what goes with a deleted environment is planned, guarded and counted', () => {
  it('a pruned environment lists its services, database, variables and stage; its database blocks it without --allow-data-loss', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': envManifest(true) });
    expect((await apply()).code).toBe(0);
    const before = ownedObjects(h.emu);
    h.write({ 'm/main.yaml': envManifest(false) });

    // Human: every object that goes with it, the environment and all of it blocked on the database.
    const plan = await h.run(['plan', 'm']);
    expect(plan.code, plan.stderr).toBe(0);
    for (const a of [...CASCADE, PREVIEW]) expect(plan.stdout).toContain(`# ${a} will be destroyed`);
    expect(plan.stdout).toContain(`# (deleted with ${PREVIEW})`);
    expect(plan.stdout).toContain('- database "db"');
    expect(plan.stdout).toContain('- application "api"');
    expect(plan.stdout).toContain(
      `! ${PREVIEW}, with 5 objects that go with it: destroys the data of the database that goes with it (database.db) (needs --allow-data-loss)`,
    );
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 0 to destroy, 0 to deploy; 6 blocked (not done, not counted).');

    // JSON: one resource_change per object that goes with it, actions ["delete"], and who it goes with.
    const json = JSON.parse((await h.run(['plan', 'm', '--json'])).stdout);
    const rc = (a: string) => json.resource_changes.find((c: { address: string }) => c.address === a);
    for (const a of CASCADE) {
      expect(rc(a)?.change.actions, a).toEqual(['delete']);
      expect(rc(a)?.blocked?.flags, a).toEqual(['--allow-data-loss']);
    }
    expect(rc(`${PREVIEW}/application.api`).via_parent).toBe(PREVIEW);
    expect(rc(`${PREVIEW}/database.db`).via_parent).toBe(PREVIEW);
    expect(rc(PREVIEW).change.actions).toEqual(['delete']);
    expect(rc(PREVIEW).blocked).toEqual({ reasons: ['destroys the data of the database that goes with it (database.db)'], flags: ['--allow-data-loss'] });
    expect(json.summary).toMatchObject({ destroy: 0, blocked: 6 });
    expect(json.applyable).toBe(false);

    // Allowed: the summary counts the six objects, markdown lists each of them.
    const allowed = JSON.parse((await h.run(['plan', 'm', '--json', '--allow-data-loss'])).stdout);
    expect(allowed.summary).toMatchObject({ destroy: 6, blocked: 0 });
    const md = await h.run(['plan', 'm', '--format', 'markdown', '--allow-data-loss']);
    expect(md.stdout).toContain('This plan **destroys or replaces 6 resources**');
    for (const a of [...CASCADE, PREVIEW]) expect(md.stdout).toContain(`> - destroy \`${a}\``);

    // The apply refuses it without the flag, and nothing is gone.
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--allow-data-loss');
    expect(ownedObjects(h.emu)).toEqual(before);
    expect(h.emu.state.backups).toEqual({});
  });

  it('--max-destroy counts every object that goes with the environment, in plan and apply', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': envManifest(true) });
    expect((await apply()).code).toBe(0);
    const before = ownedObjects(h.emu);
    h.write({ 'm/main.yaml': envManifest(false) });

    const plan = await h.run(['plan', 'm', '--max-destroy', '1']);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain('The plan destroys 6 resources (6 of them blocked for now), more than --max-destroy 1');
    const planAllowed = await h.run(['plan', 'm', '--max-destroy', '5', '--allow-data-loss']);
    expect(planAllowed.code).toBe(1);
    expect(planAllowed.stdout + planAllowed.stderr).toContain('The plan destroys 6 resources, more than --max-destroy 5');

    const refused = await apply('--allow-data-loss', '--max-destroy', '5');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('more than --max-destroy 5');
    expect(ownedObjects(h.emu)).toEqual(before);
    expect((await h.run(['plan', 'm', '--max-destroy', '6', '--allow-data-loss'])).code).toBe(0);
  });

  it('with --allow-data-loss, the database is backed up before the environment is deleted, and the count is what disappeared', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': envManifest(true) });
    expect((await apply()).code).toBe(0);
    const db = Object.values(h.emu.state.services).find((s) => s.name === 'db')!;
    const before = ownedObjects(h.emu);
    h.write({ 'm/main.yaml': envManifest(false) });

    const done = await apply('--allow-data-loss');
    expect(done.code, done.stdout + done.stderr).toBe(0);
    const backups = Object.values(h.emu.state.backups);
    expect(backups.map((b) => b.database_id)).toEqual([db.id]);
    expect(done.stdout).toContain(`Backup of ${PREVIEW}/database.db before its deletion`);
    const gone = disappeared(before, await settledObjects(h.emu));
    expect(gone.length).toBe(6);
    expect(destroyedCount(done.stdout)).toBe(gone.length);
    expect(Object.values(h.emu.state.environments).map((e) => e.name)).toEqual(['staging']);
  });
});

const projectManifest = (withShop2: boolean) => `version: 1
prune: { projects: true }
projects:
  - name: shop
    environments:
      - name: staging
        mode: STAGING
        cluster: staging-cluster
${withShop2 ? `  - name: shop2
    variables:
      - key: OWNER
        value: team-b
    environments:
${previewEnv('qa')}` : ''}`;

describe('issue 18: what goes with a deleted project is planned, guarded and counted', () => {
  it('a pruned project lists its environments and what they hold, is blocked by their database, and backs it up once allowed', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': projectManifest(true) });
    expect((await apply()).code).toBe(0);
    const db = Object.values(h.emu.state.services).find((s) => s.name === 'db')!;
    const before = ownedObjects(h.emu);
    h.write({ 'm/main.yaml': projectManifest(false) });

    const json = JSON.parse((await h.run(['plan', 'm', '--json'])).stdout);
    const deleted = json.resource_changes.filter((c: { change: { actions: string[] } }) => c.change.actions[0] === 'delete').map((c: { address: string }) => c.address).sort();
    const QA = 'project.shop2/environment.qa';
    expect(deleted).toEqual(
      [
        'project.shop2',
        'project.shop2/variable.OWNER',
        QA,
        `${QA}/variable.GREETING`,
        `${QA}/deployment_stage.data`,
        `${QA}/database.db`,
        `${QA}/application.api`,
        `${QA}/application.api/variable.MODE`,
      ].sort(),
    );
    const project = json.resource_changes.find((c: { address: string }) => c.address === 'project.shop2');
    expect(project.blocked.reasons).toEqual(['destroys the data of the database that goes with it (environment.qa/database.db)']);
    expect(json.summary).toMatchObject({ destroy: 0, blocked: 8 });

    const tooMany = await h.run(['plan', 'm', '--max-destroy', '7', '--allow-data-loss']);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stdout + tooMany.stderr).toContain('The plan destroys 8 resources, more than --max-destroy 7');

    expect((await apply()).code).toBe(1);
    expect(ownedObjects(h.emu)).toEqual(before);

    const done = await apply('--allow-data-loss');
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(Object.values(h.emu.state.backups).map((b) => b.database_id)).toEqual([db.id]);
    const gone = disappeared(before, await settledObjects(h.emu));
    // ownedObjects does not list projects: the project itself is the eighth.
    expect(gone.length).toBe(7);
    expect(Object.values(h.emu.state.projects).map((p) => p.name)).toEqual(['shop']);
    expect(destroyedCount(done.stdout)).toBe(8);
  });
});
