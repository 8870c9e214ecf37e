#!/usr/bin/env node
/**
 * Which files of src outside src/emulator spell a kind's name as a string literal ('helm' or
 * "helm"): the measure of issue 22 (docs/adding-a-kind.md states it; test/docs/adding-a-kind.test.ts
 * checks the statement). `node scripts/count-kind-files.mjs [kind...]` prints, per kind, the count
 * and the files; without kinds, every service kind.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function tsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The files of src (not src/emulator) holding `'kind'` or `"kind"`, relative to the repository. */
export function filesSpelling(kind, root = ROOT) {
  const pattern = new RegExp(`['"]${kind}['"]`);
  return tsFiles(join(root, 'src'))
    .map((p) => relative(root, p).split('\\').join('/'))
    .filter((p) => !p.startsWith('src/emulator/'))
    .filter((p) => pattern.test(readFileSync(join(root, p), 'utf8')))
    .sort();
}

export const SERVICE_KIND_NAMES = ['application', 'container', 'database', 'job', 'helm', 'terraform'];

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const kinds = process.argv.slice(2).length > 0 ? process.argv.slice(2) : SERVICE_KIND_NAMES;
  for (const k of kinds) {
    const files = filesSpelling(k);
    console.log(`${k}: ${files.length} file(s): ${files.join(' ')}`);
  }
}
