/**
 * Acceptance: drift after console edits of an applied manifest. A service deleted in the console is
 * reported once, as deleted outside Git; the deployment stage it belonged to is not reported on its
 * own as "changed in Git, not applied yet" (Git did not move: the membership went with the service).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;

const manifest = `version: 1
projects:
  - name: Shop
    environments:
      - name: prod
        cluster: production-cluster
        mode: PRODUCTION
        deployment_stages:
          - name: data
            services: [cache]
          - name: apps
            services: [web, worker]
        services:
          - type: database
            name: cache
            database_type: REDIS
            version: "7"
            mode: CONTAINER
          - type: container
            name: web
            registry: docker-hub
            image_name: acme/web
            tag: "1.0"
          - type: container
            name: worker
            registry: docker-hub
            image_name: acme/worker
            tag: "1.0"
`;

beforeAll(async () => {
  h = await startHarness({ deployDurationMs: 30 });
  h.write({ 'infra/main.yaml': manifest });
  const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 30_000);

afterAll(async () => {
  await h?.close();
});

async function api(method: string, p: string): Promise<any> {
  const r = await fetch(h.emu.url + p, { method, headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
  const t = await r.text();
  return t ? JSON.parse(t) : undefined;
}

describe('drift after a service is deleted in the console', () => {
  it('reports the service once, deleted outside Git, and not its stage as changed in Git', async () => {
    const projects = (await api('GET', `/organization/${h.emu.organizationId}/project`)).results as any[];
    const env = ((await api('GET', `/project/${projects[0].id}/environment`)).results as any[])[0];
    const services = (await api('GET', `/environment/${env.id}/services`)).results as any[];
    const worker = services.find((s) => s.name === 'worker');
    expect((await fetch(`${h.emu.url}/container/${worker.id}`, { method: 'DELETE', headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } })).status).toBeLessThan(300);
    for (let i = 0; i < 100; i++) {
      if (!((await api('GET', `/environment/${env.id}/services`)).results as any[]).some((s) => s.name === 'worker')) break;
      await new Promise((r) => setTimeout(r, 20));
    }

    const drift = await h.run(['drift', 'infra', '--format', 'json']);
    expect(drift.code, drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout);
    expect(report.items.map((i: any) => [i.address, i.drift, i.origin])).toEqual([
      ['project.Shop/environment.prod/container.worker', 'missing', 'outside_git'],
    ]);
  });
});
