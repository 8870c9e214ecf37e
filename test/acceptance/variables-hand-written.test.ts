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
});
