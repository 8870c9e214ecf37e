/**
 * Every request driftless sends and every answer the emulator gives, in a broad scenario (both
 * examples applied, console edits, drift, --no-deploy, moved, prune, an environment deleted, the
 * events endpoint, export), checked against the real API's document as vendored in
 * test/fixtures/reference/ (scripts/vendor-reference.mjs): each exchange is valid there, or differs
 * as test/emulator/reference-differences.ts sanctions (the seed defines it otherwise), or fails.
 * The exchanges are recorded by a proxy in front of the emulator, over real HTTP on 127.0.0.1.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type Proxy } from '../support/proxy.js';
import { secretEnv } from '../support/realistic.js';
import { checkAgainstReference, loadReference, type ReferenceReport } from '../emulator/reference-check.js';
import { REFERENCE_DIFFERENCES } from '../emulator/reference-differences.js';
import { FAST, startHarness, type Harness } from './helpers.js';

const EXAMPLES = resolve(import.meta.dirname, '../../examples');

let h: Harness;
let proxy: Proxy;
let cacheDir: string;
let report: ReferenceReport;
const steps: Array<{ step: string; code: number; expected: number; stderr: string }> = [];

/** A console user's request (Bearer JWT of the CONSOLE token), through the recording proxy. */
async function consoleCall(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(proxy.url + path, {
    method,
    headers: { authorization: `Bearer ${h.emu.tokens.CONSOLE}`, 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (console)' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function cli(step: string, argv: string[], expected = 0, env: Record<string, string> = {}): Promise<string> {
  const r = await h.run([...argv], { env: { DRIFTLESS_API_URL: proxy.url, DRIFTLESS_CACHE_DIR: cacheDir, ...secrets, ...env } });
  steps.push({ step, code: r.code, expected, stderr: r.stderr });
  return r.stdout;
}

const secrets = secretEnv();
const minimal = (o: { name: string; moved?: boolean; qa?: boolean; prune?: boolean }) => `version: 1
projects:
  - name: hello
    description: A first project managed by driftless
${o.prune ? '    prune:\n      environments: true\n' : ''}    environments:
      - name: staging
        mode: STAGING
        cluster: staging-cluster
${o.prune ? '        prune:\n          services: true\n' : ''}        services:
          - type: application
            name: ${o.name}
            git_repository:
              url: https://github.com/driftless-examples/hello-web.git
              branch: main
            dockerfile_path: Dockerfile
            cpu: 250
            memory: 256
            ports:
              - internal_port: 8080
                publicly_accessible: true
${o.qa ? `      - name: qa
        mode: DEVELOPMENT
        cluster: staging-cluster
        services:
          - type: container
            name: echo
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            ports:
              - internal_port: 80
` : ''}${o.moved ? `moved:
  - from: project.hello/environment.staging/application.web
    to: project.hello/environment.staging/application.frontend
` : ''}`;

beforeAll(async () => {
  h = await startHarness({ refreshCache: false });
  proxy = await startProxy(h.emu.url, { bodies: true });
  cacheDir = mkdtempSync(join(tmpdir(), 'driftless-reference-cache-'));
  cpSync(join(EXAMPLES, 'minimal'), join(h.dir, 'minimal'), { recursive: true });
  cpSync(join(EXAMPLES, 'realistic'), join(h.dir, 'realistic'), { recursive: true });

  // Both examples, as the README's tour applies them.
  await cli('apply examples/minimal', ['apply', 'minimal', '--auto-approve', ...FAST]);
  await cli('apply examples/realistic', ['apply', 'realistic', '--auto-approve', ...FAST]);
  await cli('plan (clean)', ['plan', 'realistic', '--detailed-exitcode']);

  // Console edits (the CONSOLE token): a variable changed, one added, a container added by hand.
  const s = h.emu.state;
  const shop = Object.values(s.projects).find((p) => p.name === 'shop')!;
  const staging = Object.values(s.environments).find((e) => e.name === 'staging' && (e as any).project.id === shop.id)!;
  const logLevel = Object.values(s.variables).find((v: any) => v.key === 'LOG_LEVEL' && v.parent_id === shop.id)!;
  await consoleCall('PUT', `/variable/${logLevel.id}`, { key: 'LOG_LEVEL', value: 'trace' });
  await consoleCall('POST', '/variable', { key: 'HOTFIX', value: '1', is_secret: false, variable_parent_id: staging.id, variable_scope: 'ENVIRONMENT' });
  const hello = Object.values(s.projects).find((p) => p.name === 'hello')!;
  const helloStaging = Object.values(s.environments).find((e) => (e as any).project.id === hello.id)!;
  const registry = Object.values(s.containerRegistries).find((r: any) => r.name === 'docker-hub') as any;
  await consoleCall('POST', `/environment/${helloStaging.id}/container`, { name: 'debug-shell', registry_id: registry.id, image_name: 'library/busybox', tag: '1.36', cpu: 100, memory: 128, ports: [], healthchecks: {} });
  // The console's full-replacement edit of a container: what it read, with another tag.
  const production = Object.values(s.environments).find((e) => e.name === 'production' && (e as any).project.id === shop.id)!;
  const storefront = Object.values(s.services).find((x: any) => x.name === 'storefront' && x.environment.id === production.id)!;
  const read = await consoleCall('GET', `/container/${storefront.id}`);
  const { id: _id, created_at: _c, updated_at: _u, environment: _e, registry: liveRegistry, maximum_cpu: _mc, maximum_memory: _mm, maximum_gpu: _mg, service_type: _t, ...editable } = read;
  await consoleCall('PUT', `/container/${storefront.id}`, { ...editable, registry_id: liveRegistry.id, tag: '1.28-alpine' });
  await cli('drift after console edits', ['drift', 'realistic'], 2);
  await cli('plan with a full read', ['plan', 'realistic', '--refresh', 'full', '--detailed-exitcode'], 2);

  // Put back without deploying, then deploy what that left pending.
  await cli('apply --no-deploy', ['apply', 'realistic', '--auto-approve', '--no-deploy', ...FAST]);
  await cli('plan (pending deploys)', ['plan', 'realistic', '--detailed-exitcode'], 2);
  await cli('apply (deploys)', ['apply', 'realistic', '--auto-approve', ...FAST]);

  // A change in Git: the job, a database and an application (a private port added) updated in place.
  const shopYaml = join(h.dir, 'realistic', 'shop.yaml');
  const edited = readFileSync(shopYaml, 'utf8')
    .replace('max_duration_seconds: 1800', 'max_duration_seconds: 2400')
    .replace('            storage: 10\n', '            storage: 20\n')
    .replace('                internal_port: 3000\n                publicly_accessible: true\n', '                internal_port: 3000\n                publicly_accessible: true\n              - name: metrics\n                internal_port: 9100\n                publicly_accessible: false\n');
  expect(edited.match(/2400|storage: 20|metrics/g)).toHaveLength(3);
  writeFileSync(shopYaml, edited);
  await cli('apply a change in Git', ['apply', 'realistic', '--auto-approve', ...FAST]);

  // moved: the minimal example's application renamed in place; a second environment.
  writeFileSync(join(h.dir, 'minimal', 'driftless.yaml'), minimal({ name: 'frontend', moved: true, qa: true }));
  await cli('apply moved + a new environment', ['apply', 'minimal', '--auto-approve', ...FAST]);
  // prune: the console's container deleted, and the qa environment with it.
  writeFileSync(join(h.dir, 'minimal', 'driftless.yaml'), minimal({ name: 'frontend', prune: true }));
  await cli('apply prune (service and environment deleted)', ['apply', 'minimal', '--auto-approve', ...FAST]);
  await cli('plan minimal (clean)', ['plan', 'minimal', '--detailed-exitcode']);

  // The audit log as a reader sees it, page by page.
  let next: string | undefined = `/organization/${h.emu.organizationId}/events?pageSize=25`;
  for (let pages = 0; next && pages < 100; pages++) {
    const res = await fetch(proxy.url + next, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
    const body: any = await res.json();
    next = body.links?.next ? new URL(body.links.next).pathname + new URL(body.links.next).search : undefined;
  }
  await fetch(`${proxy.url}/organization/${h.emu.organizationId}/targets`, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
  // The URLs of the services (what `preview up` prints): per environment and per application.
  const web = Object.values(s.services).find((x: any) => x.service_type === 'APPLICATION' && x.environment.id === helloStaging.id)!;
  for (const path of [`/environment/${helloStaging.id}/link`, `/application/${web.id}/link`]) {
    await fetch(proxy.url + path, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
  }

  // The console takes its hotfix back (no scope prunes environment variables here).
  const hotfix = Object.values(s.variables).find((v: any) => v.key === 'HOTFIX')!;
  await consoleCall('DELETE', `/variable/${hotfix.id}`);
  await cli('export', ['export', '--out', 'exported', '--layout', 'directory']);
  await cli('drift (in sync)', ['drift', 'realistic', 'minimal'], 0);

  report = checkAgainstReference(loadReference(), proxy.seen, REFERENCE_DIFFERENCES);
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await h?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('the broad scenario against the real API document (vendored)', () => {
  it('runs every step with the exit code it should', () => {
    expect(steps.map((s) => ({ step: s.step, code: s.code })), steps.map((s) => s.stderr).join('\n')).toEqual(steps.map((s) => ({ step: s.step, code: s.expected })));
  });

  it('every request and response is valid against the reference, or a difference the seed sanctions: 0 unexplained', () => {
    expect(report.unexplained).toEqual([]);
    expect(report.checked).toBe(proxy.seen.length);
    expect(report.checked).toBeGreaterThan(200);
  });

  it('covers the operations of the scenario: service edits, deletions, the events endpoint', () => {
    for (const op of [
      'POST /organization/{organizationId}/project',
      'POST /project/{projectId}/environment',
      'POST /environment/{environmentId}/application',
      'PUT /application/{applicationId}',
      'POST /environment/{environmentId}/container',
      'PUT /container/{containerId}',
      'PUT /job/{jobId}',
      'PUT /database/{databaseId}',
      'POST /environment/{environmentId}/service/delete',
      'POST /environment/{environmentId}/service/deploy',
      'DELETE /environment/{environmentId}',
      'GET /organization/{organizationId}/events',
      'GET /environment/{environmentId}/link',
      'GET /application/{applicationId}/link',
      'POST /organization/{organizationId}/webhook',
      'POST /variable',
      'PUT /variable/{variableId}',
      'DELETE /variable/{variableId}',
    ]) expect([...report.covered], op).toContain(op);
  });

  it('lists no sanctioned difference the scenario never meets (each entry earns its place)', () => {
    const unused = REFERENCE_DIFFERENCES.filter((d) => !report.sanctioned.has(d.id)).map((d) => d.id);
    expect(unused).toEqual([]);
  });
});
