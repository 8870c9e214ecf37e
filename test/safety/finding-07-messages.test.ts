/**
 * Finding 7 (messages that mislead), the manifest part: an alias cycle suggested "point A at A", a
 * self-alias said the variable "does not exist", the "Known:" list repeated names, and one YAML
 * indentation mistake gave 13 raw parser errors with the caret on the wrong line. End to end through
 * `driftless validate` and `plan` against the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function manifest(projectVars: string[], envVars: string[] = []): string {
  return [
    'version: 1',
    'projects:',
    '  - name: msgs',
    '    variables:',
    ...projectVars.map((v) => `      - ${v}`),
    '    environments:',
    '      - name: dev',
    '        cluster: staging-cluster',
    ...(envVars.length ? ['        variables:', ...envVars.map((v) => `          - ${v}`)] : []),
    '',
  ].join('\n');
}

interface JsonDiagnostic {
  code: string;
  summary: string;
  detail?: string;
  range?: { file: string; start: { line: number; col: number } };
}

async function validateJson(file: string): Promise<{ code: number; diagnostics: JsonDiagnostic[]; text: string }> {
  const r = await h.run(['validate', file, '--format', 'json']);
  const parsed = JSON.parse(r.stdout) as { diagnostics: JsonDiagnostic[] };
  return { code: r.code, diagnostics: parsed.diagnostics, text: r.stdout + r.stderr };
}

describe('finding 7: alias messages', () => {
  it('finding 7: an alias cycle is called a cycle, once, with its chain', async () => {
    h.write({ 'cycle.yaml': manifest(['{key: A, alias: B}', '{key: B, alias: A}', '{key: C, value: c}']) });
    const r = await validateJson('cycle.yaml');
    expect(r.code).toBe(1);
    const errors = r.diagnostics.filter((d) => d.code.startsWith('ref.'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ref.alias-cycle', range: { file: 'cycle.yaml', start: { line: 5, col: 25 } } });
    expect(errors[0]!.summary).toContain('cycle');
    expect(errors[0]!.summary).toContain('A -> B -> A');
    // Never the old advice of pointing a variable at itself.
    expect(r.text).not.toMatch(/point `A` at `A`|point `B` at `B`/);
  });

  it('finding 7: a longer cycle lists every step, and a variable leading into it is told so', async () => {
    h.write({ 'cycle3.yaml': manifest(['{key: X, alias: Y}', '{key: Y, alias: Z}', '{key: Z, alias: X}', '{key: W, alias: X}']) });
    const r = await validateJson('cycle3.yaml');
    const cycles = r.diagnostics.filter((d) => d.code === 'ref.alias-cycle');
    expect(cycles.map((d) => d.summary)).toEqual(['variables `X`, `Y` and `Z` alias each other in a cycle: X -> Y -> Z -> X']);
    const into = r.diagnostics.filter((d) => d.code === 'ref.alias-of-alias');
    expect(into).toHaveLength(1);
    expect(into[0]!.detail).toContain('X -> Y -> Z -> X');
  });

  it('finding 7: a self-alias says it aliases itself, not that it does not exist', async () => {
    h.write({ 'self.yaml': manifest(['{key: SELF, alias: SELF}', '{key: OTHER, value: o}']) });
    const r = await validateJson('self.yaml');
    expect(r.code).toBe(1);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'ref.self', summary: 'variable `SELF` is an alias of itself', range: { start: { line: 5, col: 28 } } });
    expect(r.text).not.toContain('does not exist');
  });

  it('finding 7: an alias of an alias points at the end of the chain', async () => {
    h.write({ 'chain.yaml': manifest(['{key: BASE, value: b}', '{key: MID, alias: BASE}', '{key: TOP, alias: MID}']) });
    const r = await validateJson('chain.yaml');
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]!.detail).toBe('The API has no alias of an alias (TOP -> MID -> BASE); point `TOP` at `BASE` instead.');
  });

  it('finding 7: the Known: list names each candidate once', async () => {
    // LOG_LEVEL is declared at project scope and overridden at environment scope: both are candidates.
    h.write({
      'known.yaml': manifest(['{key: LOG_LEVEL, value: info}', '{key: REGION, value: eu}'], ['{key: LOG_LEVEL, value: debug, override: true}', '{key: ALIASED, alias: LOG_LEVL_TYPO}']),
    });
    const r = await validateJson('known.yaml');
    const unresolved = r.diagnostics.filter((d) => d.code === 'ref.unresolved');
    expect(unresolved).toHaveLength(1);
    const known = /Known: ([^.]*)\./.exec(unresolved[0]!.detail ?? '')?.[1];
    expect(known).toBeDefined();
    const names = known!.split(', ');
    expect(names).toEqual([...new Set(names)]);
    expect(names).toContain('LOG_LEVEL');
    expect(names).toContain('REGION');
  });
});

describe('finding 7: YAML syntax errors in the manifest\'s terms', () => {
  const INDENT = [
    'version: 1',
    'projects:',
    '  - name: shop',
    '    environments:',
    '      - name: prod',
    '          cluster: staging-cluster',
    '        mode: PRODUCTION',
    '        services:',
    '          - type: container',
    '            name: web',
    '            registry: docker-hub',
    '            image_name: library/nginx',
    '            tag: "1.27"',
    '',
  ].join('\n');

  it('finding 7: a line indented too deep is one error, on that line, in words, with no schema errors after it', async () => {
    h.write({ 'indent.yaml': INDENT });
    const r = await validateJson('indent.yaml');
    expect(r.code).toBe(1);
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0]!;
    expect(d.range).toEqual(expect.objectContaining({ file: 'indent.yaml', start: { line: 6, col: 11 } }));
    expect(d.summary).toContain('indented deeper than the key above it');
    expect(d.detail).toContain("A key's value is either on the same line or on the lines indented under it");
    expect(r.text).not.toMatch(/compact mappings|Implicit keys|Nested mappings/);
  });

  it('finding 7: the human rendering puts the caret under the line of the mistake', async () => {
    h.write({ 'indent.yaml': INDENT });
    const r = await h.run(['validate', 'indent.yaml']);
    expect(r.code).toBe(1);
    const text = r.stdout + r.stderr;
    expect(text).toContain('--> indent.yaml:6:11');
    expect(text).toContain('6 |           cluster: staging-cluster\n  |           ^');
    expect(text.match(/^error/gm)).toHaveLength(1);
  });

  it('finding 7: plan reports the same single error', async () => {
    h.write({ 'indent.yaml': INDENT });
    const r = await h.run(['plan', 'indent.yaml']);
    expect(r.code).toBe(1);
    expect((r.stdout + r.stderr).match(/^error/gm)).toHaveLength(1);
    expect(r.stdout + r.stderr).toContain('indent.yaml:6:11');
  });

  const mistakes: Array<[string, string, string, { line: number; col: number }, RegExp]> = [
    ['a key without its colon', 'yaml.multiline-implicit-key', 'version: 1\nprojects\n  - name: x\n', { line: 2, col: 1 }, /`projects` is written like a key but has no colon/],
    ['a line indented less than its siblings', 'yaml.bad-indent', 'version: 1\nprojects:\n  - name: shop\n    environments:\n      - name: prod\n     cluster: c\n', { line: 6, col: 6 }, /indented to column 6, where no key above it starts/],
    ['a tab as indentation', 'yaml.tab-as-indent', 'version: 1\nprojects:\n\t- name: shop\n', { line: 3, col: 1 }, /indented with a tab/],
    ['an unclosed quote', 'yaml.missing-char', 'version: 1\nprojects:\n  - name: "shop\n    description: x\n', { line: 3, col: 11 }, /quoted value is never closed/],
    ['an unclosed list', 'yaml.bad-indent', 'version: 1\nprojects: [a, b\nlabel_groups: []\n', { line: 2, col: 11 }, /list opened with `\[` here is not closed/],
    ['a value starting with a reserved character', 'yaml.bad-scalar-start', 'version: 1\nprojects:\n  - name: @shop\n', { line: 3, col: 11 }, /cannot start with `@` unless it is quoted/],
    ['a colon and space in a plain value', 'yaml.block-as-implicit-key', 'version: 1\nprojects:\n  - name: shop: eu\n', { line: 3, col: 11 }, /contains `: `/],
    ['a key written twice', 'yaml.duplicate-key', 'version: 1\nprojects: []\nprojects: []\n', { line: 3, col: 1 }, /key `projects` is written twice in the same mapping \(first on line 2\)/],
    ['text after a closing quote', 'yaml.unexpected-token', 'version: 1\nprojects:\n  - name: \'it\'s\'\n', { line: 3, col: 15 }, /text follows the closing quote/],
    ['two documents', 'yaml.multiple-docs', 'version: 1\n---\nprojects: []\n', { line: 2, col: 1 }, /more than one YAML document/],
  ];
  it.each(mistakes)('finding 7: %s is one error in words at the mistake', async (_what, code, text, start, summary) => {
    h.write({ 'mistake.yaml': text });
    const r = await validateJson('mistake.yaml');
    expect(r.code).toBe(1);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code, range: { file: 'mistake.yaml', start } });
    expect(r.diagnostics[0]!.summary).toMatch(summary);
  });
});
