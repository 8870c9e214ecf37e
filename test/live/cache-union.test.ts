import { describe, expect, it } from 'vitest';
import { STALE, unionOfResponses } from '../../src/live/cache-union.js';
import { describeLacking } from '../../src/live/cache-lacks.js';

const staleOnly = (...keys: string[]) => ({ isStale: (k: string) => keys.includes(k) });

describe('unionOfResponses', () => {
  const held = {
    '/organization/o/project': { results: [{ id: 'p1', name: 'shop' }] },
    '/project/p1/environment': { results: [{ id: 'e1', name: 'dev' }] },
    '/environment/e1/services': { results: [{ id: 's1', name: 'api' }] },
    '/variable?parent_id=s1&scope=APPLICATION': { results: [] },
  };

  it('keeps what this run did not use and no event made stale; what it read wins', () => {
    const read = { '/organization/o/project': { results: [{ id: 'p1', name: 'shop2' }] } };
    expect(unionOfResponses(held, staleOnly(), read)).toEqual({ ...held, ...read });
  });

  it('a stale list this run did not use is kept as STALE (to re-read), not as an answer; an object deleted takes its STALE lists', () => {
    const u = unionOfResponses(held, staleOnly('/environment/e1/services', '/variable?parent_id=s1&scope=APPLICATION'), {});
    expect(u['/environment/e1/services']).toBe(STALE);
    expect(u['/variable?parent_id=s1&scope=APPLICATION']).toBe(STALE);
    expect(u['/organization/o/project']).toEqual(held['/organization/o/project']);
    // STALE stays STALE until a run reads it; the list of a deleted service is forgotten.
    const next = unionOfResponses(u, staleOnly(), {}, new Set(['s1']));
    expect(next['/environment/e1/services']).toBe(STALE);
    expect('/variable?parent_id=s1&scope=APPLICATION' in next).toBe(false);
    // The organization record and unknown requests are never kept.
    expect(unionOfResponses({ '/organization': {}, '/something': {} }, staleOnly('/organization', '/something'), {})).toEqual({});
  });
});

describe('describeLacking', () => {
  it('counts the lists and names the first three by the names the cache holds', () => {
    const responses = {
      '/organization/o/project': { results: [{ id: 'p1', name: 'shop' }] },
      '/project/p1/environment': { results: [{ id: 'e1', name: 'dev' }] },
      '/environment/e1/services': { results: [{ id: 's1', name: 'api' }] },
    };
    expect(describeLacking(['/organization/o/webhook'], responses)).toBe("(1: the organization's webhooks)");
    expect(
      describeLacking(['/project/p1/environment', '/environment/e1/deploymentStage', '/variable?parent_id=s1&scope=APPLICATION', '/environment/e9/services', '/project/p1/environment'], responses),
    ).toBe('(4: the environments of project "shop", the deployment stages of environment "dev", the variables of service "api" and 1 more)');
    expect(describeLacking(['/environment/e9/statuses'], responses)).toBe('(1: the service statuses of environment e9)');
  });
});
