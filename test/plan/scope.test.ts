/**
 * The scoping rule (src/plan/scope.ts): which undeclared live objects a manifest owns (listed as
 * unmanaged, reported by drift, pruned where asked) and which are out of its scope (counted only),
 * for each `scope:`; its effect on the plan, the drift report and the organization lists read; and
 * the loader's refusal of `scope: declared` with a top-level prune.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { orgListsNeeded } from '../../src/live/read.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { DesiredGraph, ManifestScope, ResourceKind } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import { outOfScopeLine, ownsUndeclaredAtTop, OWNABLE_ORGANIZATION_KINDS } from '../../src/plan/scope.js';
import { planHasChanges, type Plan } from '../../src/plan/types.js';
import { detectDrift } from '../../src/drift/detect.js';
import { KEY, PROD, apiRecords, fullManifest, id, liveFrom, type ApiRecords } from './fixtures.js';
import { load, manifestWith, tempTree } from '../manifest/helpers.js';

function graphOf(top: ResourceKind[], extra: Partial<DesiredGraph> = {}): DesiredGraph {
  const resources = new Map(top.map((kind, i) => [`${kind}.x${i}`, { address: `${kind}.x${i}`, kind, name: `x${i}`, attrs: {}, dependsOn: [] }]));
  return { resources, order: [...resources.keys()], ...extra };
}

describe('ownsUndeclaredAtTop', () => {
  const owned = (g: DesiredGraph) => OWNABLE_ORGANIZATION_KINDS.filter(ownsUndeclaredAtTop(g));

  it('kinds (the default): never undeclared projects; an organization-level kind when one of it is declared', () => {
    const g = graphOf(['project', 'webhook', 'labels_group']);
    expect(owned(g)).toEqual(['labels_group', 'webhook']);
    expect(owned({ ...g, scope: 'kinds' })).toEqual(['labels_group', 'webhook']);
    expect(owned(graphOf(['project']))).toEqual([]);
  });

  it('organization: every kind, declared or not', () => {
    expect(owned(graphOf(['project'], { scope: 'organization' }))).toEqual([...OWNABLE_ORGANIZATION_KINDS]);
    expect(owned(graphOf([], { scope: 'organization' }))).toEqual([...OWNABLE_ORGANIZATION_KINDS]);
  });

  it('declared: no kind, even one it declares', () => {
    expect(owned(graphOf(['project', 'webhook', 'labels_group', 'annotations_group', 'alert_receiver', 'alert_rule'], { scope: 'declared' }))).toEqual([]);
  });

  it('a top-level prune of a kind brings it into scope', () => {
    expect(owned(graphOf(['project'], { prune: ['project', 'alert_rule'] }))).toEqual(['project', 'alert_rule']);
  });
});

describe('outOfScopeLine', () => {
  it('names each kind with its count, in a fixed order, and the scope', () => {
    expect(outOfScopeLine({ scope: 'declared', counts: { webhook: 1, project: 2, labels_group: 3 } })).toBe(
      '2 projects, 3 label groups and 1 webhook outside this manifest are not managed by it (scope: declared).',
    );
    expect(outOfScopeLine({ scope: 'kinds', counts: { project: 1 } })).toBe('1 project outside this manifest is not managed by it (scope: kinds, the default).');
  });

  it('is nothing when nothing was left out', () => {
    expect(outOfScopeLine(undefined)).toBeUndefined();
    expect(outOfScopeLine({ scope: 'declared', counts: {} })).toBeUndefined();
  });
});

describe('computePlan with a scope', () => {
  /** Another team's project (with an environment), a label group and a webhook, all undeclared. */
  const others = (r: ApiRecords) => {
    r.projects.push({ id: 'p2', name: 'team-b', created_at: 'x' });
    r.environments.push({ id: 'e2', name: 'prod', mode: 'PRODUCTION', cluster_id: id('production-cluster'), project: { id: 'p2' } });
    r.labelsGroups.push({ id: 'lg2', name: 'team-b', labels: [], created_at: 'x', updated_at: 'x' });
    r.webhooks.push({ id: 'w2', kind: 'STANDARD', target_url: 'https://b.example.com/hook', enabled: true, events: ['DEPLOYMENT_FAILED'], project_names_filter: [], environment_types_filter: [], created_at: 'x', updated_at: 'x' });
    // Inside the declared environment: always this manifest's business.
    r.services.push({ id: 'db2', service_type: 'DATABASE', name: 'olddb', type: 'MYSQL', version: '8', mode: 'CONTAINER', environment: { id: id('production') } });
  };
  const planWith = (scope: ManifestScope | undefined, edit: (m: Manifest) => void = () => {}): Plan => {
    const m = fullManifest();
    if (scope) m.scope = scope;
    edit(m);
    const { graph, diagnostics } = buildGraph(m);
    expect(diagnostics).toEqual([]);
    const r = apiRecords();
    others(r);
    return computePlan(graph, liveFrom(r), { fingerprintKey: KEY });
  };
  const unmanaged = (p: Plan) => p.changes.filter((c) => c.status === 'unmanaged').map((c) => c.address).sort();

  it('kinds: the other project is out of scope; the label group and webhook are not (the manifest declares both kinds)', () => {
    const p = planWith(undefined);
    expect(unmanaged(p)).toEqual(['labels_group.team-b', `${PROD}/database.olddb`, 'webhook.https:%2F%2Fb.example.com%2Fhook']);
    expect(p.out_of_scope).toEqual({ scope: 'kinds', counts: { project: 1 } });
    expect(p.changes.some((c) => c.address.startsWith('project.team-b'))).toBe(false);
  });

  it('kinds: a kind the manifest does not declare is out of scope', () => {
    const p = planWith(undefined, (m) => delete m.webhooks);
    expect(unmanaged(p)).toEqual(['labels_group.team-b', `${PROD}/database.olddb`]);
    // The fixture's own webhook is undeclared too now.
    expect(p.out_of_scope).toEqual({ scope: 'kinds', counts: { project: 1, webhook: 2 } });
  });

  it('declared: only what is inside the declared projects is listed', () => {
    const p = planWith('declared');
    expect(unmanaged(p)).toEqual([`${PROD}/database.olddb`]);
    expect(p.out_of_scope).toEqual({ scope: 'declared', counts: { project: 1, labels_group: 1, webhook: 1 } });
    expect(planHasChanges(p)).toBe(false);
  });

  it('organization: everything undeclared is listed, nothing is out of scope, children of an unmanaged project hidden', () => {
    const p = planWith('organization');
    expect(unmanaged(p)).toEqual(['labels_group.team-b', `${PROD}/database.olddb`, 'project.team-b', 'webhook.https:%2F%2Fb.example.com%2Fhook']);
    expect(p.out_of_scope).toBeUndefined();
  });

  it('kinds with prune.projects: the other project is deleted (pruning is the opt-in)', () => {
    const p = planWith(undefined, (m) => (m.prune = { projects: true }));
    expect(p.changes.find((c) => c.address === 'project.team-b')?.actions).toEqual(['delete']);
    expect(p.out_of_scope).toBeUndefined();
  });

  it('the drift report carries the counts, outside its fingerprint', () => {
    const m = fullManifest();
    const { graph } = buildGraph(m);
    const r = apiRecords();
    r.projects.push({ id: 'p2', name: 'team-b', created_at: 'x' });
    const live = liveFrom(r);
    const plan = computePlan(graph, live, { fingerprintKey: KEY });
    const report = detectDrift(plan, graph, live);
    expect(report.in_sync).toBe(true);
    expect(report.out_of_scope).toEqual({ scope: 'kinds', counts: { project: 1 } });
    const without = detectDrift({ ...plan, out_of_scope: undefined }, graph, live);
    expect(without.fingerprint).toBe(report.fingerprint);
  });
});

