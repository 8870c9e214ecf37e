/**
 * The request budget of a warm drift after console edits (issue 13: at most 10 requests plus the
 * lists the edits touch), seen request by request by a recording proxy in front of the emulator:
 * the refresh's one read of the audit log also tells drift who made each edit, so drift reads the
 * log no second time. And the answer is the one a drift without a cache gives, also when the edits
 * are older than the cache (drift then reads the log back to them).
 */
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

const ENVS = ['dev', 'staging', 'prod'];

function manifest(): string {
  return `version: 1
projects:
  - name: shop
    environments:
${ENVS.map(
  (e) => `      - name: ${e}
        cluster: staging-cluster
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            variables:
              - key: PORT
                value: "80"
`,
).join('')}`;
}

/** One service variable set in each environment by a console user (the CONSOLE token, straight to the API). */
async function consoleEdits(harness: Harness): Promise<void> {
  const s = harness.emu.state;
  for (const svc of Object.values(s.services)) {
    const v = Object.values(s.variables).find((x: any) => x.key === 'PORT' && x.parent_id === svc.id) as { id: string } | undefined;
    expect(v).toBeDefined();
    const res = await fetch(`${harness.emu.url}/variable/${v!.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${harness.emu.tokens.CONSOLE}`, 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0' },
      body: JSON.stringify({ key: 'PORT', value: '8080' }),
    });
    expect(res.status, await res.text()).toBe(200);
  }
}

/** Ids in a request as names: ORG, env:NAME, svc:ENV/NAME; timestamps as T. */
function symbolicOf(harness: Harness): (path: string, query: string) => string {
  const s = harness.emu.state;
  const names = new Map<string, string>([[harness.emu.organizationId, 'ORG']]);
  const envName = new Map<string, string>();
  for (const e of Object.values(s.environments)) {
    envName.set(e.id, String(e.name));
    names.set(e.id, `env:${e.name}`);
  }
  for (const svc of Object.values(s.services)) names.set(svc.id, `svc:${envName.get(String((svc.environment as { id: string }).id))}/${svc.name}`);
  const ids = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => names.get(id) ?? `UNKNOWN(${id})`);
  return (path, query) => {
    const q = [...new URLSearchParams(query)].map(([k, v]) => `${k}=${k.endsWith('Timestamp') ? 'T' : ids(v)}`).sort().join('&');
    return `${ids(path)}${q ? `?${q}` : ''}`;
  };
}

/** What drift says per item: what drifted and who did it (the fingerprint says the same drift). */
function itemsOf(stdout: string): unknown {
  const doc = JSON.parse(stdout);
  return {
    fingerprint: doc.fingerprint,
    attribution: doc.attribution,
    items: doc.items.map((i: any) => ({ address: i.address, drift: i.drift, origin: i.origin, summary: i.summary, changed_by: i.changed_by, attribution: i.attribution })),
  };
}

const NO_CACHE = { DRIFTLESS_CACHE_DIR: '' };

/** Applied, then a first drift through a recording proxy that fills the cache (the cache belongs to one API URL). */
async function setUp(): Promise<{ harness: Harness; proxy: Proxy; viaProxy: { env: Record<string, string> } }> {
  const harness = await startHarness();
  harness.write({ 'm/main.yaml': manifest() });
  const applied = await harness.run(['apply', 'm', '--auto-approve', ...FAST], { env: NO_CACHE });
  expect(applied.code, applied.stderr).toBe(0);
  const p = await startProxy(harness.emu.url);
  const viaProxy = { env: { DRIFTLESS_API_URL: p.url } };
  const cold = await harness.run(['drift', 'm', '--cache', 'cache'], viaProxy);
  expect(cold.code, cold.stderr).toBe(0);
  p.seen.length = 0;
  return { harness, proxy: p, viaProxy };
}

