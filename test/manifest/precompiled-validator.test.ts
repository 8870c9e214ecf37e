/**
 * The manifest validator precompiled at build time (ajv standalone code, scripts/build-manifest-validator.mjs)
 * must report exactly what the validator compiled at run time reports: the same error objects
 * (keyword, paths, params, and the `verbose` schema/parentSchema/data the diagnostics read) and so
 * the same diagnostics. And a precompiled validator of another schema is never used.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  compileManifestValidator,
  loadPrecompiledValidator,
  manifestValidatorKey,
  PRECOMPILED_VALIDATOR_FILE,
  precompiledValidatorSource,
  validateManifestSchema,
} from '../../src/manifest/schema-validate.js';
import { parseYamlFile } from '../../src/manifest/parse-yaml.js';
import { tempTree } from './helpers.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Evaluates generated CommonJS source as a module of this repository (its `require`s resolve here). */
function evalModule(source: string): ValidateFunction & { schemaKey?: string } {
  const module = { exports: {} as unknown };
  new Function('module', 'exports', 'require', source)(module, module.exports, createRequire(import.meta.url));
  return module.exports as ValidateFunction & { schemaKey?: string };
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Parsed manifest files: the validate goldens (good and bad), the test/manifest fixtures and the examples. */
function fixtureDocuments(): { name: string; value: unknown }[] {
  const files = [
    ...yamlFiles(path.join(repoRoot, 'test/golden/validate')),
    ...yamlFiles(path.join(repoRoot, 'test/manifest')),
    ...yamlFiles(path.join(repoRoot, 'examples/minimal')),
    ...yamlFiles(path.join(repoRoot, 'examples/realistic')),
    ...yamlFiles(path.join(repoRoot, 'examples/platform')),
  ];
  const docs: { name: string; value: unknown }[] = [];
  for (const file of files) {
    const parsed = parseYamlFile(readFileSync(file, 'utf8'), path.relative(repoRoot, file));
    if (parsed.value !== undefined) docs.push({ name: path.relative(repoRoot, file), value: parsed.value });
  }
  return docs;
}

type Json = unknown;
const clone = <T>(v: T): T => structuredClone(v);

function setAt(root: Json, at: (string | number)[], value: Json): Json {
  const copy = clone(root) as Record<string | number, Json>;
  let node = copy;
  for (const seg of at.slice(0, -1)) node = node[seg] as Record<string | number, Json>;
  node[at[at.length - 1]!] = value;
  return copy;
}

function deleteAt(root: Json, at: (string | number)[]): Json {
  const copy = clone(root) as Record<string | number, Json>;
  let node = copy;
  for (const seg of at.slice(0, -1)) node = node[seg] as Record<string | number, Json>;
  delete node[at[at.length - 1]!];
  return copy;
}

/**
 * Bad variants of a valid document, one change each at every place: wrong types, empty, long and
 * badly formatted strings, negative and huge numbers, unknown and missing keys, duplicated and
 * emptied lists. Together they reach every keyword of the schema.
 */
function mutants(doc: Json): { name: string; value: Json }[] {
  const out: { name: string; value: Json }[] = [];
  const visit = (node: Json, at: (string | number)[]) => {
    const where = '/' + at.join('/');
    if (at.length > 0) {
      for (const [label, v] of [
        ['null', null],
        ['number', 42],
        ['decimal', 1.5],
        ['negative', -1],
        ['huge', 1e12],
        ['true', true],
        ['empty string', ''],
        ['string', 'not-an-allowed-value'],
        ['padded name', ' api '],
        ['template', '${oops}'],
        ['unicode long', '\u{1F600}'.repeat(300)],
        ['url', 'not a url'],
        ['list', []],
        ['mapping', {}],
        ['typo type', { type: 'aplication', name: 'x' }],
        ['no type', { name: 'x' }],
      ] as const)
        out.push({ name: `${where} = ${label}`, value: setAt(doc, at, v) });
      if (typeof at[at.length - 1] === 'string') out.push({ name: `${where} deleted`, value: deleteAt(doc, at) });
    }
    if (Array.isArray(node)) {
      if (node.length > 0) out.push({ name: `${where} duplicated item`, value: setAt(doc, at, [...node, clone(node[0])]) });
      node.forEach((n, i) => visit(n, [...at, i]));
    } else if (node !== null && typeof node === 'object') {
      out.push({ name: `${where} unknown key`, value: setAt(doc, [...at, 'envirnoments'], 1) });
      out.push({ name: `${where} bad key`, value: setAt(doc, [...at, '9 bad key'], 'x') });
      for (const [k, v] of Object.entries(node)) visit(v, [...at, k]);
    }
  };
  visit(doc, []);
  return out;
}

/** A terraform service (no fixture has one), with `tf_vars`, the one `propertyNames` of the schema. */
const terraform = {
  name: 'inline terraform',
  value: {
    version: 1,
    projects: [
      {
        name: 'infra',
        environments: [
          {
            name: 'prod',
            cluster: 'c',
            services: [
              {
                type: 'terraform',
                name: 'tf',
                git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main' },
                engine: 'OPEN_TOFU',
                tf_vars: { region: 'x', pw: 'y' },
                sensitive_tf_vars: ['pw'],
                timeout_sec: 1800,
                job_resources: { cpu_milli: 1000, ram_mib: 1024, storage_gib: 20 },
              },
            ],
          },
        ],
      },
    ],
  },
};

let cached: { name: string; value: Json }[] | undefined;
function documents(): { name: string; value: Json }[] {
  const fixtures = [...fixtureDocuments(), terraform];
  const mutated = fixtures.filter((d) => d.name.startsWith('examples/') || d === terraform);
  cached ??= [...fixtures, ...mutated.flatMap((d) => mutants(d.value).map((m) => ({ name: `${d.name} ${m.name}`, value: m.value })))];
  return cached;
}

/** Runs both validators on every document; returns the keywords of the errors seen. */
function compare(precompiled: ValidateFunction, runtime: ValidateFunction): Set<string> {
  const keywords = new Set<string>();
  let invalid = 0;
  for (const doc of documents()) {
    const a = precompiled(clone(doc.value));
    const b = runtime(clone(doc.value));
    expect({ doc: doc.name, valid: a, errors: precompiled.errors }).toStrictEqual({ doc: doc.name, valid: b, errors: runtime.errors });
    expect(validateManifestSchema(clone(doc.value), doc.name, precompiled)).toStrictEqual(validateManifestSchema(clone(doc.value), doc.name, runtime));
    for (const e of runtime.errors ?? []) keywords.add(e.keyword);
    if (!b) invalid++;
  }
  expect(invalid).toBeGreaterThan(1000);
  return keywords;
}

// Every keyword the schema uses that can fail, and what ajv reports for it.
const SCHEMA_KEYWORDS = ['additionalProperties', 'required', 'type', 'enum', 'const', 'pattern', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'uniqueItems', 'minItems', 'minProperties', 'propertyNames', 'discriminator', 'if'];

describe('precompiled manifest validator', () => {
  const runtime = compileManifestValidator();

  it('reports the same errors and diagnostics as the runtime-compiled one, on good and bad manifests', () => {
    const generated = evalModule(precompiledValidatorSource());
    expect(generated.schemaKey).toBe(manifestValidatorKey());
    const keywords = compare(generated, runtime);
    expect([...keywords].sort()).toEqual(expect.arrayContaining([...SCHEMA_KEYWORDS].sort()));
  }, 120_000);

  const built = path.join(repoRoot, 'dist/manifest', PRECOMPILED_VALIDATOR_FILE);
  // `npm test` builds first: the file must be there and current. A bare `vitest run` may meet a stale build.
  const mustBeCurrent = process.env.npm_lifecycle_event === 'test';

  it.skipIf(!existsSync(built) && !mustBeCurrent)('the one `npm run build` wrote is used only if built from the current schema, and then agrees', () => {
    expect(existsSync(built)).toBe(true);
    const current = (createRequire(import.meta.url)(built) as { schemaKey?: string }).schemaKey === manifestValidatorKey();
    if (mustBeCurrent) expect(current).toBe(true);
    const loaded = loadPrecompiledValidator(built);
    expect(loaded !== undefined).toBe(current);
    if (loaded) compare(loaded, runtime);
  }, 120_000);

  it('a validator built from another schema is not used', () => {
    const dir = tempTree({});
    const stale = path.join(dir, 'stale.cjs');
    writeFileSync(stale, `module.exports = function validate() { return true; };\nmodule.exports.schemaKey = ${JSON.stringify('0'.repeat(64))};\n`);
    expect(loadPrecompiledValidator(stale)).toBeUndefined();
    const current = path.join(dir, 'current.cjs');
    writeFileSync(current, `module.exports = function validate() { return true; };\nmodule.exports.schemaKey = ${JSON.stringify(manifestValidatorKey())};\n`);
    expect(loadPrecompiledValidator(current)).toBeTypeOf('function');
    expect(loadPrecompiledValidator(path.join(dir, 'absent.cjs'))).toBeUndefined();
  });

  it('the key changes with the schema text', () => {
    const text = readFileSync(path.join(repoRoot, 'schemas/manifest.schema.json'), 'utf8');
    expect(manifestValidatorKey(text)).toBe(manifestValidatorKey());
    expect(manifestValidatorKey(text.replace('"minLength": 1', '"minLength": 2'))).not.toBe(manifestValidatorKey());
  });
});
