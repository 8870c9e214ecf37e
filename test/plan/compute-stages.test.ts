/** How computePlan compares deployment stages: their order (`after`) is read from the live deployment_order. */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import { KEY, PROD, apiRecords, fullManifest, liveFrom } from './fixtures.js';

describe('computePlan: stage order', () => {
  it('moves a stage the API runs first back after the stage the manifest puts before it', () => {
    const r = apiRecords();
    // The fixture's live order is DEFAULT 0, data 1, apps 2; here apps runs before data.
    const data = r.stages.find((s) => s.name === 'data')!;
    const apps = r.stages.find((s) => s.name === 'apps')!;
    data.deployment_order = 2;
    apps.deployment_order = 1;
    const plan = computePlan(buildGraph(fullManifest()).graph, liveFrom(r), { fingerprintKey: KEY });
    const of = (n: string) => plan.changes.find((c) => c.address === `${PROD}/deployment_stage.${n}`)!;
    // Live, apps is the first of the declared stages (nothing before it); the manifest wants it after data.
    expect(of('apps')).toMatchObject({ actions: ['update'], fields: [{ field: 'after', after: 'data' }] });
    expect('before' in of('apps').fields[0]!).toBe(false);
    // data declares no `after`: its place is not compared.
    expect(of('data').actions).toEqual(['no-op']);
  });

  it('is in sync when the live order matches, whatever the order numbers', () => {
    const r = apiRecords();
    r.stages.find((s) => s.name === 'data')!.deployment_order = 5;
    r.stages.find((s) => s.name === 'apps')!.deployment_order = 9;
    const plan = computePlan(buildGraph(fullManifest()).graph, liveFrom(r), { fingerprintKey: KEY });
    expect(plan.changes.filter((c) => c.kind === 'deployment_stage' && c.actions[0] !== 'no-op')).toEqual([]);
  });
});
