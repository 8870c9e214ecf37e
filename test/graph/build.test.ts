import { beforeEach, describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { topologicalOrder } from '../../src/graph/order.js';
import type { Manifest, ProjectSpec } from '../../src/manifest/types.js';
import { SOURCE } from '../../src/manifest/types.js';
import type { DesiredGraph } from '../../src/model/resource.js';
import { isSecretValue, SecretValue } from '../../src/model/secret.js';
import { fullManifest, PROD, API } from '../plan/fixtures.js';

function project(p: Partial<ProjectSpec> & { name: string }): Manifest {
  return { version: 1, projects: [p as ProjectSpec] };
}

function indexOf(order: string[], a: string): number {
  const i = order.indexOf(a);
  expect(i, a).toBeGreaterThanOrEqual(0);
  return i;
}

describe('buildGraph', () => {
  // Built in each test (not once at collection), so that the graph is computed under each test:
  // mutation testing attributes what a test executes to that test.
  let graph: DesiredGraph;
  beforeEach(() => {
    ({ graph } = buildGraph(fullManifest()));
  });

  it('gives every object an address under its parent', () => {
    expect([...graph.resources.keys()]).toEqual(
      expect.arrayContaining([
        'organization',
        'cluster.production-cluster',
        'annotations_group.monitoring',
        'labels_group.team',
        'alert_receiver.slack-ops',
        'alert_rule.high-cpu',
        'webhook.https:%2F%2Fhooks.example.com%2Fdeploy',
        'project.shop',
        'project.shop/variable.API_KEY',
        PROD,
        `${PROD}/deployment_stage.apps`,
        API,
        `${API}/variable.PORT`,
        `${PROD}/database.db`,
      ]),
    );
    expect(graph.resources.get(API)!.parent).toBe(PROD);
  });

  it('orders every resource after its parent and its dependencies', () => {
    const order = graph.order;
    expect(order.length).toBe(graph.resources.size);
    for (const r of graph.resources.values()) {
      if (r.parent) expect(indexOf(order, r.address)).toBeGreaterThan(indexOf(order, r.parent));
      for (const d of r.dependsOn) expect(indexOf(order, r.address), `${r.address} after ${d}`).toBeGreaterThan(indexOf(order, d));
    }
  });

  it('records the dependencies apply needs', () => {
    const deps = (a: string) => graph.resources.get(a)!.dependsOn;
    expect(deps(PROD)).toContain('cluster.production-cluster');
    expect(deps(API)).toEqual(expect.arrayContaining(['annotations_group.monitoring', 'labels_group.team']));
    expect(deps('alert_rule.high-cpu')).toEqual(expect.arrayContaining(['alert_receiver.slack-ops', API]));
    // stage membership after the services exist, stages in manifest order
    expect(deps(`${PROD}/deployment_stage.apps`)).toEqual(expect.arrayContaining([`${PROD}/deployment_stage.data`, API, `${PROD}/container.web`]));
    // alias and override after what they refer to
    expect(deps(`${PROD}/variable.LOGGING`)).toContain('project.shop/variable.LOG_LEVEL');
    expect(deps(`${PROD}/variable.LOG_LEVEL`)).toContain('project.shop/variable.LOG_LEVEL');
  });

  it('normalises attrs: sorted sets, names for references, explicit types', () => {
    const attrs = (a: string) => graph.resources.get(a)!.attrs;
    expect(attrs('annotations_group.monitoring')).toEqual({
      name: 'monitoring',
      annotations: [
        { key: 'a.b/c', value: 'x' },
        { key: 'prometheus.io/scrape', value: 'true' },
      ],
      scopes: ['DEPLOYMENTS', 'PODS'],
    });
    expect(attrs('webhook.https:%2F%2Fhooks.example.com%2Fdeploy').events).toEqual(['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCESSFUL']);
    expect(attrs(PROD)).toEqual({ name: 'production', mode: 'PRODUCTION', cluster: 'production-cluster' });
    expect(attrs(`${PROD}/variable.LOGGING`)).toEqual({ key: 'LOGGING', variable_type: 'ALIAS', is_secret: false, aliased_key: 'LOG_LEVEL', aliased_scope: 'PROJECT' });
    expect(attrs(`${PROD}/variable.LOG_LEVEL`)).toMatchObject({ variable_type: 'OVERRIDE', overridden_scope: 'PROJECT', value: 'warn' });
    expect(attrs(`${PROD}/variable.CONFIG_FILE`)).toMatchObject({ variable_type: 'FILE', mount_path: '/etc/app/config.yaml' });
    expect(attrs(`${PROD}/database.db`)).toMatchObject({ type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' });
    expect(attrs(`${PROD}/deployment_stage.apps`)).toMatchObject({ services: ['api', 'web'], after: 'data' });
    expect(attrs(`${PROD}/deployment_stage.data`)).not.toHaveProperty('after');
  });

  it('does not own what the manifest omits', () => {
    const web = graph.resources.get(`${PROD}/container.web`)!.attrs;
    expect(web).not.toHaveProperty('ports');
    expect(web).not.toHaveProperty('description');
    expect(web).not.toHaveProperty('min_running_instances');
  });

  it('keeps secrets wrapped and lists the sensitive fields', () => {
    const v = graph.resources.get('project.shop/variable.API_KEY')!;
    expect(isSecretValue(v.attrs.value)).toBe(true);
    expect(v.sensitiveFields).toEqual(['value']);
    expect(graph.resources.get('alert_receiver.slack-ops')!.sensitiveFields).toEqual(['webhook_url']);
    expect(graph.resources.get(`${PROD}/terraform.infra`)!.sensitiveFields).toEqual(['terraform_variables_source']);
    expect(JSON.stringify([...graph.resources.values()])).not.toContain('DO_NOT_PRINT');
  });

  it('records deploy pins and immutable fields', () => {
    expect(graph.resources.get(API)!.deploy).toEqual({ git_commit_id: 'a'.repeat(40) });
    expect(graph.resources.get(`${PROD}/container.web`)!.deploy).toEqual({ image_tag: '1.27' });
    expect(graph.resources.get(`${PROD}/database.db`)!.immutableFields).toEqual(['type', 'mode']);
    expect(graph.resources.get(PROD)!.immutableFields).toEqual(['cluster']);
  });

  it('wraps a clear value of a secret variable, and an override of a secret is secret', () => {
    const { graph: g } = buildGraph(
      project({
        name: 'p',
        variables: [{ key: 'TOKEN', value: 'plain-but-secret', secret: true }],
        environments: [{ name: 'e', cluster: 'c', variables: [{ key: 'TOKEN', value: 'other', override: true }] }],
      }),
    );
    expect(isSecretValue(g.resources.get('project.p/variable.TOKEN')!.attrs.value)).toBe(true);
    const o = g.resources.get('project.p/environment.e/variable.TOKEN')!;
    expect(o.attrs.is_secret).toBe(true);
    expect(isSecretValue(o.attrs.value)).toBe(true);
  });

  it('turns prune blocks into the kinds deleted under each scope', () => {
    const { graph: g } = buildGraph({
      version: 1,
      prune: { webhooks: true },
      projects: [{ name: 'p', prune: { environments: true }, environments: [{ name: 'e', cluster: 'c', prune: { services: true, variables: true } }] }],
    });
    expect(g.prune).toEqual(['webhook']);
    expect(g.resources.get('project.p')!.prune).toEqual(['environment']);
    expect(g.resources.get('project.p/environment.e')!.prune).toEqual(['application', 'container', 'database', 'job', 'helm', 'terraform', 'variable']);
  });

  it('links a database clone to its source', () => {
    const { graph: g, diagnostics } = buildGraph(
      project({
        name: 'p',
        environments: [
          { name: 'staging', cluster: 'c', services: [{ type: 'database', name: 'copy', database_type: 'MYSQL', version: '8', mode: 'CONTAINER', clone_from: { environment: 'prod', database: 'main' } }] },
          { name: 'prod', cluster: 'c', services: [{ type: 'database', name: 'main', database_type: 'MYSQL', version: '8', mode: 'CONTAINER' }] },
        ],
      }),
    );
    expect(diagnostics).toEqual([]);
    const copy = g.resources.get('project.p/environment.staging/database.copy')!;
    expect(copy.cloneFrom).toBe('project.p/environment.prod/database.main');
    expect(copy.dependsOn).toContain('project.p/environment.prod/database.main');
    expect(g.order.indexOf(copy.address)).toBeGreaterThan(g.order.indexOf('project.p/environment.prod/database.main'));
  });
});

describe('buildGraph diagnostics', () => {
  it('names the cycle when databases are cloned from each other', () => {
    const db = (name: string, from: string) => ({ type: 'database' as const, name, database_type: 'MYSQL' as const, version: '8', mode: 'CONTAINER' as const, clone_from: { database: from } });
    const { diagnostics, graph } = buildGraph(project({ name: 'p', environments: [{ name: 'e', cluster: 'c', services: [db('a', 'b'), db('b', 'a')] }] }));
    const cycle = diagnostics.find((d) => d.code === 'graph.cycle');
    expect(cycle?.summary).toMatch(/(\S+database\.(a|b)) -> \S+database\.(a|b) -> \1$/);
    expect(graph.order).not.toContain('project.p/environment.e/database.a');
  });

  it('refuses an alias of an alias', () => {
    const { diagnostics } = buildGraph(
      project({
        name: 'p',
        variables: [
          { key: 'A', value: '1' },
          { key: 'B', alias: 'A' },
        ],
        environments: [{ name: 'e', cluster: 'c', variables: [{ key: 'C', alias: 'B' }] }],
      }),
    );
    expect(diagnostics.map((d) => d.code)).toEqual(['ref.alias-of-alias']);
  });

  it('reports an alias of an undeclared key, with its source', () => {
    const v = { key: 'X', alias: 'NOPE', [SOURCE]: { file: 'm.yaml', start: { line: 7, col: 5 } } };
    const { diagnostics } = buildGraph(project({ name: 'p', variables: [v] }));
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'ref.unresolved', address: 'project.p/variable.X', range: { file: 'm.yaml', start: { line: 7, col: 5 } } }),
    ]);
  });

  it('accepts an alias of a built-in variable', () => {
    const { graph, diagnostics } = buildGraph(project({ name: 'p', variables: [{ key: 'DB', alias: 'QOVERY_POSTGRESQL_Z1_HOST' }] }));
    expect(diagnostics).toEqual([]);
    expect(graph.resources.get('project.p/variable.DB')!.attrs.aliased_scope).toBe('BUILT_IN');
  });

  it('reports an object declared twice, naming the first place', () => {
    const first = { name: 'p', [SOURCE]: { file: 'a.yaml', start: { line: 1, col: 3 } } };
    const second = { name: 'p', [SOURCE]: { file: 'b.yaml', start: { line: 4, col: 3 } } };
    const { diagnostics } = buildGraph({ version: 1, projects: [first, second] });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.summary).toContain('a.yaml:1:3');
    expect(diagnostics[0]!.range).toEqual({ file: 'b.yaml', start: { line: 4, col: 3 } });
  });

  it('reports a stage listing an unknown service and an alert rule with an unknown receiver', () => {
    const { diagnostics } = buildGraph({
      version: 1,
      alert_rules: [{ name: 'r', target: { cluster: 'c' }, condition: { promql: 'up' }, severity: 'LOW', receivers: ['ghost'] }],
      projects: [{ name: 'p', environments: [{ name: 'e', cluster: 'c', deployment_stages: [{ name: 's', services: ['missing'] }] }] }],
    });
    expect(diagnostics.map((d) => d.code)).toEqual(['ref.unresolved', 'ref.unresolved']);
    expect(diagnostics.map((d) => d.summary).join('\n')).toMatch(/unknown service "missing"[\s\S]*unknown alert receiver "ghost"/);
  });

  it('refuses a secret description that leaves no room for the fingerprint marker', () => {
    const long = 'd'.repeat(240);
    const ok = buildGraph(project({ name: 'p', variables: [{ key: 'A', value: 'x', description: long }] }));
    expect(ok.diagnostics).toEqual([]);
    const bad = buildGraph(project({ name: 'p', variables: [{ key: 'A', value: new SecretValue('x'), secret: true, description: long }] }));
    expect(bad.diagnostics.map((d) => d.code)).toEqual(['graph.description-too-long']);
  });
});

