/**
 * Finding 7 (messages that mislead): a stage diff's "before" list left out the live services the
 * manifest does not declare, so a reviewer saw a stage that did not exist. Now the plan shows the
 * stage's real members before, and after what it will really hold (an undeclared member stays).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;
afterEach(async () => h?.close());

const app = (name: string) => [`          - type: application`, `            name: ${name}`, `            git_repository: { url: https://github.com/acme/${name}.git }`, `            dockerfile_path: Dockerfile`].join('\n');

const manifest = (stage: string[], services: string[]) => `version: 1
projects:
  - name: shop
    environments:
      - name: preview
        mode: DEVELOPMENT
        cluster: staging-cluster
        deployment_stages:
          - name: apps
            services: [${stage.join(', ')}]
        services:
${services.map(app).join('\n')}
`;

/** Names of the services the emulator holds in stage `apps`. */
function liveMembers(): string[] {
  const stage = Object.values(h.emu.state.deploymentStages).find((s) => s.name === 'apps')!;
  return (stage.services as Array<{ service_id: string }>).map((m) => String(h.emu.state.services[m.service_id]!.name)).sort();
}

describe('finding 7: the stage before-list', () => {
  it("finding 7: a stage's before-list is the real live list, undeclared members included, and its after-list is what it will hold", async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest(['api', 'worker'], ['api', 'worker']) });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    // worker leaves the manifest (no pruning: it stays live, in its stage); web joins the stage.
    h.write({ 'm/main.yaml': manifest(['api', 'web'], ['api', 'web']) });

    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('~ services: ["api","worker"] -> ["api","web","worker"]');
    const json = JSON.parse((await h.run(['plan', 'm', '--json'])).stdout) as { resource_changes: Array<{ address: string; change: { before: { services?: string[] } | null } }> };
    expect(json.resource_changes.find((c) => c.address === 'project.shop/environment.preview/deployment_stage.apps')!.change.before!.services).toEqual(['api', 'worker']);

    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    // What the plan said the stage would hold is what it holds.
    expect(liveMembers()).toEqual(['api', 'web', 'worker']);
  });
});
