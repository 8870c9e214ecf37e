/**
 * The rolling verification of the refresh cache (`--verify-requests N`): which cached lists each
 * warm run re-reads (a rotation that reaches every list within ceil(lists / N) runs), and the
 * address it names when a re-read list differs from the cache ("the audit log did not explain a
 * change to ADDRESS"). Pure functions; the cache's answers are written out below.
 */
import { describe, expect, it } from 'vitest';
import { canonical, changedAddress, differenceOf, fullRotationRuns, goneAddress, keysToVerify } from '../../src/live/verify.js';

const ORG = '/organization/o1';
const nothingStale = { isStale: () => false };

/** What the cache holds for project p1 (shop), its environment e1 (prod) and service s1 (api). */
function cached(): Record<string, unknown> {
  return {
    '/organization': { id: 'o1', name: 'Acme' },
    [`${ORG}/project`]: { results: [{ id: 'p1', name: 'shop' }, { id: 'p2', name: 'blog' }] },
    [`${ORG}/containerRegistry`]: { results: [{ id: 'r1', name: 'hub' }] },
    '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }] },
    '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'CONTAINER' }, { id: 's2', name: 'db', service_type: 'DATABASE' }] },
    '/environment/e1/statuses': { environment: { id: 'e1', state: 'DEPLOYED' } },
    '/environment/e1/deploymentStage': { results: [] },
    '/variable?parent_id=s1&scope=CONTAINER': { results: [{ id: 'v1', key: 'PORT', value: '80' }] },
    '/variable?parent_id=e1&scope=ENVIRONMENT': { results: [{ id: 'v2', key: 'MODE', value: 'x' }] },
    '/variable?parent_id=p1&scope=PROJECT': { results: [] },
  };
}

describe('the rotation of --verify-requests', () => {
  it('reaches every cached list within ceil(lists / N) warm runs, never fewer than one, never with N = 0', () => {
    expect(fullRotationRuns(10, 5)).toBe(2);
    expect(fullRotationRuns(11, 5)).toBe(3);
    expect(fullRotationRuns(5, 5)).toBe(1);
    expect(fullRotationRuns(0, 5)).toBe(1);
    expect(fullRotationRuns(10, 0)).toBe(Infinity);
    expect(fullRotationRuns(10, -1)).toBe(Infinity);
    expect(fullRotationRuns(0, 0)).toBe(Infinity);
  });

  it('re-reads only lists answered from the cache: not the organization, not the lists never cached, not a stale one', () => {
    const keys = Object.keys(cached()).concat([`${ORG}/cluster`, `${ORG}/cluster/status`, '/something/else']);
    const stale = { isStale: (k: string) => k === '/environment/e1/statuses' };
    expect(keysToVerify(keys, stale, undefined, 100)).toEqual(
      [
        `${ORG}/containerRegistry`,
        `${ORG}/project`,
        '/environment/e1/deploymentStage',
        '/environment/e1/services',
        '/project/p1/environment',
        '/variable?parent_id=e1&scope=ENVIRONMENT',
        '/variable?parent_id=p1&scope=PROJECT',
        '/variable?parent_id=s1&scope=CONTAINER',
      ].sort(),
    );
  });

  it('takes the next N keys after the last one verified, wrapping around, so that successive runs cover them all', () => {
    const keys = ['/project/a/environment', '/project/b/environment', '/project/c/environment', '/project/d/environment', '/project/e/environment'];
    const shuffled = [keys[3]!, keys[0]!, keys[4]!, keys[2]!, keys[1]!];
    expect(keysToVerify(shuffled, nothingStale, undefined, 2)).toEqual([keys[0], keys[1]]);
    expect(keysToVerify(shuffled, nothingStale, keys[1], 2)).toEqual([keys[2], keys[3]]);
    expect(keysToVerify(shuffled, nothingStale, keys[3], 2)).toEqual([keys[4], keys[0]]);
    // The last key verified may be gone from the cache since: the rotation goes on after where it was.
    expect(keysToVerify(shuffled, nothingStale, '/project/bb/environment', 2)).toEqual([keys[2], keys[3]]);
    // After the last key of all: from the start again.
    expect(keysToVerify(shuffled, nothingStale, '/project/z/environment', 2)).toEqual([keys[0], keys[1]]);
    // Three runs of two cover all five lists, as fullRotationRuns says.
    const seen = new Set<string>();
    let after: string | undefined;
    for (let run = 0; run < fullRotationRuns(keys.length, 2); run++) {
      const chosen = keysToVerify(shuffled, nothingStale, after, 2);
      chosen.forEach((k) => seen.add(k));
      after = chosen.at(-1);
    }
    expect([...seen].sort()).toEqual(keys);
  });

  it('re-reads all of them when there are no more than N, and none with N = 0', () => {
    const keys = ['/project/b/environment', '/project/a/environment'];
    expect(keysToVerify(keys, nothingStale, keys[0], 2)).toEqual(['/project/a/environment', '/project/b/environment']);
    expect(keysToVerify(keys, nothingStale, '/project/a/environment', 2)).toEqual(['/project/a/environment', '/project/b/environment']);
    expect(keysToVerify(keys, nothingStale, undefined, 0)).toEqual([]);
    expect(keysToVerify(keys, nothingStale, undefined, -3)).toEqual([]);
  });
});

