/**
 * The fast parse (src/manifest/fast-yaml.ts) against the positioned parse (parse-yaml.ts), over
 * generated YAML: every text the fast parse accepts, the positioned parse accepts without a
 * diagnostic and builds the same values (same types, same key order, -0 and NaN included) and the
 * same objects in the same order; and the positions built lazily for the fast parse's objects are
 * the positioned parse's, object for object. Texts come from three generators: values written in
 * random YAML styles (block, flow, quoted, block scalars, anchors, aliases, merge keys), tricky
 * scalars, and random edits of real manifests.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastParseYaml } from '../../src/manifest/fast-yaml.js';
import { parseYamlFileLazily } from '../../src/manifest/lazy-positions.js';
import { DEFAULT_PARSE_LIMITS, parseYamlFile, type ParseLimits } from '../../src/manifest/parse-yaml.js';
import { KEY_SOURCES } from '../../src/manifest/source-map.js';
import { FIELD_SOURCES, SOURCE } from '../../src/manifest/types.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = ['examples/minimal/driftless.yaml', 'examples/realistic/organization.yaml', 'examples/realistic/alerts.yaml', 'examples/realistic/shop.yaml'].map((f) => readFileSync(resolve(ROOT, f), 'utf8'));
const SMALL_LIMITS: ParseLimits = { maxDepth: 6, maxAliases: 3, maxNodes: 60, maxAliasExpansionBytes: 40 };

/** The value with its types and key order made visible (deep-equal ignores key order, -0, NaN). */
function shape(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : `n${v}`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v !== 'object') return `${typeof v}:${String(v)}`;
  if (Array.isArray(v)) return `[${v.map(shape).join(',')}]`;
  const proto = Object.getPrototypeOf(v) === Object.prototype ? '' : 'proto!';
  return `${proto}{${Object.keys(v)
    .map((k) => `${JSON.stringify(k)}:${shape((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

const POSITIONS = [SOURCE, FIELD_SOURCES, KEY_SOURCES] as const;

/** The property: declined, or the same as the positioned parse (values, objects, positions). */
function checkAgreement(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): boolean {
  const fast = fastParseYaml(text, limits);
  if (!fast) return false;
  const built: object[] = [];
  const positioned = parseYamlFile(text, 'f.yaml', limits, built);
  expect(positioned.diagnostics, text).toEqual([]);
  expect(shape(fast.value), text).toBe(shape(positioned.value));
  expect(fast.objects.map(shape), text).toEqual(built.map(shape));

  const lazy = parseYamlFileLazily(text, 'f.yaml', limits);
  expect(lazy.diagnostics).toEqual([]);
  expect(lazy.lineCounter.lineStarts).toEqual(positioned.lineCounter.lineStarts);
  // The two values have the same shape: walked alike, their objects pair up.
  const lazyObjects = objectsOf(lazy.value);
  const positionedObjects = objectsOf(positioned.value);
  expect(lazyObjects.length).toBe(positionedObjects.length);
  lazyObjects.forEach((o, i) => {
    for (const key of POSITIONS) expect((o as Record<symbol, unknown>)[key], `${String(key)} of object ${i}\n${text}`).toEqual((positionedObjects[i] as Record<symbol, unknown>)[key]);
  });
  return true;
}

/** Every object reachable from `v`, depth first (objects shared by merge keys once). */
function objectsOf(v: unknown, out: object[] = [], seen = new Set<object>()): object[] {
  if (v === null || typeof v !== 'object' || seen.has(v)) return out;
  seen.add(v);
  out.push(v);
  for (const k of Object.keys(v)) objectsOf((v as Record<string, unknown>)[k], out, seen);
  return out;
}

// ---- generators ----

const SCALARS = [
  'true', 'True', 'TRUE', 'false', 'yes', 'no', 'on', 'off', 'y', 'n', 'null', 'Null', 'NULL', '~', '0', '-0', '+0', '007', '0o17', '0o8', '0x1F', '0xg', '1_000',
  '1e3', '1E-3', '.5', '-.5', '+.5', '5.', '1.0', '1.50', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', 'NaN', '12:30', '2026-11-27', '1.2.3', '0b101', '-', 'a b', 'a:b',
  'a #b', "it's", 'x"y', '${env:A}', '${env:A:-d}', 'héllo', '😀', '9007199254740993', '1e400', '-1e400', '  ', '', '=', '<<', '__proto__', 'constructor', 'toString',
];
const KEYS = ['name', 'key', 'value', 'type', 'a', 'b', 'version', '<<', '__proto__', 'true', '1', '01', '1.0', 'x y', '"q"', "'s'", 'null', '~', 'k:v', 'é'];

function plain(s: string): string | undefined {
  // What may be written unquoted: the generator sometimes writes invalid text on purpose (below).
  return /^[A-Za-z0-9_.~+\-$é😀{}:]*$/.test(s) && s !== '' ? s : undefined;
}

function scalarText(s: string, style: number): string {
  if (style === 0 && plain(s) !== undefined && !/[{}]/.test(s)) return s;
  if (style === 1) return `'${s.replace(/'/g, "''")}'`;
  return JSON.stringify(s);
}

function keyText(k: string, style: number): string {
  if (k.startsWith('"') || k.startsWith("'")) return k;
  return style === 2 ? JSON.stringify(k) : /^[A-Za-z0-9_<é~. ]+$/.test(k) && !k.endsWith(' ') ? k : JSON.stringify(k);
}

type Tree = { kind: 'scalar'; text: string; style: number } | { kind: 'seq'; items: Tree[]; flow: boolean } | { kind: 'map'; entries: Array<[string, number, Tree]>; flow: boolean } | { kind: 'block'; lines: string[]; indicator: string };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constant('scalar' as const), text: fc.oneof(fc.constantFrom(...SCALARS), fc.string({ maxLength: 6 })), style: fc.nat(2) }),
    fc.record({ kind: fc.constant('block' as const), lines: fc.array(fc.constantFrom('a', ' b', '', 'c: d', '  e', '# f'), { minLength: 1, maxLength: 4 }), indicator: fc.constantFrom('|', '>', '|-', '>-', '|+', '>+', '|2') }),
    fc.record({ kind: fc.constant('seq' as const), items: fc.array(tie('t'), { maxLength: 4 }), flow: fc.boolean() }),
    fc.record({ kind: fc.constant('map' as const), entries: fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.nat(2), tie('t')), { maxLength: 4 }), flow: fc.boolean() }),
  ),
})).t;

