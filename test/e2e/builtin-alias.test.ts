/**
 * `alias: {service, builtin}` on the emulator (issue 20): one template declares a database `pg` and
 * an application whose DATABASE_URL aliases pg's DATABASE_URL_INTERNAL by name.
 * - One apply creates the environment, pg and the alias (after pg): the alias points at the key
 *   `QOVERY_POSTGRESQL_Z<pg's hash>_DATABASE_URL_INTERNAL`; a second environment from the same
 *   declaration gets its own key; the plan afterwards is clean.
 * - pg removed from the manifest while the alias names it: validate and plan say so, naming both;
 *   an alias written with the hashed key is a plan error naming both when the plan deletes pg.
 * - export writes the `{service, builtin}` form, and a plan of the export is clean.
 * - pg deleted in the console takes the alias with it: a plan from the refresh cache creates both
 *   again, pg first, as a full read's plan does; pg replaced (another engine) replaces the alias.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Options {
  environments?: string[];
  /** pg is left out of the template. */
  withoutPg?: boolean;
  /** The alias as written (default: the by-name form); null: api has no variables. */
  alias?: string | null;
}

function manifest(o: Options = {}): string {
  const envs = o.environments ?? ['staging'];
  return `version: 1
projects:
  - name: shop
    templates:
      - name: web-stack
        services:
${o.withoutPg ? '' : `          - type: database
            name: pg
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            accessibility: PRIVATE
            cpu: 250
            memory: 256
            storage: 10
`}          - type: application
            name: api
            git_repository: { url: https://github.com/driftless-examples/api.git, branch: main }
            dockerfile_path: Dockerfile
            cpu: 250
            memory: 256
${o.alias === null ? '' : `            variables:
              - key: DATABASE_URL
                alias: ${o.alias ?? '{ service: pg, builtin: DATABASE_URL_INTERNAL }'}
`}    environments:
${envs
  .map(
    (name) => `      - name: ${name}
        cluster: staging-cluster
        template: web-stack
        prune: { services: true }
`,
  )
  .join('')}`;
}

/** The hashed key of a built-in of this emulator service record. */
const hashed = (svc: { id: string }, suffix: string) => `QOVERY_POSTGRESQL_Z${svc.id.replace(/-/g, '').slice(0, 8).toUpperCase()}_${suffix}`;

function servicesNamed(harness: Harness, name: string, env: string): any {
  const e = Object.values(harness.emu.state.environments).find((x: any) => x.name === env) as any;
  return Object.values(harness.emu.state.services).find((s: any) => s.name === name && s.environment?.id === e.id);
}

/** The key an alias record points at (a secret's alias says `aliased_secret`). */
const aliasedKey = (v: any): string | undefined => v?.aliased_secret?.key ?? v?.aliased_variable?.key;

/** The alias DATABASE_URL of `api` in environment `env`, as the API answers it. */
async function aliasOf(harness: Harness, env: string): Promise<any> {
  const api = servicesNamed(harness, 'api', env);
  const res = await fetch(`${harness.emu.url}/variable?parent_id=${api.id}&scope=APPLICATION`, { headers: { authorization: `Token ${harness.emu.tokens.ADMIN}` } });
  return ((await res.json()) as any).results.find((v: any) => v.key === 'DATABASE_URL');
}

