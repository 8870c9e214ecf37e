/**
 * The resources buildGraph makes: each is the object its kind's walk writes (no copy of it), with
 * its keys in the order they always had (the walk's, then `source`, then `dependsOn` when the walk
 * gives none, then what `add` derives), a lazy `source`, and nothing else: no helper key
 * (`sourceFrom`), nothing a spread, JSON or an equality check would see beyond the resource.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { fullManifest, PROD, API } from '../plan/fixtures.js';

describe('buildGraph resources', () => {
  it('keep the key order of every kind', () => {
    const { graph } = buildGraph(fullManifest());
    const keysOf = (a: string) => Object.keys(graph.resources.get(a)!);
    expect(keysOf('organization')).toEqual(['address', 'kind', 'name', 'attrs', 'source', 'dependsOn']);
    expect(keysOf('cluster.production-cluster')).toEqual(['address', 'kind', 'name', 'attrs', 'source', 'dependsOn']);
    expect(keysOf('project.shop/variable.API_KEY').slice(0, 8)).toEqual(['address', 'kind', 'name', 'parent', 'attrs', 'sensitiveFields', 'source', 'dependsOn']);
    expect(keysOf(PROD).slice(0, 8)).toEqual(['address', 'kind', 'name', 'parent', 'attrs', 'dependsOn', 'prune', 'source']);
    expect(keysOf(API).slice(0, 11)).toEqual(['address', 'kind', 'name', 'parent', 'attrs', 'dependsOn', 'sensitiveFields', 'deploy', 'prune', 'cloneFrom', 'source']);
  });

  it('have a lazy source and no other own property than their keys', () => {
    const { graph } = buildGraph(fullManifest());
    for (const r of graph.resources.values()) {
      expect(Object.keys(r)).not.toContain('sourceFrom');
      expect(Object.getOwnPropertyNames(r)).toEqual(Object.keys(r));
      expect(Object.getOwnPropertySymbols(r)).toEqual([]);
      expect(typeof Object.getOwnPropertyDescriptor(r, 'source')?.get).toBe('function');
    }
    const api = graph.resources.get(API)!;
    const copy = { ...api };
    expect(Object.keys(copy)).toEqual(Object.keys(api));
    expect(JSON.parse(JSON.stringify(api))).toEqual(JSON.parse(JSON.stringify(copy)));
  });
});
