#!/usr/bin/env node
/**
 * Vendors what the tests need of the real API's OpenAPI document (qovery-openapi.yaml, kept outside
 * this repository) into test/fixtures/reference/qovery-openapi.subset.json, so that no test reads
 * outside the repository and a fresh clone runs every check.
 *
 * What is kept: the operations listed in test/fixtures/reference/selection.json (method, path
 * template, parameters, request body, responses) and the named schemas listed there, with every
 * component they refer to (transitively); of each, only what a validator reads (types,
 * enumerations, required lists, formats, nullable, properties, items, compositions, bounds,
 * patterns, defaults). Descriptions, examples, summaries, tags and vendor extensions are dropped.
 * Also kept: the index of every "METHOD /template" of the document (names only), so that a test
 * can tell an operation the reference lacks from one that is merely not vendored yet.
 *
 * Refresh: `node scripts/vendor-reference.mjs PATH/TO/qovery-openapi.yaml` (the path is required:
 * the script names no place outside the repository). Add an operation or a schema to
 * selection.json first when a test needs one more. `--check` exits 1 instead of writing when the
 * committed fixture is not what the reference and the selection give.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { extractSubset, shapeOnly } from './reference-subset.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE_DIR = new URL('../test/fixtures/reference/', import.meta.url);
export const SELECTION_FILE = fileURLToPath(new URL('selection.json', FIXTURE_DIR));
export const SUBSET_FILE = fileURLToPath(new URL('qovery-openapi.subset.json', FIXTURE_DIR));

export { extractSubset, shapeOnly };

/** The fixture's text for the reference at `referencePath` (its bytes are named by their sha256). */
export function vendor(referencePath, selection) {
  const text = readFileSync(referencePath, 'utf8');
  const subset = extractSubset(parseYaml(text), selection);
  const provenance = {
    source: 'qovery-openapi.yaml (the real API document, kept beside the repository, outside it)',
    sha256: createHash('sha256').update(text).digest('hex'),
    generator: 'scripts/vendor-reference.mjs',
    refresh: 'node scripts/vendor-reference.mjs PATH/TO/qovery-openapi.yaml; selection in test/fixtures/reference/selection.json',
  };
  return JSON.stringify({ 'x-vendored': provenance, ...subset }, null, 1) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const referencePath = args.find((a) => a !== '--check');
  if (referencePath === undefined) {
    console.error('vendor-reference: give the path of the reference document (qovery-openapi.yaml) as the first argument: node scripts/vendor-reference.mjs PATH/TO/qovery-openapi.yaml [--check]');
    process.exit(2);
  }
  const selection = JSON.parse(readFileSync(SELECTION_FILE, 'utf8'));
  let out;
  try {
    out = vendor(referencePath, selection);
  } catch (err) {
    console.error(`vendor-reference: ${err.code === 'ENOENT' ? `cannot read ${referencePath} (give the reference document's path as the first argument)` : err.message}`);
    process.exit(2);
  }
  const target = relative(ROOT, SUBSET_FILE);
  if (check) {
    let current = '';
    try {
      current = readFileSync(SUBSET_FILE, 'utf8');
    } catch {}
    if (current !== out) {
      console.error(`vendor-reference: ${target} is not what ${referencePath} and selection.json give: run node scripts/vendor-reference.mjs ${referencePath}`);
      process.exit(1);
    }
    console.log(`vendor-reference: ${target} is up to date`);
  } else {
    writeFileSync(SUBSET_FILE, out);
    console.log(`vendor-reference: wrote ${target} (${selection.operations.length} operations, ${selection.schemas.length} named schemas)`);
  }
}
