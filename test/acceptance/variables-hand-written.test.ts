/**
 * Acceptance: hand-written manifests with variables at every scope converge (plan -> apply -> plan
 * ends in "No changes."), including a service override of a project variable that its environment
 * also overrides (the API overrides the declaration, never an override).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ deployDurationMs: 30 });
}, 30_000);

afterAll(async () => {
  await h?.close();
});

async function converge(dir: string, env: Record<string, string> = {}) {
  const applied = await h.run(['apply', dir, '--auto-approve', ...FAST], { env });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  const again = await h.run(['plan', dir, '--detailed-exitcode'], { env });
  expect(again.code, again.stdout + again.stderr).toBe(0);
  expect(again.stdout).toContain('No changes.');
}

describe('hand-written variables converge', () => {
  it('a service override of a project variable that the environment overrides too', async () => {
    h.write({
      'overrides/main.yaml': `version: 1
projects:
  - name: Layers
    variables:
      - key: LOG_LEVEL
        value: info
    environments:
      - name: qa
        cluster: staging-cluster
        variables:
          - key: LOG_LEVEL
            value: debug
            override: true
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: acme/web
            tag: "1"
            variables:
              - key: LOG_LEVEL
                value: trace
                override: true
`,
    });
    await converge('overrides');
  });

  it('an external secret whose reference changes in Git, and one marked secret (the API hides its reference)', async () => {
    const manifest = (ref: string, secretRef: string) => `version: 1
projects:
  - name: Vault
    environments:
      - name: prod
        cluster: production-cluster
        variables:
          - key: DB_URL
            external_secret:
              secret_manager_access_id: 5b0f5c8e-2d0a-4b7e-9a3c-1f2e3d4c5b6a
              reference: ${ref}
          - key: API_KEY
            secret: true
            external_secret:
              secret_manager_access_id: 5b0f5c8e-2d0a-4b7e-9a3c-1f2e3d4c5b6a
              reference: ${secretRef}
`;
    h.write({ 'external/main.yaml': manifest('prod/db-url', 'prod/api-key') });
    await converge('external');
    h.write({ 'external/main.yaml': manifest('prod/db-url-v2', 'prod/api-key-v2') });
    const plan = await h.run(['plan', 'external', '--format', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const changed = JSON.parse(plan.stdout).resource_changes.filter((c: any) => c.change.actions[0] !== 'no-op').map((c: any) => c.address).sort();
    expect(changed).toEqual(['project.Vault/environment.prod/variable.API_KEY', 'project.Vault/environment.prod/variable.DB_URL']);
    expect(plan.stdout).not.toContain('prod/api-key');
    await converge('external');
  });
});
