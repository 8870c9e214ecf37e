/**
 * The seal of the refresh cache file: HMAC-SHA256 over its content, keyed by the fingerprint key
 * (DRIFTLESS_FINGERPRINT_KEY, or the fallback derived from the organization id), as a saved plan
 * file is sealed (src/plan/plan-seal.ts). The file's sha256 checksum tells a whole file from a
 * damaged one, but anyone who can write the file can recompute it: a service renamed in the cache
 * would pass, and the plan would then match the declared name to another service's id. The MAC
 * cannot be recomputed without the key.
 *
 *   sealKey = HMAC-SHA256(fingerprintKey, CACHE_SEAL_LABEL)   (never usable as a plan seal or a fingerprint)
 *   key_id  = first 16 hex of HMAC-SHA256(sealKey, CACHE_KEY_ID_LABEL)
 *   mac     = hex(HMAC-SHA256(sealKey, payload text as written))
 *
 * With the fallback key the seal only catches accidental edits: whoever knows the organization id
 * can forge it (the commands warn). Deletes never rest on the cache's word in any case
 * (src/apply/confirm-deletes.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const CACHE_SEAL_LABEL = 'driftless refresh-cache seal v1';
export const CACHE_KEY_ID_LABEL = 'driftless refresh-cache key id v1';

export interface CacheKey {
  /** The fingerprint key (never written anywhere). */
  key: string;
  source: 'env' | 'fallback';
}

/** The key of the cache of an organization (the reader's own: never anything the file says). */
export type CacheKeyOf = (organizationId: string) => CacheKey | undefined;

export interface CacheSeal {
  key_id: string;
  mac: string;
}

function sealKeyOf(k: CacheKey): Buffer {
  return createHmac('sha256', k.key).update(CACHE_SEAL_LABEL, 'utf8').digest();
}

function keyIdOf(sealKey: Buffer): string {
  return createHmac('sha256', sealKey).update(CACHE_KEY_ID_LABEL, 'utf8').digest('hex').slice(0, 16);
}

/** The payload as written: its text, its bytes, or the pieces it is written in, in order (src/live/cache-bytes.ts). */
export type PayloadBytes = string | Uint8Array | ReadonlyArray<string | Uint8Array>;

function macOf(sk: Buffer, payload: PayloadBytes): string {
  const h = createHmac('sha256', sk);
  for (const p of typeof payload === 'string' || payload instanceof Uint8Array ? [payload] : payload) {
    if (typeof p === 'string') h.update(p, 'utf8');
    else h.update(p);
  }
  return h.digest('hex');
}

export function sealCache(payload: PayloadBytes, key: CacheKey): CacheSeal {
  const sk = sealKeyOf(key);
  return { key_id: keyIdOf(sk), mac: macOf(sk, payload) };
}

/** undefined when the seal holds; else why not, said after "the cache ... ". */
export function cacheSealProblem(payload: PayloadBytes, seal: unknown, key: CacheKey): string | undefined {
  const s = seal as Partial<CacheSeal> | null | undefined;
  if (!s || typeof s !== 'object' || typeof s.mac !== 'string' || typeof s.key_id !== 'string') return 'is not sealed';
  const sk = sealKeyOf(key);
  const expected = Buffer.from(macOf(sk, payload), 'utf8');
  const given = Buffer.from(s.mac, 'utf8');
  if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
  // Only now is the key id looked at: a matching MAC is all that counts.
  return s.key_id !== keyIdOf(sk)
    ? 'was sealed with another key (DRIFTLESS_FINGERPRINT_KEY differs from the run that wrote it)'
    : 'fails its seal: it was edited after driftless wrote it';
}
