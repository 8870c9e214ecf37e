/**
 * A warm drift whose own read of the audit log fails keeps what the refresh's events already
 * settled: an edit made since the cache's cursor is attributed to the console user from the
 * refresh's events, and only the edit older than the cursor (the one drift had to read the log
 * for) falls back to the timestamps' inference, saying why. A planted drop of the refresh's events
 * (every item inferred) went unnoticed by the suite.
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

const ENVS = ['dev', 'staging'];
const manifest = () => `version: 1
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

async function consoleEditPort(harness: Harness, env: string, value: string): Promise<void> {
  const s = harness.emu.state;
  const envId = Object.values(s.environments).find((e) => e.name === env)!.id;
  const svc = Object.values(s.services).find((x) => (x.environment as { id: string }).id === envId)!;
  const v = Object.values(s.variables).find((x: any) => x.key === 'PORT' && x.parent_id === svc.id) as { id: string };
  const res = await fetch(`${harness.emu.url}/variable/${v.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${harness.emu.tokens.CONSOLE}`, 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0' },
    body: JSON.stringify({ key: 'PORT', value }),
  });
  expect(res.status, await res.text()).toBe(200);
}

describe('a warm drift whose own read of the audit log fails', () => {
  it('keeps the refresh\'s attribution for what its events settle, and infers only the rest', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest() });
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: { DRIFTLESS_CACHE_DIR: '' } });
    expect(applied.code, applied.stderr).toBe(0);
    // dev is edited before the cache exists: its edit is older than the cursor.
    await consoleEditPort(h, 'dev', '8080');
    proxy = await startProxy(h.emu.url);
    const viaProxy = { env: { DRIFTLESS_API_URL: proxy.url } };
    const cold = await h.run(['drift', 'm', '--cache', 'cache'], viaProxy);
    expect(cold.code, cold.stderr).toBe(2);
    // staging is edited after: the refresh's events hold it.
    await consoleEditPort(h, 'staging', '9090');

    // The refresh's read of the log is answered; drift's own (the second) is refused.
    let eventsReads = 0;
    proxy.rule = ({ path }) => (path.endsWith('/events') && ++eventsReads === 2 ? { status: 403, body: { status: 403, error: 'Forbidden', message: 'no' } } : undefined);
    const warm = await h.run(['drift', 'm', '--cache', 'cache', '--format', 'json'], viaProxy);
    expect(warm.code, warm.stderr).toBe(2);
    expect(eventsReads).toBe(2);
    const doc = JSON.parse(warm.stdout);
    const byAddress = new Map<string, any>(doc.items.map((i: any) => [i.address, i]));
    const staging = byAddress.get('project.shop/environment.staging/container.web/variable.PORT');
    const dev = byAddress.get('project.shop/environment.dev/container.web/variable.PORT');
    expect(staging?.changed_by).toMatchObject({ origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com' });
    expect(staging.attribution).not.toBe('inference');
    expect(dev).toBeDefined();
    expect(dev.attribution).toBe('inference');
    expect(dev.changed_by?.origin).not.toBe('CONSOLE');
    expect(doc.attribution.source).toBe('inference');
    expect(doc.attribution.reason).toMatch(/^for 1 of 2 items, .*403/);
  });
});
