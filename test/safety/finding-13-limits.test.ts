/**
 * Finding 13, the manifest limits: a 1,000-deep block nesting said "Maximum call stack size
 * exceeded", and a 1 MB anchor aliased 98 times made a 99 MB plan. Both are refused with a clear
 * error at file:line:col that names the limit, by validate and by plan, with no stack trace and
 * nothing sent to the API. (Loading time is measured by the benchmark, bench/manifest-load.mjs,
 * never asserted here.)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

interface JsonDiagnostic {
  code: string;
  summary: string;
  detail?: string;
  range?: { file: string; start: { line: number; col: number } };
}

const STACK_TRACE = /\n\s+at .+:\d+:\d+|Maximum call stack|RangeError/;

function deepBlocks(levels: number): string {
  let text = 'version: 1\nprojects:\n  - name: deep\n    description:\n';
  for (let i = 0; i < levels; i++) text += ' '.repeat(6 + i) + `k${i}:\n`;
  return text;
}

function deepLists(levels: number): string {
  let text = 'version: 1\nprojects:\n';
  for (let i = 0; i < levels; i++) text += ' '.repeat(2 + 2 * i) + '-\n';
  return text;
}

/** A 1 MiB description anchored once and aliased by 98 environments. */
function aliasAmplification(): string {
  const big = 'x'.repeat(1024 * 1024);
  let text = `version: 1\nprojects:\n  - name: amplified\n    description: &big "${big}"\n    environments:\n`;
  for (let i = 0; i < 98; i++) text += `      - {name: env-${i}, cluster: staging-cluster, description: *big}\n`;
  return text;
}

describe('finding 13: nesting and alias limits', () => {
  it.each([
    ['1,000 nested mappings', deepBlocks(1000), 66],
    ['1,000 nested lists', deepLists(1000), 66],
  ])('finding 13: %s are refused with the limit, at the line where it is passed', async (_what, text, line) => {
    h.write({ 'deep/m.yaml': text });
    for (const cmd of ['validate', 'plan']) {
      const r = await h.run([cmd, 'deep', ...(cmd === 'validate' ? ['--format', 'json'] : [])]);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toMatch(STACK_TRACE);
      if (cmd === 'validate') {
        const d = (JSON.parse(r.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics;
        expect(d).toHaveLength(1);
        expect(d[0]).toMatchObject({ code: 'yaml.too-deep', range: { file: 'deep/m.yaml', start: { line } } });
        expect(d[0]!.summary).toBe('values are nested deeper than 64 levels here');
        expect(d[0]!.detail).toContain('64 is the limit');
      } else {
        expect(r.stdout + r.stderr).toContain(`deep/m.yaml:${line}:`);
        expect(r.stdout + r.stderr).toContain('nested deeper than 64 levels');
      }
    }
  });

  it('finding 13: a large anchor aliased 98 times is refused, and plan writes no plan file', async () => {
    h.write({ 'amp/m.yaml': aliasAmplification() });
    const v = await h.run(['validate', 'amp', '--format', 'json']);
    expect(v.code).toBe(1);
    const d = (JSON.parse(v.stdout) as { diagnostics: JsonDiagnostic[] }).diagnostics;
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ code: 'yaml.alias-expansion', range: { file: 'amp/m.yaml', start: { line: 7 } } });
    expect(d[0]!.summary).toMatch(/aliases of this file expand to more than 1\.0 MiB/);
    expect(d[0]!.detail).toContain('*big');
    // The JSON answer itself stays small: the anchored value is never repeated in it.
    expect(v.stdout.length).toBeLessThan(64 * 1024);

    const p = await h.run(['plan', 'amp', '--out', 'amp.plan.json']);
    expect(p.code).toBe(1);
    expect(p.stdout + p.stderr).toContain('amp/m.yaml:7:');
    expect(p.stdout + p.stderr).not.toMatch(STACK_TRACE);
    expect((p.stdout + p.stderr).length).toBeLessThan(64 * 1024);
    expect(existsSync(join(h.dir, 'amp.plan.json'))).toBe(false);
  });

  it('finding 13: ordinary anchors and aliases stay allowed', async () => {
    const text = [
      'version: 1',
      'projects:',
      '  - name: shared',
      '    environments:',
      ...Array.from({ length: 20 }, (_, i) => [`      - name: env-${i}`, '        cluster: staging-cluster', `        variables: ${i === 0 ? '&vars ' : ''}${i === 0 ? '[{key: LOG_LEVEL, value: info}, {key: REGION, value: eu-west-3}]' : '*vars'}`]).flat(),
      '',
    ].join('\n');
    h.write({ 'ok/m.yaml': text });
    const r = await h.run(['validate', 'ok']);
    expect(r.stdout + r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
  });
});
