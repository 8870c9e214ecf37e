/**
 * Finding 8: `validate` needed the secrets. Offline, it failed unless every `${env:...}` was set,
 * so it could not run where secrets are not available (a pull request from a fork, an editor, a
 * pre-commit hook). Now an unset `${env:...}` is one warning per variable naming where it is read,
 * validate exits 0, and plan (and validate --remote) still refuse to go on without it. An empty
 * value stays an error everywhere (finding 3).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const realistic = path.join(repoRoot, 'examples/realistic');
const minimal = path.join(repoRoot, 'examples/minimal');
/** Every `${env:...}` examples/realistic reads (the test would miss a new one: validate names them all). */
const REALISTIC_SECRETS = ['SLACK_WEBHOOK_URL', 'WEBHOOK_SIGNING_SECRET', 'STRIPE_API_KEY', 'SESSION_SECRET'];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('finding 8: validate runs without secrets', () => {
  it('finding 8: validate of both examples passes with no secret set, and names each unset variable once', async () => {
    h = await startHarness();
    const mini = await h.run(['validate', minimal]);
    expect(mini.code, mini.stdout + mini.stderr).toBe(0);
    expect(mini.stdout).toContain('Valid manifest');

    const r = await h.run(['validate', realistic, '--format', 'json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { valid: boolean; diagnostics: Array<{ severity: string; code: string; summary: string; detail?: string; range?: { file: string; start: { line: number } } }> };
    expect(doc.valid).toBe(true);
    const missing = doc.diagnostics.filter((d) => d.code === 'ref.env-missing');
    expect(missing.every((d) => d.severity === 'warning')).toBe(true);
    // One diagnostic per name, each naming its variable and the file:line that reads it.
    expect(missing.map((d) => /`(\w+)`/.exec(d.summary)?.[1]).sort()).toEqual([...REALISTIC_SECRETS].sort());
    const stripe = missing.find((d) => d.summary.includes('STRIPE_API_KEY'))!;
    expect(stripe.detail).toMatch(/shop\.yaml:16:16/);
    expect(stripe.range).toMatchObject({ start: { line: 16 } });
  });

  it('finding 8: a variable read in two places is one warning listing both places', async () => {
    h = await startHarness();
    h.write({
      'm/main.yaml': `version: 1
projects:
  - name: shop
    variables:
      - {key: A, value: "\${env:TOKEN_X}", secret: true}
      - {key: B, value: "prefix-\${env:TOKEN_X}", secret: true}
`,
    });
    const r = await h.run(['validate', 'm']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr.match(/environment variable `TOKEN_X` is not set/g)).toHaveLength(1);
    expect(r.stderr).toContain('m/main.yaml:5:26');
    expect(r.stderr).toContain('m/main.yaml:6:33');
    expect(r.stdout).toMatch(/Valid manifest .*1 warning/);
  });

  it('finding 8: a secret set but empty is still an error for validate (a bad value, not a missing one)', async () => {
    h = await startHarness();
    const r = await h.run(['validate', realistic], { env: { STRIPE_API_KEY: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('environment variable `STRIPE_API_KEY` is set but empty');
    expect(r.stderr).toMatch(/shop\.yaml:16:16/);
    // The others, unset, are still warnings.
    expect(r.stderr).toContain('warning[ref.env-missing]: environment variable `SESSION_SECRET` is not set');
  });

  it('finding 8: graph --offline, which draws names only, runs without secrets too', async () => {
    h = await startHarness();
    const r = await h.run(['graph', realistic, '--offline', '--format', 'mermaid']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('flowchart');
    expect(r.stderr).toContain('environment variable `STRIPE_API_KEY` is not set');
  });

  it('finding 8: plan and validate --remote still require every secret, and plan reads and writes nothing', async () => {
    h = await startHarness();
    const plan = await h.run(['plan', realistic]);
    expect(plan.code).toBe(1);
    for (const k of REALISTIC_SECRETS) expect(plan.stderr).toContain(`environment variable \`${k}\` is not set`);
    expect(plan.stderr).toMatch(/error/);
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);

    const remote = await h.run(['validate', realistic, '--remote']);
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('environment variable `STRIPE_API_KEY` is not set');
  });
});
