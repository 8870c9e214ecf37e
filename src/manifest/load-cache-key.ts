/**
 * The key of the manifest load cache (load-cache.ts): a hash of the files' paths and bytes, the
 * driftless version and the parse limits. On its own so that a run can compute it without loading
 * the cache's codec (src/manifest/prepare.ts, for a reused plan).
 */
import { createHash } from 'node:crypto';

// 2: the positions of an object's fields and keys as JSON text of their own (parsed when asked for).
export const LOAD_CACHE_FORMAT = 2;

/** The key of a set of manifest files: their paths and bytes, in load order, and what else shapes the load. */
export function loadCacheKey(identity: string, files: ReadonlyArray<{ path: string; display: string; text: string }>, limits: unknown): string {
  const h = createHash('sha256');
  h.update(JSON.stringify({ format: LOAD_CACHE_FORMAT, identity, limits, files: files.length }));
  for (const f of files) {
    // Lengths first: no two different lists of (path, text) hash the same concatenation.
    h.update(`\n${f.path.length}:${f.path}\n${f.display.length}:${f.display}\n${f.text.length}:`);
    h.update(f.text);
  }
  return h.digest('hex');
}

