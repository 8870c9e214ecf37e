/**
 * The cache directory of a run (`--cache DIR`, DRIFTLESS_CACHE_DIR when unset) and the whole-file
 * reads and writes of what driftless keeps there beside the refresh cache (the manifest load
 * cache, the plan memo): a file is read whole or not at all, and replaced atomically (temporary
 * file + rename in the directory), so that a reader sees the old file or the new one, never a part,
 * whatever other runs sharing the directory do at the same time.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/** The cache directory of a run, absolute, or undefined when none is asked for. */
export function cacheDirOf(cache: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const dir = cache ?? (env.DRIFTLESS_CACHE_DIR?.trim() || undefined);
  if (dir === undefined || dir === '') return undefined;
  return isAbsolute(dir) ? dir : resolve(cwd, dir);
}

/** The text of `file`, or undefined when it cannot be read (missing, a directory, no permission). */
export function readCacheText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Replaces `dir`/`name` with `text` (the directory created when missing), readable by the owner only. */
export function replaceCacheFile(dir: string, name: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  // Unique per writer: two runs never write into the same temporary file.
  const tmp = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, join(dir, name));
  } finally {
    rmSync(tmp, { force: true });
  }
}
