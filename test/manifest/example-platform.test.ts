/**
 * examples/platform through `driftless validate`: valid as committed, even with no `${env:}` set
 * (a fork's pull request, an editor); and one mistake per feature, each injected into a copy,
 * reported at the file and line of the mistake (the other place too, when there are two). Its
 * plan -> apply -> plan on the emulator is test/e2e/example-platform.test.ts.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const EXAMPLE = path.join(repoRoot, 'examples/platform');

async function validate(dir: string, cwd: string, extra: string[] = []) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {}, cwd };
  const code = await main(['validate', dir, ...extra], io);
  return { code, stdout, stderr };
}

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A copy of the example with `old` replaced by `injected` in `file`; where the injected text starts (1-based line). */
function withMistake(file: string, old: string, injected: string): { dir: string; line: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'driftless-platform-'));
  dirs.push(dir);
  cpSync(EXAMPLE, dir, { recursive: true });
  const target = path.join(dir, file);
  const text = readFileSync(target, 'utf8');
  expect(text, `${file} holds the text the mistake replaces`).toContain(old);
  const changed = text.replace(old, injected);
  writeFileSync(target, changed);
  const marker = injected.split('\n').find((l) => !old.includes(l)) ?? injected;
  return { dir, line: changed.slice(0, changed.indexOf(marker)).split('\n').length };
}

describe('examples/platform', () => {
  it('validates as committed with no ${env:} set: exit 0, the unset secrets named as warnings', async () => {
    const r = await validate('examples/platform', repoRoot);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('✓ Valid manifest (5 files: 1 project, 2 environments, 24 services), 2 warnings.');
    expect(r.stderr.match(/^warning\[ref\.env-missing\]/gm)).toHaveLength(2);
    expect(r.stderr).not.toMatch(/^error/m);
  });

  // One mistake per feature: the file it is in, the text it replaces, the mistake, what is reported.
  const cases: Array<{ feature: string; file: string; old: string; injected: string; code: string; summary: string; count: number; also?: RegExp }> = [
    {
      feature: 'a template override of a service the template does not have',
      file: 'team-catalog.yaml',
      old: '            search:\n              memory: 4096',
      injected: '            serach:\n              memory: 4096',
      code: 'ref.unresolved',
      count: 1,
      summary: 'environment `production` overrides service `serach`, which template `storefront` does not declare',
      also: /Did you mean `search`\?/,
    },
    {
      feature: 'a moved address that is not an address',
      file: 'team-checkout.yaml',
      old: '    to: project.storefront/environment.staging/container.checkout-api',
      injected: '    to: project.storefront/environment.staging/checkout-api',
      code: 'moved.bad-address',
      count: 1,
      summary: 'moved to: "project.storefront/environment.staging/checkout-api" is not an address a rename applies to',
    },
    {
      feature: 'an ignore_changes path the service does not have',
      file: 'team-web.yaml',
      old: 'ignore_changes: [tag]',
      injected: 'ignore_changes: [tagg]',
      code: 'manifest.ignore-path',
      // Once, though the template's service is instantiated in three environments.
      count: 1,
      summary: 'container `web`: ignore_changes names `tagg`, which is not one of its fields; did you mean `tag`?',
    },
    {
      feature: 'a service name two teams declare in their files',
      file: 'team-web.yaml',
      old: '          - type: container\n            name: admin',
      injected: '          - type: container\n            name: search\n            registry: docker-hub\n            image_name: acme/search\n            tag: "1"\n          - type: container\n            name: admin',
      code: 'manifest.duplicate',
      // Once per environment the template makes (staging, production): the name is declared twice in each.
      count: 2,
      summary: '`search` is declared twice',
      // The other team's declaration of the name.
      also: /It is also declared at .*team-catalog\.yaml:30:19/,
    },
  ];

  it.each(cases)('points $feature at its file and line', async ({ file, old, injected, code, summary, count, also }) => {
    const { dir, line } = withMistake(file, old, injected);
    const r = await validate(dir, dir, ['--format', 'json']);
    expect(r.code).toBe(1);
    const errors = (JSON.parse(r.stdout).diagnostics as Array<{ severity: string; code: string; summary: string; detail?: string; range?: { file: string; start: { line: number } } }>).filter((d) => d.severity === 'error');
    expect(errors).toHaveLength(count);
    // Every error is this mistake, at its place.
    for (const e of errors) {
      expect(e.code).toBe(code);
      expect(e.summary).toContain(summary);
      expect(`${e.range?.file}:${e.range?.start.line}`).toBe(`${file}:${line}`);
      if (also) expect(e.detail).toMatch(also);
    }
  });
});
