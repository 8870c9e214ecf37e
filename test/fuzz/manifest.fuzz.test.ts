/**
 * Fuzzing the manifest loader and validator (loadManifestFromSources: YAML parse, schema, shape and
 * reference checks; then the graph build) with 10,000+ mutated manifests per run: wrong types, deep
 * nesting, huge strings, unicode and control characters, templates, YAML anchors and alias bombs,
 * duplicate keys, binary data. Each one loads, or gives error diagnostics that all carry a file
 * location; none throws, and none takes more than a second.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadManifestFromSources } from '../../src/manifest/load.js';
import { buildGraph } from '../../src/graph/build.js';
import { record } from '../support/reliability.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** A tiny manifest: most mutations start from it (the loader's cost is the YAML parse). */
const MICRO = [
  'version: 1',
  'projects:',
  '  - name: p',
  '    variables: [{key: K, value: v}]',
  '    environments:',
  '      - name: e',
  '        cluster: staging-cluster',
  '        services:',
  '          - {type: container, name: web, registry: docker-hub, image_name: library/nginx, tag: "1"}',
  '',
].join('\n');
/** The same with an environment template, overrides and an exclusion (src/manifest/templates.ts). */
const MICRO_TEMPLATES = [
  'version: 1',
  'projects:',
  '  - name: p',
  '    templates:',
  '      - name: t',
  '        variables: [{key: K, value: v}]',
  '        deployment_stages: [{name: s, services: [web, db]}]',
  '        services:',
  '          - {type: container, name: web, registry: docker-hub, image_name: library/nginx, tag: "1", ports: [{name: http, internal_port: 80}]}',
  '          - {type: database, name: db, database_type: POSTGRESQL, version: "16", mode: CONTAINER}',
  '    environments:',
  '      - name: e',
  '        cluster: staging-cluster',
  '        template: t',
  '        exclude_services: [db]',
  '        overrides:',
  '          services: {web: {tag: "2", ports: [{name: http, publicly_accessible: true}]}}',
  '          variables: [{key: K, value: w}]',
  '',
].join('\n');
const BASES = [
  MICRO,
  readFileSync(resolve(ROOT, 'examples/minimal/driftless.yaml'), 'utf8'),
  readFileSync(resolve(ROOT, 'examples/realistic/organization.yaml'), 'utf8'),
  readFileSync(resolve(ROOT, 'examples/realistic/alerts.yaml'), 'utf8'),
  readFileSync(resolve(ROOT, 'examples/realistic/shop.yaml'), 'utf8'),
  MICRO_TEMPLATES,
];
const OBJECTS = BASES.map((t) => parse(t) as unknown);
const FILE = { path: '/virtual/m.yaml', root: '/virtual', display: 'm.yaml' };
const ENV = { STRIPE_API_KEY: 'k', SESSION_SECRET: 's', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/x', WEBHOOK_SIGNING_SECRET: 'w' };

// ---- generators ----------------------------------------------------------------------------

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\u202e', '\u200b', '\ufeff', '\u2028', 'a/b', '../..', 'C:\\x', '${env:X}', '${file:../../etc/passwd}', '${file:/etc/passwd}', '{{x}}', '<img src=x>', '[x](http://e.vil)', '__proto__', 'constructor', 'é'.repeat(300)),
);
/** Mostly short values; now and then a huge one (100 KB). */
const value = fc.oneof({ weight: 30, arbitrary: nasty }, { weight: 1, arbitrary: fc.constantFrom('x'.repeat(100_000), 'é'.repeat(50_000), '\u0000'.repeat(10_000)) });

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  value,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.array(nasty, { maxLength: 5 }),
  fc.dictionary(nasty, nasty, { maxKeys: 4 }),
  fc.nat({ max: 400 }).map((d) => {
    let v: unknown = 'deep';
    for (let i = 0; i < d; i++) v = i % 2 ? [v] : { k: v };
    return v;
  }),
);

/** Mostly the small example (the loader's cost is the YAML parse: small inputs keep 10,000 runs fast). */
const baseIndex = fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.constantFrom(2, 3) }, { weight: 1, arbitrary: fc.constant(4) }, { weight: 3, arbitrary: fc.constant(5) });

/** Every path (keys and indexes) of a JSON-like value. */
function paths(v: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  return out;
}

type Mutation = { kind: 'set' | 'delete' | 'add-key'; at: number; value: unknown; key: string };

function mutate(obj: unknown, muts: Mutation[]): unknown {
  const root = structuredClone(obj) as Record<string, unknown>;
  for (const m of muts) {
    const all = paths(root).filter((p) => p.length > 0);
    if (all.length === 0) break;
    const p = all[m.at % all.length]!;
    let parent: any = root;
    for (const k of p.slice(0, -1)) parent = parent[k];
    const last = p[p.length - 1]!;
    if (parent === null || typeof parent !== 'object') continue;
    if (m.kind === 'set') parent[last] = m.value;
    else if (m.kind === 'delete') Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
    else if (!Array.isArray(parent)) parent[m.key] = m.value;
  }
  return root;
}

const structural = fc
  .record({
    base: baseIndex,
    muts: fc.array(fc.record({ kind: fc.constantFrom('set', 'delete', 'add-key'), at: fc.nat(), value: wrongValue, key: nasty }), { minLength: 1, maxLength: 5 }),
    json: fc.boolean(),
  })
  .map(({ base, muts, json }) => {
    const v = mutate(OBJECTS[base], muts as Mutation[]);
    return json ? JSON.stringify(v) : stringify(v, { aliasDuplicateObjects: false });
  });

