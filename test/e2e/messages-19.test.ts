/**
 * Messages a new user met in issue 19, each reported once, in words that point at the real cause.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { previewManifest } from '../safety/guards-support.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The preview environment with three secrets, as an export writes them for secrets it did not write. */
const withSecrets = (cluster: string, ignored: boolean) =>
  previewManifest(cluster).replace(
    '          - key: GREETING\n            value: hello\n',
    ['API_KEY', 'DB_PASSWORD', 'SESSION_SECRET']
      .map((k) => `          - key: ${k}\n            value: \${env:${k}}\n            secret: true\n${ignored ? '            ignore_changes: [value]\n' : ''}`)
      .join('') + '          - key: GREETING\n            value: hello\n',
  );

describe('issue 19: one cause, one error', () => {
  it('a wrong cluster name is the only error: no "secret needed" for an environment it does not really replace', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': withSecrets('staging-cluster', false) });
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: { API_KEY: 'a', DB_PASSWORD: 'b', SESSION_SECRET: 'c' } });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);

    // The secrets are left to someone else (their variables unset), and the cluster name is mistyped.
    h.write({ 'm/main.yaml': withSecrets('stagging-cluster', true) });
    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('error[ref.unresolved]: cluster `stagging-cluster` does not exist in the organization');
    expect(plan.stderr).toContain('Did you mean `staging-cluster`?');
    expect(plan.stderr).not.toContain('plan.secret-needed');
    expect(plan.stderr.match(/^error\[/gm)).toHaveLength(1);

    // With the right cluster name the plan is clean: the secrets were never needed.
    h.write({ 'm/main.yaml': withSecrets('staging-cluster', true) });
    const clean = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
  });
});

describe('issue 19: no default is suggested for a secret', () => {
  const manifest = `version: 1
projects:
  - name: shop
    variables:
      - { key: STRIPE_KEY, value: "\${env:STRIPE_KEY}", secret: true }
      - { key: LOG_LEVEL, value: "\${env:LOG_LEVEL}" }
    environments:
      - name: staging
        cluster: staging-cluster
`;

  it('validate: an unset secret variable is to be set, never given a default; a plain one may take a default', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest });
    const v = await h.run(['validate', 'm']);
    expect(v.code, v.stderr).toBe(0);
    const secret = v.stderr.split('\n\n').find((b) => b.includes('`STRIPE_KEY` is not set'))!;
    const plain = v.stderr.split('\n\n').find((b) => b.includes('`LOG_LEVEL` is not set'))!;
    expect(secret).toBeDefined();
    expect(secret).not.toContain(':-default');
    expect(secret).toContain('it is read for a secret: set it where driftless runs, never as a default, which would be a secret in clear in Git');
    expect(plain).toContain('${env:LOG_LEVEL:-default}');
  });

  it('plan: the error for an unset secret variable suggests no default', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest });
    const p = await h.run(['plan', 'm'], { env: { LOG_LEVEL: 'info' } });
    expect(p.code).toBe(1);
    expect(p.stderr).toContain('error[ref.env-missing]: environment variable `STRIPE_KEY` is not set');
    expect(p.stderr).not.toContain(':-default');
    expect(p.stderr).toContain('a secret takes no default: it would be written in clear in Git');
  });
});
