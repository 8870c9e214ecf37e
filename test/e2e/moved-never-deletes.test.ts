/**
 * `moved` entries never lead to a deletion (issue 18), against the emulator: two entries with one
 * `to`, one `from` twice and a cycle are `validate` errors at file:line (and so plan errors); the
 * scenarios of the issue (`web -> web2` plus `webb -> web2`; two environment entries with one `to`)
 * delete nothing, whatever the flags.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const ALL_FLAGS = ['--allow-replace', '--allow-data-loss'];

/** Project shop, prunes its environments; `envs` are (name, services) written under it. */
function manifest(envs: Array<{ name: string; services: string[]; prune?: boolean }>, moved = ''): string {
  const service = (n: string) =>
    n === 'db'
      ? `          - type: database
            name: db
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            storage: 10
`
      : `          - type: application
            name: ${n}
            git_repository: { url: https://github.com/acme/${n}.git }
            dockerfile_path: Dockerfile
`;
  return `version: 1
projects:
  - name: shop
    prune: { environments: true }
    environments:
${envs.map((e) => `      - name: ${e.name}
        cluster: staging-cluster
${e.prune ? '        prune: { services: true }\n' : ''}        services:
${e.services.map(service).join('')}`).join('')}${moved}`;
}

const entries = (pairs: Array<[string, string]>) => `moved:\n${pairs.map(([f, t]) => `  - from: ${f}\n    to: ${t}\n`).join('')}`;
const S = 'project.shop/environment.staging';

describe('moved: validate errors at file:line', () => {
  it('two entries with one `to`, one `from` twice and a cycle', async () => {
    h = await startHarness();
    h.write({
      'm/main.yaml': manifest(
        [{ name: 'staging', services: ['web2', 'a', 'b', 'c'] }],
        entries([
          [`${S}/application.web`, `${S}/application.web2`],
          [`${S}/application.webb`, `${S}/application.web2`],
          [`${S}/application.x`, `${S}/application.a`],
          [`${S}/application.x`, `${S}/application.b`],
          [`${S}/application.p`, `${S}/application.q`],
          [`${S}/application.q`, `${S}/application.p`],
        ]),
      ),
    });
    const r = await h.run(['validate', 'm']);
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    // Lines: `moved:` is line 25; the entries start at 26, 28, 30, 32, 34 and 36 (`to` one line below).
    expect(out).toContain('Invalid manifest: 3 errors.');
    expect(out).toMatch(/error\[moved\.duplicate-to\]: moved: two entries rename to project\.shop\/environment\.staging\/application\.web2: [^\n]*\(m\/main\.yaml:26:5\)\n\s+--> m\/main\.yaml:29:9\n/);
    expect(out).toMatch(/error\[moved\.duplicate-from\]: [^\n]*\n\s+--> m\/main\.yaml:32:5\n/);
    expect(out).toMatch(/error\[moved\.cycle\]: [^\n]*\n\s+--> m\/main\.yaml:34:5\n/);
    // The same errors make plan refuse, before anything is read or written.
    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('error[moved.duplicate-to]');
  });
});

describe('moved: the scenarios of issue 18 delete nothing', () => {
  it('web -> web2 plus webb -> web2 does not turn the rename into delete + create', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest([{ name: 'staging', services: ['web'], prune: true }]) });
    const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(first.code, first.stderr).toBe(0);
    const web = Object.values(h.emu.state.services).find((s) => s.name === 'web')!;
    h.write({
      'm/main.yaml': manifest(
        [{ name: 'staging', services: ['web2'], prune: true }],
        entries([
          [`${S}/application.web`, `${S}/application.web2`],
          [`${S}/application.webb`, `${S}/application.web2`],
        ]),
      ),
    });
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...ALL_FLAGS]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('error[moved.duplicate-to]');
    // Still there, under its name and id; nothing created.
    expect(Object.values(h.emu.state.services).map((s) => `${s.id}:${s.name}`)).toEqual([`${web.id}:web`]);
  });

  it('two environment entries with one `to` keep the staging environment and its database', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest([{ name: 'staging', services: ['web', 'db'] }]) });
    const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(first.code, first.stderr).toBe(0);
    const before = { envs: Object.keys(h.emu.state.environments).sort(), services: Object.keys(h.emu.state.services).sort() };
    h.write({
      'm/main.yaml': manifest(
        [{ name: 'preprod', services: ['web', 'db'] }],
        entries([
          ['project.shop/environment.stg', 'project.shop/environment.preprod'],
          [S, 'project.shop/environment.preprod'],
        ]),
      ),
    });
    const plan = await h.run(['plan', 'm', ...ALL_FLAGS]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('error[moved.duplicate-to]');
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...ALL_FLAGS]);
    expect(applied.code).toBe(1);
    expect({ envs: Object.keys(h.emu.state.environments).sort(), services: Object.keys(h.emu.state.services).sort() }).toEqual(before);
  });
});

describe('export: protect', () => {
  it('writes protect: true on every database and every PRODUCTION environment; its first apply records the marks, then No changes', async () => {
    h = await startHarness();
    const envs = `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        mode: PRODUCTION
        cluster: production-cluster
        services:
          - type: database
            name: pg
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            storage: 10
          - type: application
            name: api
            git_repository: { url: https://github.com/acme/api.git }
            dockerfile_path: Dockerfile
      - name: staging
        mode: STAGING
        cluster: staging-cluster
        services:
          - type: application
            name: api
            git_repository: { url: https://github.com/acme/api.git }
            dockerfile_path: Dockerfile
`;
    h.write({ 'm/main.yaml': envs });
    const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(first.code, first.stderr).toBe(0);
    const exp = await h.run(['export', '--out', 'exported.yaml']);
    expect(exp.code, exp.stderr).toBe(0);
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(`${h.dir}/exported.yaml`, 'utf8');
    expect(text).toMatch(/- name: prod\n\s+cluster: production-cluster\n\s+mode: PRODUCTION\n\s+protect: true\n/);
    expect(text).toMatch(/- name: pg\n\s+type: database\n\s+protect: true\n/);
    // Exactly those two: not the staging environment, not the applications, not the project.
    expect(text.match(/protect: true/g)).toHaveLength(2);
    // The export's plan changes nothing: the database's mark is driftless's note, which apply records.
    const plan = await h.run(['plan', 'exported.yaml', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stdout).toContain('Apply also records the protect mark on 1 object (project.shop/environment.prod/database.pg)');
    const applied = await h.run(['apply', 'exported.yaml', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stderr).toBe(0);
    const again = await h.run(['plan', 'exported.yaml', '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes.');
    expect(again.stdout).not.toContain('protect mark');
    // The marked database is now refused a deletion, whatever the flags, even with its declaration gone.
    h.write({ 'm/main.yaml': envs.replace(/          - type: database\n(?:            .*\n)+?(?=          - type: application)/, '').replace('        services:\n', '        prune: { services: true }\n        services:\n') });
    const del = await h.run(['plan', 'm', ...ALL_FLAGS]);
    expect(del.code).toBe(1);
    expect(del.stderr).toContain('project.shop/environment.prod/database.pg: the plan would delete it, whose live record carries the protect mark');
  });
});
