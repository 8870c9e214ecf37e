/**
 * `alias: {service, builtin}` as `validate` checks it (issue 20), offline and located: the
 * service is declared in the alias's environment (a typo gets the nearest name; a service removed
 * from the manifest while the alias names it is said, naming the alias), the built-in is one that
 * kind has (the diagnostic lists them), a project cannot hold one, and the schema takes both forms
 * of `alias` and nothing else. Templates: the alias is written once, every environment resolves it.
 */
import { describe, expect, it } from 'vitest';
import { load, tempTree } from './helpers.js';

const yaml = (alias: string, opts: { services?: string; projectAlias?: string } = {}) => `version: 1
projects:
  - name: shop
${opts.projectAlias ? `    variables:\n      - {key: P, alias: ${opts.projectAlias}}\n` : ''}    environments:
      - name: staging
        cluster: c
        services:
${opts.services ?? '          - {type: database, name: pg, database_type: POSTGRESQL, version: "16", mode: CONTAINER}\n'}          - type: container
            name: web
            registry: docker-hub
            image_name: acme/web
            tag: "1"
            variables:
              - key: DATABASE_URL
                alias: ${alias}
`;

const ALIAS = 'project.shop/environment.staging/container.web/variable.DATABASE_URL';

describe('alias: {service, builtin} in validate', () => {
  it('accepts a built-in of a declared service in both YAML styles, and the key form still', async () => {
    for (const alias of ['{service: pg, builtin: DATABASE_URL_INTERNAL}', '\n                  service: pg\n                  builtin: HOST_INTERNAL', '{service: web, builtin: NAME}', 'QOVERY_POSTGRESQL_Z5E9B62FB_DATABASE_URL_INTERNAL']) {
      const r = await load(tempTree({ 'm.yaml': yaml(alias) }), ['m.yaml']);
      expect(r.diagnostics, alias).toEqual([]);
    }
  });

  it('an unknown built-in: at the name, with the nearest one and every built-in of that kind', async () => {
    const r = await load(tempTree({ 'm.yaml': yaml('{service: pg, builtin: DATABASE_URL}') }), ['m.yaml']);
    expect(r.diagnostics).toMatchObject([
      { code: 'ref.unresolved', summary: 'built-in `DATABASE_URL` does not exist for database `pg`', address: ALIAS, range: { file: 'm.yaml', start: { line: 16, col: 47 } } },
    ]);
    expect(r.diagnostics[0]!.detail).toBe('Did you mean `DATABASE_URL_INTERNAL`? Known: HOST_INTERNAL, PORT, LOGIN, DEFAULT_DATABASE_NAME, PASSWORD, DATABASE_URL_INTERNAL.');
    const container = await load(tempTree({ 'm.yaml': yaml('{service: web, builtin: PASSWORD}') }), ['m.yaml']);
    expect(container.diagnostics[0]!.summary).toBe('built-in `PASSWORD` does not exist for container `web`');
    expect(container.diagnostics[0]!.detail).toContain('Known: HOST_INTERNAL, NAME.');
  });

  it('an unknown service: at the name, with the nearest one; a service removed from the manifest names the alias that points at it', async () => {
    const typo = await load(tempTree({ 'm.yaml': yaml('{service: pgg, builtin: PASSWORD}') }), ['m.yaml']);
    expect(typo.diagnostics).toMatchObject([
      { code: 'ref.unresolved', summary: 'service `pgg` does not exist in environment `staging`', address: ALIAS, range: { start: { line: 16, col: 34 } } },
    ]);
    expect(typo.diagnostics[0]!.detail).toBe('Did you mean `pg`? Known: pg, web.');
    const removed = await load(tempTree({ 'm.yaml': yaml('{service: pg, builtin: PASSWORD}', { services: '' }) }), ['m.yaml']);
    expect(removed.diagnostics).toMatchObject([{ code: 'ref.unresolved', summary: 'service `pg` does not exist in environment `staging`', address: ALIAS }]);
    expect(removed.diagnostics[0]!.detail).toContain(`If \`pg\` was removed from the manifest, deleting it would delete ${ALIAS} with it`);
  });

  it('refuses one in a project or an environment (the API aliases a built-in from a service only), and an object that is not {service, builtin}', async () => {
    const project = await load(tempTree({ 'm.yaml': yaml('{service: pg, builtin: PASSWORD}', { projectAlias: '{service: pg, builtin: PASSWORD}' }) }), ['m.yaml']);
    expect(project.diagnostics).toMatchObject([{ code: 'ref.builtin-alias-scope', address: 'project.shop/variable.P', range: { start: { line: 5, col: 25 } } }]);
    const envLevel = yaml('{service: pg, builtin: PASSWORD}').replace('        services:\n', '        variables:\n          - {key: E, alias: {service: pg, builtin: PASSWORD}}\n        services:\n');
    const env = await load(tempTree({ 'm.yaml': envLevel }), ['m.yaml']);
    expect(env.diagnostics).toMatchObject([{ code: 'ref.builtin-alias-scope', address: 'project.shop/environment.staging/variable.E', range: { start: { line: 8, col: 29 } } }]);
    expect(env.diagnostics[0]!.summary).toBe("variable `E`: an alias of a service's built-in is declared in a service's `variables`, not in a project's or an environment's");
    for (const bad of ['{service: pg}', '{service: pg, builtin: PASSWORD, key: X}', '{service: pg, builtin: "database url"}']) {
      const r = await load(tempTree({ 'm.yaml': yaml(bad) }), ['m.yaml']);
      expect(r.diagnostics.length, bad).toBeGreaterThan(0);
      expect(r.diagnostics[0]!.code, bad).toMatch(/^schema\./);
      expect(r.diagnostics[0]!.range?.start.line, bad).toBe(16);
    }
  });

  it('written once in a template, resolves in each environment; an override may point it at another built-in', async () => {
    const t = `version: 1
projects:
  - name: shop
    templates:
      - name: stack
        services:
          - {type: database, name: pg, database_type: POSTGRESQL, version: "16", mode: CONTAINER}
          - type: container
            name: web
            registry: docker-hub
            image_name: acme/web
            tag: "1"
            variables:
              - {key: DB, alias: {service: pg, builtin: DATABASE_URL_INTERNAL}}
    environments:
      - {name: staging, cluster: c, template: stack}
      - name: pr-1
        cluster: c
        template: stack
        overrides:
          services:
            web:
              variables:
                - {key: DB, alias: {builtin: HOST_INTERNAL}}
      - name: pr-2
        cluster: c
        template: stack
        overrides:
          services:
            web:
              variables:
                - {key: DB, alias: {builtin: NOPE}}
`;
    const r = await load(tempTree({ 'm.yaml': t }), ['m.yaml']);
    expect(r.diagnostics.map((d) => [d.code, d.summary, d.address])).toEqual([
      ['ref.unresolved', 'built-in `NOPE` does not exist for database `pg`', 'project.shop/environment.pr-2/container.web/variable.DB'],
    ]);
    const ok = await load(tempTree({ 'm.yaml': t.replace(/\n      - name: pr-2[\s\S]*$/, '\n') }), ['m.yaml']);
    expect(ok.diagnostics).toEqual([]);
    const envs = ok.manifest!.projects![0]!.environments!;
    expect(envs.map((e) => e.services!.find((s) => s.name === 'web')!.variables![0]!.alias)).toEqual([
      { service: 'pg', builtin: 'DATABASE_URL_INTERNAL' },
      { service: 'pg', builtin: 'HOST_INTERNAL' },
    ]);
  });
});
