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
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const dist = fileURLToPath(new URL('../dist/manifest/', import.meta.url));
const { precompiledValidatorSource, loadPrecompiledValidator, PRECOMPILED_VALIDATOR_FILE } = await import(new URL('schema-validate.js', `file://${dist}`).href);

const file = path.join(dist, PRECOMPILED_VALIDATOR_FILE);
writeFileSync(file, precompiledValidatorSource());
if (!loadPrecompiledValidator(file)) {
  process.stderr.write(`build-manifest-validator: ${file} does not load as the validator of the current schema\n`);
  process.exit(1);
}
