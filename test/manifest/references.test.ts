import { describe, expect, it } from 'vitest';
import { checkReferences } from '../../src/manifest/index.js';
import { load, tempTree } from './helpers.js';

const manifest = `version: 1
clusters:
  - name: production-cluster
    upgrade_kubernetes: true
alert_receivers:
  - {name: ops, type: EMAIL, to: ops@example.com, from: alerts@example.com, smarthost: "smtp.example.com:587"}
alert_rules:
  - name: node-pressure
    target: {cluster: prodution-cluster}
    condition: {promql: "up == 0"}
    severity: CRITICAL
    receivers: [ops]
projects:
  - name: shop
    environments:
      - name: prod
        cluster: production-cluster
        services:
          - {type: database, name: main, database_type: POSTGRESQL, version: "16", mode: CONTAINER}
          - {type: container, name: web, registry: dockerhub, image_name: library/nginx, tag: "1"}
          - type: job
            name: report
            source: {image: {registry: docker-hub, image_name: acme/report, tag: "1"}}
            schedule: {on_start: {}}
      - name: preview
        cluster: staging-cluster
        services:
          - type: database
            name: main-copy
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            clone_from: {environment: prod, database: main}
          - type: database
            name: other-copy
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            clone_from: {project: blog, database: main}
`;

describe('reference checks', () => {
  it('checks only what the manifest can know when no organization lists are supplied', async () => {
    const r = await load(tempTree({ 'm.yaml': manifest }), ['m.yaml']);
    expect(r.diagnostics.map((d) => d.summary)).toEqual(['project `blog` does not exist in the manifest']);
    expect(r.diagnostics[0]!.range).toMatchObject({ file: 'm.yaml', start: { line: 39, col: 35 } });
  });

  it('checks cluster and registry names against the lists it is given, at the place they are written', async () => {
    const r = await load(tempTree({ 'm.yaml': manifest.replace('{project: blog, database: main}', '{environment: prod, database: main}') }), ['m.yaml'], {
      references: { clusters: ['production-cluster', 'staging-cluster'], registries: ['docker-hub'] },
    });
    expect(r.diagnostics.map((d) => [d.summary, d.range!.start.line, d.detail])).toEqual([
      ['cluster `prodution-cluster` does not exist in the organization', 9, 'Did you mean `production-cluster`? Known: production-cluster, staging-cluster.'],
      ['container registry `dockerhub` does not exist in the organization', 20, 'Did you mean `docker-hub`? Known: docker-hub.'],
    ]);
  });

  it('is a pure function that can be re-run on a loaded manifest with lists from the API', async () => {
    const r = await load(tempTree({ 'm.yaml': manifest.replace('{project: blog, database: main}', '{environment: prod, database: main}') }), ['m.yaml']);
    expect(r.diagnostics).toEqual([]);
    const again = checkReferences(r.manifest!, { clusters: ['production-cluster'] });
    expect(again.map((d) => d.summary)).toEqual([
      'cluster `prodution-cluster` does not exist in the organization',
      'cluster `staging-cluster` does not exist in the organization',
    ]);
    expect(again[1]!.address).toBe('project.shop/environment.preview');
  });

  it('a reference left at a name a `moved` entry renames says so, with the entry, instead of a look-alike name', async () => {
    const renamed = `version: 1
label_groups:
  - name: cost-labels
    labels: [{ key: team, value: shop }]
alert_receivers:
  - {name: ops, type: EMAIL, to: ops@example.com, from: alerts@example.com, smarthost: "smtp.example.com:587"}
alert_rules:
  - name: api-cpu
    target: {project: shop, environment: staging, service: api}
    condition: {promql: "up == 0"}
    severity: CRITICAL
    receivers: [ops]
projects:
  - name: shop
    variables:
      - {key: DATABASE_PASSWORD, value: x}
    environments:
      - name: staging
        cluster: c
        variables:
          - {key: PW, alias: DB_PASSWORD}
        deployment_stages:
          - {name: apps, services: [api]}
        services:
          - {type: container, name: backend, registry: r, image_name: i, tag: "1", label_groups: [cost]}
          - {type: container, name: pg, registry: r, image_name: i, tag: "1"}
`;
    const moved = `version: 1
moved:
  - {from: project.shop/environment.staging/container.api, to: project.shop/environment.staging/container.backend}
  - {from: project.shop/variable.DB_PASSWORD, to: project.shop/variable.DATABASE_PASSWORD}
  - {from: labels_group.cost, to: labels_group.cost-labels}
`;
    const r = await load(tempTree({ 'm.yaml': renamed, 'moved.yaml': moved }), ['.']);
    expect(r.diagnostics.map((d) => [d.summary, `${d.range!.file}:${d.range!.start.line}`, d.detail])).toEqual([
      ['service `api` does not exist in environment `staging`', 'm.yaml:9', '`api` is renamed to `backend` by the `moved` entry at moved.yaml:3:5: refer to it by its new name. Known: backend, pg.'],
      ['aliased variable `DB_PASSWORD` does not exist at environment or project scope', 'm.yaml:21', '`DB_PASSWORD` is renamed to `DATABASE_PASSWORD` by the `moved` entry at moved.yaml:4:5: refer to it by its new name. Known: DATABASE_PASSWORD.'],
      ['service `api` does not exist in environment `staging`', 'm.yaml:23', '`api` is renamed to `backend` by the `moved` entry at moved.yaml:3:5: refer to it by its new name. Known: backend, pg.'],
      ['label group `cost` does not exist under `label_groups`', 'm.yaml:25', '`cost` is renamed to `cost-labels` by the `moved` entry at moved.yaml:5:5: refer to it by its new name. Known: cost-labels.'],
    ]);
  });

  it('refuses a database cloned from itself', async () => {
    const self = `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: c
        services:
          - {type: database, name: main, database_type: REDIS, version: "7", mode: CONTAINER, clone_from: {database: main}}
`;
    const r = await load(tempTree({ 'm.yaml': self }), ['m.yaml']);
    expect(r.diagnostics).toMatchObject([{ code: 'ref.self', summary: 'database `main` cannot be a clone of itself' }]);
  });

  it('accepts aliases and overrides of built-in QOVERY_ variables, which only the platform knows', async () => {
    const builtins = `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: c
        services:
          - type: application
            name: api
            git_repository: {url: "https://github.com/acme/api.git"}
            dockerfile_path: Dockerfile
            variables:
              - {key: DATABASE_URL, alias: QOVERY_POSTGRESQL_ZABC_DATABASE_URL}
              - {key: QOVERY_KUBERNETES_NAMESPACE_NAME, value: custom, override: true}
`;
    const r = await load(tempTree({ 'm.yaml': builtins }), ['m.yaml']);
    expect(r.diagnostics).toEqual([]);
  });

  it('refuses an alias of an alias, which the API cannot express', async () => {
    const yaml = `version: 1
projects:
  - name: shop
    variables:
      - {key: LOG_LEVEL, value: info}
      - {key: LEVEL, alias: LOG_LEVEL}
      - {key: VERBOSITY, alias: LEVEL}
`;
    const r = await load(tempTree({ 'm.yaml': yaml }), ['m.yaml']);
    expect(r.diagnostics).toMatchObject([
      { code: 'ref.alias-of-alias', summary: '`LEVEL` is itself an alias: variable `VERBOSITY` cannot alias it', range: { start: { line: 7, col: 33 } } },
    ]);
    expect(r.diagnostics[0]!.detail).toContain('point `VERBOSITY` at `LOG_LEVEL` instead');
  });
});