const FRAGMENTS = [
  'x', ': ', '- ', '  ', '\n', '\t', '[', ']', '{', '}', '"', "'", '&a ', '*a', '&b [*a, *a, *a]\n', '<<: *a\n', '!!binary aGk=', '!!str ', '!!js/function ', '? ',
  '|\n', '>-\n', '---\n', '...\n', '%YAML 1.1\n', '#', '${env:', '${file:../x}', '${file:/etc/passwd}', '123', 'true', '~', '\u0000', '\u0007', '\u001b[31m', '\u202e',
  '\ud800', 'é', '\r\n', 'name: dup\nname: dup\n', 'version: 1\nversion: 2\n', '__proto__: {}\n',
];
const textual = fc
  .record({
    base: baseIndex,
    muts: fc.array(fc.record({ at: fc.nat(), cut: fc.nat({ max: 30 }), text: fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ unit: 'binary', maxLength: 8 })) }), { minLength: 1, maxLength: 8 }),
  })
  .map(({ base, muts }) => {
    let t = BASES[base]!;
    for (const m of muts) {
      const at = m.at % (t.length + 1);
      t = t.slice(0, at) + m.text + t.slice(at + (m.cut % 4 === 0 ? m.cut : 0));
    }
    return t;
  });

/** Billion laughs and friends, at a random depth and width, at a random place of a manifest. */
const aliasBomb = fc.record({ depth: fc.integer({ min: 2, max: 12 }), width: fc.integer({ min: 2, max: 12 }), where: fc.constantFrom('top', 'description', 'variables') }).map(({ depth, width, where }) => {
  const lines = ['a0: &a0 ["lol"]'];
  for (let i = 1; i <= depth; i++) lines.push(`a${i}: &a${i} [${Array(width).fill(`*a${i - 1}`).join(', ')}]`);
  const bomb = lines.join('\n');
  if (where === 'top') return `version: 1\n${bomb}\nprojects: *a${depth}\n`;
  if (where === 'description') return `version: 1\nx-anchors:\n${bomb.replace(/^/gm, '  ')}\nprojects:\n  - name: p\n    description: *a${depth}\n`;
  return `version: 1\nx: &v {key: K, value: *a${Math.min(depth, 3)}}\nprojects:\n  - name: p\n    variables: [${Array(width).fill('*v').join(', ')}]\n`;
});

const deepText = fc.record({ depth: fc.integer({ min: 50, max: 3000 }), flow: fc.boolean() }).map(({ depth, flow }) =>
  flow ? `version: 1\nprojects: ${'['.repeat(depth)}${']'.repeat(depth)}\n` : 'version: 1\nprojects:\n' + Array.from({ length: Math.min(depth, 90) }, (_, i) => `${' '.repeat(i + 1)}- k${i}:`).join('\n') + '\n',
);

const binary = fc.uint8Array({ minLength: 1, maxLength: 600 }).map((b) => Buffer.from(b).toString('latin1'));

const GEN = process.env.FUZZ_GEN;
const manifestText = GEN ? ({ structural, textual, aliasBomb, deepText, binary } as Record<string, fc.Arbitrary<string>>)[GEN]! : fc.oneof(
  { weight: 5, arbitrary: structural },
  { weight: 5, arbitrary: textual },
  { weight: 1, arbitrary: aliasBomb },
  { weight: 1, arbitrary: deepText },
  { weight: 1, arbitrary: binary },
);

// ---- property ------------------------------------------------------------------------------

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

describe('manifest loader fuzz', () => {
  // About 10 s on an idle machine; the margin is for a shared, busy one.
  it(`${RUNS} mutated manifests: each loads or gives located error diagnostics; none throws or takes over a second`, { timeout: 120_000 }, () => {
    let loaded = 0;
    let refused = 0;
    let slowest = 0;
    let diagnostics = 0;
    // Warm-up: the first load compiles the schema validators; that one-off cost is not a manifest's.
    for (const text of BASES) loadManifestFromSources([{ file: FILE, text }], { env: ENV, readFile: () => ({ ok: true, text: '' }) });
    const started = Date.now();
    fc.assert(
      fc.property(manifestText, (text) => {
        const t0 = performance.now();
        const r = loadManifestFromSources([{ file: FILE, text }], {
          env: ENV,
          readFile: (ref) => (ref.includes('..') || ref.startsWith('/') ? { ok: false, reason: 'outside the manifest root' } : { ok: true, text: 'content' }),
        });
        if (r.manifest) buildGraph(r.manifest);
        const ms = performance.now() - t0;
        slowest = Math.max(slowest, ms);
        if (process.env.FUZZ_DEBUG && ms > 100) console.log(Math.round(ms), JSON.stringify(text.slice(0, 300)), text.length);
        expect(ms).toBeLessThan(1000);
        diagnostics += r.diagnostics.length;
        if (r.manifest === undefined) {
          refused++;
          expect(r.diagnostics.some((d) => d.severity === 'error')).toBe(true);
        } else {
          loaded++;
        }
        for (const d of r.diagnostics) {
          if (d.code === 'manifest.empty') continue;
          expect(d.range?.file, `${d.code}: ${d.summary}`).toBe('m.yaml');
          expect(d.range!.start.line).toBeGreaterThan(0);
        }
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261122) },
    );
    record('fuzz-manifest', {
      title: 'Mutated manifests (wrong types, deep nesting, huge strings, unicode and control characters, templates, anchors and alias bombs, duplicate keys, binary data) through the loader, validator and graph build: each loads or gives error diagnostics located in the file; none throws or takes a second',
      file: 'test/fuzz/manifest.fuzz.test.ts',
      command: 'npm test',
      figures: { 'manifests fed': RUNS, loaded, 'refused with located diagnostics': refused, 'diagnostics checked': diagnostics, 'uncaught exceptions': 0, 'slowest (ms)': Math.round(slowest), 'total (s)': ((Date.now() - started) / 1000).toFixed(1) },
    });
  });
});
