/**
 * The positions of a load-cache hit (src/manifest/load-cache.ts) are built when first asked for,
 * from text each object keeps on a hidden property of its own: a copy made with the object's
 * property descriptors (src/graph/target.ts narrowManifest) builds the same ranges, a second read gives
 * the same object, and nothing of it shows in JSON, keys or a spread.
 */
import { describe, expect, it } from 'vitest';
import { decodeLoadCacheEntry, encodeLoadCacheEntry } from '../../src/manifest/load-cache.js';
import { fieldSourceOf, keySourceOf } from '../../src/manifest/source-map.js';
import { loadManifestFromSources } from '../../src/manifest/load.js';
import { sourceOf } from '../../src/manifest/types.js';

const MANIFEST = `version: 1
projects:
  - name: shop
    variables:
      - key: LOG_LEVEL
        value: info
`;

function freshAndDecoded() {
  const fresh = loadManifestFromSources([{ file: { path: '/virtual/m.yaml', root: '/virtual', display: 'm.yaml' }, text: MANIFEST }], {
    env: {},
    readFile: () => ({ ok: false, reason: 'none' }),
    // With a store, the load is positioned at once, as what the cache encodes.
    cache: { identity: 't', read: () => undefined, write: () => undefined },
  }).manifest!;
  const decoded = decodeLoadCacheEntry(encodeLoadCacheEntry('k', fresh), 'k')!;
  return { fresh, decoded };
}

describe('load cache positions', () => {
  it('a copy made with property descriptors builds the positions of the object it copies', () => {
    const { fresh, decoded } = freshAndDecoded();
    const original = decoded.projects![0]!.variables![0]!;
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(original));
    expect(fieldSourceOf(copy, 'value')).toEqual(fieldSourceOf(fresh.projects![0]!.variables![0], 'value'));
    expect(keySourceOf(copy, 'value')).toEqual(keySourceOf(fresh.projects![0]!.variables![0], 'value'));
    expect(fieldSourceOf(copy, 'value')).toEqual({ file: 'm.yaml', start: { line: 6, col: 16 }, end: { line: 6, col: 20 } });
    // The original builds its own, the same.
    expect(fieldSourceOf(original, 'value')).toEqual(fieldSourceOf(copy, 'value'));
    expect(sourceOf(copy)).toEqual(sourceOf(fresh.projects![0]!.variables![0]));
  });

  it('a second read gives the positions built by the first, and an object inheriting from one reads them too', () => {
    const { decoded } = freshAndDecoded();
    const project = decoded.projects![0]! as unknown as Record<symbol, unknown>;
    const sym = Object.getOwnPropertySymbols(project).find((s) => s.description === 'driftless.fieldSources')!;
    const heir = Object.create(project) as Record<symbol, unknown>;
    const first = heir[sym];
    expect(first).toBe(project[sym]);
    expect(Object.keys(first as object)).toEqual(['name', 'variables']);
  });

  it('keeps the texts out of JSON, keys and spreads', () => {
    const { fresh, decoded } = freshAndDecoded();
    const v = decoded.projects![0]!.variables![0]!;
    expect(Object.keys(v)).toEqual(['key', 'value']);
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(fresh));
    expect(Object.getOwnPropertySymbols({ ...v })).toEqual([]);
  });
});
