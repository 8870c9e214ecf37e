/**
 * A fresh apply follows the deployment critical path, against the real emulator over HTTP (through
 * a counting proxy): the first stage deploys while the later stages are still being configured,
 * a service's plain variables go in one import request, and the result is exactly the manifest
 * (the next plan is empty), also when the server has no import route.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { startProxy, type Proxy } from '../support/proxy.js';

let h: Harness | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await h?.close();
  proxy = h = undefined;
});

const SECRET = 'pipeline-secret-value-7f3a';
const STAGE_SIZES = { first: 2, second: 6 };

/** Two stages; every service has four plain variables, a described one and a secret. */
function manifest(): string {
  const names = Object.entries(STAGE_SIZES).flatMap(([stage, n]) => Array.from({ length: n }, (_, i) => `${stage}-${i}`));
  const lines = [
    'version: 1',
    'projects:',
    '  - name: pipeline',
    '    environments:',
    '      - name: dev',
    '        mode: STAGING',
    '        cluster: staging-cluster',
    '        deployment_stages:',
    ...Object.keys(STAGE_SIZES).flatMap((stage) => [`          - name: ${stage}`, `            services: [${names.filter((n) => n.startsWith(stage)).join(', ')}]`]),
    '        services:',
  ];
  for (const name of names) {
    lines.push(
      '          - type: container',
      `            name: ${name}`,
      '            registry: docker-hub',
      '            image_name: library/nginx',
      '            tag: "1.27"',
      '            cpu: 250',
      '            memory: 256',
      '            variables:',
      ...['A', 'B', 'C', 'D'].flatMap((k) => [`              - key: ${k}`, `                value: "${k.toLowerCase()}-${name}"`]),
      '              - key: DESCRIBED',
      '                value: "x"',
      '                description: kept in the record',
      '              - key: TOKEN',
      '                value: ${env:PIPELINE_SECRET}',
      '                secret: true',
    );
  }
  return lines.join('\n') + '\n';
}

async function setup() {
  h = await startHarness({ deployDurationMs: 600 });
  proxy = await startProxy(h.emu.url);
  h.write({ 'm/main.yaml': manifest() });
  const env = { PIPELINE_SECRET: SECRET, DRIFTLESS_API_URL: proxy.url };
  const run = (...argv: string[]) => h!.run(argv, { env });
  return { h, proxy, run };
}

const route = (s: { method: string; path: string }) => `${s.method} ${s.path.replace(/\?.*$/, '').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}`;

describe('a fresh apply along the critical path', () => {
  it('deploys the first stage before the later stages are configured, imports plain variables, and converges', async () => {
    const { h, proxy, run } = await setup();
    const r = await run('apply', 'm', '--auto-approve', '--parallelism', '2', ...FAST);
    expect(r.code, r.stdout + r.stderr).toBe(0);

    const seen = proxy.seen.map((s) => ({ ...s, route: route(s) }));
    const services = STAGE_SIZES.first + STAGE_SIZES.second;
    // One import per service for A-D; the described variable and the secret on their own.
    const imports = seen.filter((s) => s.route === 'POST /variable/import');
    expect(imports).toHaveLength(services);
    expect(seen.filter((s) => s.route === 'POST /variable')).toHaveLength(2 * services);

    // The first stage's deploy request went out before the last configuration write of the second.
    const deploys = seen.filter((s) => s.route === 'POST /environment/{id}/service/deploy');
    expect(deploys).toHaveLength(2);
    const configWrites = seen.filter((s) => s.method !== 'GET' && !s.route.endsWith('/deploy'));
    expect(deploys[0]!.n).toBeLessThan(configWrites.at(-1)!.n);
    expect(deploys[1]!.n).toBeGreaterThan(configWrites.at(-1)!.n);

    // Exactly the manifest: values, descriptions, the secret (never echoed), and the stages.
    const p = await run('plan', 'm', '--detailed-exitcode');
    expect(p.code, p.stdout).toBe(0);
    expect(p.stdout).toContain('No changes.');
    const vars = Object.values(h.emu.state.variables as Record<string, any>);
    expect(vars.filter((v) => v.key === 'A')).toHaveLength(services);
    expect(vars.find((v) => v.key === 'A' && v.value === 'a-second-5')).toBeDefined();
    expect(r.stdout + r.stderr + p.stdout + p.stderr).not.toContain(SECRET);
  });

  it('falls back to one create per variable when the server has no import route, and stops trying it', async () => {
    const { proxy, run } = await setup();
    proxy.rule = ({ path }) => (path.startsWith('/variable/import') ? { status: 404, body: { status: 404, error: 'Not Found', message: 'Route POST:/variable/import not found' } } : undefined);
    // One step at a time, so that no other import is already in flight when the first 404 comes back.
    const r = await run('apply', 'm', '--auto-approve', '--parallelism', '1', ...FAST);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const seen = proxy.seen.map(route);
    expect(seen.filter((x) => x === 'POST /variable/import')).toHaveLength(1);
    expect(seen.filter((x) => x === 'POST /variable')).toHaveLength(6 * (STAGE_SIZES.first + STAGE_SIZES.second));
    const p = await run('plan', 'm', '--detailed-exitcode');
    expect(p.code, p.stdout).toBe(0);
  });
});
