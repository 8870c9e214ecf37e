/**
 * examples/platform, the multi-environment repository of the README, on the emulator over HTTP:
 * staging, production and the previews of pull requests from one template of 12 services, written in
 * files per team, with a `moved` entry and an `ignore_changes` rule. It goes plan -> apply -> plan
 * clean from nothing; from the repository as it was before the rename, it renames in place; the
 * field the web team's pipeline owns is not drift. Its validate errors are in
 * test/manifest/example-platform.test.ts.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../examples/platform');
const SECRETS = { STRIPE_TEST_SECRET_KEY: 'sk_test_example_0123', STRIPE_LIVE_SECRET_KEY: 'sk_live_example_4567' };
const ENVIRONMENTS = ['production', 'staging'];
const TEMPLATE_SERVICES = ['admin', 'cart-api', 'catalog-api', 'checkout-api', 'db-migrate', 'image-resizer', 'payments-worker', 'postgres', 'redis', 'search', 'search-indexer', 'web'];

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const run = (...argv: string[]) => h.run(argv, { env: SECRETS });

/** The example copied into the harness's directory, each file changed by `edit` (name, text) -> text. */
function writeExample(dir: string, edit: (name: string, text: string) => string = (_n, t) => t): void {
  cpSync(EXAMPLE, path.join(h.dir, dir), { recursive: true });
  for (const name of readdirSync(path.join(h.dir, dir))) {
    const file = path.join(h.dir, dir, name);
    writeFileSync(file, edit(name, readFileSync(file, 'utf8')));
  }
}

/** The emulator's services as `environment/name`, with their records. */
function liveServices(): Map<string, Record<string, any>> {
  const s = h.emu.state as unknown as Record<string, Record<string, Record<string, any>>>;
  const envName = (id: string) => String(s.environments![id]!.name);
  return new Map(Object.values(s.services!).map((svc) => [`${envName(svc.environment.id)}/${svc.name}`, svc]));
}

async function api(method: string, p: string, body?: unknown): Promise<any> {
  const r = await fetch(h.emu.url + p, {
    method,
    headers: { authorization: `Token ${h.emu.tokens.ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const t = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${t}`);
  return t ? JSON.parse(t) : undefined;
}

describe('examples/platform', () => {
  it('goes plan -> apply -> plan clean from nothing: every environment gets the template with its own overrides', async () => {
    h = await startHarness();
    writeExample('platform');
    const first = await run('plan', 'platform', '--detailed-exitcode');
    expect(first.code, first.stderr).toBe(2);
    expect(first.stdout).toMatch(/Plan: \d+ to add, 0 to change, 0 to destroy, 24 to deploy\./);
    // Nothing to rename on a new organization: each entry says so, and nothing is refused.
    expect(first.stderr.match(/warning\[[^\]]*\]/g)?.length).toBe(2);

    const applied = await run('apply', 'platform', '--auto-approve', ...FAST);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);

    const services = liveServices();
    const names = (env: string) => [...services.keys()].filter((k) => k.startsWith(`${env}/`)).map((k) => k.slice(env.length + 1)).sort();
    expect(names('staging')).toEqual(TEMPLATE_SERVICES);
    expect(names('production')).toEqual(TEMPLATE_SERVICES);
    // Each team's production overrides, from its own file; the template's values elsewhere.
    expect(services.get('production/checkout-api')).toMatchObject({ cpu: 1000, min_running_instances: 2, max_running_instances: 6 });
    expect(services.get('staging/checkout-api')).toMatchObject({ cpu: 250 });
    expect(services.get('production/postgres')).toMatchObject({ cpu: 1000, memory: 2048, storage: 100 });
    expect(services.get('production/catalog-api')!.git_repository.branch).toBe('release');
    expect(services.get('staging/catalog-api')!.git_repository.branch).toBe('main');
    expect(services.get('production/web')).toMatchObject({ min_running_instances: 3, tag: '2.14.0' });

    const again = await run('plan', 'platform', '--detailed-exitcode');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');

    // A pull request's preview: the template with the declaration's overrides and the run's branch.
    const up = await run('preview', 'up', 'platform', '--project', 'storefront', '--number', '142', '--set', 'catalog-api.git_repository.branch=pr-142', '--format', 'json', ...FAST);
    expect(up.code, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ environment: 'pr-142', created: true });
    const withPreview = liveServices();
    const previewNames = [...withPreview.keys()].filter((k) => k.startsWith('pr-142/')).map((k) => k.slice(7)).sort();
    expect(previewNames).toEqual(TEMPLATE_SERVICES);
    expect(withPreview.get('pr-142/catalog-api')!.git_repository.branch).toBe('pr-142');
    expect(withPreview.get('pr-142/search-indexer')).toMatchObject({ memory: 256 });
    expect(withPreview.get('staging/search-indexer')).toMatchObject({ memory: 512 });
    const still = await run('plan', 'platform', '--detailed-exitcode');
    expect(still.code, still.stdout + still.stderr).toBe(0);
    expect(still.stdout).toContain('1 preview environment (pr-{number}) left to `driftless preview`.');
  }, 120_000);

  it('renames orders-api to checkout-api in place in every environment (moved), and leaves the web tag to its pipeline (ignore_changes)', async () => {
    h = await startHarness();
    // The repository before the rename: the old name, no `moved` entries.
    writeExample('before', (name, text) => {
      const withoutMoved = name === 'team-checkout.yaml' ? text.replace(/\nmoved:\n(?: {2}.*\n)+/, '\n') : text;
      // The service's name, not its image.
      return withoutMoved.replace(/(?<!acme\/)checkout-api/g, 'orders-api');
    });
    expect((await run('apply', 'before', '--auto-approve', ...FAST)).code).toBe(0);
    const before = liveServices();
    const idsBefore = ENVIRONMENTS.map((e) => before.get(`${e}/orders-api`)!.id);
    const historyBefore = idsBefore.map((id) => h.emu.state.serviceHistory[id]!.length);

    writeExample('platform');
    const plan = await run('plan', 'platform');
    expect(plan.code, plan.stderr).toBe(0);
    for (const e of ENVIRONMENTS) expect(plan.stdout).toContain(`renamed from project.storefront/environment.${e}/container.orders-api`);
    expect(plan.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy, 0 to deploy.');

    expect((await run('apply', 'platform', '--auto-approve', ...FAST)).code).toBe(0);
    const after = liveServices();
    expect(ENVIRONMENTS.map((e) => after.get(`${e}/checkout-api`)?.id)).toEqual(idsBefore);
    expect(ENVIRONMENTS.map((e) => after.get(`${e}/orders-api`))).toEqual([undefined, undefined]);
    expect(idsBefore.map((id) => h.emu.state.serviceHistory[id]!.length)).toEqual(historyBefore);

    // The web team's pipeline deploys a new tag: not a change driftless makes, nor drift.
    const web = after.get('production/web')!;
    const { id, created_at: _c, updated_at: _u, ...record } = await api('GET', `/container/${web.id}`);
    await api('PUT', `/container/${id}`, { ...record, tag: '2.15.0' });
    const clean = await run('plan', 'platform', '--detailed-exitcode');
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain('No changes.');
    expect(clean.stdout).toMatch(/Ignored \d+ fields? of \d+ objects? \(ignore_changes\)/);
    // Every rename is done: the entries can go.
    expect(clean.stderr.match(/the entry can be removed/g)?.length).toBe(2);
    const drift = await run('drift', 'platform');
    expect(drift.code, drift.stdout).toBe(0);
  }, 120_000);
});