/** The tree as YAML at `indent`, as a value after `key:` / `- ` (inline) or on its own lines. */
function render(t: Tree, indent: number): string {
  const pad = ' '.repeat(indent);
  switch (t.kind) {
    case 'scalar':
      return ` ${scalarText(t.text, t.style)}`;
    case 'block':
      return ` ${t.indicator}\n${t.lines.map((l) => (l === '' ? '' : `${pad}  ${l}`)).join('\n')}`;
    case 'seq':
      if (t.flow || t.items.length === 0) return ` [${t.items.map((i) => flow(i)).join(', ')}]`;
      return `\n${t.items.map((i) => `${pad}-${render(i, indent + 2)}`).join('\n')}`;
    case 'map':
      if (t.flow || t.entries.length === 0) return ` {${t.entries.map(([k, s, v]) => `${keyText(k, s)}: ${flow(v)}`).join(', ')}}`;
      return `\n${t.entries.map(([k, s, v]) => `${pad}${keyText(k, s)}:${render(v, indent + 2)}`).join('\n')}`;
  }
}

function flow(t: Tree): string {
  switch (t.kind) {
    case 'scalar':
      return scalarText(t.text, t.style === 0 && /[,[\]{}#:]/.test(t.text) ? 2 : t.style);
    case 'block':
      return JSON.stringify(t.lines.join('\n'));
    case 'seq':
      return `[${t.items.map(flow).join(', ')}]`;
    case 'map':
      return `{${t.entries.map(([k, s, v]) => `${keyText(k, s)}: ${flow(v)}`).join(', ')}}`;
  }
}

/** A document: a mapping of generated values, some anchored and aliased, some merged. */
const documents = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...KEYS, 'p', 'q', 'r'), fc.nat(2), tree), { minLength: 1, maxLength: 5 }),
    fc.array(fc.tuple(fc.nat(8), fc.constantFrom('anchor', 'alias', 'merge', 'merge-list')), { maxLength: 3 }),
  )
  .map(([entries, refs]) => {
    const lines = entries.map(([k, s, v]) => `${keyText(k, s)}:${render(v, 2)}`);
    for (const [at, what] of refs) {
      const i = at % lines.length;
      if (what === 'anchor') lines[i] = lines[i]!.replace(/^([^:]+):/, '$1: &x');
      else if (what === 'alias') lines.push(`al${i}: *x`);
      else if (what === 'merge') lines.push(`m${i}:\n  <<: *x\n  name: m`);
      else lines.push(`ml${i}:\n  <<: [*x]\n  b: 1`);
    }
    return lines.join('\n') + '\n';
  });

