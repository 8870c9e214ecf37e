/**
 * The manifest load cache (src/manifest/load-cache.ts) kept in the cache directory of `--cache DIR`
 * (DRIFTLESS_CACHE_DIR when unset), in a file of its own next to the refresh cache's: one entry,
 * the last clean load, replaced atomically (temporary file + rename), so that a reader sees a
 * whole entry, the old or the new.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { LoadCacheStore } from '../manifest/load-cache.js';
import { packageVersion } from './package-version.js';

export const MANIFEST_CACHE_FILE_NAME = 'driftless-manifest.json';

/** The store of a run's cache directory, or undefined when the run has none. */
export function manifestLoadCacheOf(cache: string | undefined, env: NodeJS.ProcessEnv, cwd: string): LoadCacheStore | undefined {
  const dir = cache ?? (env.DRIFTLESS_CACHE_DIR?.trim() || undefined);
  if (dir === undefined || dir === '') return undefined;
  return fileLoadCache(isAbsolute(dir) ? dir : resolve(cwd, dir));
}

export function fileLoadCache(dir: string): LoadCacheStore {
  const file = join(dir, MANIFEST_CACHE_FILE_NAME);
  return {
    identity: `driftless ${packageVersion()}`,
    read: () => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    },
    write: (data) => {
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `.${MANIFEST_CACHE_FILE_NAME}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        writeFileSync(tmp, data, { mode: 0o600 });
        renameSync(tmp, file);
      } finally {
        rmSync(tmp, { force: true });
      }
    },
  };
}
