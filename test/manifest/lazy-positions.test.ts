/**
 * Loading without paying for positions (issue 21): a manifest without a diagnostic is loaded, its
 * graph built and checked with the fast parse alone; the positioned parse runs once per file, only
 * when a position of that file is first asked for, and the positions are then those a positioned
 * load gives (the one that runs with a load cache), object for object, through the merge of several
 * files and the graph's `source`.
 */
import { describe, expect, it, vi } from 'vitest';
import * as parseYaml from '../../src/manifest/parse-yaml.js';
import { loadManifestFromSources, type ManifestSource } from '../../src/manifest/load.js';
import type { LoadCacheStore } from '../../src/manifest/load-cache.js';
import { sourceOf } from '../../src/manifest/types.js';
import { buildGraph } from '../../src/graph/build.js';
import { withSources } from '../support/manifest-positions.js';

vi.mock('../../src/manifest/parse-yaml.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/manifest/parse-yaml.js')>();
  return { ...orig, parseYamlFile: vi.fn(orig.parseYamlFile), reparseForPositions: vi.fn(orig.reparseForPositions) };
});
/** The positioned parses: of a load (with a cache, or a file the fast parse declined) and for lazy positions. */
const positionedParses = () => vi.mocked(parseYaml.parseYamlFile).mock.calls.length + vi.mocked(parseYaml.reparseForPositions).mock.calls.length;

const PLATFORM = `version: 1
clusters:
  - name: staging-cluster
projects:
  - name: shop
    environments:
      - name: dev
        cluster: staging-cluster
`;
const TEAM = `version: 1
projects:
  - name: shop
    variables:
      - &level
        key: LOG_LEVEL
        value: info
    environments:
      - name: dev
        variables:
          - <<: *level
        services:
          - type: application
            name: api
            git_repository: { url: https://github.com/acme/api.git, branch: main }
            dockerfile_path: Dockerfile
            cpu: 250
            memory: 256
            variables:
              - { key: API_KEY, value: "\${env:API_KEY}", secret: true }
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
`;

const sources = (): ManifestSource[] => [
  { file: { path: '/v/platform.yaml', root: '/v', display: 'platform.yaml' }, text: PLATFORM },
  { file: { path: '/v/team.yaml', root: '/v', display: 'team.yaml' }, text: TEAM },
];
const env = { API_KEY: 'the-secret-value-1234' };
const readFile = () => ({ ok: false as const, reason: 'none' });
/** A load with a cache store that never holds anything: the positioned parse, as before issue 21. */
const positionedLoad = () => {
  const store: LoadCacheStore = { identity: 'test', read: () => undefined, write: () => undefined };
  return loadManifestFromSources(sources(), { env, readFile, cache: store });
};

describe('positions built only when asked for', () => {
  it('a clean load, its graph and the graph checks run no positioned parse', () => {
    const before = positionedParses();
    const r = loadManifestFromSources(sources(), { env, readFile });
    expect(r.diagnostics).toEqual([]);
    const g = buildGraph(r.manifest!);
    expect(g.diagnostics).toEqual([]);
    expect(g.graph.resources.size).toBeGreaterThan(5);
    expect(positionedParses()).toBe(before);
  });

  it('the first position asked for parses that file once, and every position is the positioned load’s', () => {
    const lazy = loadManifestFromSources(sources(), { env, readFile });
    const graph = buildGraph(lazy.manifest!).graph;
    const before = positionedParses();
    const web = lazy.manifest!.projects![0]!.environments![0]!.services![1]!;
    expect(sourceOf(web, 'tag')).toEqual({ file: 'team.yaml', start: { line: 25, col: 18 }, end: { line: 25, col: 24 } });
    // One file asked for: one parse; asking again parses nothing more.
    expect(positionedParses()).toBe(before + 1);
    expect(vi.mocked(parseYaml.reparseForPositions).mock.calls.at(-1)![1]).toBe('team.yaml');
    sourceOf(web);
    expect(positionedParses()).toBe(before + 1);

    const positioned = positionedLoad();
    expect(withSources(lazy.manifest)).toEqual(withSources(positioned.manifest));
    const sourcesOf = (g: typeof graph) => [...g.resources.values()].map((res) => [res.address, res.source]);
    expect(sourcesOf(graph)).toEqual(sourcesOf(buildGraph(positioned.manifest!).graph));
  });

  it('a manifest with a mistake reports it where the positioned load does', () => {
    const broken = sources();
    broken[1]!.text = TEAM.replace('tag: "1.27"', 'tag: "1.27"\n            cpus: 2');
    const lazy = loadManifestFromSources(broken, { env, readFile });
    const store: LoadCacheStore = { identity: 'test', read: () => undefined, write: () => undefined };
    const positioned = loadManifestFromSources(broken, { env, readFile, cache: store });
    expect(lazy.diagnostics.length).toBeGreaterThan(0);
    expect(lazy.diagnostics.map((d) => [d.code, d.range?.file, d.range?.start])).toEqual([['schema.unknown-key', 'team.yaml', { line: 26, col: 13 }]]);
    expect(lazy.diagnostics).toEqual(positioned.diagnostics);
  });
});
