/**
 * computePlan with `ignore_changes`: an ignored field that differs is neither a change, nor a reason
 * to replace or to deploy; an object that does not exist yet is created with every field; the plan
 * counts the fields it ignored on existing objects.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { ApplicationSpec, ContainerSpec, Manifest } from '../../src/manifest/types.js';
import type { LiveState } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan } from '../../src/plan/types.js';
import { API, KEY, PROD, apiRecords, fullManifest, liveFrom } from './fixtures.js';

const WEB = `${PROD}/container.web`;

function planOf(m: Manifest, live: LiveState = liveFrom(apiRecords())): Plan {
  const { graph, diagnostics } = buildGraph(m);
  expect(diagnostics).toEqual([]);
  return computePlan(graph, live, { fingerprintKey: KEY });
}

function edit(f: (m: Manifest) => void): Manifest {
  const m = fullManifest();
  f(m);
  return m;
}
const env = (m: Manifest) => m.projects![0]!.environments![0]!;
const web = (m: Manifest) => env(m).services!.find((s) => s.name === 'web') as ContainerSpec;
const api = (m: Manifest) => env(m).services!.find((s) => s.name === 'api') as ApplicationSpec;
const change = (p: Plan, address: string) => p.changes.find((c) => c.address === address)!;

describe('computePlan and ignore_changes', () => {
  it('the fixture plans clean: what follows is caused by the edits', () => {
    expect(planOf(fullManifest()).summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
  });

  it('an ignored tag that differs is neither an update nor a deploy (it is both without ignore_changes)', () => {
    const bumped = edit((m) => (web(m).tag = '9.9'));
    const without = change(planOf(bumped), WEB);
    expect([without.actions, without.deploy?.image_tag]).toEqual([['update'], '9.9']);
    const ignored = planOf(edit((m) => ((web(m).tag = '9.9'), (web(m).ignore_changes = ['tag']))));
    const c = change(ignored, WEB);
    expect([c.actions, c.fields, c.deploy, c.ignored]).toEqual([['no-op'], [], undefined, ['tag']]);
    expect(ignored.summary).toMatchObject({ change: 0, deploy: 0 });
    expect(ignored.ignored_fields).toBe(1);
  });

  it('an update of another field deploys what runs, not the ignored tag', () => {
    const p = planOf(edit((m) => ((web(m).tag = '9.9'), (web(m).cpu = 500), (web(m).ignore_changes = ['tag']))));
    const c = change(p, WEB);
    expect(c.fields.map((f) => f.field)).toEqual(['cpu']);
    expect(c.after?.tag).toBe('1.27');
    expect(c.deploy?.reasons).toEqual(['configuration changed (cpu)']);
    expect(c.deploy?.image_tag).toBeUndefined();
  });

  it('an ignored immutable field never forces a replace', () => {
    expect(change(planOf(edit((m) => (env(m).cluster = 'other-cluster'))), PROD).actions).toEqual(['delete', 'create']);
    const p = planOf(edit((m) => ((env(m).cluster = 'other-cluster'), (env(m).ignore_changes = ['cluster']))));
    expect(change(p, PROD).actions).toEqual(['no-op']);
    expect(p.summary).toMatchObject({ add: 0, destroy: 0 });
  });

  it('an ignored git_commit_id pin does not deploy', () => {
    const pin = 'b'.repeat(40);
    expect(change(planOf(edit((m) => (api(m).git_commit_id = pin))), API).deploy?.git_commit_id).toBe(pin);
    const c = change(planOf(edit((m) => ((api(m).git_commit_id = pin), (api(m).ignore_changes = ['git_commit_id'])))), API);
    expect(c.deploy).toBeUndefined();
    expect(c.ignored).toEqual(['git_commit_id']);
  });

  it('an object that does not exist yet is created with every field, and nothing is counted as ignored', () => {
    const live = liveFrom(apiRecords());
    for (const a of [...live.resources.keys()]) if (a.startsWith(WEB)) live.resources.delete(a);
    const p = planOf(edit((m) => (web(m).ignore_changes = 'all')), live);
    const c = change(p, WEB);
    expect(c.actions).toEqual(['create']);
    expect(c.after).toMatchObject({ tag: '1.27', cpu: 250, memory: 256 });
    expect(c.deploy?.image_tag).toBe('1.27');
    expect(c.ignored).toBeUndefined();
    expect(p.ignored_fields).toBeUndefined();
  });
});
