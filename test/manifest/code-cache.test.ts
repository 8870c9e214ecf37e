/**
 * The precompiled manifest validator is loaded with a V8 code cache written by the build
 * (src/manifest/code-cache.ts): it must behave exactly as the module loaded by `require`, be used
 * only for the source it was made from (V8 identifies a source by its length alone, so a rebuilt
 * module of the same length with an old cache would otherwise run the old code), and a cache V8
 * refuses must change nothing but speed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODE_CACHE_SUFFIX, loadCommonJsWithCodeCache, writeCodeCache } from '../../src/manifest/code-cache.js';
import { PRECOMPILED_VALIDATOR_FILE } from '../../src/manifest/schema-validate.js';
import { tempTree } from './helpers.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** A CommonJS module that requires a neighbour and reads its own CommonJS variables. */
const MODULE = (answer: number) => `'use strict';
const helper = require('./helper.cjs');
module.exports = function answer(x) { return helper.twice(x) + ${answer}; };
module.exports.where = [typeof exports, typeof module, path(__filename), path(__dirname)];
function path(p) { return require('node:path').basename(p); }
`;
const HELPER = 'exports.twice = (x) => 2 * x;\n';

/**
 * Loads `file` with the built loader (dist/manifest/code-cache.js) in a fresh process: within one
 * process V8 finds a source it compiled before in its own cache and never reads the code cache.
 */
function loadInChild(file: string): { codeCache: string; value: number; where: string[] } {
  const loader = path.join(repoRoot, 'dist/manifest/code-cache.js');
  const script = `import(${JSON.stringify(loader)}).then(({ loadCommonJsWithCodeCache }) => {
    const m = loadCommonJsWithCodeCache(${JSON.stringify(file)});
    process.stdout.write(JSON.stringify({ codeCache: m.codeCache, value: m.exports(1), where: m.exports.where }));
  })`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })) as { codeCache: string; value: number; where: string[] };
}

/** A module with its code cache written after a warm-up, as the build does. */
function moduleWithCache(answer: number): string {
  const dir = tempTree({ 'm.cjs': MODULE(answer), 'helper.cjs': HELPER });
  const file = path.join(dir, 'm.cjs');
  const loaded = loadCommonJsWithCodeCache(file);
  (loaded.exports as (x: number) => number)(1);
  writeCodeCache(file, loaded);
  return file;
}

describe.skipIf(!existsSync(path.join(repoRoot, 'dist/manifest/code-cache.js')))('code-cache.ts: a CommonJS module with its V8 code cache', () => {
  it('loads the module as require does, and a fresh process uses a cache made after a warm-up', () => {
    const dir = tempTree({ 'm.cjs': MODULE(10), 'helper.cjs': HELPER });
    const file = path.join(dir, 'm.cjs');
    const first = loadCommonJsWithCodeCache(file);
    expect(first.codeCache).toBe('absent');
    const f = first.exports as ((x: number) => number) & { where: string[] };
    expect(f(1)).toBe(12);
    expect(f.where).toEqual(['object', 'object', 'm.cjs', path.basename(dir)]);
    writeCodeCache(file, first);
    expect(existsSync(file + CODE_CACHE_SUFFIX)).toBe(true);
    expect(loadInChild(file)).toEqual({ codeCache: 'used', value: 12, where: ['object', 'object', 'm.cjs', path.basename(dir)] });
  });

  it('does not use a cache made for another source, even of the same length', () => {
    const file = moduleWithCache(10);
    // Rebuilt: the same length, another constant.
    writeFileSync(file, MODULE(20));
    expect(MODULE(20).length).toBe(MODULE(10).length);
    expect(loadInChild(file)).toMatchObject({ codeCache: 'stale', value: 22 });
    // Why the source's hash is checked: V8 given the old cache runs the old code (10 + 2, not 22).
    const raw = `const vm = require('node:vm'); const fs = require('node:fs');
      const src = '(function (exports, require, module, __filename, __dirname) { ' + fs.readFileSync(${JSON.stringify(file)}, 'utf8') + '\\n});';
      const s = new vm.Script(src, { filename: ${JSON.stringify(file)}, cachedData: fs.readFileSync(${JSON.stringify(file + CODE_CACHE_SUFFIX)}).subarray(32) });
      const m = { exports: {} }; s.runInThisContext()(m.exports, require('node:module').createRequire(${JSON.stringify(file)}), m, ${JSON.stringify(file)}, ${JSON.stringify(path.dirname(file))});
      process.stdout.write(String(s.cachedDataRejected) + ' ' + m.exports(1));`;
    expect(execFileSync(process.execPath, ['-e', raw], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })).toBe('false 12');
  });

  it('compiles as usual when V8 refuses the cache', () => {
    const file = moduleWithCache(10);
    const bytes = readFileSync(file + CODE_CACHE_SUFFIX);
    // The source's hash kept, V8's data damaged.
    writeFileSync(file + CODE_CACHE_SUFFIX, Buffer.concat([bytes.subarray(0, 32), Buffer.alloc(bytes.length - 32, 7)]));
    expect(loadInChild(file)).toMatchObject({ codeCache: 'rejected', value: 12 });
  });

  const built = path.join(repoRoot, 'dist/manifest', PRECOMPILED_VALIDATOR_FILE);
  const mustExist = process.env.npm_lifecycle_event === 'test';

  it.skipIf(!existsSync(built + CODE_CACHE_SUFFIX) && !mustExist)('the build writes a cache of the precompiled validator that a plain `node` uses', () => {
    expect(existsSync(built + CODE_CACHE_SUFFIX)).toBe(true);
    // A process as the CLI runs (no flags: V8 refuses a cache made under other flags).
    const script = `import(${JSON.stringify(path.join(repoRoot, 'dist/manifest/schema-validate.js'))}).then((m) => process.stdout.write(m.loadPrecompiledValidatorModule().loaded.codeCache))`;
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })).toBe('used');
  });
});
