/**
 * `--target` on a manifest with sibling projects of similar names, several targets, secrets at the
 * project level and organization-level objects: what a targeted run keeps (graph, live state,
 * manifest for the checks, graph it reads) and the messages of an address it cannot resolve.
 * Expected values are written out from the manifest below.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { inTargetScope, looksLikeAddress, narrowGraph, narrowLive, narrowManifest, readGraphOf, resolveTargets, targetGraph } from '../../src/graph/target.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { LiveResource, LiveState, ResourceKind } from '../../src/model/resource.js';

const SHOP = 'project.shop';
const STAGING = `${SHOP}/environment.staging`;
const PROD = `${SHOP}/environment.prod`;
const API = `${PROD}/container.api`;
const WORKER = `${PROD}/container.worker`;
const SHOP2 = 'project.shop2';

const container = (name: string) => ({ type: 'container', name, registry: 'r', image_name: name, tag: '1' });

function manifest(): Manifest {
  return {
    version: 1,
    clusters: [{ name: 'c1' }, { name: 'c2' }],
    alert_rules: [
      { name: 'api-down', target: { project: 'shop', environment: 'prod', service: 'api' }, condition: { promql: 'up == 0' }, severity: 'CRITICAL', receivers: [] },
      { name: 'other-down', target: { project: 'shop2', environment: 'prod', service: 'web' }, condition: { promql: 'up == 0' }, severity: 'CRITICAL', receivers: [] },
    ],
    projects: [
      {
        name: 'shop',
        variables: [{ key: 'TOKEN', value: 's3cret', secret: true }, { key: 'PLAIN', value: 'x' }],
        environments: [
          { name: 'staging', cluster: 'c2', services: [container('web')] },
          { name: 'prod', cluster: 'c1', prune: { services: true }, services: [{ ...container('api'), variables: [{ key: 'T', alias: 'TOKEN' }] }, container('worker')] },
        ],
      },
      { name: 'shop2', environments: [{ name: 'prod', cluster: 'c1', services: [container('web')] }] },
    ],
  } as unknown as Manifest;
}

function built() {
  const { graph, diagnostics } = buildGraph(manifest());
  expect(diagnostics).toEqual([]);
  return graph;
}

function live(address: string, kind: ResourceKind, parent?: string): LiveResource {
  return { address, kind, name: address.split('.').pop()!, ...(parent ? { parent } : {}), id: address, attrs: {}, record: {}, version: '1' };
}

describe('--target words', () => {
  it('takes a word whose first segment starts with any kind of the manifest as an address, a path otherwise', () => {
    const kinds = ['cluster', 'container_registry', 'helm_repository', 'annotations_group', 'labels_group', 'alert_receiver', 'alert_rule', 'webhook', 'project', 'environment', 'deployment_stage', 'application', 'container', 'database', 'job', 'helm', 'terraform', 'variable'];
    for (const kind of kinds) expect(looksLikeAddress(`${kind}.x/container.y`), kind).toBe(true);
    for (const word of ['infra/prod.yaml', 'prod.yaml', 'services.d/web.yaml', 'projects', '.hidden/x', 'organizations']) expect(looksLikeAddress(word), word).toBe(false);
  });

  it('needs at least one address, and says how one is written', () => {
    const { targets, diagnostics } = resolveTargets(built(), []);
    expect(targets).toEqual([]);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'target.none',
        summary: '--target was given manifest paths only, no address',
        detail: 'Give the addresses of what to plan, as plan prints them, e.g. `--target project.shop/environment.staging`.',
      }),
    ]);
  });

  it('ignores the blanks around an address and any trailing slashes', () => {
    expect(resolveTargets(built(), ['  project.shop/environment.prod//  ', '\tproject.shop2 ']).targets).toEqual([PROD, SHOP2]);
  });

  it('resolves a webhook written as plan shows it with blanks around it', () => {
    const m = manifest();
    m.webhooks = [{ target_url: 'https://hooks.example.com/x', events: ['DEPLOYMENT_STARTED'] } as never];
    const r = resolveTargets(buildGraph(m).graph, [' webhook.https://hooks.example.com/x ']);
    expect(r.diagnostics).toEqual([]);
    expect(r.targets).toEqual(['webhook.https:%2F%2Fhooks.example.com%2Fx']);
  });

  it('lists the top-level addresses when even the first segment is unknown', () => {
    const d = resolveTargets(built(), ['project.nope/environment.prod']).diagnostics;
    expect(d).toHaveLength(1);
    expect(d[0]!.summary).toBe('--target "project.nope/environment.prod" is not an address of the manifest');
    expect(d[0]!.detail).toBe('Did you mean `project.shop/environment.prod`? Known at the top: cluster.c1, cluster.c2, project.shop, project.shop2, alert_rule.api-down, alert_rule.other-down.');
  });

  it('lists the addresses under the deepest part that exists', () => {
    const d = resolveTargets(built(), ['project.shop/environment.prod/container.wroker']).diagnostics;
    expect(d[0]!.detail).toBe(`Did you mean \`${WORKER}\`? Known under ${PROD}: ${API}, ${WORKER}.`);
  });

  it('lists the addresses under a project when the environment segment is wrong, whatever follows it, and not those of a project whose name starts the same', () => {
    for (const word of ['project.shop/environment.nope', 'project.shop/environment.nope/container.api']) {
      const d = resolveTargets(built(), [word]).diagnostics;
      expect(d[0]!.detail, word).toMatch(/Known under project\.shop: project\.shop\/variable\.TOKEN, project\.shop\/variable\.PLAIN, project\.shop\/environment\.staging, project\.shop\/environment\.prod\.$/);
    }
  });

  it('says what an empty address is, with no guess', () => {
    const d = resolveTargets(built(), ['  ']).diagnostics;
    expect(d).toHaveLength(1);
    expect(d[0]!.summary).toBe('--target "" is not an address of the manifest');
    expect(d[0]!.detail).toBe('Known at the top: cluster.c1, cluster.c2, project.shop, project.shop2, alert_rule.api-down, alert_rule.other-down.');
  });

  it('shows an unknown address of up to 200 characters whole, a longer one cut', () => {
    const exact = `project.${'x'.repeat(192)}`;
    expect(exact).toHaveLength(200);
    expect(resolveTargets(built(), [exact]).diagnostics[0]!.summary).toBe(`--target "${exact}" is not an address of the manifest`);
    const long = `project.${'y'.repeat(300)}`;
    expect(resolveTargets(built(), [long]).diagnostics[0]!.summary).toBe(`--target "${long.slice(0, 200)}…" is not an address of the manifest`);
  });

  it('lists at most 12 addresses in the message', () => {
    const m = manifest();
    m.clusters = Array.from({ length: 15 }, (_, i) => ({ name: `k${String(i).padStart(2, '0')}` })) as never;
    m.projects = [];
    m.alert_rules = [];
    const d = resolveTargets(buildGraph(m).graph, ['project.x']).diagnostics;
    expect(d[0]!.detail).toMatch(/Known at the top: (cluster\.k\d\d, ){12}…\.$/);
  });

  it('targetGraph: the narrowed graph for addresses of the manifest, only the diagnostics otherwise', () => {
    const ok = targetGraph(built(), [STAGING]);
    expect(ok.diagnostics).toEqual([]);
    expect(ok.scope!.targets).toEqual([STAGING]);
    expect([...ok.graph!.resources.keys()].sort()).toEqual(['cluster.c2', SHOP, STAGING, `${STAGING}/container.web`].sort());
    const bad = targetGraph(built(), [STAGING, 'project.nope']);
    expect(bad.graph).toBeUndefined();
    expect(bad.scope).toBeUndefined();
    expect(bad.diagnostics.map((d) => d.code)).toEqual(['target.unknown']);
  });
});

describe('narrowing to the targets', () => {
  it('--target project.shop does not take project.shop2 (a name that only starts the same)', () => {
    const g = built();
    const { graph, scope } = narrowGraph(g, [SHOP]);
    expect([...graph.resources.keys()].filter((a) => a.startsWith(SHOP2))).toEqual([]);
    expect(inTargetScope(scope, SHOP2)).toBe(false);
    expect(inTargetScope(scope, `${SHOP2}/environment.prod`)).toBe(false);
    const state: LiveState = { organizationId: 'o', requestCount: 0, resources: new Map([[SHOP2, live(SHOP2, 'project')], [`${SHOP2}/environment.prod`, live(`${SHOP2}/environment.prod`, 'environment', SHOP2)]]) };
    expect([...narrowLive(state, scope).resources.keys()]).toEqual([]);
  });

  it('keeps every target of several, in the order given, with the graph order filtered', () => {
    const g = built();
    const { graph, scope } = narrowGraph(g, [API, STAGING]);
    const expected = ['cluster.c1', 'cluster.c2', SHOP, `${SHOP}/variable.TOKEN`, STAGING, `${STAGING}/container.web`, PROD, API, `${API}/variable.T`];
    expect([...graph.resources.keys()].sort()).toEqual([...expected].sort());
    expect(graph.order).toEqual(g.order.filter((a) => expected.includes(a)));
    expect(scope.targets).toEqual([API, STAGING]);
    // The environment kept for its service loses its pruning: the worker is not deleted.
    expect(graph.resources.get(PROD)!.prune).toBeUndefined();
    expect(g.resources.get(PROD)!.prune).toEqual(['application', 'container', 'database', 'job', 'helm', 'terraform']);
  });

  it('inTargetScope: the kept addresses and everything under a target, nothing else', () => {
    const { scope } = narrowGraph(built(), [API, STAGING]);
    for (const a of [API, `${API}/variable.UNDECLARED`, STAGING, `${STAGING}/container.undeclared`, PROD, SHOP, 'cluster.c1']) expect(inTargetScope(scope, a), a).toBe(true);
    for (const a of [WORKER, `${PROD}/container.undeclared`, SHOP2, 'alert_rule.api-down', 'project.other']) expect(inTargetScope(scope, a), a).toBe(false);
  });

  it('narrowLive keeps what is under any of several targets and the organization-level objects names are resolved through', () => {
    const { scope } = narrowGraph(built(), [API, STAGING]);
    const all = [
      live(SHOP, 'project'),
      live(PROD, 'environment', SHOP),
      live(API, 'container', PROD),
      live(`${API}/variable.X`, 'variable', API),
      live(WORKER, 'container', PROD),
      live(`${STAGING}/container.undeclared`, 'container', STAGING),
      live('cluster.c3', 'cluster'),
      live('container_registry.r', 'container_registry'),
      live('helm_repository.h', 'helm_repository'),
      live('annotations_group.a', 'annotations_group'),
      live('labels_group.l', 'labels_group'),
      live('alert_receiver.ops', 'alert_receiver'),
      live('alert_rule.api-down', 'alert_rule'),
      live('webhook.https:%2F%2Fx', 'webhook'),
    ];
    const state: LiveState = { organizationId: 'o', requestCount: 1, resources: new Map(all.map((l) => [l.address, l])) };
    expect([...narrowLive(state, scope).resources.keys()].sort()).toEqual(
      [SHOP, PROD, API, `${API}/variable.X`, `${STAGING}/container.undeclared`, 'cluster.c3', 'container_registry.r', 'helm_repository.h', 'annotations_group.a', 'labels_group.l', 'alert_receiver.ops'].sort(),
    );
  });

  it('narrowManifest keeps only the kept projects, environments, services, clusters and alert rules', () => {
    const m = manifest();
    const { scope } = narrowGraph(buildGraph(m).graph, [API]);
    const n = narrowManifest(m, scope);
    expect(n.projects!.map((p) => p.name)).toEqual(['shop']);
    expect(n.projects![0]!.environments!.map((e) => e.name)).toEqual(['prod']);
    expect(n.projects![0]!.environments![0]!.services!.map((s) => s.name)).toEqual(['api']);
    expect(n.clusters!.map((c) => c.name)).toEqual(['c1']);
    expect(n.alert_rules).toEqual([]);
    // The input is not changed.
    expect(m.clusters!.map((c) => c.name)).toEqual(['c1', 'c2']);
    expect(m.projects![0]!.environments![1]!.services!.map((s) => s.name)).toEqual(['api', 'worker']);
  });

  it('narrowManifest keeps an alert rule that is a target, and leaves out lists the manifest does not have', () => {
    const m = manifest();
    const { scope } = narrowGraph(buildGraph(m).graph, ['alert_rule.api-down']);
    const n = narrowManifest(m, scope);
    expect(n.alert_rules!.map((r) => r.name)).toEqual(['api-down']);
    expect(n.projects!.map((p) => p.environments!.map((e) => e.services!.map((s) => s.name)))).toEqual([[['api']]]);
    const bare = { version: 1, projects: [{ name: 'shop' }] } as unknown as Manifest;
    const narrowed = narrowManifest(bare, narrowGraph(buildGraph(bare).graph, [SHOP]).scope);
    expect(narrowed).toEqual({ version: 1, projects: [{ name: 'shop', environments: [] }] });
    expect('clusters' in narrowed).toBe(false);
  });
});

describe('readGraphOf: what a targeted run reads', () => {
  it('adds the environments of a project whose secret is kept, bare, in the full order', () => {
    const full = built();
    const { graph: narrowed } = narrowGraph(full, [API]);
    const read = readGraphOf(full, narrowed);
    // Only the environments: not the project's other variables, nor the environments' services.
    expect([...read.resources.keys()].sort()).toEqual([...narrowed.resources.keys(), STAGING].sort());
    expect(narrowed.resources.has(`${SHOP}/variable.PLAIN`)).toBe(false);
    expect(read.order).toEqual(full.order.filter((a) => read.resources.has(a)));
    const staging = read.resources.get(STAGING)!;
    expect(staging.kind).toBe('environment');
    expect(staging.prune).toBeUndefined();
    expect(staging.owns).toBeUndefined();
    // Its services are not read, and the narrowed graph itself is not changed.
    expect(read.resources.has(`${STAGING}/container.web`)).toBe(false);
    expect(narrowed.resources.has(STAGING)).toBe(false);
  });

  it('adds nothing without a secret project variable, nor for a project whose environments are all kept', () => {
    const m = manifest();
    (m.projects![0]!.variables as Array<{ secret?: boolean }>)[0]!.secret = false;
    const plain = buildGraph(m).graph;
    const narrowedPlain = narrowGraph(plain, [API]).graph;
    expect(readGraphOf(plain, narrowedPlain)).toBe(narrowedPlain);
    const full = built();
    const whole = narrowGraph(full, [SHOP]).graph;
    expect(readGraphOf(full, whole)).toBe(whole);
  });

  it('adds nothing for a secret of an environment or a service (their environment is kept already)', () => {
    const m = manifest();
    m.projects![0]!.variables = [];
    const prod = m.projects![0]!.environments![1]! as { variables?: unknown[]; services?: Array<{ variables?: unknown[] }> };
    prod.variables = [{ key: 'ENV_TOKEN', value: 'x', secret: true }];
    prod.services![0]!.variables = [{ key: 'SVC_TOKEN', value: 'y', secret: true }];
    const full = buildGraph(m).graph;
    const narrowed = narrowGraph(full, [`${PROD}/variable.ENV_TOKEN`, API]).graph;
    expect(narrowed.resources.has(`${PROD}/variable.ENV_TOKEN`)).toBe(true);
    expect(narrowed.resources.has(`${API}/variable.SVC_TOKEN`)).toBe(true);
    expect(readGraphOf(full, narrowed)).toBe(narrowed);
  });

  it('adds the environments of a project with a secret only, not of another project', () => {
    const m = manifest();
    m.projects![1]!.environments!.push({ name: 'dev', cluster: 'c1' } as never);
    const full = buildGraph(m).graph;
    const narrowed = narrowGraph(full, [API, `${SHOP2}/environment.prod`]).graph;
    const read = readGraphOf(full, narrowed);
    expect([...read.resources.keys()].filter((a) => !narrowed.resources.has(a))).toEqual([STAGING]);
  });
});
