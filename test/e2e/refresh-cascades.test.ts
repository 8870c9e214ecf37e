/**
 * The refresh cache knows what a write does to other lists (issue 18): after each of these, the
 * plan from the cache is the plan a full read makes, at once (the log records each write):
 * - `apply --no-deploy` of a label group change: the services that use it are out of date (their
 *   statuses), and the next plan deploys them all;
 * - the same write from an apply interrupted before its deployments;
 * - a database deleted in the console takes the alias of its built-in variable at another service
 *   with it, though the log names only the database.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type Proxy } from '../support/proxy.js';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await h?.close();
  proxy = undefined;
  h = undefined;
});

/** The JSON plan's resource changes and summary (deploys included), without what differs between runs. */
function changesOf(stdout: string): { summary: Record<string, number>; resource_changes: unknown } {
  const plan = JSON.parse(stdout);
  return { summary: plan.summary, resource_changes: plan.resource_changes };
}

const fullReadLine = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('Full read of the live state: '));

function cachePlan(harness: Harness, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return harness.run(['plan', 'm', '--format', 'json', '--cache', join(harness.dir, 'cache')], { env });
}
const fullPlan = (harness: Harness) => harness.run(['plan', 'm', '--format', 'json'], { env: { DRIFTLESS_CACHE_DIR: '' } });

async function expectCachedEqualsFull(harness: Harness, env: Record<string, string> = {}): Promise<{ summary: Record<string, number> }> {
  const warm = await cachePlan(harness, env);
  expect(warm.code, warm.stderr).not.toBe(1);
  expect(fullReadLine(warm.stderr), 'the plan refreshed from the cache').toBeUndefined();
  const full = await fullPlan(harness);
  expect(full.code, full.stderr).not.toBe(1);
  expect(changesOf(warm.stdout)).toEqual(changesOf(full.stdout));
  return changesOf(full.stdout);
}

const groupManifest = (value: string) => `version: 1
label_groups:
  - name: cost
    labels: [{ key: cost-center, value: ${value} }]
projects:
  - name: shop
    environments:
      - name: staging
        cluster: staging-cluster
        services:
${['web', 'api', 'worker']
  .map(
    (name) => `          - type: container
            name: ${name}
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            cpu: 250
            memory: 256
            label_groups: [cost]
`,
  )
  .join('')}`;

async function deployedWithGroup(): Promise<Harness> {
  const harness = await startHarness({ deployDurationMs: 60 });
  harness.write({ 'm/main.yaml': groupManifest('shop') });
  const applied = await harness.run(['apply', 'm', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stderr).toBe(0);
  // The cache every later run starts from.
  const cold = await cachePlan(harness);
  expect(cold.code, cold.stderr).toBe(0);
  return harness;
}

describe('the refresh cache and the cascades of a write', () => {
  it('apply --no-deploy of a label group change: the cached plan deploys every service that uses it, as the full one does', async () => {
    h = await deployedWithGroup();
    h.write({ 'm/main.yaml': groupManifest('retail') });
    const written = await h.run(['apply', 'm', '--auto-approve', '--no-deploy', '--cache', join(h.dir, 'cache'), ...FAST]);
    expect(written.code, written.stderr).toBe(0);
    const { summary } = await expectCachedEqualsFull(h);
    expect(summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 3 });
  });

  it('an apply interrupted after the group change, before its deployments: the cached plan deploys them, as the full one does', async () => {
    h = await deployedWithGroup();
    h.write({ 'm/main.yaml': groupManifest('retail') });
    proxy = await startProxy(h.emu.url);
    // Every deployment refused: the apply stops once the configuration is written.
    proxy.rule = ({ method, path }) => (method === 'POST' && /\/deploy$/.test(path) ? { status: 400, body: { status: 400, error: 'Bad Request', message: 'deployments refused by the test' } } : undefined);
    const interrupted = await h.run(['apply', 'm', '--auto-approve', '--cache', join(h.dir, 'cache'), ...FAST], { env: { DRIFTLESS_API_URL: proxy.url } });
    expect(interrupted.code, interrupted.stderr).toBe(1);
    expect(Object.values(h.emu.state.labelsGroups).map((g: any) => g.labels[0].value)).toEqual(['retail']);
    // The next run, through the same URL: from the cache the interrupted apply left.
    proxy.rule = () => undefined;
    const { summary } = await expectCachedEqualsFull(h, { DRIFTLESS_API_URL: proxy.url });
    expect(summary.deploy).toBe(3);
  });

  it('a database deleted in the console takes the alias of its built-in at another service: the cached plan no longer plans for it', async () => {
    h = await startHarness({ deployDurationMs: 60 });
    h.write({
      'm/main.yaml': `version: 1
projects:
  - name: shop
    environments:
      - name: staging
        cluster: staging-cluster
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            cpu: 250
            memory: 256
            prune: {variables: true}
`,
    });
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stderr).toBe(0);
    // Outside the manifest: a database, and an alias of its host at the web service.
    const admin = (method: string, path: string, body?: unknown, token = h!.emu.tokens.ADMIN) =>
      fetch(`${h!.emu.url}${path}`, { method, headers: { authorization: `${token.split('.').length === 3 ? 'Bearer' : 'Token'} ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const env = Object.values(h.emu.state.environments).find((e) => e.name === 'staging')!;
    const web = Object.values(h.emu.state.services).find((s) => s.name === 'web')!;
    const db = await (await admin('POST', `/environment/${env.id}/database`, { name: 'pg', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', cpu: 250, memory: 256, storage: 10 })).json() as any;
    expect(db.id, JSON.stringify(db)).toBeDefined();
    const builtIns = (await (await admin('GET', `/variable?parent_id=${web.id}&scope=CONTAINER`)).json() as any).results;
    const host = builtIns.find((v: any) => v.scope === 'BUILT_IN' && v.service_id === db.id && v.key.endsWith('_HOST_INTERNAL'));
    expect((await admin('POST', `/variable/${host.id}/alias`, { key: 'DB_HOST', alias_scope: 'CONTAINER', alias_parent_id: web.id })).status).toBe(201);
    const before = await cachePlan(h);
    expect(JSON.stringify(JSON.parse(before.stdout).resource_changes)).toContain('variable.DB_HOST');

    // The console deletes the database (the batch route the console uses); the alias goes with it.
    expect((await admin('POST', `/environment/${env.id}/service/delete`, { database_ids: [db.id] }, h.emu.tokens.CONSOLE!)).status).toBe(200);
    for (let i = 0; i < 200 && h.emu.state.services[db.id]; i++) await new Promise((r) => setTimeout(r, 20));
    expect(h.emu.state.services[db.id]).toBeUndefined();
    expect(Object.values(h.emu.state.variables).some((v: any) => v.key === 'DB_HOST')).toBe(false);

    await expectCachedEqualsFull(h);
    const after = await cachePlan(h);
    expect(JSON.stringify(JSON.parse(after.stdout).resource_changes)).not.toContain('variable.DB_HOST');
  });
});
