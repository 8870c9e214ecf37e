/**
 * The kinds whose objects the API cannot create (the organization, clusters, container registries,
 * helm repositories) say so in their descriptors (`readOnly`), and every stage asks that: apply
 * refuses to create one with the same message for each, before any request, and plan never lists
 * one as unmanaged. (A helm repository used to reach the service writer and fail there with an
 * unrelated message.)
 */
import { describe, expect, it } from 'vitest';
import { createResource, type WriteContext } from '../../src/apply/writers.js';
import { IdRegistry } from '../../src/apply/refs.js';
import { RESOURCE_KINDS, kindDescriptor, readOnlyKinds } from '../../src/model/kinds/index.js';
import type { ApiPort } from '../../src/live/api-port.js';
import type { DesiredResource, ResourceKind } from '../../src/model/resource.js';
import type { ResourceChange } from '../../src/plan/types.js';

describe('read-only kinds', () => {
  it('are the ones the API offers no create for', () => {
    expect([...readOnlyKinds()].sort()).toEqual(['cluster', 'container_registry', 'helm_repository', 'organization']);
    for (const k of RESOURCE_KINDS) expect(kindDescriptor(k).readOnly === true, k).toBe(readOnlyKinds().has(k));
  });

  for (const kind of ['organization', 'cluster', 'container_registry', 'helm_repository'] as ResourceKind[]) {
    it(`apply refuses to create ${kind} before any request`, async () => {
      const requests: string[] = [];
      const api = new Proxy({ requestCount: 0 }, { get: (t, p) => (p === 'requestCount' ? 0 : (path: string) => (requests.push(`${String(p)} ${path}`), Promise.reject(new Error('no request expected')))) }) as unknown as ApiPort;
      const ctx: WriteContext = {
        api,
        refs: new IdRegistry('org', { organizationId: 'org', requestCount: 0, resources: new Map() }),
        organizationId: 'org',
        fingerprintKey: 'k',
        timing: { now: () => 0, sleep: async () => {} },
        deadline: 1,
        pollIntervalMs: 1,
      };
      const address = kind === 'organization' ? 'organization' : `${kind}.x`;
      const d = { address, kind, name: 'x', attrs: {}, dependsOn: [] } as unknown as DesiredResource;
      const c = { address, kind, name: 'x', actions: ['create'] } as unknown as ResourceChange;
      await expect(createResource(c, d, ctx)).rejects.toThrow(`${address}: a${kind === 'organization' ? 'n' : ''} ${kind} cannot be created through the API; create it in the console and run plan again`);
      expect(requests).toEqual([]);
    });
  }
});

describe('organization-level lists', () => {
  it('every kind that lives in the organization itself names the list holding its objects', async () => {
    const { ORG_LISTS } = await import('../../src/api/routes.js');
    const { orgListOf } = await import('../../src/model/kinds/index.js');
    const withList = RESOURCE_KINDS.filter((k) => orgListOf(k) !== undefined);
    expect(withList).toEqual(['cluster', 'container_registry', 'helm_repository', 'annotations_group', 'labels_group', 'alert_receiver', 'alert_rule', 'webhook', 'project']);
    for (const k of withList) expect(Object.keys(ORG_LISTS), k).toContain(orgListOf(k));
    // The others live under a parent (or are the organization, or variables under any holder).
    for (const k of RESOURCE_KINDS.filter((x) => orgListOf(x) === undefined)) expect(kindDescriptor(k).parent !== undefined || kindDescriptor(k).singleton === true || k === 'variable', k).toBe(true);
  });
});
