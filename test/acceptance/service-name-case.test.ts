/**
 * Acceptance: the API compares names case-insensitively (creating `Web` beside `web` in an
 * environment is a 409; so for projects, environments, groups, receivers and alert rules). A
 * manifest that writes `Web` for the live `web` (or an export of a console-made `API` edited by hand
 * to `api`) must pair them, not plan a create that cannot succeed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;

const manifest = (web: string, worker: string, value = 'a') => `version: 1
projects:
  - name: Cased
    environments:
      - name: env
        cluster: staging-cluster
        deployment_stages:
          - name: first
            services: [${web}]
          - name: second
            services: [${worker}]
        services:
          - type: container
            name: ${web}
            registry: docker-hub
            image_name: acme/web
            tag: "1"
          - type: application
            name: ${worker}
            git_repository:
              url: https://github.com/acme/worker.git
            dockerfile_path: Dockerfile
            variables:
              - key: MODE
                value: ${value}
`;

beforeAll(async () => {
  h = await startHarness({ deployDurationMs: 30 });
  h.write({ 'cased/main.yaml': manifest('web', 'Worker') });
  const applied = await h.run(['apply', 'cased', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 30_000);

afterAll(async () => {
  await h?.close();
});

describe('service names that differ only in case', () => {
  it('are the same service: apply converges and the plan is clean', async () => {
    h.write({ 'cased/main.yaml': manifest('Web', 'worker', 'b') });
    const applied = await h.run(['apply', 'cased', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).not.toContain('will be created');
    const again = await h.run(['plan', 'cased', '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('so are projects, environments and groups (the API keeps all their names unique case-insensitively)', async () => {
    const m = (project: string, env: string, group: string) => `version: 1
label_groups:
  - name: ${group}
    labels:
      - key: team
        value: shop
projects:
  - name: ${project}
    environments:
      - name: ${env}
        cluster: staging-cluster
        services:
          - type: container
            name: api
            registry: docker-hub
            image_name: acme/api
            tag: "1"
            label_groups: [${group}]
`;
    h.write({ 'groups/main.yaml': m('Shop', 'Prod', 'Team') });
    const first = await h.run(['apply', 'groups', '--auto-approve', ...FAST]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    h.write({ 'groups/main.yaml': m('shop', 'prod', 'team') });
    const applied = await h.run(['apply', 'groups', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).not.toContain('will be created');
    const again = await h.run(['plan', 'groups', '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });
});
