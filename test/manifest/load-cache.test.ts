/**
 * The manifest load cache's core (src/manifest/load-cache.ts through loadManifestFromSources): a
 * hit parses nothing and gives the very manifest, source positions and diagnostics of a fresh load;
 * a changed byte, a damaged entry or another version is a miss; what is not clean (a diagnostic, a
 * secret written in clear) is never stored.
 */
import { describe, expect, it, vi } from 'vitest';
import * as parseYaml from '../../src/manifest/parse-yaml.js';
import { loadManifestFromSources } from '../../src/manifest/load.js';
import type { LoadCacheStore } from '../../src/manifest/load-cache.js';
import { withSources } from '../support/manifest-positions.js';
import { buildGraph } from '../../src/graph/build.js';

vi.mock('../../src/manifest/parse-yaml.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/manifest/parse-yaml.js')>();
  return { ...orig, parseYamlFile: vi.fn(orig.parseYamlFile) };
});
const parses = () => vi.mocked(parseYaml.parseYamlFile).mock.calls.length;

function memoryStore(identity = 'driftless test'): LoadCacheStore & { data?: string; writes: number } {
  const s: LoadCacheStore & { data?: string; writes: number } = {
    identity,
    writes: 0,
    read: () => s.data,
    write: (d) => {
      s.data = d;
      s.writes++;
    },
  };
  return s;
}

const MANIFEST = `version: 1
projects:
  - name: shop
    variables:
      - &level
        key: LOG_LEVEL
        value: info
    environments:
      - name: dev
        mode: STAGING
        cluster: staging-cluster
        variables:
          - <<: *level
        services:
          - type: application
            name: api
            git_repository:
              url: https://github.com/acme/api.git
              branch: main
            dockerfile_path: Dockerfile
            cpu: 250
            memory: 256
            variables:
              - key: API_KEY
                value: \${env:API_KEY}
                secret: true
              - key: SCHEDULE_TZ
                value: \${env:TZ_NAME:-UTC}
`;

const load = (text: string, env: Record<string, string>, cache?: LoadCacheStore) =>
  loadManifestFromSources([{ file: { path: '/virtual/m.yaml', root: '/virtual', display: 'm.yaml' }, text }], { env, readFile: () => ({ ok: false, reason: 'none' }), ...(cache ? { cache } : {}) });

describe('manifest load cache', () => {
  it('a hit parses nothing and gives the manifest, positions, diagnostics and graph of a fresh load', () => {
    const env = { API_KEY: 'the-secret-value-1234' };
    const store = memoryStore();
    const fresh = load(MANIFEST, env);
    expect(fresh.diagnostics).toEqual([]);
    const first = load(MANIFEST, env, store);
    expect(store.writes).toBe(1);
    expect(store.data).not.toContain('the-secret-value-1234');
    const before = parses();
    const hit = load(MANIFEST, env, store);
    expect(parses()).toBe(before);
    expect(store.writes).toBe(1);
    expect(hit.diagnostics).toEqual(fresh.diagnostics);
    expect(withSources(hit.manifest)).toEqual(withSources(fresh.manifest));
    expect(withSources(first.manifest)).toEqual(withSources(fresh.manifest));
    expect(buildGraph(hit.manifest!).graph).toEqual(buildGraph(fresh.manifest!).graph);
    // Resolution runs on every load: a missing variable is reported at its place, as a fresh load does.
    const missing = load(MANIFEST, {}, store);
    expect(parses()).toBe(before);
    expect(missing.diagnostics.length).toBeGreaterThan(0);
    expect(missing.diagnostics).toEqual(load(MANIFEST, {}).diagnostics);
  });

  it('a file changed in any byte is parsed again and its new content used', () => {
    const store = memoryStore();
    load(MANIFEST, { API_KEY: 'k' }, store);
    const before = parses();
    const r = load(MANIFEST.replace('value: info', 'value: infO'), { API_KEY: 'k' }, store);
    expect(parses()).toBe(before + 1);
    expect(JSON.stringify(r.manifest)).toContain('infO');
    expect(store.writes).toBe(2);
  });

  it('another driftless version or a damaged entry is a miss', () => {
    const store = memoryStore('driftless 1');
    load(MANIFEST, { API_KEY: 'k' }, store);
    const other = memoryStore('driftless 2');
    other.data = store.data;
    let before = parses();
    load(MANIFEST, { API_KEY: 'k' }, other);
    expect(parses()).toBe(before + 1);
    store.data = store.data!.slice(0, store.data!.length / 2);
    before = parses();
    const r = load(MANIFEST, { API_KEY: 'k' }, store);
    expect(parses()).toBe(before + 1);
    expect(r.manifest).toEqual(load(MANIFEST, { API_KEY: 'k' }).manifest);
  });

  it('stores nothing for a manifest with a secret written in clear or with a diagnostic', () => {
    const clear = memoryStore();
    load(MANIFEST.replace('${env:API_KEY}', 'hunter2-in-clear'), {}, clear);
    expect(clear.data).toBeUndefined();
    const warned = memoryStore();
    const r = load(MANIFEST.replace('            cpu: 250\n', '            cpu: 250\n            unknown_key: 1\n'), { API_KEY: 'k' }, warned);
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(warned.data).toBeUndefined();
  });
});