describe('an alias of a service built-in, by name', () => {
  it('is created with its service in one apply, with the key of each environment, and plans clean', async () => {
    h = await startHarness();
    h.write({ 'm.yaml': manifest() });
    const valid = await h.run(['validate', 'm.yaml']);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);

    const plan = await h.run(['plan', 'm.yaml', '--format', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const changes = JSON.parse(plan.stdout).resource_changes as any[];
    const alias = changes.find((c) => c.address.endsWith('variable.DATABASE_URL'));
    expect(alias.change.actions).toEqual(['create']);
    expect(alias.change.after).toMatchObject({ variable_type: 'ALIAS', aliased_scope: 'BUILT_IN', aliased_service: 'pg', aliased_builtin: 'DATABASE_URL_INTERNAL' });

    const applied = await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const staging = await aliasOf(h, 'staging');
    expect(staging?.variable_type).toBe('ALIAS');
    expect(aliasedKey(staging)).toBe(hashed(servicesNamed(h, 'pg', 'staging'), 'DATABASE_URL_INTERNAL'));
    const clean = await h.run(['plan', 'm.yaml', '--detailed-exitcode']);
    expect(clean.stdout, clean.stderr).toContain('No changes.');
    expect(clean.code).toBe(0);

    // A second environment from the same declaration: its own database, its own key.
    h.write({ 'm.yaml': manifest({ environments: ['staging', 'pr-7'] }) });
    const second = await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const preview = await aliasOf(h, 'pr-7');
    const previewKey = aliasedKey(preview);
    expect(previewKey).toBe(hashed(servicesNamed(h, 'pg', 'pr-7'), 'DATABASE_URL_INTERNAL'));
    expect(previewKey).not.toBe(aliasedKey(staging));
    const cleanAgain = await h.run(['plan', 'm.yaml', '--detailed-exitcode']);
    expect(cleanAgain.stdout, cleanAgain.stderr).toContain('No changes.');
    expect(cleanAgain.code).toBe(0);

    // Export writes the alias by name, not with the hashed key; its plan is clean.
    const exported = await h.run(['export', '--project', 'shop', '--out', 'exported.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(join(h.dir, 'exported.yaml'), 'utf8');
    expect(text).not.toMatch(/QOVERY_POSTGRESQL_Z/);
    expect(text).toMatch(/alias:\s*\n\s*service: pg\n\s*builtin: DATABASE_URL_INTERNAL/);
    // Both environments now read alike: `--factor` writes the alias once, in the template.
    const factored = await h.run(['export', '--project', 'shop', '--factor', '--out', 'factored.yaml']);
    expect(factored.code, factored.stderr).toBe(0);
    const factoredText = readFileSync(join(h.dir, 'factored.yaml'), 'utf8');
    expect(factoredText.match(/builtin: DATABASE_URL_INTERNAL/g)).toHaveLength(1);
    expect(factoredText.match(/template: /g)).toHaveLength(2);
    // No change, to the aliases or anything else: export marks databases `protect: true`, the one
    // thing its apply records (driftless's note, not a change).
    const marksOnly = ['project.shop/environment.pr-7/database.pg', 'project.shop/environment.staging/database.pg'];
    for (const file of ['exported.yaml', 'factored.yaml']) {
      const planned = await h.run(['plan', file, '--format', 'json']);
      expect(planned.code, planned.stderr).toBe(0);
      const doc = JSON.parse(planned.stdout);
      expect((doc.resource_changes as any[]).filter((c) => c.change.actions[0] !== 'no-op').map((c) => c.address), file).toEqual([]);
      expect(doc.summary, file).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0, marks: 2 });
      expect((doc.resource_changes as any[]).filter((c) => c.change.protect_mark === true).map((c) => c.address).sort(), file).toEqual(marksOnly);
    }
    expect((await h.run(['apply', 'exported.yaml', '--auto-approve', ...FAST])).code).toBe(0);
    const exportedClean = await h.run(['plan', 'exported.yaml', '--detailed-exitcode']);
    expect(exportedClean.stdout, exportedClean.stderr).toContain('No changes.');
    expect(exportedClean.code).toBe(0);
  });

  it('is an error, naming the alias and the service, when the service it points at goes', async () => {
    h = await startHarness();
    h.write({ 'm.yaml': manifest() });
    expect((await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST])).code).toBe(0);
    const aliasAddress = 'project.shop/environment.staging/application.api/variable.DATABASE_URL';

    // pg removed from the manifest, the alias still names it: validate and plan refuse, at the alias.
    h.write({ 'm.yaml': manifest({ withoutPg: true }) });
    const valid = await h.run(['validate', 'm.yaml']);
    expect(valid.code).toBe(1);
    expect(valid.stdout + valid.stderr).toContain('service `pg` does not exist in environment `staging`');
    expect(valid.stdout + valid.stderr).toContain(aliasAddress);
    const plan = await h.run(['plan', 'm.yaml']);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain('service `pg` does not exist in environment `staging`');
    expect(plan.stdout + plan.stderr).toContain(aliasAddress);
    expect(servicesNamed(h, 'pg', 'staging')).toBeDefined();
  });

  it('written with the hashed key, is an error naming both when the plan deletes its service (the apply would lose it)', async () => {
    h = await startHarness();
    h.write({ 'm.yaml': manifest({ alias: null }) });
    expect((await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST])).code).toBe(0);
    const aliasAddress = 'project.shop/environment.staging/application.api/variable.DATABASE_URL';
    const key = hashed(servicesNamed(h, 'pg', 'staging'), 'DATABASE_URL_INTERNAL');
    h.write({ 'm.yaml': manifest({ alias: key }) });
    expect((await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST])).code).toBe(0);
    const same = await h.run(['plan', 'm.yaml', '--detailed-exitcode']);
    expect(same.stdout, same.stderr).toContain('No changes.');
    h.write({ 'm.yaml': manifest({ alias: key, withoutPg: true }) });
    const deleting = await h.run(['plan', 'm.yaml', '--allow-data-loss']);
    expect(deleting.code).toBe(1);
    const out = deleting.stdout + deleting.stderr;
    expect(out).toContain(`${aliasAddress} aliases ${key}, a built-in of project.shop/environment.staging/database.pg, which this plan deletes`);
    const apply = await h.run(['apply', 'm.yaml', '--auto-approve', '--allow-data-loss', ...FAST]);
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toContain('which this plan deletes');
    expect(servicesNamed(h, 'pg', 'staging')).toBeDefined();
    expect(aliasedKey(await aliasOf(h, 'staging'))).toBe(key);

    // pg deleted in the console: the alias went with it, and the plan cannot make it again (pg
    // comes back with another key): an error at the alias, not an apply that fails half-way.
    h.write({ 'm.yaml': manifest({ alias: key }) });
    const env = Object.values(h.emu.state.environments).find((e: any) => e.name === 'staging') as any;
    const pg = servicesNamed(h, 'pg', 'staging');
    const res = await fetch(`${h.emu.url}/environment/${env.id}/service/delete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.emu.tokens.CONSOLE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ database_ids: [pg.id] }),
    });
    expect(res.status).toBe(200);
    for (let i = 0; i < 200 && h.emu.state.services[pg.id]; i++) await new Promise((r) => setTimeout(r, 20));
    const gone = await h.run(['plan', 'm.yaml']);
    expect(gone.code).toBe(1);
    expect(gone.stdout + gone.stderr).toContain(`${aliasAddress} aliases ${key}, a built-in of a service project.shop/environment.staging does not have`);
    expect(gone.stdout + gone.stderr).toContain('alias: {service: NAME, builtin: DATABASE_URL_INTERNAL}');
  });
});

describe('an alias of a service built-in, when its service changes outside the alias', () => {
  const planJson = (harness: Harness, extra: string[] = []) => harness.run(['plan', 'm.yaml', '--format', 'json', ...extra], { env: { DRIFTLESS_CACHE_DIR: '' } });
  const actionsOf = (stdout: string) =>
    Object.fromEntries((JSON.parse(stdout).resource_changes as any[]).filter((c) => c.change.actions[0] !== 'no-op').map((c) => [c.address, c.change.actions.join('+')]));

  it('pg deleted in the console: the cached plan creates pg and the alias again, as a full read does; apply makes it clean', async () => {
    h = await startHarness();
    const cache = ['--cache', join(h.dir, 'cache')];
    h.write({ 'm.yaml': manifest() });
    expect((await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST])).code).toBe(0);
    const warmed = await planJson(h, cache);
    expect(warmed.code, warmed.stderr).toBe(0);

    const env = Object.values(h.emu.state.environments).find((e: any) => e.name === 'staging') as any;
    const pg = servicesNamed(h, 'pg', 'staging');
    const res = await fetch(`${h.emu.url}/environment/${env.id}/service/delete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.emu.tokens.CONSOLE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ database_ids: [pg.id] }),
    });
    expect(res.status).toBe(200);
    for (let i = 0; i < 200 && h.emu.state.services[pg.id]; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await aliasOf(h, 'staging')).toBeUndefined();

    const warm = await planJson(h, cache);
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stderr).not.toContain('Full read of the live state');
    const full = await planJson(h);
    const want = { 'project.shop/environment.staging/database.pg': 'create', 'project.shop/environment.staging/application.api/variable.DATABASE_URL': 'create' };
    expect(actionsOf(full.stdout)).toEqual(want);
    expect(actionsOf(warm.stdout)).toEqual(want);

    const applied = await h.run(['apply', 'm.yaml', '--auto-approve', ...cache, ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(aliasedKey(await aliasOf(h, 'staging'))).toBe(hashed(servicesNamed(h, 'pg', 'staging'), 'DATABASE_URL_INTERNAL'));
    const clean = await h.run(['plan', 'm.yaml', '--detailed-exitcode', ...cache]);
    expect(clean.stdout, clean.stderr).toContain('No changes.');
  });

  it('pg replaced (another engine): the alias is replaced with it, after it, and points at the new key', async () => {
    h = await startHarness();
    h.write({ 'm.yaml': manifest() });
    expect((await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST])).code).toBe(0);
    const oldKey = aliasedKey(await aliasOf(h, 'staging'));
    h.write({ 'm.yaml': manifest().replace('database_type: POSTGRESQL', 'database_type: MYSQL').replace('version: "16"', 'version: "8.0"') });
    const plan = await planJson(h, ['--allow-data-loss']);
    expect(plan.code, plan.stderr).toBe(0);
    const alias = (JSON.parse(plan.stdout).resource_changes as any[]).find((c) => c.address.endsWith('variable.DATABASE_URL'));
    expect(alias.change.actions).toEqual(['delete', 'create']);
    const blocked = await h.run(['plan', 'm.yaml']);
    expect(blocked.stdout).toMatch(/variable\.DATABASE_URL[\s\S]*goes with project\.shop\/environment\.staging\/database\.pg/);

    const applied = await h.run(['apply', 'm.yaml', '--auto-approve', '--allow-data-loss', '--allow-replace', ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const key = aliasedKey(await aliasOf(h, 'staging'));
    expect(key).toMatch(/^QOVERY_MYSQL_Z[0-9A-F]{8}_DATABASE_URL_INTERNAL$/);
    expect(key).not.toBe(oldKey);
    const clean = await h.run(['plan', 'm.yaml', '--detailed-exitcode']);
    expect(clean.stdout, clean.stderr).toContain('No changes.');
  });
});
