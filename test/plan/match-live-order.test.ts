/**
 * matchLive hands the plan graph.order's resources and their live matches index by index, and
 * its set of claimed live addresses: they must be what liveOf says (the plan no longer looks each
 * address up), including when a live object is claimed by a name in another case first, and the
 * same live object is then at another desired resource's own address.
 */
import { describe, expect, it } from 'vitest';
import type { DesiredGraph, DesiredResource, LiveResource, LiveState } from '../../src/model/resource.js';
import { matchLive } from '../../src/plan/moved.js';

function desired(address: string, kind: DesiredResource['kind'], name: string, parent?: string): DesiredResource {
  return { address, kind, name, attrs: { name }, dependsOn: [], ...(parent ? { parent } : {}) } as DesiredResource;
}

function liveRes(address: string, kind: LiveResource['kind'], name: string, parent?: string): LiveResource {
  return { address, kind, name, id: address, version: '1', attrs: { name }, record: {}, ...(parent ? { parent } : {}) } as LiveResource;
}

function graphOf(rs: DesiredResource[]): DesiredGraph {
  return { resources: new Map(rs.map((r) => [r.address, r])), order: rs.map((r) => r.address) };
}

function liveOfList(ls: LiveResource[]): LiveState {
  return { organizationId: 'o', requestCount: 0, resources: new Map(ls.map((l) => [l.address, l])) };
}

function expectConsistent(graph: DesiredGraph, live: LiveState): ReturnType<typeof matchLive> {
  const m = matchLive(graph, live);
  graph.order.forEach((a, i) => {
    expect(m.desiredInOrder[i]).toBe(graph.resources.get(a));
    const la = m.liveOf.get(a);
    expect(m.liveInOrder[i]).toBe(la === undefined ? undefined : live.resources.get(la));
  });
  expect([...m.claimed].sort()).toEqual([...m.liveOf.values()].sort());
  return m;
}

describe('matchLive, index by index', () => {
  it('pairs every resource found at its own address', () => {
    const graph = graphOf([desired('project.shop', 'project', 'shop'), desired('project.shop/environment.prod', 'environment', 'prod', 'project.shop'), desired('project.new', 'project', 'new')]);
    const live = liveOfList([liveRes('project.shop', 'project', 'shop'), liveRes('project.shop/environment.prod', 'environment', 'prod', 'project.shop')]);
    const m = expectConsistent(graph, live);
    expect(m.liveInOrder.map((l) => l?.address)).toEqual(['project.shop', 'project.shop/environment.prod', undefined]);
  });

  it('does not give a live object claimed in another case to the resource at its own address', () => {
    // `Shop` comes first and takes the live `shop` (names of projects ignore case); `shop` then
    // finds it at its own address, already claimed: it is created.
    const graph = graphOf([desired('project.Shop', 'project', 'Shop'), desired('project.shop', 'project', 'shop')]);
    const live = liveOfList([liveRes('project.shop', 'project', 'shop')]);
    const m = expectConsistent(graph, live);
    expect(m.liveOf.get('project.Shop')).toBe('project.shop');
    expect(m.liveOf.has('project.shop')).toBe(false);
    expect(m.liveInOrder.map((l) => l?.address)).toEqual(['project.shop', undefined]);
  });

  it('follows a parent matched in another case', () => {
    const graph = graphOf([desired('project.SHOP', 'project', 'SHOP'), desired('project.SHOP/environment.prod', 'environment', 'prod', 'project.SHOP')]);
    const live = liveOfList([liveRes('project.shop', 'project', 'shop'), liveRes('project.shop/environment.prod', 'environment', 'prod', 'project.shop')]);
    const m = expectConsistent(graph, live);
    expect(m.liveInOrder.map((l) => l?.address)).toEqual(['project.shop', 'project.shop/environment.prod']);
  });
});
