/**
 * renameHints: a create next to a live object of the same kind, scope and configuration under
 * another name is reported as a likely rename, with the entry to add; only one-to-one pairs.
 */
import { describe, expect, it } from 'vitest';
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState } from '../../src/model/resource.js';
import { renameHints } from '../../src/plan/rename-hints.js';
import type { ResourceChange } from '../../src/plan/types.js';

const ENV = 'project.shop/environment.staging';

function app(name: string, cpu: number): DesiredResource {
  return { address: `${ENV}/application.${name}`, kind: 'application', name, parent: ENV, attrs: { name, cpu }, dependsOn: [] };
}
function liveApp(name: string, cpu: number, parent = ENV): LiveResource {
  return { address: `${parent}/application.${name}`, kind: 'application', name, parent, id: `id-${name}`, attrs: { name, cpu }, record: {}, version: 'v' };
}
function created(d: DesiredResource): ResourceChange {
  return { address: d.address, kind: d.kind, name: d.name, parent: d.parent, actions: ['create'], status: 'planned', reasons: [], fields: [], depends_on: [] };
}
function hints(desired: DesiredResource[], liveApps: LiveResource[], deleted: Address[] = []) {
  const graph: DesiredGraph = { resources: new Map(desired.map((d) => [d.address, d])), order: desired.map((d) => d.address) };
  const live: LiveState = { organizationId: 'o', resources: new Map(liveApps.map((l) => [l.address, l])), requestCount: 0 };
  const changes: ResourceChange[] = [
    ...desired.map(created),
    ...deleted.map((a): ResourceChange => ({ address: a, kind: 'application', name: a, actions: ['delete'], status: 'planned', reasons: [], fields: [], depends_on: [] })),
  ];
  // The environment itself is live and matched.
  return renameHints(graph, live, changes, new Map([[ENV, ENV]]), undefined);
}

describe('renameHints', () => {
  it('shows the entry for a create next to an undeclared live object of the same configuration', () => {
    const d = hints([app('web', 500)], [liveApp('api', 500)]);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ severity: 'warning', code: 'plan.looks-like-rename', address: `${ENV}/application.web` });
    expect(d[0]!.summary).toBe(`${ENV}/application.web (created) looks like a rename of ${ENV}/application.api (not in the manifest): the same application configuration under another name`);
    expect(d[0]!.detail).toContain(`- {from: ${ENV}/application.api, to: ${ENV}/application.web}`);
  });

  it('says what a delete would lose when the scope prunes', () => {
    const d = hints([app('web', 500)], [liveApp('api', 500)], [`${ENV}/application.api`]);
    expect(d[0]!.summary).toContain('(deleted)');
    expect(d[0]!.detail).toContain('its id, its variables and its deployment history are lost');
  });

  it('stays silent for another configuration, another scope, or a pair that is not one-to-one', () => {
    expect(hints([app('web', 500)], [liveApp('api', 1000)])).toEqual([]);
    expect(hints([app('web', 500)], [liveApp('api', 500, 'project.shop/environment.prod')])).toEqual([]);
    expect(hints([app('web', 500), app('www', 500)], [liveApp('api', 500)])).toEqual([]);
    expect(hints([app('web', 500)], [liveApp('api', 500), liveApp('old', 500)])).toEqual([]);
  });

  it('stays silent for a create whose secret value was not read (plan --no-secret-values): its configuration is not known to be the same', () => {
    const d = app('web', 500);
    const graph: DesiredGraph = { resources: new Map([[d.address, d]]), order: [d.address] };
    const live: LiveState = { organizationId: 'o', resources: new Map([[`${ENV}/application.api`, liveApp('api', 500)]]), requestCount: 0 };
    const unread: ResourceChange = { ...created(d), secrets_not_compared: ['value'] };
    expect(renameHints(graph, live, [unread], new Map([[ENV, ENV]]), undefined)).toEqual([]);
    expect(renameHints(graph, live, [created(d)], new Map([[ENV, ENV]]), undefined)).toHaveLength(1);
  });
});