describe('organization lists read', () => {
  it('scope: organization reads every ownable list, even of kinds it does not declare', () => {
    const only = graphOf(['project']);
    expect([...orgListsNeeded(only)].sort()).toEqual(['projects']);
    expect([...orgListsNeeded({ ...only, scope: 'organization' })].sort()).toEqual(['alertReceivers', 'alertRules', 'annotationsGroups', 'clusters', 'labelsGroups', 'projects', 'webhooks']);
  });
});

describe('loading scope', () => {
  it('is refused with a top-level prune of an organization-level kind, at file:line:col', async () => {
    const dir = tempTree({ 'main.yaml': manifestWith(undefined, 'scope: declared\nprune:\n  projects: true\n  webhooks: false\n') });
    const r = await load(dir);
    const d = r.diagnostics.filter((x) => x.code === 'manifest.scope-prune');
    expect(d).toHaveLength(1);
    expect(d[0]!.severity).toBe('error');
    expect(d[0]!.summary).toContain('`prune.projects`');
    expect(d[0]!.range).toMatchObject({ file: 'main.yaml', start: { line: 14, col: 3 } });
  });

  it('is accepted with prunes inside projects, and by a manifest without it', async () => {
    const withScope = tempTree({ 'main.yaml': manifestWith(undefined, 'scope: declared\n').replace('  - name: shop\n', '  - name: shop\n    prune:\n      environments: true\n') });
    const loaded = await load(withScope);
    expect(loaded.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    expect(loaded.manifest?.scope).toBe('declared');
    const old = await load(tempTree({ 'main.yaml': manifestWith() }));
    expect(old.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    expect(old.manifest?.scope).toBeUndefined();
  });

  it('rejects an unknown value, and a scope written in two files of a directory', async () => {
    const bad = tempTree({ 'main.yaml': manifestWith(undefined, 'scope: mine\n') });
    expect((await load(bad)).diagnostics.map((x) => x.code)).toContain('schema.not-allowed');
    const two = tempTree({ 'a.yaml': manifestWith(undefined, 'scope: declared\n'), 'b.yaml': 'version: 1\nscope: organization\n' });
    expect((await load(two)).diagnostics.map((x) => x.code)).toContain('manifest.duplicate');
  });
});