/** Random edits of a real manifest: a character inserted, removed or replaced, a line re-indented or repeated. */
const EDIT_CHARS = [':', '-', '#', "'", '"', '[', ']', '{', '}', '&a', '*a', '!', '|', '>', '\n', ' ', '  ', '\t', '~', '?', ',', '<<: *a', '%', '@', '\r', 'é', '\\', '0', 'x'];
const edits = fc
  .tuple(fc.constantFrom(...EXAMPLES), fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...EDIT_CHARS)), { minLength: 1, maxLength: 4 }))
  .map(([base, ops]) => {
    let text = base;
    for (const [pos, op, s] of ops) {
      const i = pos % (text.length + 1);
      if (op === 0) text = text.slice(0, i) + s + text.slice(i);
      else if (op === 1) text = text.slice(0, i) + text.slice(i + 1);
      else if (op === 2) text = text.slice(0, i) + s + text.slice(i + 1);
      else {
        const start = text.lastIndexOf('\n', i - 1) + 1;
        text = text.slice(0, start) + (pos % 2 ? ' ' : '') + text.slice(start + (pos % 2 ? 0 : Math.min(1, text.length - start)));
      }
    }
    return text;
  });

describe('the fast parse gives the positioned parse’s values and positions, or declines', () => {
  it('on the real manifests of the examples', () => {
    for (const text of EXAMPLES) expect(checkAgreement(text)).toBe(true);
  });

  it('on a manifest sharing settings through an anchor and merge keys (the benchmark’s shape)', () => {
    const text = [
      'version: 1',
      'projects:',
      '  - name: p',
      '    environments:',
      '      - name: e',
      '        cluster: c',
      '        services:',
      '          - &app',
      '            type: application',
      '            name: s0',
      '            ports: [{ name: http, internal_port: 8080 }]',
      '          - <<: *app',
      '            name: s1',
      '          - <<: *app',
      '            name: s2',
      '            cpu: 250',
      '',
    ].join('\n');
    expect(checkAgreement(text)).toBe(true);
  });

  it('on generated documents', () => {
    let accepted = 0;
    fc.assert(
      fc.property(documents, (text) => {
        if (checkAgreement(text)) accepted++;
      }),
      { numRuns: 3000 },
    );
    // The property says nothing if everything is declined.
    expect(accepted).toBeGreaterThan(150);
  });

  it('on generated documents under small limits (depth, aliases, values, expansion)', () => {
    fc.assert(
      fc.property(documents, (text) => {
        checkAgreement(text, SMALL_LIMITS);
      }),
      { numRuns: 1500 },
    );
  });

  it('on every tricky scalar, plain, quoted and as a key', () => {
    for (const s of SCALARS) {
      for (const text of [`k: ${s}\n`, `k: '${s.replace(/'/g, "''")}'\n`, `k: ${JSON.stringify(s)}\n`, `${s}: v\n`, `- ${s}\n`, `[${s}]\n`, `{k: ${s}}\n`]) {
        checkAgreement(text);
      }
    }
  });

  it('declines an anchor or alias written against a flow indicator (a counterexample of the random edits)', () => {
    for (const text of ['secret: &a${:env:WEBHOOK_SIGNING_SECRET}\n', 'k: &a{x: 1}\n', 'k: &a[1]\n', 'k: &a$[1]\n', 'a: &x 1\nk: *x{b}\n', 'a: &x 1\nk: *x[b]\n']) {
      expect(fastParseYaml(text, DEFAULT_PARSE_LIMITS), text).toBeUndefined();
    }
    // Each of them is one the positioned parse reports (so accepting it would pass a broken file).
    for (const text of ['secret: &a${:env:WEBHOOK_SIGNING_SECRET}\n', 'k: &a{x: 1}\n']) {
      expect(parseYamlFile(text, 'f.yaml', DEFAULT_PARSE_LIMITS).diagnostics.map((d) => d.code), text).toContain('yaml.missing-char');
    }
  });

  it('on random edits of the examples', () => {
    fc.assert(
      fc.property(edits, (text) => {
        checkAgreement(text);
      }),
      { numRuns: 3000 },
    );
  });
});