describe('what a re-read list that differs from the cache names', () => {
  it('nothing when the answers differ only in the order of keys', () => {
    const c = cached();
    expect(differenceOf('/project/p1/environment', { results: [{ name: 'prod', id: 'e1' }] }, c)).toBeUndefined();
    expect(canonical({ b: [1, { d: null, c: 'x' }], a: true })).toBe(canonical({ a: true, b: [1, { c: 'x', d: null }] }));
    expect(canonical([1, 2])).not.toBe(canonical([2, 1]));
    expect(canonical([1, 2])).not.toBe(canonical([12]));
    expect(canonical([[1], 2])).not.toBe(canonical([1, [2]]));
    expect(canonical({ a: [1] })).not.toBe(canonical({ a: 1 }));
    expect(canonical({ a: {} })).not.toBe(canonical({ a: [] }));
    expect(canonical({ a: undefined })).not.toBe(canonical({ a: null }));
    expect(canonical({ a: 'x', b: 'y' })).not.toBe(canonical({ a: 'xb', b: '' }));
  });

  it('a project added, renamed or removed, by name', () => {
    const c = cached();
    expect(differenceOf(`${ORG}/project`, { results: [{ id: 'p1', name: 'shop' }, { id: 'p2', name: 'blog' }, { id: 'p3', name: 'new' }] }, c)).toBe('project.new');
    expect(differenceOf(`${ORG}/project`, { results: [{ id: 'p1', name: 'shop2' }, { id: 'p2', name: 'blog' }] }, c)).toBe('project.shop2');
    expect(differenceOf(`${ORG}/project`, { results: [{ id: 'p1', name: 'shop' }] }, c)).toBe('project.blog');
    expect(differenceOf(`${ORG}/project`, { results: [{ id: 'p1', name: 'shop' }, { id: 'p2', name: 'blog' }], page: 2 }, c)).toBe('the projects');
  });

  it('an organization-level object by its list and name, or the list', () => {
    const c = cached();
    expect(differenceOf(`${ORG}/containerRegistry`, { results: [{ id: 'r1', name: 'quay' }] }, c)).toBe('containerRegistry "quay"');
    expect(differenceOf(`${ORG}/containerRegistry`, { results: [{ id: 'r1', name: 'hub' }], total: 1 }, c)).toBe("the organization's containerRegistry");
  });

  it('an environment under its project', () => {
    const c = cached();
    expect(differenceOf('/project/p1/environment', { results: [{ id: 'e1', name: 'prod' }, { id: 'e9', name: 'preview' }] }, c)).toBe('project.shop/environment.preview');
    expect(differenceOf('/project/p1/environment', { results: [{ id: 'e1', name: 'prod' }], extra: true }, c)).toBe('the environments of project.shop');
    // An id the cache has no name for is shown as it is.
    expect(differenceOf('/project/p9/environment', { results: [] }, c)).toBe('the environments of p9');
  });

  it('a service by its kind and name, a deleted one too', () => {
    const c = cached();
    expect(differenceOf('/environment/e1/services', { results: [{ id: 's1', name: 'api', service_type: 'CONTAINER', cpu: 2 }, { id: 's2', name: 'db', service_type: 'DATABASE' }] }, c)).toBe(
      'project.shop/environment.prod/container.api',
    );
    expect(differenceOf('/environment/e1/services', { results: [{ id: 's1', name: 'api', service_type: 'CONTAINER' }] }, c)).toBe('project.shop/environment.prod/database.db');
    expect(differenceOf('/environment/e1/services', { results: [{ id: 's1', name: 'api', service_type: 'CONTAINER' }, { id: 's2', name: 'db', service_type: 'DATABASE' }, { id: 's3' }] }, c)).toBe(
      'project.shop/environment.prod/service.s3',
    );
  });

  it('the statuses and deployment stages of an environment', () => {
    const c = cached();
    expect(differenceOf('/environment/e1/statuses', { environment: { id: 'e1', state: 'STOPPED' } }, c)).toBe('project.shop/environment.prod (deployment statuses)');
    expect(differenceOf('/environment/e1/deploymentStage', { results: [{ id: 'st1', name: 'first' }] }, c)).toBe('project.shop/environment.prod (deployment stages)');
    expect(differenceOf('/environment/e1/services', { results: [] , more: 1 }, { ...c, '/environment/e1/services': { results: [] } })).toBe('project.shop/environment.prod (services)');
  });

  it('a variable under its service, environment or project', () => {
    const c = cached();
    expect(differenceOf('/variable?parent_id=s1&scope=CONTAINER', { results: [{ id: 'v1', key: 'PORT', value: '81' }] }, c)).toBe('project.shop/environment.prod/container.api/variable.PORT');
    expect(differenceOf('/variable?parent_id=e1&scope=ENVIRONMENT', { results: [] }, c)).toBe('project.shop/environment.prod/variable.MODE');
    expect(differenceOf('/variable?parent_id=p1&scope=PROJECT', { results: [{ id: 'v3', key: 'NEW' }] }, c)).toBe('project.shop/variable.NEW');
    expect(differenceOf('/variable?parent_id=p1&scope=PROJECT', { results: [], x: 1 }, c)).toBe('the variables of project.shop');
  });

  it("a service's list shows its environment's and project's variables too: one changed there is named where it is declared", () => {
    const c = cached();
    // The service's variable list holds every variable it sees, each with the scope it is declared at.
    expect(differenceOf('/variable?parent_id=s1&scope=CONTAINER', { results: [{ id: 'v7', key: 'FLAG', value: '2', scope: 'ENVIRONMENT' }] }, c)).toBe('project.shop/environment.prod/variable.FLAG');
    expect(differenceOf('/variable?parent_id=s1&scope=CONTAINER', { results: [{ id: 'v8', key: 'TEAM', value: 'b', scope: 'PROJECT' }] }, c)).toBe('project.shop/variable.TEAM');
    expect(differenceOf('/variable?parent_id=s1&scope=CONTAINER', { results: [{ id: 'v1', key: 'PORT', value: '81', scope: 'CONTAINER' }] }, c)).toBe('project.shop/environment.prod/container.api/variable.PORT');
  });

  it('a service whose environment the cache does not list, by the environment id', () => {
    const c = cached();
    delete c['/project/p1/environment'];
    expect(differenceOf('/variable?parent_id=s1&scope=CONTAINER', { results: [] }, c)).toBe('environment e1/container.api/variable.PORT');
  });

  it('a list answered 404 names the object whose list it is', () => {
    const c = cached();
    expect(goneAddress('/project/p1/environment', c)).toBe('project.shop');
    expect(goneAddress('/environment/e1/services', c)).toBe('project.shop/environment.prod');
    expect(goneAddress('/variable?parent_id=s1&scope=CONTAINER', c)).toBe('project.shop/environment.prod/container.api');
    expect(goneAddress('/variable?parent_id=x9&scope=CONTAINER', c)).toBe('x9');
    expect(goneAddress(`${ORG}/containerRegistry`, c)).toBe(`${ORG}/containerRegistry`);
  });

  it('a key of no known shape by the key itself', () => {
    expect(changedAddress('/something/else', [], [{ id: 'x' }], cached())).toBe('/something/else');
  });
});
