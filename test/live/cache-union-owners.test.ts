/**
 * What the cache keeps of each kind of list when it was not read this run: a stale organization
 * list or environment list is kept as STALE (some manifest sharing the cache needs it re-read),
 * the lists of a deleted project, environment or service are forgotten, the organization's own
 * lists are never forgotten by a deletion, and what was read wins.
 */
import { describe, expect, it } from 'vitest';
import { STALE, unionOfResponses } from '../../src/live/cache-union.js';

const stale = (...keys: string[]) => ({ isStale: (k: string) => keys.includes(k) });
const held = {
  '/organization/o/project': { results: [{ id: 'p1' }] },
  '/project/p1/environment': { results: [{ id: 'e1' }] },
  '/environment/e1/services': { results: [{ id: 's1' }] },
  '/environment/e1/statuses': { applications: [] },
  '/variable?parent_id=s1&scope=APPLICATION': { results: [] },
};

describe('unionOfResponses, list by list', () => {
  it('keeps each stale list it did not read as STALE, of every kind', () => {
    const u = unionOfResponses(held, stale(...Object.keys(held)), {});
    expect(u).toEqual(Object.fromEntries(Object.keys(held).map((k) => [k, STALE])));
  });

  it("forgets a deleted object's lists, and only those", () => {
    expect(Object.keys(unionOfResponses(held, stale(), {}, new Set(['p1'])))).toEqual(Object.keys(held).filter((k) => k !== '/project/p1/environment'));
    expect(Object.keys(unionOfResponses(held, stale(), {}, new Set(['e1'])))).toEqual(['/organization/o/project', '/project/p1/environment', '/variable?parent_id=s1&scope=APPLICATION']);
    expect(Object.keys(unionOfResponses(held, stale(), {}, new Set(['s1'])))).toEqual(Object.keys(held).filter((k) => !k.includes('parent_id=s1')));
    // The organization's lists are not the organization's object lists: its id forgets none of them.
    expect(Object.keys(unionOfResponses(held, stale(), {}, new Set(['o'])))).toEqual(Object.keys(held));
  });

  it('what this run read wins over what was held, deleted or not', () => {
    const read = { '/project/p1/environment': { results: [{ id: 'e2' }] } };
    expect(unionOfResponses(held, stale(), read, new Set(['p1']))['/project/p1/environment']).toEqual({ results: [{ id: 'e2' }] });
  });
});
