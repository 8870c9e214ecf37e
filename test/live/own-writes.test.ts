/**
 * What an apply's own writes mark stale in the cache it leaves (src/live/own-writes.ts): the lists
 * of what it wrote to, coarsely, and nothing of what it did not touch.
 */
import { describe, expect, it } from 'vitest';
import { responsesAfterOwnWrites, writtenAddresses } from '../../src/live/own-writes.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';

const ORG = '/organization/org';
/** Project p1 (environments e1, e2; services s1 in e1, s2 in e2), project p2 (environment e3, service s3). */
function cached(): Record<string, unknown> {
  return {
    [`${ORG}/project`]: { results: [{ id: 'p1', name: 'shop' }, { id: 'p2', name: 'blog' }] },
    [`${ORG}/labelsGroups`]: { results: [] },
    '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }, { id: 'e2', name: 'dev' }] },
    '/project/p2/environment': { results: [{ id: 'e3', name: 'prod' }] },
    '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'APPLICATION' }] },
    '/environment/e1/statuses': { environment: { id: 'e1', state: 'DEPLOYED' }, applications: [{ id: 's1', state: 'DEPLOYED' }] },
    '/environment/e1/deploymentStage': { results: [] },
    '/environment/e2/services': { results: [{ id: 's2', name: 'api', service_type: 'APPLICATION' }] },
    '/environment/e2/statuses': { environment: { id: 'e2', state: 'DEPLOYED' }, applications: [{ id: 's2', state: 'DEPLOYED' }] },
    '/environment/e3/services': { results: [{ id: 's3', name: 'web', service_type: 'APPLICATION' }] },
    '/environment/e3/statuses': { environment: { id: 'e3', state: 'DEPLOYED' }, applications: [{ id: 's3', state: 'DEPLOYED' }] },
    '/variable?parent_id=s1&scope=APPLICATION': { results: [] },
    '/variable?parent_id=s2&scope=APPLICATION': { results: [] },
    '/variable?parent_id=s3&scope=APPLICATION': { results: [] },
  };
}
const IDS: Record<string, string> = { 'project.shop': 'p1', 'project.shop/environment.prod': 'e1', 'project.shop/environment.dev': 'e2', 'project.blog': 'p2', 'project.blog/environment.prod': 'e3' };
const idOf = (a: string) => IDS[a];

function change(address: string, actions: ResourceChange['actions'], more: Partial<ResourceChange> = {}): ResourceChange {
  return { address, kind: 'application', name: address.split('.').pop()!, actions, status: 'planned', reasons: [], fields: [], depends_on: [], ...more } as unknown as ResourceChange;
}
const plan = (changes: ResourceChange[], deploy_order: Plan['deploy_order'] = []) => ({ changes, deploy_order });
const staleKeys = (r: Record<string, unknown>) => Object.keys(r).filter((k) => r[k] === null).sort();

describe("an apply's own writes in the cache it leaves", () => {
  it('a service changed in one environment: that environment\'s lists and its project\'s list, nothing of the others', () => {
    const out = responsesAfterOwnWrites(cached(), plan([change('project.shop/environment.prod/application.api', ['update'])]), idOf);
    expect(staleKeys(out)).toEqual(
      [`${ORG}/labelsGroups`, `${ORG}/project`, '/environment/e1/deploymentStage', '/environment/e1/services', '/environment/e1/statuses', '/project/p1/environment', '/variable?parent_id=s1&scope=APPLICATION'].sort(),
    );
    expect(out['/environment/e2/services']).toEqual(cached()['/environment/e2/services']);
    expect(out['/environment/e3/statuses']).toEqual(cached()['/environment/e3/statuses']);
  });

  it('a deploy alone counts as a write (the statuses move)', () => {
    const out = responsesAfterOwnWrites(cached(), plan([], [{ environment: 'project.blog/environment.prod', stages: [{ stage: null, services: ['project.blog/environment.prod/application.web'] }] }]), idOf);
    expect(staleKeys(out)).toContain('/environment/e3/statuses');
    expect(staleKeys(out)).not.toContain('/environment/e1/statuses');
  });

  it('a project variable reaches every service list of the project, not another project\'s', () => {
    const out = responsesAfterOwnWrites(cached(), plan([change('project.shop/variable.LOG_LEVEL', ['update'])]), idOf);
    for (const k of ['/environment/e1/services', '/environment/e2/statuses', '/variable?parent_id=s1&scope=APPLICATION', '/variable?parent_id=s2&scope=APPLICATION']) expect(staleKeys(out)).toContain(k);
    expect(staleKeys(out)).not.toContain('/environment/e3/services');
    expect(staleKeys(out)).not.toContain('/variable?parent_id=s3&scope=APPLICATION');
  });

  it('an organization-level object (a labels group) makes every service and status list stale', () => {
    const out = responsesAfterOwnWrites(cached(), plan([change('labels_group.team', ['update'])]), idOf);
    for (const e of ['e1', 'e2', 'e3']) expect(staleKeys(out)).toEqual(expect.arrayContaining([`/environment/${e}/services`, `/environment/${e}/statuses`]));
  });

  it('nothing written (no-op, unmanaged or blocked changes): the cache as it was', () => {
    const changes = [change('project.shop/environment.prod/application.api', ['no-op']), change('project.blog', ['delete'], { status: 'blocked' } as Partial<ResourceChange>)];
    expect(writtenAddresses(plan(changes))).toEqual([]);
    expect(responsesAfterOwnWrites(cached(), plan(changes), idOf)).toEqual(cached());
  });
});
