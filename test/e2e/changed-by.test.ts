/**
 * Who changed what, against the emulator's audit log: drift names the console user of a console
 * edit and the token of an API edit (`items[].changed_by`, and the human and markdown sentences),
 * tells an object removed from Git (driftless created it) from one created outside Git (anyone
 * else did), and where the log cannot be read keeps the timestamps' inference, labelled as one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type Proxy } from '../support/proxy.js';
import { FAST, ONLY_USAGE_LINE, startHarness, type Harness } from './helpers.js';

/** Drift's own requests are counted: no refresh cache (npm run test:warm sets one), whose reader reads events too. */
const NO_CACHE = { DRIFTLESS_CACHE_DIR: '' };

let h: Harness | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await h?.close();
  proxy = undefined;
  h = undefined;
});

function manifest(o: { withOldFlag: boolean }): string {
  return `version: 1
projects:
  - name: shop
    variables:
      - key: LOG_LEVEL
        value: info
    environments:
      - name: staging
        cluster: staging-cluster
        variables:
          - key: REGION
            value: eu
${o.withOldFlag ? `          - key: OLD_FLAG
            value: "1"
` : ''}        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            cpu: 250
            memory: 256
`;
}

/** A request straight to the API (not through driftless), with one of the emulator's tokens. */
async function call(harness: Harness, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const scheme = token.split('.').length === 3 ? 'Bearer' : 'Token';
  const res = await fetch(`${harness.emu.url}${path}`, {
    method,
    headers: { authorization: `${scheme} ${token}`, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function ids(harness: Harness) {
  const s = harness.emu.state;
  const project = Object.values(s.projects).find((p) => p.name === 'shop')!;
  const env = Object.values(s.environments).find((e) => e.name === 'staging')!;
  const variable = (key: string, parent: string) => Object.values(s.variables).find((v: any) => v.key === key && v.parent_id === parent) as any;
  return { project, env, variable };
}

const tokenName = (harness: Harness, scope: string) => harness.emu.state.tokens.find((t) => t.token === (harness.emu.tokens as Record<string, string>)[scope])!.name;

async function setUp(): Promise<Harness> {
  const harness = await startHarness();
  harness.write({ 'm/main.yaml': manifest({ withOldFlag: true }) });
  const applied = await harness.run(['apply', 'm', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stderr).toBe(0);
  return harness;
}

describe('drift: who changed what, from the audit log', () => {
  it('names the console user of a console edit and the token of an API edit', async () => {
    h = await setUp();
    const { project, env, variable } = ids(h);
    const logLevel = variable('LOG_LEVEL', project.id);
    await call(h, h.emu.tokens.CONSOLE, 'PUT', `/variable/${logLevel.id}`, { key: 'LOG_LEVEL', value: 'trace' });
    const region = variable('REGION', env.id);
    await call(h, h.emu.tokens.WRITE, 'PUT', `/variable/${region.id}`, { key: 'REGION', value: 'us' });

    const r = await h.run(['drift', 'm', '--format', 'json']);
    expect(r.code, r.stderr).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.attribution).toEqual({ source: 'audit_log' });
    const item = (a: string) => report.items.find((i: any) => i.address === a);
    const console = item('project.shop/variable.LOG_LEVEL');
    expect(console.changed_by).toEqual({ origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/) });
    expect(console.origin).toBe('outside_git');
    expect(console.attribution).toBe('audit_log');
    const api = item('project.shop/environment.staging/variable.REGION');
    expect(api.changed_by).toMatchObject({ origin: 'API', triggered_by: tokenName(h, 'WRITE') });
    expect(api.origin).toBe('outside_git');
    // The events are the latest writes: the console edit is after the apply's own write.
    expect(Date.parse(console.changed_by.at)).toBeGreaterThan(Date.parse(logLevel.created_at));

    const hhmm = new Date(Date.parse(console.changed_by.at)).toISOString().slice(11, 16);
    const human = await h.run(['drift', 'm']);
    expect(human.code).toBe(2);
    expect(human.stdout).toContain(`changed in the console by ops-oncall@example.com at ${hhmm} UTC on `);
    expect(human.stdout).toContain(`changed through the API by token "${tokenName(h, 'WRITE')}" at `);
    expect(human.stdout).not.toContain('inferred');
    expect(human.stderr).toMatch(ONLY_USAGE_LINE);

    const md = await h.run(['drift', 'm', '--format', 'markdown']);
    // Escaped where GitHub would make a mention or a link of it.
    expect(md.stdout).toContain('Changed in the console by ops-oncall&#64;example&#46;com at ');
  });

  it('tells an object removed from Git from one created outside Git', async () => {
    h = await setUp();
    const { env } = ids(h);
    // Someone adds a variable with an API token; Git drops OLD_FLAG, which driftless created.
    await call(h, h.emu.tokens.WRITE, 'POST', '/variable', { key: 'HOTFIX', value: '1', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id });
    h.write({ 'm/main.yaml': manifest({ withOldFlag: false }) });

    const r = await h.run(['drift', 'm', '--format', 'json']);
    expect(r.code, r.stderr).toBe(2);
    const report = JSON.parse(r.stdout);
    const item = (a: string) => report.items.find((i: any) => i.address === a);
    const removed = item('project.shop/environment.staging/variable.OLD_FLAG');
    expect(removed).toMatchObject({ drift: 'unmanaged', cause: 'removed_from_git', origin: 'git', attribution: 'audit_log' });
    expect(removed.changed_by).toMatchObject({ origin: 'API', triggered_by: tokenName(h, 'ADMIN') });
    const created = item('project.shop/environment.staging/variable.HOTFIX');
    expect(created).toMatchObject({ drift: 'unmanaged', cause: 'created_outside_git', origin: 'outside_git', attribution: 'audit_log' });
    expect(created.changed_by).toMatchObject({ origin: 'API', triggered_by: tokenName(h, 'WRITE') });

    const human = await h.run(['drift', 'm']);
    expect(human.stdout).toMatch(/variable\.OLD_FLAG {2}\[removed from Git\]/);
    expect(human.stdout).toMatch(/variable\.HOTFIX {2}\[created outside Git\]/);
    expect(human.stdout).toContain(`created through the API by token "${tokenName(h, 'WRITE')}" at `);

    // Named apply tokens decide instead of the user agent: with another name, OLD_FLAG was not
    // written by "driftless", so it counts as created outside Git.
    const named = await h.run(['drift', 'm', '--format', 'json'], { env: { DRIFTLESS_APPLY_TOKEN_NAME: 'ci-apply' } });
    expect(JSON.parse(named.stdout).items.find((i: any) => i.address.endsWith('variable.OLD_FLAG')).cause).toBe('created_outside_git');
    const ours = await h.run(['drift', 'm', '--format', 'json'], { env: { DRIFTLESS_APPLY_TOKEN_NAME: `ci-apply, ${tokenName(h, 'ADMIN')}` } });
    expect(JSON.parse(ours.stdout).items.find((i: any) => i.address.endsWith('variable.OLD_FLAG')).cause).toBe('removed_from_git');
  });

  it('keeps the timestamp inference where the audit log cannot be read, and says it is one', async () => {
    h = await setUp();
    const { project, variable } = ids(h);
    await call(h, h.emu.tokens.CONSOLE, 'PUT', `/variable/${variable('LOG_LEVEL', project.id).id}`, { key: 'LOG_LEVEL', value: 'trace' });
    proxy = await startProxy(h.emu.url);
    proxy.rule = ({ path }) => (path.endsWith('/events') ? { status: 404, body: { message: 'Not Found' } } : undefined);

    const r = await h.run(['drift', 'm', '--format', 'json'], { env: { DRIFTLESS_API_URL: proxy.url, ...NO_CACHE } });
    expect(r.code, r.stderr).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.attribution).toEqual({ source: 'inference', reason: 'the API has no audit log (404)' });
    const item = report.items.find((i: any) => i.address === 'project.shop/variable.LOG_LEVEL');
    expect(item.attribution).toBe('inference');
    expect(item.changed_by).toBeUndefined();
    expect(item.origin).toBe('outside_git');
    expect(proxy.seen.filter((x) => x.path.endsWith('/events'))).toHaveLength(1);

    proxy.rule = ({ path }) => (path.endsWith('/events') ? { status: 403, body: { message: 'Forbidden' } } : undefined);
    const human = await h.run(['drift', 'm'], { env: { DRIFTLESS_API_URL: proxy.url } });
    expect(human.code).toBe(2);
    expect(human.stdout).toContain('[changed outside Git, inferred from timestamps]');
    expect(human.stdout).toContain("Origins are inferred from the records' timestamps, not read from the audit log: the token may not read the audit log (403).");
  });

  it('reads no event when nothing drifted, and few when something did', async () => {
    h = await setUp();
    proxy = await startProxy(h.emu.url);
    const clean = await h.run(['drift', 'm'], { env: { DRIFTLESS_API_URL: proxy.url, ...NO_CACHE } });
    expect(clean.code, clean.stderr).toBe(0);
    expect(proxy.seen.filter((x) => x.path.endsWith('/events'))).toHaveLength(0);

    const { project, variable } = ids(h);
    await call(h, h.emu.tokens.CONSOLE, 'PUT', `/variable/${variable('LOG_LEVEL', project.id).id}`, { key: 'LOG_LEVEL', value: 'trace' });
    proxy.seen.length = 0;
    const drift = await h.run(['drift', 'm'], { env: { DRIFTLESS_API_URL: proxy.url, ...NO_CACHE } });
    expect(drift.code).toBe(2);
    const events = proxy.seen.filter((x) => x.path.endsWith('/events'));
    expect(events).toHaveLength(1);
    // Only the window since the drifted record's last write (less a second) is asked for.
    expect(new URLSearchParams(events[0]!.query).get('fromTimestamp')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('names who changed the configuration a service has not been deployed with since (a console edit put back by hand)', async () => {
    h = await setUp();
    const { project, variable } = ids(h);
    const logLevel = variable('LOG_LEVEL', project.id);
    // Changed and put back in the console: the value matches Git, the service runs an older configuration.
    await call(h, h.emu.tokens.CONSOLE, 'PUT', `/variable/${logLevel.id}`, { key: 'LOG_LEVEL', value: 'trace' });
    await call(h, h.emu.tokens.CONSOLE, 'PUT', `/variable/${logLevel.id}`, { key: 'LOG_LEVEL', value: 'info' });

    const r = await h.run(['drift', 'm', '--format', 'json']);
    expect(r.code, r.stderr).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.items.map((i: any) => [i.address, i.drift])).toEqual([['project.shop/environment.staging/container.web', 'not_deployed']]);
    const [web] = report.items;
    expect(web.changed_by).toEqual({ origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(web.origin).toBe('outside_git');
    expect(web.attribution).toBe('audit_log');

    const human = await h.run(['drift', 'm']);
    expect(human.code).toBe(2);
    expect(human.stdout).toContain('configuration last changed in the console by ops-oncall@example.com at ');
    expect(human.stdout).not.toContain('inferred from timestamps');
  });
});
