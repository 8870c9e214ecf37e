/**
 * Acceptance: the API creates a DEFAULT deployment stage with every environment, and `export`
 * writes it. A manifest declaring DEFAULT for an environment that does not exist yet (an export
 * applied to a new organization, or written by hand) must converge: apply adopts the stage the
 * API made instead of failing with 409, and the next plan is clean.
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

describe('a manifest declaring the DEFAULT stage of a new environment', () => {
  it('applies (the stage the API created is adopted) and then plans no changes', async () => {
    h.write({
      'stages/main.yaml': `version: 1
projects:
  - name: Fresh
    environments:
      - name: prod
        cluster: production-cluster
        deployment_stages:
          - name: DEFAULT
            description: Databases first
            services: [db]
          - name: apps
            services: [web]
        services:
          - type: database
            name: db
            database_type: REDIS
            version: "7"
            mode: CONTAINER
          - type: container
            name: web
            registry: docker-hub
            image_name: acme/web
            tag: "1"
`,
    });
    const applied = await h.run(['apply', 'stages', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const again = await h.run(['plan', 'stages', '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });
});
