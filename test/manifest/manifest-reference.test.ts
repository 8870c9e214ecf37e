/**
 * docs/manifest-reference.md is what scripts/gen-manifest-reference.mjs makes of
 * schemas/manifest.schema.json (regenerated here in memory): a schema change without
 * `npm run docs:reference` fails this test. And the page is complete: every field of every
 * definition has a row, and every field whose description speaks of deleting or replacing says in
 * its "deletes" column what it deletes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { OWNS_LIST, REPLACES, referenceRows, renderManifestReference } from '../../scripts/gen-manifest-reference.mjs';
import { newManifestAjv } from '../../src/manifest/schema-validate.js';

const root = path.resolve(__dirname, '../..');
const schemaText = readFileSync(path.join(root, 'schemas/manifest.schema.json'), 'utf8');
const schema = JSON.parse(schemaText);
const committed = readFileSync(path.join(root, 'docs/manifest-reference.md'), 'utf8');

interface Row { pointer: string; field: string; deletes: string; description: string; type: string; example?: unknown }
const rows = referenceRows(schema) as Row[];

const resolve = (pointer: string): unknown => pointer.split('/').slice(1).reduce<any>((n, k) => (n == null ? undefined : n[k]), schema);

describe('docs/manifest-reference.md', () => {
  it('is exactly what the generator makes of the schema (run `npm run docs:reference` after a schema change)', () => {
    expect(committed).toBe(renderManifestReference(schema));
  });

  it('changes when the schema does (so the check above can fail)', () => {
    const edited = JSON.parse(schemaText);
    edited.definitions.environment.properties.mode.default = 'PRODUCTION';
    expect(renderManifestReference(edited)).not.toBe(committed);
    const added = JSON.parse(schemaText);
    added.definitions.environment.properties.new_field = { type: 'string', description: 'A new field.' };
    expect(renderManifestReference(added)).toContain('| `new_field` | string |');
  });

  it('has a row for every field of every definition (the generated override copies aside) and of the top level', () => {
    const pointers = new Set(rows.map((r) => r.pointer));
    const expected = [
      ...Object.keys(schema.properties).map((k) => `/properties/${k}`),
      ...Object.entries<any>(schema.definitions)
        .filter(([name]) => name !== 'service_override' && !name.startsWith('partial_'))
        .flatMap(([name, d]) => Object.keys(d.properties ?? {}).map((k) => `/definitions/${name}/properties/${k}`)),
    ];
    expect(expected.length).toBeGreaterThan(100);
    expect(expected.filter((p) => !pointers.has(p))).toEqual([]);
  });

  it('gives each field a type, and the defaults and examples of the schema', () => {
    expect(rows.filter((r) => r.type === '').map((r) => r.pointer)).toEqual([]);
    expect(committed).toContain('| `mode` | `"DEVELOPMENT"` or `"STAGING"` or `"PRODUCTION"` | `"DEVELOPMENT"` |');
    expect(committed).toMatch(/\| `cluster` \| \[name\]\(#name\) \|  \| `production-cluster` \| \*\*replaces\*\*/);
  });

  it('gives every field an example, valid against the schema of that field (issue 19: "every field: type, default, example")', () => {
    expect(rows.filter((r) => r.example === undefined).map((r) => r.pointer)).toEqual([]);
    const ajv = newManifestAjv();
    ajv.addSchema(schema, 'manifest');
    const invalid: string[] = [];
    for (const r of rows) {
      // An object example shortened for its table cell (`{name: x, …}`) is not a whole value.
      if (JSON.stringify(r.example).includes('\u2026')) continue;
      const validate = ajv.compile({ $ref: `manifest#${r.pointer}` });
      if (!validate(r.example)) invalid.push(`${r.pointer}: ${JSON.stringify(r.example)} ${ajv.errorsText(validate.errors)}`);
    }
    expect(invalid).toEqual([]);
  });

  it('names what deletes: every prune key, the fields that force a replacement, the lists a declaration owns', () => {
    for (const p of [...Object.keys(REPLACES), ...Object.keys(OWNS_LIST)]) expect(resolve(p), p).toBeTruthy();
    for (const k of Object.keys(schema.definitions.prune.properties)) {
      expect(rows.find((r) => r.pointer === `/definitions/prune/properties/${k}`)!.deletes).toMatch(/yes/);
    }
    const speaksOfDeleting = /\b(delete|deletes|deleted|deleting|replace|replaced|replaces|replacing)\b|cannot change once created/i;
    // Descriptions that use the words for something else: a template substitution, a job run at
    // deletion, an override replacing a template's list.
    const notDeleting = new Set(['/definitions/variable/properties/enable_interpolation_in_file', '/definitions/job/properties/schedule/properties/on_delete', '/definitions/environment/properties/overrides']);
    const unclassified = rows.filter((r) => speaksOfDeleting.test(r.description) && r.deletes === '' && !notDeleting.has(r.pointer)).map((r) => r.pointer);
    expect(unclassified).toEqual([]);
    // `protect` forbids a deletion rather than causing one, on every kind that takes it.
    const protects = rows.filter((r) => r.pointer.endsWith('/properties/protect'));
    expect(protects.length).toBeGreaterThanOrEqual(8);
    for (const r of protects) expect(r.deletes, r.pointer).toMatch(/^\*\*no\*\*: `true` forbids/);
  });
});
