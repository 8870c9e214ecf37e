#!/usr/bin/env node
/**
 * Build step (after tsc, see the `build` script): precompiles schemas/manifest.schema.json into
 * dist/manifest/manifest-schema.validator.cjs with ajv's standalone code generation, so that no
 * command compiles the schema at start-up. The module embeds a key of the schema text, the ajv
 * options and versions; src/manifest/schema-validate.ts uses it only when the key is that of the
 * schema it reads at run time, and compiles the schema itself otherwise.
 *
 * CommonJS rather than ajv's ESM output: the ESM output still `require`s ajv's runtime helpers, and
 * a CommonJS module can be loaded synchronously, and only when a manifest is validated.
 *
 * Next to it, the module's V8 code cache (manifest-schema.validator.cjs.code-cache).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = path.join(root, 'dist/manifest/');
const { precompiledValidatorSource, loadPrecompiledValidatorModule, PRECOMPILED_VALIDATOR_FILE } = await import(new URL('schema-validate.js', `file://${dist}`).href);
const { writeCodeCache, CODE_CACHE_SUFFIX } = await import(new URL('code-cache.js', `file://${dist}`).href);

const file = path.join(dist, PRECOMPILED_VALIDATOR_FILE);
writeFileSync(file, precompiledValidatorSource());
rmSync(file + CODE_CACHE_SUFFIX, { force: true });
const built = loadPrecompiledValidatorModule(file);
if (!built) {
  process.stderr.write(`build-manifest-validator: ${file} does not load as the validator of the current schema\n`);
  process.exit(1);
}

// The V8 code cache of the module (src/manifest/code-cache.ts), written after the validator has run
// over the example manifests, so that it holds the functions a manifest's validation compiles too.
// A process whose V8 does not accept it compiles the module as before.
for (const dir of ['examples/minimal', 'examples/realistic', 'examples/platform']) {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
    built.validate(parse(readFileSync(path.join(entry.parentPath, entry.name), 'utf8'), { merge: true }));
  }
}
built.validate({ version: 1 });
writeCodeCache(file, built.loaded);
