/**
 * computePlan with `moved` renames over a whole organization: each rename is one update of the
 * renamed object, and nothing that refers to it by name (a stage's services, a service's groups,
 * an alert rule's target) changes or redeploys.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan } from '../../src/plan/types.js';
import { KEY, apiRecords, fullManifest, liveFrom } from './fixtures.js';

function planOf(m: Manifest): Plan {
  const { graph, diagnostics } = buildGraph(m);
  expect(diagnostics).toEqual([]);
  return computePlan(graph, liveFrom(apiRecords()), { fingerprintKey: KEY });
}

const touched = (plan: Plan) =>
  plan.changes.filter((c) => c.status !== 'unmanaged' && (c.actions[0] !== 'no-op' || c.deploy)).map((c) => `${c.actions.join(',')}${c.deploy ? '+deploy' : ''} ${c.address}`);

describe('computePlan with moved', () => {
  it('plans each rename as one update, with what refers to the renamed objects unchanged', () => {
    const baseline = touched(planOf(fullManifest()));
    const m = fullManifest();
    const project = m.projects![0]!;
    const env = project.environments![0]!;
    project.name = 'store';
    env.name = 'prod';
    const api = env.services!.find((s) => s.name === 'api')!;
    api.name = 'backend';
    api.annotation_groups = ['metrics'];
    api.label_groups = ['teams'];
    env.deployment_stages = env.deployment_stages!.map((s) => ({ ...s, services: s.services!.map((n) => (n === 'api' ? 'backend' : n)) }));
    m.annotation_groups![0]!.name = 'metrics';
    m.label_groups![0]!.name = 'teams';
    const rule = m.alert_rules!.find((r) => 'project' in r.target)!;
    rule.target = { project: 'store', environment: 'prod', service: 'backend' };
    m.moved = [
      { from: 'project.shop', to: 'project.store' },
      { from: 'project.store/environment.production', to: 'project.store/environment.prod' },
      { from: 'project.store/environment.prod/application.api', to: 'project.store/environment.prod/application.backend' },
      { from: 'annotations_group.monitoring', to: 'annotations_group.metrics' },
      { from: 'labels_group.team', to: 'labels_group.teams' },
    ];
    const plan = planOf(m);
    const renames = ['update project.store', 'update project.store/environment.prod', 'update project.store/environment.prod/application.backend', 'update annotations_group.metrics', 'update labels_group.teams'];
    const rename = (line: string) => line.replace('project.shop', 'project.store').replace('environment.production', 'environment.prod').replace('application.api', 'application.backend');
    expect(touched(plan).sort()).toEqual([...new Set([...baseline.map(rename), ...renames])].sort());
    for (const address of ['project.store', 'annotations_group.metrics', 'project.store/environment.prod/application.backend']) {
      const c = plan.changes.find((x) => x.address === address)!;
      expect(c.fields.map((f) => f.field)).toEqual(['name']);
    }
    expect(plan.diagnostics.filter((d) => d.code.startsWith('moved.') || d.code === 'plan.looks-like-rename')).toEqual([]);
    expect(plan.changes.find((c) => c.address === 'project.store/environment.prod/application.backend/variable.PORT')?.previous_address).toBe(
      'project.shop/environment.production/application.api/variable.PORT',
    );
  });

  it('shows a rename and the other changes of the same object as one update', () => {
    const m = fullManifest();
    const env = m.projects![0]!.environments![0]!;
    const api = env.services!.find((s) => s.name === 'api')!;
    api.name = 'backend';
    (api as { cpu?: number }).cpu = 1000;
    env.deployment_stages = env.deployment_stages!.map((s) => ({ ...s, services: s.services!.map((n) => (n === 'api' ? 'backend' : n)) }));
    const rule = m.alert_rules!.find((r) => 'project' in r.target)!;
    rule.target = { project: 'shop', environment: 'production', service: 'backend' };
    m.moved = [{ from: 'project.shop/environment.production/application.api', to: 'project.shop/environment.production/application.backend' }];
    const plan = planOf(m);
    const c = plan.changes.find((x) => x.address === 'project.shop/environment.production/application.backend')!;
    expect(c.actions).toEqual(['update']);
    expect(c.previous_address).toBe('project.shop/environment.production/application.api');
    expect(c.fields.map((f) => [f.field, f.before, f.after])).toEqual([
      ['name', 'api', 'backend'],
      ['cpu', 500, 1000],
    ]);
    // The cpu change deploys; the rename alone would not.
    expect(c.deploy?.reasons).toEqual([expect.stringContaining('configuration changed (cpu)')]);
  });
});
