/** Why computePlan deletes or keeps a live object the manifest does not declare, as the plan says it. */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import { computePlan } from '../../src/plan/compute.js';
import { API, KEY, PROD, apiRecords, fullManifest, id, liveFrom, type ApiRecords } from './fixtures.js';
import { isServiceKind } from '../../src/model/kinds/index.js';

const extra = (r: ApiRecords) => {
  r.projects.push({ id: 'p2', name: 'legacy', created_at: 'x', updated_at: 'v-legacy' });
  r.environments.push({ id: 'e2', name: 'old', mode: 'STAGING', cluster_id: id('staging-cluster'), project: { id: 'p2' } });
  r.variables[id('api')]!.push({ id: 'v-x', key: 'STRAY', value: '1', scope: 'APPLICATION', variable_type: 'VALUE', is_secret: false });
};
const plan = (m: Manifest, opts = {}) => {
  const r = apiRecords();
  extra(r);
  return computePlan(buildGraph(m).graph, liveFrom(r), { fingerprintKey: KEY, ...opts });
};

describe('computePlan: reasons for undeclared live objects', () => {
  it('says which scope prunes an object, and what a child is deleted with', () => {
    const m = fullManifest();
    m.prune = { projects: true };
    m.projects![0]!.environments![0]!.services![0]!.prune = { variables: true };
    const p = plan(m);
    const of = (a: string) => p.changes.find((c) => c.address === a)!;
    expect(of('project.legacy')).toMatchObject({ actions: ['delete'], status: 'planned', reasons: ['not in the manifest, and the organization prunes project resources'], id: 'p2', version: 'v-legacy' });
    expect('parent' in of('project.legacy')).toBe(false);
    expect('via_parent' in of('project.legacy')).toBe(false);
    expect(of('project.legacy/environment.old')).toMatchObject({ actions: ['delete'], parent: 'project.legacy', via_parent: 'project.legacy', reasons: ['deleted with project.legacy'] });
    expect(of(`${API}/variable.STRAY`)).toMatchObject({ actions: ['delete'], parent: API, reasons: [`not in the manifest, and ${API} prunes variable resources`] });
    expect('via_parent' in of(`${API}/variable.STRAY`)).toBe(false);
  });

  it('keeps an undeclared object whose scope does not prune its kind, unmanaged, with nothing to do', () => {
    const m = fullManifest();
    const stray = plan(m).changes.find((c) => c.address === `${API}/variable.STRAY`)!;
    expect(stray).toMatchObject({ actions: ['no-op'], status: 'unmanaged', parent: API, fields: [], depends_on: [], id: 'v-x' });
    expect(stray.reasons).toHaveLength(1);
  });

  it('says an undeclared child of a replaced environment goes with the replacement', () => {
    const m = fullManifest();
    m.projects![0]!.environments![0]!.cluster = 'staging-cluster';
    const p = plan(m, { allowReplace: true, allowDataLoss: true });
    const stray = p.changes.find((c) => c.address === `${API}/variable.STRAY`);
    // The variable belongs to a service that is replaced with its environment: it goes with the service.
    expect(stray).toMatchObject({ actions: ['delete'], via_parent: API, reasons: [`deleted with ${API}, which is replaced`] });
    expect(p.changes.find((c) => c.address === PROD)!.actions).toEqual(['delete', 'create']);
  });

  it('does not delete again a pruned service the API is already deleting (the plan right after an apply is clean)', () => {
    const m = fullManifest();
    const env = m.projects![0]!.environments![0]!;
    env.prune = { ...(env.prune ?? {}), services: true };
    const removed = env.services!.find((s) => s.type === 'application' && s.name === 'api')!;
    env.services = env.services!.filter((s) => s !== removed);
    const planWith = (state: string) => {
      const r = apiRecords();
      const live = liveFrom(r);
      const svc = live.resources.get(API)!;
      expect(isServiceKind(svc.kind)).toBe(true);
      svc.status = { state };
      return computePlan(buildGraph(m).graph, live, { fingerprintKey: KEY }).changes.filter((c) => c.address === API || c.address.startsWith(`${API}/`));
    };
    // Deployed: pruned, with what is in it.
    expect(planWith('DEPLOYED').find((c) => c.address === API)).toMatchObject({ actions: ['delete'], status: 'planned' });
    // On its way out: nothing to do for it or for anything in it, in any of the deleting states.
    for (const state of ['DELETE_QUEUED', 'DELETING', 'DELETED']) expect(planWith(state)).toEqual([]);
  });
});
