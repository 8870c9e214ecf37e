/**
 * The manifest load cache (src/manifest/load-cache.ts) kept in the cache directory of `--cache DIR`
 * (DRIFTLESS_CACHE_DIR when unset), in a file of its own next to the refresh cache's: one entry,
 * the last clean load, replaced atomically (temporary file + rename), so that a reader sees a
 * whole entry, the old or the new.
 */
import { join } from 'node:path';
import type { LoadCacheStore } from '../manifest/load-cache.js';
import { cacheDirOf, readCacheText, replaceCacheFile } from './cache-dir.js';
import { packageVersion } from './package-version.js';

export const MANIFEST_CACHE_FILE_NAME = 'driftless-manifest.json';

/** The store of a run's cache directory, or undefined when the run has none. */
export function manifestLoadCacheOf(cache: string | undefined, env: NodeJS.ProcessEnv, cwd: string): LoadCacheStore | undefined {
  const dir = cacheDirOf(cache, env, cwd);
  return dir === undefined ? undefined : fileLoadCache(dir);
}

export function fileLoadCache(dir: string): LoadCacheStore {
  const file = join(dir, MANIFEST_CACHE_FILE_NAME);
  return {
    identity: `driftless ${packageVersion()}`,
    read: () => readCacheText(file),
    write: (data) => replaceCacheFile(dir, MANIFEST_CACHE_FILE_NAME, data),
  };
}
