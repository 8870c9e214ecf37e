/**
 * An alias of a secret is a secret on the platform (the API creates it under `/secret/{id}/alias`),
 * whether or not the manifest says `secret: true` on it: the plan after the first apply must be
 * clean, not replace the alias on every run; and a `moved` rename of the secret carries its aliases.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const manifest = (key: string, moved = '') => `version: 1
projects:
  - name: shop
    variables:
      - key: ${key}
        value: \${env:DB_PASSWORD}
        secret: true
    environments:
      - name: staging
        cluster: staging-cluster
        variables:
          - key: PW_ALIAS
            alias: ${key}
        services:
          - { type: container, name: worker, registry: docker-hub, image_name: acme/worker, tag: "1.0" }
${moved}`;

describe('an alias of a secret', () => {
  it('is applied once: the next plan is clean; a moved rename of the secret keeps the alias as it is', async () => {
    h = await startHarness();
    const env = { DB_PASSWORD: 'hunter2-very-secret' };
    h.write({ 'm.yaml': manifest('DB_PASSWORD') });
    expect((await h.run(['validate', 'm.yaml'])).code).toBe(0);
    const applied = await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST], { env });
    expect(applied.stderr + applied.stdout).toContain('Apply complete!');
    const again = await h.run(['plan', 'm.yaml', '--detailed-exitcode'], { env });
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);

    h.write({ 'm.yaml': manifest('DATABASE_PASSWORD', 'moved:\n  - { from: project.shop/variable.DB_PASSWORD, to: project.shop/variable.DATABASE_PASSWORD }\n') });
    const renamed = await h.run(['plan', 'm.yaml'], { env });
    expect(renamed.stdout).toContain('renamed from project.shop/variable.DB_PASSWORD');
    expect(renamed.stdout).not.toContain('PW_ALIAS"');
    expect(renamed.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy');
    expect((await h.run(['apply', 'm.yaml', '--auto-approve', ...FAST], { env })).code).toBe(0);
    const after = await h.run(['plan', 'm.yaml', '--detailed-exitcode'], { env });
    expect(after.stdout).toContain('No changes.');
    expect(after.code).toBe(0);
    expect(after.stdout + after.stderr).not.toContain('hunter2');
  });
});