describe('renameHints: an object with children is the same only when its content is (issue 19)', () => {
  const PROJECT = 'project.shop';
  const env = (name: string): DesiredResource => ({ address: `${PROJECT}/environment.${name}`, kind: 'environment', name, parent: PROJECT, attrs: { name, mode: 'PREVIEW', cluster: 'c' }, dependsOn: [] });
  const liveEnv = (name: string): LiveResource => ({ address: `${PROJECT}/environment.${name}`, kind: 'environment', name, parent: PROJECT, id: `id-${name}`, attrs: { name, mode: 'PREVIEW', cluster: 'c' }, record: {}, version: 'v' });
  const services = (envName: string, n: number, cpu = 500) => Array.from({ length: n }, (_, i) => ({ parent: `${PROJECT}/environment.${envName}`, name: `svc-${i}`, cpu }));
  const dApp = (s: { parent: string; name: string; cpu: number }): DesiredResource => ({ address: `${s.parent}/application.${s.name}`, kind: 'application', name: s.name, parent: s.parent, attrs: { name: s.name, cpu: s.cpu }, dependsOn: [] });
  const lApp = (s: { parent: string; name: string; cpu: number }): LiveResource => ({ address: `${s.parent}/application.${s.name}`, kind: 'application', name: s.name, parent: s.parent, id: `id-${s.parent}-${s.name}`, attrs: { name: s.name, cpu: s.cpu }, record: {}, version: 'v' });

  function envHints(desiredServices: number, liveServices: number, liveCpu = 500) {
    const desired = [env('preview-pr-333'), ...services('preview-pr-333', desiredServices).map(dApp)];
    const liveList = [liveEnv('preview-pr-311'), ...services('preview-pr-311', liveServices, liveCpu).map(lApp)];
    const graph: DesiredGraph = { resources: new Map(desired.map((d) => [d.address, d])), order: desired.map((d) => d.address) };
    const live: LiveState = { organizationId: 'o', resources: new Map(liveList.map((l) => [l.address, l])), requestCount: 0 };
    return renameHints(graph, live, desired.map(created), new Map([[PROJECT, PROJECT]]), undefined);
  }

  it('offers no rename of a 6-service environment for a 9-service one, nor the reverse', () => {
    expect(envHints(9, 6)).toEqual([]);
    expect(envHints(6, 9)).toEqual([]);
  });

  it('offers none when the services differ in configuration', () => {
    expect(envHints(6, 6, 1000)).toEqual([]);
  });

  it('still offers the rename when the content is the same', () => {
    const d = envHints(6, 6);
    expect(d.map((x) => x.summary)).toEqual([`${PROJECT}/environment.preview-pr-333 (created) looks like a rename of ${PROJECT}/environment.preview-pr-311 (not in the manifest): the same environment configuration under another name`]);
  });
});

describe('renameHints: content that was not read', () => {
  it('offers no rename of an environment whose live services were not read (its mode and cluster alone say nothing)', () => {
    const PROJECT = 'project.shop';
    const d: DesiredResource = { address: `${PROJECT}/environment.new`, kind: 'environment', name: 'new', parent: PROJECT, attrs: { name: 'new', mode: 'PREVIEW', cluster: 'c' }, dependsOn: [] };
    const child: DesiredResource = { address: `${d.address}/application.web`, kind: 'application', name: 'web', parent: d.address, attrs: { name: 'web', cpu: 500 }, dependsOn: [] };
    const l: LiveResource = { address: `${PROJECT}/environment.old`, kind: 'environment', name: 'old', parent: PROJECT, id: 'e', attrs: { name: 'old', mode: 'PREVIEW', cluster: 'c' }, record: {}, version: 'v' };
    for (const desired of [[d], [d, child]]) {
      const graph: DesiredGraph = { resources: new Map(desired.map((x) => [x.address, x])), order: desired.map((x) => x.address) };
      const live: LiveState = { organizationId: 'o', resources: new Map([[l.address, l]]), requestCount: 0 };
      expect(renameHints(graph, live, desired.map(created), new Map([[PROJECT, PROJECT]]), undefined)).toEqual([]);
    }
  });
});
