/**
 * The loader's own parts that replaced quadratic or unhelpful library behaviour (issue 11): YAML
 * errors described in the manifest's terms, the block-nesting pre-check, duplicate keys and alias
 * resolution done in one pass, the shared "Known:" list, and ajv's error merging.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { findExcessiveBlockNesting, parseYamlFile } from '../../src/manifest/parse-yaml.js';
import { compileManifestValidator, linearErrorMerging, precompiledValidatorSource, validateManifestSchema } from '../../src/manifest/schema-validate.js';
import { knownList } from '../../src/manifest/suggest.js';

function only(text: string) {
  const p = parseYamlFile(text, 'm.yaml');
  expect(p.value).toBeUndefined();
  expect(p.diagnostics).toHaveLength(1);
  return p.diagnostics[0]!;
}

describe('YAML syntax errors in the manifest\'s terms', () => {
  it.each([
    ['an unknown escape in double quotes', 'a: "C:\\dir"\n', 'yaml.bad-dq-escape', 1, 7, /`\\d` is not an escape sequence/],
    ['an unclosed flow mapping', 'a: {b: 1\nc: 2\n', 'yaml.bad-indent', 1, 4, /mapping opened with `\{` here is not closed/],
    ['a closing bracket with nothing open', 'a: ]\n', 'yaml.unexpected-token', 1, 4, /this `\]` closes nothing/],
    ['a list item after the keys of a mapping', 'a: b\n- c\n', 'yaml.multiline-implicit-key', 2, 1, /list item .* cannot follow the keys of a mapping/],
    ['a list item under a key that has a value', 'a: 1 # c\n#x\n  - b\n', 'yaml.block-as-implicit-key', 3, 3, /list item is indented under `a`, which already has a value/],
    ['a single quote inside single quotes', "a: 'it's'\n", 'yaml.unexpected-token', 1, 8, /text follows the closing quote/],
    ['an unclosed single quote', "a: 'abc\nb: 1\n", 'yaml.missing-char', 1, 4, /the `'` here has no closing `'`/],
    ['a key missing the colon before its value', 'p:\n  - name: a\n    cpu 250\n    memory: 3\n', 'yaml.multiline-implicit-key', 3, 5, /`cpu` is written like a key but has no colon after it/],
    ['an indented first key', '# c\n  version: 1\nprojects: []\n', 'yaml.unexpected-token', 2, 1, /the first key of the file is indented/],
    ['a sibling key one column off under a list item', 'p:\n  - name: a\n   foo: 1\n', 'yaml.missing-char', 3, 4, /indented to column 4, where no key above it starts/],
  ])('%s: one error at the mistake', (_what, text, code, line, col, summary) => {
    const d = only(text);
    expect(d).toMatchObject({ code, range: { file: 'm.yaml', start: { line, col } } });
    expect(d.summary).toMatch(summary);
    expect(d.summary).not.toMatch(/compact mappings|Implicit keys|Unexpected/);
  });

  it('shows the fix of a missing colon', () => {
    expect(only('p:\n  - name: a\n    cpu 250\n    memory: 3\n').detail).toContain('Write `cpu: 250`');
  });

  it('names the columns a misaligned key could take', () => {
    const d = only('a:\n  b:\n    c: 1\n   d: 2\n');
    expect(d.detail).toContain('Indent this line to column 5, 3 or 1');
  });
});

describe('duplicate keys and aliases, in one pass', () => {
  it('finds a key written twice, even as a number and a string, once when the mapping is aliased', () => {
    const p = parseYamlFile('a: &x {k: 1, k: 2}\nb: *x\nc: *x\n', 'm.yaml');
    expect(p.diagnostics.map((d) => [d.code, d.summary, d.range!.start.line, d.range!.start.col])).toEqual([
      ['yaml.duplicate-key', 'key `k` is written twice in the same mapping (first on line 1)', 1, 14],
    ]);
    expect(parseYamlFile('1: a\n"1": b\n', 'm.yaml').diagnostics.map((d) => d.code)).toEqual(['yaml.duplicate-key']);
  });

  it('reports a duplicate key before a syntax error as well as the syntax error', () => {
    const p = parseYamlFile('a: 1\na: 2\nb: "open\n', 'm.yaml');
    expect(p.diagnostics.map((d) => [d.code, d.range!.start.line])).toEqual([
      ['yaml.duplicate-key', 2],
      ['yaml.missing-char', 3],
    ]);
  });

  it('resolves an alias to the last anchor of its name written before it', () => {
    const p = parseYamlFile('a: &x one\nb: *x\nc: &x two\nd: *x\ne: {<<: &m {k: v}}\nf: {<<: *m, z: 1}\n', 'm.yaml');
    expect(p.diagnostics).toEqual([]);
    expect(p.value).toEqual({ a: 'one', b: 'one', c: 'two', d: 'two', e: { k: 'v' }, f: { k: 'v', z: 1 } });
  });

  it('refuses aliases that multiply the file, and keeps the budget relative to the file', () => {
    const big = 'y'.repeat(300_000);
    const text = `a: &b "${big}"\n` + Array.from({ length: 5 }, (_, i) => `c${i}: *b\n`).join('');
    const p = parseYamlFile(text, 'm.yaml', { maxDepth: 64, maxAliases: 100, maxNodes: 500_000, maxAliasExpansionBytes: 1024 * 1024 });
    expect(p.diagnostics.map((d) => [d.code, d.range!.start.line])).toEqual([['yaml.alias-expansion', 5]]);
    // Three copies of 300 KB stay within 1 MiB.
    expect(parseYamlFile(`a: &b "${big}"\nc0: *b\nc1: *b\n`, 'm.yaml').diagnostics).toEqual([]);
  });
});

describe('block nesting pre-check', () => {
  it('passes an ordinary manifest and stops at the first line past the limit', () => {
    expect(findExcessiveBlockNesting('version: 1\nprojects:\n  - name: a\n    environments:\n      - name: b\n', 64)).toBeUndefined();
    let deep = 'a:\n';
    for (let i = 1; i < 10; i++) deep += ' '.repeat(i) + `k${i}:\n`;
    const at = findExcessiveBlockNesting(deep, 5)!;
    expect(deep.slice(0, at).split('\n').length).toBe(6);
    // `- - - x`: indicators on one line count as levels.
    expect(findExcessiveBlockNesting('- - - - - - x\n', 5)).toBe(0);
    // Comments and blank lines do not count.
    expect(findExcessiveBlockNesting('a:\n        # deep comment\n\n  b: 1\n', 2)).toBeUndefined();
  });
});

describe('Known: lists', () => {
  it('names each candidate once, in first-seen order, truncated after the maximum', () => {
    expect(knownList(['B', 'A', 'B', 'C', 'A'])).toBe('B, A, C');
    expect(knownList([])).toBe('(none)');
    expect(knownList(Array.from({ length: 30 }, (_, i) => `N${i % 25}`), { max: 20 })).toBe(Array.from({ length: 20 }, (_, i) => `N${i}`).join(', ') + ', …');
  });
});

describe('ajv error merging', () => {
  function evalModule(source: string): ValidateFunction {
    const module = { exports: {} as unknown };
    new Function('module', 'exports', 'require', source)(module, module.exports, createRequire(import.meta.url));
    return module.exports as ValidateFunction;
  }

  it('appends in place, with the same errors as the runtime-compiled validator when many list items fail', () => {
    const source = precompiledValidatorSource();
    expect(source).not.toContain('vErrors.concat(');
    expect(linearErrorMerging('vErrors = vErrors === null ? validate7.errors : vErrors.concat(validate7.errors);')).toBe(
      'if (vErrors === null) vErrors = validate7.errors; else for (const e of validate7.errors) vErrors.push(e);',
    );
    const doc = {
      version: 1,
      projects: [{ name: 'p', variables: Array.from({ length: 50 }, (_, i) => ({ key: `V${i}`, valu: 'x', ...(i % 3 === 0 ? { secret: 'yes' } : {}) })) }],
    };
    const precompiled = evalModule(source);
    const runtime = compileManifestValidator();
    expect(precompiled(structuredClone(doc))).toBe(false);
    expect(runtime(structuredClone(doc))).toBe(false);
    expect(precompiled.errors!.length).toBeGreaterThan(50);
    expect(precompiled.errors).toStrictEqual(runtime.errors);
    expect(validateManifestSchema(structuredClone(doc), 'm.yaml', precompiled)).toStrictEqual(validateManifestSchema(structuredClone(doc), 'm.yaml', runtime));
  });
});
