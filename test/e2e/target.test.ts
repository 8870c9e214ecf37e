/**
 * `--target ADDRESS...` against the emulator: a targeted plan reads only the targeted environment
 * (the exact requests, seen by a recording proxy), plans only it, never deletes anything outside
 * it even where the manifest prunes, says that it is partial in every format, refuses an unknown
 * address before any request (and validate does the same offline), and a saved targeted plan is
 * applied exactly: the rest of the manifest stays as it is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type Proxy } from '../support/proxy.js';
import { FAST, ONLY_USAGE_LINE, startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await h?.close();
  proxy = undefined;
  h = undefined;
});

/** Two environments (and, live only, a third and a legacy service that pruning would delete). */
function manifest(o: { prodTag: string; stagingTag: string; extras: boolean }): string {
  return `version: 1
projects:
  - name: shop
    variables:
      - key: REGION
        value: eu
    environments:
      - name: prod
        cluster: production-cluster
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "${o.prodTag}"
            variables:
              - key: PORT
                value: "80"
${o.extras ? `          - type: container
            name: legacy
            registry: docker-hub
            image_name: library/nginx
            tag: "1.25"
` : ''}        prune:
          services: true
      - name: staging
        cluster: staging-cluster
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "${o.stagingTag}"
            variables:
              - key: PORT
                value: "80"
${o.extras ? `      - name: preview
        cluster: staging-cluster
` : ''}    prune:
      environments: true
`;
}

const STAGING = 'project.shop/environment.staging';

