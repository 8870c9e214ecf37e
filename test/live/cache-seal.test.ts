/**
 * The seal of the refresh cache file: what it says of a file that is not sealed, sealed with
 * another key, or edited, and that no hand-made seal (of another length, of the wrong type) makes
 * it throw instead of answering.
 */
import { describe, expect, it } from 'vitest';
import { cacheSealProblem, sealCache } from '../../src/live/cache-seal.js';

const KEY = { key: 'k-one', source: 'env' as const };
const OTHER = { key: 'k-two', source: 'env' as const };
const TEXT = '{"responses":{}}';

describe('the cache seal', () => {
  it('holds for the text it sealed, with the same key', () => {
    const seal = sealCache(TEXT, KEY);
    expect(seal.key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(seal.mac).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheSealProblem(TEXT, seal, KEY)).toBeUndefined();
  });

  it('names the key as the problem when another key sealed it, and the edit when the same key did', () => {
    expect(cacheSealProblem(TEXT, sealCache(TEXT, OTHER), KEY)).toBe('was sealed with another key (DRIFTLESS_FINGERPRINT_KEY differs from the run that wrote it)');
    expect(cacheSealProblem(TEXT + ' ', sealCache(TEXT, KEY), KEY)).toBe('fails its seal: it was edited after driftless wrote it');
    // The key id of one key is the same for every text; of two keys, different.
    expect(sealCache('a', KEY).key_id).toBe(sealCache('b', KEY).key_id);
    expect(sealCache('a', KEY).key_id).not.toBe(sealCache('a', OTHER).key_id);
  });

  it('says "not sealed" of a missing or malformed seal, and never throws on one', () => {
    const good = sealCache(TEXT, KEY);
    for (const seal of [undefined, null, 'seal', 42, {}, { mac: good.mac }, { key_id: good.key_id }, { mac: 5, key_id: good.key_id }, { mac: good.mac, key_id: 5 }]) {
      expect(cacheSealProblem(TEXT, seal, KEY), JSON.stringify(seal)).toBe('is not sealed');
    }
    // A MAC of another length is a failed seal, not a crash of the comparison.
    expect(cacheSealProblem(TEXT, { ...good, mac: good.mac.slice(0, 10) }, KEY)).toBe('fails its seal: it was edited after driftless wrote it');
    expect(cacheSealProblem(TEXT, { ...good, mac: good.mac + '00' }, KEY)).toBe('fails its seal: it was edited after driftless wrote it');
  });
});
