/**
 * computePlan's bookkeeping that the other compute tests do not read: the summary of a replacement,
 * the live objects a saved plan pins (and only those), and the options recorded in the plan.
 * Expected values come from the fixtures (test/plan/fixtures.ts), not from a plan.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { LiveState } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan, PlanOptions } from '../../src/plan/types.js';
import { KEY, apiRecords, fullManifest, id, liveFrom } from './fixtures.js';

function planOf(m: Manifest, live: LiveState, opts: PlanOptions = {}): Plan {
  const { graph, diagnostics } = buildGraph(m);
  expect(diagnostics).toEqual([]);
  return computePlan(graph, live, { fingerprintKey: KEY, ...opts });
}

/** The organization-level objects of the fixture's live state that names resolve to. */
const REFERENCES = [
  'alert_receiver.slack-ops',
  'annotations_group.monitoring',
  'cluster.production-cluster',
  'cluster.staging-cluster',
  'container_registry.docker-hub',
  'helm_repository.bitnami',
  'labels_group.team',
];

describe('computePlan: summary of a replacement', () => {
  it('counts a replaced resource once to add and once to destroy, never as a change', () => {
    const r = apiRecords();
    Object.assign(r.variables[id('shop')]![0]!, { is_secret: true, value: null });
    const plan = planOf(fullManifest(), liveFrom(r));
    const log = plan.changes.find((c) => c.address === 'project.shop/variable.LOG_LEVEL')!;
    expect(log.actions).toEqual(['delete', 'create']);
    expect(plan.summary).toMatchObject({ add: 1, change: 0, destroy: 1, blocked: 0 });
  });
});

describe('computePlan: live objects pinned by a plan', () => {
  it('pins the changed object and the reference objects, not what the plan leaves alone', () => {
    const m = fullManifest();
    m.projects![0]!.description = 'A new description';
    const plan = planOf(m, liveFrom(apiRecords()));
    const project = plan.changes.find((c) => c.address === 'project.shop')!;
    expect(project.actions).toEqual(['update']);
    expect(Object.keys(plan.live_objects).sort()).toEqual([...REFERENCES, 'project.shop'].sort());
    expect(plan.live_objects['project.shop']).toEqual({ id: id('shop'), version: project.version });
    expect(project.version).toEqual(expect.any(String));
  });

  it('pins nothing for objects that do not exist yet', () => {
    const r = apiRecords();
    const empty = liveFrom({ ...r, annotationsGroups: [], labelsGroups: [], alertReceivers: [], alertRules: [], webhooks: [], projects: [], environments: [], stages: [], services: [], variables: {} });
    const plan = planOf(fullManifest(), empty);
    expect(Object.keys(plan.live_objects).sort()).toEqual(['cluster.production-cluster', 'cluster.staging-cluster', 'container_registry.docker-hub', 'helm_repository.bitnami']);
  });
});

describe('computePlan: options recorded in the plan', () => {
  it('records the API url and --max-destroy only when given', () => {
    const live = liveFrom(apiRecords());
    const given = planOf(fullManifest(), live, { apiUrl: 'http://127.0.0.1:4000', maxDestroy: 3 });
    expect(given.api_url).toBe('http://127.0.0.1:4000');
    expect(given.options.max_destroy).toBe(3);
    const bare = planOf(fullManifest(), live);
    expect('api_url' in bare).toBe(false);
    expect('max_destroy' in bare.options).toBe(false);
  });

  it('names the count and the limit when a plan destroys more than --max-destroy', () => {
    const m = fullManifest();
    m.projects![0]!.environments![0]!.prune = { variables: true };
    const r = apiRecords();
    for (const key of ['STRAY1', 'STRAY2']) r.variables[id('production')]!.push({ id: `v-${key}`, key, value: '1', scope: 'ENVIRONMENT', variable_type: 'VALUE', is_secret: false });
    const plan = planOf(m, liveFrom(r), { maxDestroy: 1 });
    expect(plan.summary.destroy).toBe(2);
    expect(plan.diagnostics.map((d) => [d.severity, d.code, d.summary, d.detail])).toEqual([
      ['error', 'plan.max-destroy', 'The plan destroys 2 resources, more than --max-destroy 1', 'Review the deletions and replacements above; raise --max-destroy if they are intended.'],
    ]);
    expect(plan.applyable).toBe(false);
    // At the limit the plan stands.
    expect(planOf(m, liveFrom(r), { maxDestroy: 2 }).diagnostics).toEqual([]);
  });

  it('says "1 resource", not "1 resources" (issue 19)', () => {
    const m = fullManifest();
    m.projects![0]!.environments![0]!.prune = { variables: true };
    const r = apiRecords();
    r.variables[id('production')]!.push({ id: 'v-STRAY1', key: 'STRAY1', value: '1', scope: 'ENVIRONMENT', variable_type: 'VALUE', is_secret: false });
    const plan = planOf(m, liveFrom(r), { maxDestroy: 0 });
    expect(plan.diagnostics.map((d) => d.summary)).toEqual(['The plan destroys 1 resource, more than --max-destroy 0']);
  });
});

describe('computePlan: secret fields recorded on changes', () => {
  it('names the sensitive fields and their fingerprints on a secret, and nothing of the kind on a plain value', () => {
    const m = fullManifest();
    m.projects![0]!.variables![0] = { key: 'LOG_LEVEL', value: 'debug' };
    const plan = planOf(m, liveFrom(apiRecords()));
    const secret = plan.changes.find((c) => c.address === 'project.shop/variable.API_KEY')!;
    expect(secret.sensitive_fields).toEqual(['value']);
    expect(Object.keys(secret.fingerprints ?? {})).toEqual(['value']);
    const plain = plan.changes.find((c) => c.address === 'project.shop/variable.LOG_LEVEL')!;
    expect(plain.actions).toEqual(['update']);
    expect('sensitive_fields' in plain).toBe(false);
    expect('fingerprints' in plain).toBe(false);
  });
});

describe('computePlan: applyable', () => {
  it('stays applyable with warnings only', () => {
    const m = fullManifest();
    // A `moved` entry whose source is not live: a warning (moved.stale), nothing else.
    (m as { moved?: unknown }).moved = [{ from: 'project.shop/environment.production/container.ghost', to: 'project.shop/environment.production/container.web' }];
    const plan = planOf(m, liveFrom(apiRecords()));
    expect(plan.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'moved.stale']]);
    expect(plan.applyable).toBe(true);
  });
});
