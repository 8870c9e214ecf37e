/**
 * Issue 18, "Cascades in the plan": a service re-declared with another kind under the same name
 * (application -> container) is a replacement. Before: the plan created the container next to the
 * live application (a warning only); with services pruned, the deployed application was deleted
 * without --allow-replace while the create ran at the same time and got a 409, and the
 * environment had no `api` until a second apply. Now: one replace, blocked without
 * --allow-replace (and --allow-data-loss when the old service is a database, backed up first);
 * allowed, the old service is gone before the new one is created, in one apply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { destroyedCount, disappeared, ownedObjects, settledObjects } from './guards-support.js';

let h: Harness;
afterEach(async () => h?.close());

const ENV = 'project.shop/environment.preview';

const application = `          - type: application
            name: api
            git_repository: { url: https://github.com/acme/api.git }
            dockerfile_path: Dockerfile
            variables:
              - key: MODE
                value: app
`;
const container = `          - type: container
            name: api
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            variables:
              - key: MODE
                value: container
`;
const database = `          - type: database
            name: api
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            storage: 10
`;

/** `api` in a stage; `prune: {services: true}` when asked (the case that deleted it unguarded before). */
const manifest = (service: string, prune = false) => `version: 1
projects:
  - name: shop
    environments:
      - name: preview
        mode: DEVELOPMENT
        cluster: staging-cluster
${prune ? '        prune: { services: true }\n' : ''}        deployment_stages:
          - name: apps
            services: [api]
        services:
${service}`;

const apply = (...extra: string[]) => h.run(['apply', 'm', '--auto-approve', ...FAST, ...extra]);
const apiRecords = () => Object.values(h.emu.state.services).filter((s) => s.name === 'api');

describe('issue 18: another kind under the same name is a replacement', () => {
  for (const prune of [false, true]) {
    it(`application -> container${prune ? ' (services pruned)' : ''}: replace, blocked without --allow-replace, then done in one apply`, async () => {
      h = await startHarness();
      h.write({ 'm/main.yaml': manifest(application, prune) });
      expect((await apply()).code).toBe(0);
      const [old] = apiRecords();
      const before = ownedObjects(h.emu);
      h.write({ 'm/main.yaml': manifest(container, prune) });

      const plan = await h.run(['plan', 'm']);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain(`# ${ENV}/container.api must be replaced`);
      expect(plan.stdout).toContain(`${ENV}/application.api is an application: a service cannot change its kind in place, so it is deleted, then the container created`);
      expect(plan.stdout).toContain('replaces the deployed application "api" with a container: re-run with --allow-replace to permit it');
      expect(plan.stdout).toContain('# BLOCKED: needs --allow-replace');
      expect(plan.stdout).not.toContain(`${ENV}/application.api will be destroyed`);
      const json = JSON.parse((await h.run(['plan', 'm', '--json'])).stdout);
      const rc = json.resource_changes.find((c: { address: string }) => c.address === `${ENV}/container.api`);
      expect(rc.change.actions).toEqual(['delete', 'create']);
      expect(rc.replaces).toBe(`${ENV}/application.api`);
      expect(rc.blocked.flags).toEqual(['--allow-replace']);
      // The application's own variable goes with it, under the same guard.
      const variable = json.resource_changes.find((c: { address: string }) => c.address === `${ENV}/application.api/variable.MODE`);
      expect(variable.change.actions).toEqual(['delete']);
      expect(variable.status).toBe('blocked');

      const refused = await apply();
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('--allow-replace');
      expect(apiRecords().map((s) => s.id)).toEqual([old!.id]);
      expect(ownedObjects(h.emu)).toEqual(before);

      const done = await apply('--allow-replace');
      expect(done.code, done.stdout + done.stderr).toBe(0);
      const now = apiRecords();
      expect(now).toHaveLength(1);
      expect(now[0]!.id).not.toBe(old!.id);
      expect(String(now[0]!.service_type ?? now[0]!.kind ?? '').toLowerCase()).toContain('container');
      // In its stage again, and nothing left to do.
      const stage = Object.values(h.emu.state.deploymentStages).find((s) => s.name === 'apps')!;
      expect(JSON.stringify(stage)).toContain(now[0]!.id);
      const again = await h.run(['plan', 'm', '--detailed-exitcode']);
      expect(again.code, again.stdout).toBe(0);
      expect(again.stdout).toContain('No changes.');
      const gone = disappeared(before, await settledObjects(h.emu));
      expect(gone).toEqual([`service:${old!.id}`, ...gone.filter((g) => g.startsWith('variable:'))].sort());
      expect(destroyedCount(done.stdout)).toBe(gone.length);
    });
  }

  it('database -> container: needs --allow-data-loss as well, and the database is backed up first', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest(database) });
    expect((await apply()).code).toBe(0);
    const [old] = apiRecords();
    h.write({ 'm/main.yaml': manifest(container) });

    const plan = await h.run(['plan', 'm', '--allow-replace']);
    expect(plan.stdout).not.toContain('deployment_stage "apps"');
    // Allowed, the container starts outside the stage the database was in: the stage gains it again.
    expect((await h.run(['plan', 'm', '--allow-replace', '--allow-data-loss'])).stdout).toContain('~ services: [] -> ["api"]');
    expect(plan.stdout).toContain('destroys the data of the database "api": re-run with --allow-data-loss to permit it');
    const onlyReplace = await apply('--allow-replace');
    expect(onlyReplace.code).toBe(1);
    expect(apiRecords().map((s) => s.id)).toEqual([old!.id]);
    const onlyData = await apply('--allow-data-loss');
    expect(onlyData.code).toBe(1);
    expect(apiRecords().map((s) => s.id)).toEqual([old!.id]);
    expect(h.emu.state.backups).toEqual({});

    const done = await apply('--allow-replace', '--allow-data-loss');
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(Object.values(h.emu.state.backups).map((b) => b.database_id)).toEqual([old!.id]);
    const now = apiRecords();
    expect(now).toHaveLength(1);
    expect(now[0]!.id).not.toBe(old!.id);
    const again = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  });
});
