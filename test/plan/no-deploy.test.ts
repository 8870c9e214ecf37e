/**
 * `deploy: false` on a service: the plan creates and configures it but never marks it for deploy,
 * for any reason (created, configuration changed, a variable it sees changed, NEVER_DEPLOYED). A
 * service without it is still deployed when the live one was never deployed (an interrupted apply
 * converges on the next run).
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest, ServiceSpec } from '../../src/manifest/types.js';
import type { LiveState } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan } from '../../src/plan/types.js';
import { API, KEY, PROD, apiRecords, fullManifest, id, liveFrom } from './fixtures.js';

const WEB = `${PROD}/container.web`;

function planOf(m: Manifest, live: LiveState): Plan {
  const { graph, diagnostics } = buildGraph(m);
  expect(diagnostics).toEqual([]);
  return computePlan(graph, live, { fingerprintKey: KEY });
}

/** The full manifest with `deploy: false` on the web container. */
function webNotDeployed(): Manifest {
  const m = fullManifest();
  const web = m.projects![0]!.environments![0]!.services!.find((s) => s.name === 'web') as ServiceSpec;
  web.deploy = false;
  return m;
}

function neverDeployed(live: LiveState, ...addresses: string[]): LiveState {
  for (const a of addresses) live.resources.get(a)!.status = { service_deployment_status: 'NEVER_DEPLOYED' };
  return live;
}

function deployed(plan: Plan): string[] {
  return plan.changes.filter((c) => c.deploy).map((c) => c.address);
}

describe('deploy: false', () => {
  it('is carried onto the desired resource, and only where it is written', () => {
    const { graph } = buildGraph(webNotDeployed());
    expect(graph.resources.get(WEB)!.noDeploy).toBe(true);
    expect(graph.resources.get(API)!.noDeploy).toBeUndefined();
  });

  it('a never-deployed service with deploy: false is not deployed; one without it still is', () => {
    const plan = planOf(webNotDeployed(), neverDeployed(liveFrom(apiRecords()), WEB, API));
    expect(deployed(plan)).toEqual([API]);
    expect(plan.changes.find((c) => c.address === API)!.deploy!.reasons).toEqual(['never deployed']);
    expect(plan.summary.deploy).toBe(1);
    expect(plan.deploy_order.flatMap((g) => g.stages.flatMap((s) => s.services))).toEqual([API]);
  });

  it('with deploy: false and nothing else to do, the plan has no changes', () => {
    const plan = planOf(webNotDeployed(), neverDeployed(liveFrom(apiRecords()), WEB));
    expect(plan.changes.filter((c) => c.actions[0] !== 'no-op' || c.deploy)).toEqual([]);
    expect(plan.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
  });

  it('a created service with deploy: false is created, not deployed', () => {
    const r = apiRecords();
    r.services = r.services.filter((s) => s.name !== 'web');
    r.stages = r.stages.map((st) => ({ ...st, services: st.services.filter((s: { service_id: string }) => s.service_id !== id('web')) }));
    const plan = planOf(webNotDeployed(), liveFrom(r));
    const web = plan.changes.find((c) => c.address === WEB)!;
    expect(web.actions).toEqual(['create']);
    expect(web.deploy).toBeUndefined();
    // The same creation without deploy: false deploys it.
    const without = planOf(fullManifest(), liveFrom(r)).changes.find((c) => c.address === WEB)!;
    expect(without.deploy!.reasons).toEqual(['created']);
  });

  it('a changed service with deploy: false is updated, not deployed (configuration, tag pin, variables)', () => {
    const r = apiRecords();
    const web = r.services.find((s) => s.name === 'web')!;
    web.cpu = 500;
    web.tag = '1.26';
    const plan = planOf(webNotDeployed(), neverDeployed(liveFrom(r), WEB));
    const c = plan.changes.find((x) => x.address === WEB)!;
    expect(c.actions).toEqual(['update']);
    expect(c.deploy).toBeUndefined();
    expect(planOf(fullManifest(), liveFrom(r)).changes.find((x) => x.address === WEB)!.deploy!.reasons[0]).toMatch(/^configuration changed/);

    // A project variable changes: every service that sees it is deployed, except web.
    const m = webNotDeployed();
    m.projects![0]!.variables!.find((v) => v.key === 'LOG_LEVEL')!.value = 'debug';
    const vars = planOf(m, liveFrom(apiRecords()));
    expect(deployed(vars)).not.toContain(WEB);
    expect(deployed(vars)).toContain(API);
  });
});
