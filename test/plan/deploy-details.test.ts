/** More of why a service is (or is not) deployed: commits as written, configuration lists, never-deployed services, what never deploys. */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { LiveState } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan } from '../../src/plan/types.js';
import { API, KEY, PROD, apiRecords, fullManifest, id, liveFrom, type ApiRecords } from './fixtures.js';

const planOf = (m: Manifest, live: LiveState): Plan => computePlan(buildGraph(m).graph, live, { fingerprintKey: KEY });
const live = (edit: (r: ApiRecords) => void = () => {}) => {
  const r = apiRecords();
  edit(r);
  return liveFrom(r);
};
const reasons = (plan: Plan) => Object.fromEntries(plan.changes.filter((c) => c.deploy).map((c) => [c.address, c.deploy!.reasons]));
const apiApp = (m: Manifest) => m.projects![0]!.environments![0]!.services!.find((s) => s.name === 'api') as { git_commit_id?: string; cpu?: number; memory?: number };

describe('deploy reasons, details', () => {
  it('shortens only a commit that is all hex, 12 characters or more', () => {
    for (const pin of ['release-0123456789abcdef', '0123456789abcdef-rc1']) {
      const m = fullManifest();
      apiApp(m).git_commit_id = pin;
      expect(reasons(planOf(m, live()))[API]).toEqual([`git_commit_id aaaaaaaa -> ${pin}`]);
    }
    const m = fullManifest();
    apiApp(m).git_commit_id = '0123456789ABCDEF';
    expect(reasons(planOf(m, live()))[API]).toEqual(['git_commit_id aaaaaaaa -> 01234567']);
  });

  it('lists every configuration field that changed', () => {
    const m = fullManifest();
    apiApp(m).cpu = 1000;
    apiApp(m).memory = 1024;
    expect(reasons(planOf(m, live()))).toEqual({ [API]: ['configuration changed (cpu, memory)'] });
  });

  it('deploys a service in sync that was never deployed, and says so', () => {
    const l = live();
    l.resources.get(API)!.status = { state: 'STOPPED', service_deployment_status: 'NEVER_DEPLOYED' };
    expect(reasons(planOf(fullManifest(), l))).toEqual({ [API]: ['never deployed'] });
    // Without a status read, nothing says it needs a first deploy.
    delete l.resources.get(API)!.status;
    expect(reasons(planOf(fullManifest(), l))).toEqual({});
  });

  it('never deploys a deleted service, and an undeclared variable it keeps is no reason to', () => {
    const m = fullManifest();
    m.projects![0]!.environments![0]!.prune = { services: true };
    const p = planOf(m, live((rec) => rec.services.push({ id: 'old', service_type: 'APPLICATION', name: 'old', environment: { id: id('production') }, git_repository: { url: 'https://github.com/acme/old.git', branch: 'main' } })));
    expect(p.changes.find((c) => c.address === `${PROD}/application.old`)!.actions).toEqual(['delete']);
    expect(reasons(p)).toEqual({});
    const kept = planOf(fullManifest(), live((rec) => rec.variables[id('api')]!.push({ id: 'v-x', key: 'STRAY', value: '1', scope: 'APPLICATION', variable_type: 'VALUE', is_secret: false })));
    expect(kept.changes.find((c) => c.address === `${API}/variable.STRAY`)!.status).toBe('unmanaged');
    expect(reasons(kept)).toEqual({});
  });
});