// The lists these scenarios count are those the audit log makes stale: the rotation of
// --verify-requests (test/e2e/refresh-freshness.test.ts) is off here.
describe('a warm drift after console edits', () => {
  it('reads the organization, the audit log once, the clusters and the 3 lists each edit touches, and names the console user', async () => {
    const s = await setUp();
    h = s.harness;
    proxy = s.proxy;
    const viaProxy = s.viaProxy;

    await consoleEdits(h);
    const warm = await h.run(['drift', 'm', '--cache', 'cache', '--verify-requests', '0', '--format', 'json'], viaProxy);
    expect(warm.code, warm.stderr).toBe(2);
    expect(warm.stderr).toMatch(/^\d+ API requests \(\d+ of them the refresh\); /);

    const symbolic = symbolicOf(h);
    const seen = proxy.seen.map((x) => `${x.method} ${symbolic(x.path, x.query)}`).sort();
    expect(seen).toEqual(
      [
        'GET /organization',
        'GET /organization/ORG/events?fromTimestamp=T&pageSize=100',
        'GET /organization/ORG/cluster',
        ...ENVS.flatMap((e) => [`GET /environment/env:${e}/services`, `GET /environment/env:${e}/statuses`, `GET /variable?parent_id=svc:${e}/web&scope=CONTAINER`]),
      ].sort(),
    );

    const report = itemsOf(warm.stdout) as { attribution: unknown; items: Array<{ address: string; drift: string; changed_by?: { origin: string } }> };
    expect(report.attribution).toEqual({ source: 'audit_log' });
    expect(report.items.map((i) => [i.address, i.drift, i.changed_by?.origin])).toEqual(
      expect.arrayContaining(ENVS.map((e) => [`project.shop/environment.${e}/container.web/variable.PORT`, 'changed', 'CONSOLE'])),
    );
    // The same answer as a drift that reads everything and the log on its own.
    const uncached = await h.run(['drift', 'm', '--format', 'json'], { env: NO_CACHE });
    expect(uncached.code, uncached.stderr).toBe(2);
    expect(report).toEqual(itemsOf(uncached.stdout));

    // The edits are now older than the cache's cursor: the refresh reads no event about them, and
    // drift reads the log back to them rather than answer from the (empty) window.
    proxy.seen.length = 0;
    const again = await h.run(['drift', 'm', '--cache', 'cache', '--verify-requests', '0', '--format', 'json'], viaProxy);
    // No list re-read; the log twice: the refresh's events since the cursor, then drift's since the edits.
    expect(proxy.seen.map((x) => `${x.method} ${symbolic(x.path, x.query)}`).sort()).toEqual(
      ['GET /organization', 'GET /organization/ORG/cluster', 'GET /organization/ORG/events?fromTimestamp=T&pageSize=100', 'GET /organization/ORG/events?fromTimestamp=T&pageSize=100'].sort(),
    );
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toMatch(/^\d+ API requests \(\d+ of them the refresh\); /);
    expect(itemsOf(again.stdout)).toEqual(report);
  });

  it('dates a service deleted in the console by the log the refresh read: no deployment history read, and the answer of a drift without cache', async () => {
    const s = await setUp();
    h = s.harness;
    proxy = s.proxy;
    const svc = Object.values(h.emu.state.services).find((x) => h!.emu.state.environments[String((x.environment as { id: string }).id)]?.name === 'dev')!;
    const res = await fetch(`${h.emu.url}/container/${svc.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${h.emu.tokens.CONSOLE}`, 'user-agent': 'Mozilla/5.0' } });
    expect(res.status).toBe(204);
    // The deletion is asynchronous: the service goes once its DELETING is over.
    for (let i = 0; i < 100 && h.emu.state.services[svc.id]; i++) await new Promise((r) => setTimeout(r, 20));
    expect(h.emu.state.services[svc.id]).toBeUndefined();

    const warm = await h.run(['drift', 'm', '--cache', 'cache', '--verify-requests', '0', '--format', 'json'], s.viaProxy);
    expect(warm.code, warm.stderr).toBe(2);
    const seen = proxy.seen.map((x) => `${x.method} ${symbolicOf(h!)(x.path, x.query)}`);
    expect(seen.filter((r) => r.includes('deploymentHistory'))).toEqual([]);
    expect(seen.filter((r) => r.includes('/events'))).toEqual(['GET /organization/ORG/events?fromTimestamp=T&pageSize=100']);
    const report = itemsOf(warm.stdout) as { items: Array<{ address: string; drift: string; changed_by?: { origin: string } }> };
    expect(report.items.map((i) => [i.address, i.drift, i.changed_by?.origin])).toEqual([['project.shop/environment.dev/container.web', 'missing', 'CONSOLE']]);

    const uncached = await h.run(['drift', 'm', '--format', 'json'], { env: NO_CACHE });
    expect(uncached.code, uncached.stderr).toBe(2);
    expect(report).toEqual(itemsOf(uncached.stdout));
  });
});