describe('topologicalOrder', () => {
  it('is deterministic and keeps insertion order among independent nodes', () => {
    const nodes = [
      { address: 'c', dependsOn: ['a'] },
      { address: 'a', dependsOn: [] },
      { address: 'b', dependsOn: [] },
    ];
    expect(topologicalOrder(nodes).order).toEqual(['a', 'b', 'c']);
  });

  it('ignores references to nodes outside the graph', () => {
    expect(topologicalOrder([{ address: 'x', dependsOn: ['cluster.elsewhere'] }]).order).toEqual(['x']);
  });

  it('orders 50,000 chained nodes without recursion limits', () => {
    const nodes = Array.from({ length: 50_000 }, (_, i) => ({ address: `n${i}`, dependsOn: i > 0 ? [`n${i - 1}`] : [] })).reverse();
    const { order, cycle } = topologicalOrder(nodes);
    expect(cycle).toBeUndefined();
    expect(order[0]).toBe('n0');
    expect(order[49_999]).toBe('n49999');
  });
});

describe('buildGraph: a variables list, even empty, owns the variables of its scope', () => {
  it('marks the scopes that list variables (so the live read fetches them and an unlisted one is unmanaged), not the others', () => {
    const { graph } = buildGraph(
      project({
        name: 'p',
        variables: [],
        environments: [
          {
            name: 'e',
            cluster: 'c',
            services: [
              { type: 'container', name: 'listed', registry: 'hub', image_name: 'x', tag: '1', variables: [] },
              { type: 'container', name: 'silent', registry: 'hub', image_name: 'x', tag: '1' },
            ],
          } as any,
        ],
      }),
    );
    expect(graph.resources.get('project.p')!.owns).toEqual(['variable']);
    expect(graph.resources.get('project.p/environment.e')!.owns).toBeUndefined();
    expect(graph.resources.get('project.p/environment.e/container.listed')!.owns).toEqual(['variable']);
    expect(graph.resources.get('project.p/environment.e/container.silent')!.owns).toBeUndefined();
  });
});
