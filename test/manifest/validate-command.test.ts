/** `driftless validate` run in-process through the CLI entry point, with captured streams. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { tempTree } from './helpers.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const exampleEnv = { STRIPE_API_KEY: 'sk_test_canary_9a8b7c', SESSION_SECRET: 'session-canary-1f2e', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/canary-3d4c', WEBHOOK_SIGNING_SECRET: 'hook-canary-5e6f' };

async function run(argv: string[], opts: { cwd?: string; env?: Record<string, string>; tty?: boolean } = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: { write: (s: string) => (stdout += s), isTTY: opts.tty },
    stderr: { write: (s: string) => (stderr += s), isTTY: opts.tty },
    env: opts.env ?? {},
    cwd: opts.cwd ?? repoRoot,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('driftless validate', () => {
  it('exits 0 on a valid manifest and says what it holds', async () => {
    const r = await run(['validate', 'examples/minimal']);
    expect(r).toEqual({ code: 0, stdout: '✓ Valid manifest (1 file: 1 project, 1 environment, 1 service).\n', stderr: '' });
  });

  it('validates the current directory by default', async () => {
    const r = await run(['validate'], { cwd: path.join(repoRoot, 'examples/realistic'), env: exampleEnv });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3 files: 1 project, 2 environments, 6 services');
  });

  it('exits 1 with every problem on stderr, each with file:line:col and excerpt', async () => {
    const dir = tempTree({ 'm.yaml': 'version: 1\nprojects:\n  - name: shop\n    descripton: x\n    environments:\n      - {name: prod, cluster: c, mode: PROD}\n' });
    const r = await run(['validate', 'm.yaml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('✗ Invalid manifest: 2 errors.\n');
    expect(r.stderr).toContain('error[schema.unknown-key]: unknown key `descripton` in project `shop`\n --> m.yaml:4:5\n');
    expect(r.stderr).toContain('Did you mean `description`?');
    expect(r.stderr).toContain(' --> m.yaml:6:40\n');
    expect(r.stderr).not.toMatch(/\u001b\[/);
  });

  it('colours only for a terminal, and never with --no-color or NO_COLOR', async () => {
    const dir = tempTree({ 'm.yaml': 'version: 2\n' });
    expect((await run(['validate', 'm.yaml'], { cwd: dir, tty: true, env: { FORCE_COLOR: '1' } })).stderr).toMatch(/\u001b\[/);
    expect((await run(['validate', 'm.yaml', '--no-color'], { cwd: dir, tty: true, env: { FORCE_COLOR: '1' } })).stderr).not.toMatch(/\u001b\[/);
    expect((await run(['validate', 'm.yaml'], { cwd: dir, tty: true, env: { NO_COLOR: '1' } })).stderr).not.toMatch(/\u001b\[/);
  });

  it('prints GitHub annotations with --format github', async () => {
    const dir = tempTree({ 'm.yaml': 'version: 1\nprojects:\n  - name: shop\n    descripton: x\n' });
    const r = await run(['validate', 'm.yaml', '--format', 'github'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Invalid manifest: 1 error.\n');
    expect(r.stdout).toBe(
      '::error file=m.yaml,line=4,col=5,endLine=4,endColumn=15,title=schema.unknown-key::unknown key `descripton` in project `shop`%0ADid you mean `description`? Allowed keys: name, description, protect, variables, templates, previews, environments, prune, ignore_changes.\n',
    );
  });

  it('prints one JSON document with --format json', async () => {
    const dir = tempTree({ 'm.yaml': 'version: 1\nprojects:\n  - name: shop\n    descripton: x\n' });
    const r = await run(['validate', 'm.yaml', '--format', 'json'], { cwd: dir });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ format_version: '1', valid: false, files: ['m.yaml'] });
    expect(doc.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', code: 'schema.unknown-key', range: { file: 'm.yaml', start: { line: 4, col: 5 }, end: { line: 4, col: 15 } } }),
    ]);
    const ok = await run(['validate', 'examples/minimal', '--format', 'json']);
    expect(JSON.parse(ok.stdout)).toEqual({ format_version: '1', valid: true, files: ['examples/minimal/driftless.yaml'], diagnostics: [] });
  });

  it('rejects an unknown --format', async () => {
    const r = await run(['validate', '--format', 'xml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--format must be one of "human", "github", "json", got "xml"');
    // A usage error: nothing was validated.
    expect(r.stdout).toBe('');
  });

  it('never prints a secret value, whatever the outcome', async () => {
    const ok = await run(['validate', 'examples/realistic'], { env: exampleEnv });
    const broken = await run(['validate', 'examples/realistic', 'test/golden/validate/schema-errors.yaml'], { env: exampleEnv });
    const github = await run(['validate', 'examples/realistic', '--format', 'github'], { env: { ...exampleEnv, STRIPE_API_KEY: '' } });
    const everything = [ok, broken, github].map((r) => r.stdout + r.stderr).join('\n');
    expect(ok.code).toBe(0);
    expect(broken.code).toBe(1);
    for (const secret of Object.values(exampleEnv)) expect(everything).not.toContain(secret);
  });
});
