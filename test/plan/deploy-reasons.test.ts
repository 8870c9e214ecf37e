/**
 * Why a service is deployed, in the plan's own words, and in which group it deploys. Each case
 * changes one thing in the fixture's manifest or live records; the expected reasons are written out.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { LiveState } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan } from '../../src/plan/types.js';
import { API, KEY, PROD, apiRecords, fullManifest, liveFrom, type ApiRecords } from './fixtures.js';

function planOf(m: Manifest, live: LiveState): Plan {
  const { graph, diagnostics } = buildGraph(m);
  expect(diagnostics).toEqual([]);
  return computePlan(graph, live, { fingerprintKey: KEY });
}
const live = (edit: (r: ApiRecords) => void = () => {}) => {
  const r = apiRecords();
  edit(r);
  return liveFrom(r);
};
const reasons = (plan: Plan) => Object.fromEntries(plan.changes.filter((c) => c.deploy).map((c) => [c.address, c.deploy!.reasons]));
const apiApp = (m: Manifest) => m.projects![0]!.environments![0]!.services!.find((s) => s.name === 'api') as { variables?: Array<{ key: string; value: string }>; git_commit_id?: string };

describe('deploy reasons', () => {
  it('in sync: nothing deploys', () => {
    expect(reasons(planOf(fullManifest(), live()))).toEqual({});
  });

  it('one variable names it; several name three and count the rest, once each', () => {
    const one = fullManifest();
    apiApp(one).variables = [{ key: 'PORT', value: '9090' }];
    expect(reasons(planOf(one, live()))[API]).toEqual(['variable PORT changed']);
    const many = fullManifest();
    apiApp(many).variables = ['PORT', 'A', 'B', 'C', 'D'].map((key) => ({ key, value: 'x' }));
    expect(reasons(planOf(many, live()))[API]).toEqual(['variables PORT, A, B and 2 more changed']);
    const three = fullManifest();
    apiApp(three).variables = ['PORT', 'A', 'B'].map((key) => ({ key, value: 'x' }));
    expect(reasons(planOf(three, live()))[API]).toEqual(['variables PORT, A, B changed']);
  });

  it('a project variable deploys every service that sees it, not the database', () => {
    const m = fullManifest();
    m.projects![0]!.variables![0] = { key: 'LOG_LEVEL', value: 'debug' };
    const r = reasons(planOf(m, live()));
    expect(r[API]).toEqual(['variable LOG_LEVEL changed']);
    expect(r[`${PROD}/container.web`]).toEqual(['variable LOG_LEVEL changed']);
    expect(r[`${PROD}/database.db`]).toBeUndefined();
  });

  it('a changed group deploys the services that use it, naming the group', () => {
    const labels = live((r) => ((r.labelsGroups[0]!.labels as Array<{ value: string }>)[1]!.value = 'other'));
    expect(reasons(planOf(fullManifest(), labels))).toEqual({ [API]: ['labels group team changed'] });
    const annotations = live((r) => ((r.annotationsGroups[0]!.annotations as Array<{ value: string }>)[0]!.value = 'false'));
    expect(reasons(planOf(fullManifest(), annotations))).toEqual({ [API]: ['annotations group monitoring changed'] });
  });

  it('a pin change shows the commits, long hex shortened to 8, anything else as written', () => {
    const m = fullManifest();
    apiApp(m).git_commit_id = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    const c = planOf(m, live()).changes.find((x) => x.address === API)!;
    expect(c.deploy).toMatchObject({ reasons: ['git_commit_id aaaaaaaa -> bbbbbbbb'], git_commit_id: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', before_git_commit_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' });
    apiApp(m).git_commit_id = 'abc123';
    expect(reasons(planOf(m, live()))[API]).toEqual(['git_commit_id aaaaaaaa -> abc123']);
    apiApp(m).git_commit_id = 'release-2026-11-25-xyz';
    expect(reasons(planOf(m, live((r) => delete (r.services[0]!.git_repository as Record<string, unknown>).deployed_commit_id)))[API]).toEqual(['git_commit_id (none) -> release-2026-11-25-xyz']);
  });

  it('a configuration change names its fields; a description alone deploys nothing', () => {
    expect(reasons(planOf(fullManifest(), live((r) => ((r.services[0]!.cpu as number) = 250))))[API]).toEqual(['configuration changed (cpu)']);
    expect(reasons(planOf(fullManifest(), live((r) => (r.services[0]!.description = 'set by hand'))))).toEqual({});
  });

  it('the deploy order puts a service in its manifest stage, others in their live stage before the manifest stages', () => {
    const m = fullManifest();
    m.projects![0]!.variables![0] = { key: 'LOG_LEVEL', value: 'debug' };
    const plan = planOf(m, live());
    expect(plan.deploy_order).toEqual([
      { environment: PROD, stages: [
        { stage: 'DEFAULT', services: [`${PROD}/helm.chart`, `${PROD}/terraform.infra`] },
        { stage: 'apps', services: [API, `${PROD}/container.web`, `${PROD}/job.nightly`] },
      ] },
    ]);
  });
});