async function setUp(): Promise<Harness> {
  const harness = await startHarness();
  harness.write({ 'm/main.yaml': manifest({ prodTag: '1.27', stagingTag: '1.27', extras: true }) });
  const applied = await harness.run(['apply', 'm', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stderr).toBe(0);
  // Git moves on: both tags change, the legacy service and the preview environment are removed.
  harness.write({ 'm/main.yaml': manifest({ prodTag: '1.28', stagingTag: '1.28', extras: false }) });
  return harness;
}

function liveNames(harness: Harness): { services: string[]; environments: string[] } {
  const s = harness.emu.state;
  const envName = new Map(Object.values(s.environments).map((e) => [e.id, String(e.name)]));
  return {
    services: Object.values(s.services).map((x) => `${envName.get(String((x.environment as { id: string }).id))}/${String(x.name)}`).sort(),
    environments: Object.values(s.environments).map((e) => String(e.name)).sort(),
  };
}

describe('plan --target', () => {
  it('reads only the targeted environment, plans only it and deletes nothing outside it', async () => {
    h = await setUp();
    // The whole manifest: both tags, the legacy service and the preview environment deleted.
    const full = await h.run(['plan', 'm', '--json']);
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout).summary).toMatchObject({ change: 2, destroy: 2 });

    const s = h.emu.state;
    const names = new Map<string, string>([[h.emu.organizationId, 'ORG']]);
    for (const p of Object.values(s.projects)) names.set(p.id, `project:${p.name}`);
    const envName = new Map<string, string>();
    for (const e of Object.values(s.environments)) {
      envName.set(e.id, String(e.name));
      names.set(e.id, `env:${e.name}`);
    }
    for (const svc of Object.values(s.services)) names.set(svc.id, `svc:${envName.get(String((svc.environment as { id: string }).id))}/${svc.name}`);
    const symbolic = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => names.get(id) ?? `UNKNOWN(${id})`);
    const sortedQuery = (q: string) => [...new URLSearchParams(q)].map(([k, v]) => `${k}=${v}`).sort().join('&');

    proxy = await startProxy(h.emu.url);
    // The reads of a targeted run without a cache (a targeted run reads through one too), also under `npm run test:warm`.
    const r = await h.run(['plan', 'm', '--target', STAGING, '--json'], { env: { DRIFTLESS_API_URL: proxy.url, DRIFTLESS_CACHE_DIR: '' } });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.complete).toBe(false);
    expect(doc.targets).toEqual([STAGING]);
    expect(doc.summary).toMatchObject({ add: 0, change: 1, destroy: 0 });
    const touched = doc.resource_changes.filter((c: any) => c.change.actions[0] !== 'no-op' || c.change.deploy).map((c: any) => c.address);
    expect(touched).toEqual([`${STAGING}/container.web`]);
    // Nothing outside the target is even listed.
    expect(doc.resource_changes.filter((c: any) => !c.address.startsWith(STAGING) && c.address !== 'project.shop').map((c: any) => c.address)).toEqual([]);

    // The environment's own reads (services, statuses, its service's variable list) + the few
    // every plan needs (organization, projects, clusters, registries, the project's environments).
    const seen = proxy.seen.map((x) => `${x.method} ${symbolic(x.path)}${x.query ? `?${symbolic(sortedQuery(x.query))}` : ''}`).sort();
    expect(seen).toEqual(
      [
        'GET /organization',
        'GET /organization/ORG/project',
        'GET /organization/ORG/cluster',
        'GET /organization/ORG/containerRegistry',
        'GET /project/project:shop/environment',
        'GET /environment/env:staging/services',
        'GET /environment/env:staging/statuses',
        'GET /variable?parent_id=svc:staging/web&scope=CONTAINER',
      ].sort(),
    );
    expect(doc.request_count).toBe(seen.length);
  });

  it('says the plan is partial in the human and markdown plans', async () => {
    h = await setUp();
    const human = await h.run(['plan', 'm', '--target', STAGING]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^Partial plan \(--target\): only project\.shop\/environment\.staging, what is under it and what it depends on were read and planned/);
    expect(human.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy, 1 to deploy.');
    expect(human.stdout).not.toContain('environment.prod');
    expect(human.stderr).toMatch(ONLY_USAGE_LINE);

    const md = await h.run(['plan', 'm', '--target', STAGING, '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('> [!NOTE]\n> **Partial plan (--target): only** `project.shop/environment.staging`');
    expect(md.stdout).not.toContain('environment.prod');
  });

  it('takes several targets, and a manifest path written after them', async () => {
    h = await setUp();
    const r = await h.run(['plan', '--json', '--target', STAGING, 'project.shop/environment.prod/container.web', 'm']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.targets).toEqual([STAGING, 'project.shop/environment.prod/container.web']);
    // prod's web is targeted, not prod: prod's pruning of the legacy service is not this plan's.
    expect(doc.summary).toMatchObject({ change: 2, destroy: 0 });

    // A targeted run reads through the cache and leaves what it read: a cache of a part, which the
    // next full run does not take for the whole (it names the lists it lacks: test/e2e/cache-integrity.test.ts).
    const cached = await h.run(['plan', 'm', '--target', STAGING, '--cache', 'cache-dir']);
    expect(cached.code, cached.stderr).toBe(0);
    expect(cached.stderr).toContain(`Full read of the live state: no cache in ${join(h.dir, 'cache-dir')} yet.`);
    expect(readdirSync(join(h.dir, 'cache-dir'))).toEqual(['driftless-live-state.json']);
    const full = await h.run(['plan', 'm', '--cache', 'cache-dir']);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stderr).toMatch(/Full read of the live state: the manifest needs lists the cache does not hold \(\d+: [^\n]*\)\.\n/);
  });

  it('refuses an unknown address before any request, with the nearest address, and validate says the same offline', async () => {
    h = await setUp();
    proxy = await startProxy(h.emu.url);
    const r = await h.run(['plan', 'm', '--target', 'project.shop/environment.stagin'], { env: { DRIFTLESS_API_URL: proxy.url } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--target "project.shop/environment.stagin" is not an address of the manifest');
    expect(r.stderr).toContain('Did you mean `project.shop/environment.staging`?');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(proxy.seen).toEqual([]);

    const v = await h.run(['validate', 'm', '--target', 'project.shop/environment.stagin'], { env: { DRIFTLESS_API_URL: 'http://127.0.0.1:9' } });
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('Did you mean `project.shop/environment.staging`?');
    const ok = await h.run(['validate', 'm', '--target', STAGING]);
    expect(ok.code, ok.stderr).toBe(0);

    // graph narrows the same way, offline too.
    const graph = await h.run(['graph', 'm', '--offline', '--target', STAGING]);
    expect(graph.code, graph.stderr).toBe(0);
    expect(graph.stdout).toContain('staging');
    expect(graph.stdout).not.toContain('prod');
    const badGraph = await h.run(['graph', 'm', '--offline', '--target', 'project.shop/environment.stagin']);
    expect(badGraph.code).toBe(1);
    expect(badGraph.stderr).toContain('Did you mean `project.shop/environment.staging`?');

    const empty = await h.run(['plan', 'm', '--target']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('--target needs at least one ADDRESS');
  });

  it('saves its targets in the plan file: apply PLANFILE applies exactly that part, and refuses another --target', async () => {
    h = await setUp();
    const planned = await h.run(['plan', 'm', '--target', STAGING, '--out', 'staging.plan']);
    expect(planned.code, planned.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(h.dir, 'staging.plan'), 'utf8'));
    expect(file.plan.targets).toEqual([STAGING]);

    const refused = await h.run(['apply', 'staging.plan', '--target', 'project.shop/environment.prod']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--target cannot be given with the saved plan staging.plan');

    const shown = await h.run(['show', 'staging.plan']);
    expect(shown.stdout).toBe(planned.stdout);
    expect(shown.stdout).toMatch(/^Partial plan \(--target\)/);

    const applied = await h.run(['apply', 'staging.plan', ...FAST]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Partial plan: --target ${STAGING}.`);
    const s = h.emu.state;
    const tags = Object.fromEntries(
      Object.values(s.services).map((x) => [`${[...Object.values(s.environments)].find((e) => e.id === (x.environment as { id: string }).id)!.name}/${x.name}`, x.tag]),
    );
    expect(tags['staging/web']).toBe('1.28');
    expect(tags['prod/web']).toBe('1.27');
    // Pruning outside the target did not run: the legacy service and the preview environment stay.
    expect(liveNames(h)).toEqual({ services: ['prod/legacy', 'prod/web', 'staging/web'], environments: ['preview', 'prod', 'staging'] });

    // The rest of the manifest is still to do, as a full plan says.
    const rest = await h.run(['plan', 'm', '--json']);
    expect(JSON.parse(rest.stdout).summary).toMatchObject({ change: 1, destroy: 2 });
  });

  it('apply --target and drift --target act on the targets only', async () => {
    h = await setUp();
    const drift = await h.run(['drift', 'm', '--target', STAGING, '--format', 'json']);
    expect(drift.code, drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout);
    expect(report.targets).toEqual([STAGING]);
    // As the JSON plan's: a job reading in_sync can tell a partial report from a whole one.
    expect(report.complete).toBe(false);
    expect(report.items.map((i: any) => i.address)).toEqual([`${STAGING}/container.web`]);
    const whole = await h.run(['drift', 'm', '--format', 'json']);
    expect(JSON.parse(whole.stdout).complete).toBe(true);
    expect(report.reconcile_command).toBe(`driftless apply m --target ${STAGING}`);

    const applied = await h.run(['apply', 'm', '--target', STAGING, '--auto-approve', ...FAST]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Partial plan (--target)');
    expect(liveNames(h).environments).toEqual(['preview', 'prod', 'staging']);
    const after = await h.run(['drift', 'm', '--target', STAGING]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('Partial report (--target): only project.shop/environment.staging');
  });

  it('a targeted project secret edited in the console is planned as the whole plan plans it, and drift --target finds it', async () => {
    h = await startHarness();
    const secretManifest = `version: 1
projects:
  - name: shop
    variables:
      - key: API_KEY
        value: \${env:API_KEY}
        secret: true
    environments:
      - name: staging
        cluster: staging-cluster
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
`;
    const env = { API_KEY: 'key-from-git-0001' };
    h.write({ 'm/main.yaml': secretManifest });
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env });
    expect(applied.code, applied.stderr).toBe(0);
    // The console edits the value and keeps the description (with driftless's fingerprint in it):
    // only the record's updated_at, later than the last deployment of web, says so.
    const secret = Object.values(h.emu.state.variables).find((v: any) => v.key === 'API_KEY') as any;
    const res = await fetch(`${h.emu.url}/variable/${secret.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${h.emu.tokens.CONSOLE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'API_KEY', value: 'edited-in-console', description: secret.description }),
    });
    expect(res.status).toBe(200);

    const address = 'project.shop/variable.API_KEY';
    // The reason is the edit, not a secret driftless never wrote.
    const human = await h.run(['plan', 'm'], { env });
    expect(human.stdout).toContain('~ value: (value unknown: changed since driftless wrote it) -> (sensitive value)');
    expect(human.stdout).not.toContain('not written by driftless');
    const whole = await h.run(['plan', 'm', '--json'], { env });
    expect(whole.code, whole.stderr).toBe(0);
    const wholeChange = JSON.parse(whole.stdout).resource_changes.find((c: any) => c.address === address);
    expect(wholeChange.change.actions).toEqual(['update']);

    const targeted = await h.run(['plan', 'm', '--target', address, '--json'], { env });
    expect(targeted.code, targeted.stderr).toBe(0);
    const plan = JSON.parse(targeted.stdout);
    expect(plan.complete).toBe(false);
    // The same change as the whole plan's, and nothing of the environment it read to know it.
    const changed = plan.resource_changes.filter((c: any) => !c.change.actions.includes('no-op'));
    expect(changed.map((c: any) => [c.address, c.change.actions])).toEqual([[address, ['update']]]);
    expect(plan.resource_changes.map((c: any) => c.address)).not.toContain('project.shop/environment.staging');

    const drift = await h.run(['drift', 'm', '--target', address, '--format', 'json'], { env });
    expect(drift.code, drift.stderr).toBe(2);
    expect(JSON.parse(drift.stdout).items.map((i: any) => i.address)).toEqual([address]);
  });
});
