/**
 * A service deletion is a DELETE event of the service in the audit log (issue 19), however it was
 * asked for: `DELETE /<kind>/{id}` or the batch `POST /environment/{id}/service/delete` that the
 * console and driftless's own prune use. So drift names who deleted a service from the log, never
 * by inference: a console user, or driftless itself (an older manifest pruned it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function manifest(o: { worker: boolean }): string {
  const svc = (name: string) => `          - type: container
            name: ${name}
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            cpu: 250
            memory: 256
`;
  return `version: 1
projects:
  - name: shop
    environments:
      - name: staging
        cluster: staging-cluster
        prune: {services: true}
        services:
${svc('web')}${o.worker ? svc('worker') : ''}`;
}

async function call(harness: Harness, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const scheme = token.split('.').length === 3 ? 'Bearer' : 'Token';
  const res = await fetch(`${harness.emu.url}${path}`, {
    method,
    headers: { authorization: `${scheme} ${token}`, 'content-type': 'application/json', 'user-agent': 'console/1.0' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function gone(harness: Harness, id: string): Promise<void> {
  for (let i = 0; i < 500 && harness.emu.state.services[id]; i++) await new Promise((r) => setTimeout(r, 20));
  expect(harness.emu.state.services[id]).toBeUndefined();
}

async function setUp(): Promise<{ harness: Harness; envId: string; worker: string }> {
  const harness = await startHarness({ deployDurationMs: 50 });
  harness.write({ 'm/main.yaml': manifest({ worker: true }) });
  const applied = await harness.run(['apply', 'm', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stderr).toBe(0);
  const env = Object.values(harness.emu.state.environments).find((e) => e.name === 'staging')!;
  const worker = Object.values(harness.emu.state.services).find((s) => s.name === 'worker')!;
  return { harness, envId: env.id, worker: worker.id };
}

const workerAddress = 'project.shop/environment.staging/container.worker';

describe('a deleted service in the audit log', () => {
  it('deleted in the console with the batch route: a DELETE of the service, and drift names the console user', async () => {
    const s = await setUp();
    h = s.harness;
    await call(h, h.emu.tokens.CONSOLE, 'POST', `/environment/${s.envId}/service/delete`, { container_ids: [s.worker] });
    await gone(h, s.worker);

    const events = (await call(h, h.emu.tokens.ADMIN, 'GET', `/organization/${h.emu.organizationId}/events?pageSize=100&targetType=CONTAINER&targetId=${s.worker}`)).events;
    expect(events.map((e: any) => e.event_type).reverse()).toEqual(expect.arrayContaining(['DELETE', 'DELETED']));
    expect(events.find((e: any) => e.event_type === 'DELETE')).toMatchObject({ target_name: 'worker', environment_id: s.envId, origin: 'CONSOLE' });

    const r = await h.run(['drift', 'm', '--format', 'json']);
    expect(r.code, r.stderr).toBe(2);
    const item = JSON.parse(r.stdout).items.find((i: any) => i.address === workerAddress);
    expect(item).toMatchObject({ drift: 'missing', origin: 'outside_git', attribution: 'audit_log', summary: 'declared in Git, deleted live outside Git' });
    expect(item.changed_by).toMatchObject({ origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com' });
  });

  it('pruned by driftless: drift says driftless deleted it (an older manifest), from the log', async () => {
    const s = await setUp();
    h = s.harness;
    h.write({ 'm/main.yaml': manifest({ worker: false }) });
    const pruned = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(pruned.code, pruned.stderr).toBe(0);
    await gone(h, s.worker);
    h.write({ 'm/main.yaml': manifest({ worker: true }) });

    const r = await h.run(['drift', 'm', '--format', 'json']);
    expect(r.code, r.stderr).toBe(2);
    const item = JSON.parse(r.stdout).items.find((i: any) => i.address === workerAddress);
    expect(item).toMatchObject({ drift: 'missing', origin: 'git', attribution: 'audit_log' });
    expect(item.summary).toContain('deleted live by driftless');
    expect(item.changed_by).toMatchObject({ origin: 'API' });
  });
});
