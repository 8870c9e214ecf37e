/**
 * A CommonJS module loaded with a V8 code cache written next to it at build time.
 *
 * Why: the precompiled manifest validator (schema-validate.ts) is an 862 KB generated module. Every
 * command that validates a manifest compiled it (about 15 ms), and V8 compiled each of its hundreds
 * of functions again when first called (about 10 ms for a small manifest, more for a large one):
 * a visible share of `validate`'s floor (issue 21). The build runs the validator over the example
 * manifests and saves V8's compiled code for the module, functions included; a process that finds
 * the cache skips both compilations.
 *
 * V8 itself checks that a cache was made by the same V8 with compatible flags (it rejects it
 * otherwise, and compiles as usual), but it identifies the source only by its length. The cache
 * file therefore starts with the SHA-256 of the source it was made from, and is used only for that
 * exact source: a rebuilt module with a stale cache is loaded as if there were none.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';

/** The code cache of `file` is `file` + this. */
export const CODE_CACHE_SUFFIX = '.code-cache';

const HASH_BYTES = 32;

/** What happened to the code cache: used, rejected by V8, made for another source, or absent. */
export type CodeCacheOutcome = 'used' | 'rejected' | 'stale' | 'absent';

export interface LoadedModule {
  exports: unknown;
  codeCache: CodeCacheOutcome;
  /** The compiled module: `createCachedData()` after a warm-up gives the cache to write. */
  script: Script;
}

function sourceHash(source: string): Buffer {
  return createHash('sha256').update(source).digest();
}

/**
 * Loads CommonJS module `file` as Node.js would (the same wrapper, `require` resolving from the
 * file, `module.exports`), with its code cache when there is a current one. Not registered in the
 * require cache: each call evaluates the module afresh.
 */
export function loadCommonJsWithCodeCache(file: string): LoadedModule {
  const source = readFileSync(file, 'utf8');
  const cacheFile = file + CODE_CACHE_SUFFIX;
  let codeCache: CodeCacheOutcome = 'absent';
  let cachedData: Buffer | undefined;
  if (existsSync(cacheFile)) {
    const bytes = readFileSync(cacheFile);
    if (bytes.length > HASH_BYTES && bytes.subarray(0, HASH_BYTES).equals(sourceHash(source))) cachedData = bytes.subarray(HASH_BYTES);
    else codeCache = 'stale';
  }
  // Node's CommonJS wrapper (Module.wrap), so that the code and its stack traces read as under require.
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
  const script = new Script(wrapped, { filename: file, ...(cachedData ? { cachedData } : {}) });
  if (cachedData) codeCache = script.cachedDataRejected === true ? 'rejected' : 'used';
  const module = { exports: {} as unknown, filename: file, id: file };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return { exports: module.exports, codeCache, script };
}

/** Writes the code cache of a module loaded (and warmed up) with loadCommonJsWithCodeCache. */
export function writeCodeCache(file: string, loaded: LoadedModule): void {
  const source = readFileSync(file, 'utf8');
  writeFileSync(file + CODE_CACHE_SUFFIX, Buffer.concat([sourceHash(source), loaded.script.createCachedData()]));
}
