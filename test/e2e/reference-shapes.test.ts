/**
 * Every request driftless sends and every answer the emulator gives, in a broad scenario (both
 * examples applied, console edits, drift, --no-deploy, moved, prune, an environment deleted, the
 * events endpoint, export; the service kinds the examples lack (helm, terraform, git-built and cron
 * jobs, a container-mode database) created, changed by hand as a console user would (service
 * variables and secrets, deploy, redeploy, stop, a backup) and updated in Git), checked against the real API's document as vendored in
 * test/fixtures/reference/ (scripts/vendor-reference.mjs): each exchange is valid there, or differs
 * as test/emulator/reference-differences.ts sanctions (the seed defines it otherwise), or fails.
 * The exchanges are recorded by a proxy in front of the emulator, over real HTTP on 127.0.0.1.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    headers: { authorization: `Bearer ${h.emu.tokens.CONSOLE}`, 'user-agent': 'Mozilla/5.0 (console)', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
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

const secrets = { ...secretEnv(), TF_API_TOKEN: 'tf-token-by-env' };

/** Until the environment's deployment is over (the emulator, not through the proxy: not checked). */
async function settle(environmentId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const res = await fetch(`${h.emu.url}/environment/${environmentId}/status`, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
    const st: any = await res.json();
    if (!/ING$|QUEUED/.test(String(st.state))) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`environment ${environmentId} still deploying`);
}

/** The service kinds the examples do not have, with an application without a public port. */
const kinds = (replicas: string, region: string) => `version: 1
projects:
  - name: k
    environments:
      - name: dev
        cluster: staging-cluster
        services:
          - type: helm
            name: chart
            source:
              helm_repository:
                repository: bitnami
                chart_name: redis
                chart_version: "18.0.0"
            values_override:
              set:
                replicas: "${replicas}"
            arguments: ["--wait"]
          - type: terraform
            name: infra
            git_repository:
              url: https://github.com/acme/infra.git
              branch: main
            engine: TERRAFORM
            provider_version: "1.5.0"
            tf_vars:
              region: ${region}
              api_token: \${env:TF_API_TOKEN}
            sensitive_tf_vars: [api_token]
          - type: job
            name: migrate
            source:
              git_repository:
                url: https://github.com/x/migrate.git
                branch: main
              dockerfile_path: Dockerfile
            schedule:
              on_start:
                arguments: ["migrate"]
          - type: job
            name: nightly
            source:
              image:
                registry: docker-hub
                image_name: library/busybox
                tag: "1.36"
            schedule:
              cron:
                scheduled_at: "0 3 * * *"
          - type: database
            name: cache
            database_type: REDIS
            version: "7"
            mode: CONTAINER
            accessibility: PRIVATE
          - type: application
            name: worker
            git_repository:
              url: https://github.com/x/worker.git
              branch: main
            dockerfile_path: Dockerfile
            ports:
              - internal_port: 9000
                publicly_accessible: false
          - type: container
            name: side
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            ports:
              - internal_port: 80
                publicly_accessible: true
`;

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

  // The service kinds the examples do not have: created, read and changed by hand, updated in Git.
  mkdirSync(join(h.dir, 'kinds'));
  writeFileSync(join(h.dir, 'kinds', 'main.yaml'), kinds('2', 'eu-west-1'));
  await cli('apply kinds', ['apply', 'kinds', '--auto-approve', ...FAST]);
  await cli('plan kinds (clean)', ['plan', 'kinds', '--detailed-exitcode']);
  // By hand, as a console user: every kind's record, status and history; variables and secrets of
  // each service; deploy, redeploy, stop; a backup; the helm repositories.
  const kProject = Object.values(s.projects).find((p) => p.name === 'k')!;
  const environmentId = Object.values(s.environments).find((e) => (e as any).project.id === kProject.id)!.id;
  const services = (Object.values(s.services) as any[]).filter((x) => x.environment.id === environmentId);
  const byName = (n: string) => services.find((x) => x.name === n)!;
  for (const svc of services) {
    const kind = String(svc.service_type).toLowerCase();
    await consoleCall('GET', `/${kind}/${svc.id}`);
    await consoleCall('GET', `/${kind}/${svc.id}/deploymentHistoryV2`);
    if (kind !== 'terraform') await consoleCall('GET', `/${kind}/${svc.id}/status`);
  }
  for (const k of ['helm', 'terraform', 'job', 'database', 'application', 'container', 'services', 'status', 'deploymentStage']) await consoleCall('GET', `/environment/${environmentId}/${k}`);
  const region = await consoleCall('POST', `/environment/${environmentId}/environmentVariable`, { key: 'REGION', value: 'eu' });
  for (const [kind, name] of [['application', 'worker'], ['container', 'side'], ['job', 'migrate']] as const) {
    const id = byName(name).id;
    await consoleCall('POST', `/${kind}/${id}/environmentVariable/${region.id}/override`, { value: name });
    await consoleCall('POST', `/${kind}/${id}/environmentVariable/${region.id}/alias`, { key: `${name.toUpperCase()}_REGION` });
    const v = await consoleCall('POST', `/${kind}/${id}/environmentVariable`, { key: `${name.toUpperCase()}_MODE`, value: 'on' });
    await consoleCall('PUT', `/${kind}/${id}/environmentVariable/${v.id}`, { key: `${name.toUpperCase()}_MODE`, value: 'off' });
    await consoleCall('GET', `/${kind}/${id}/environmentVariable`);
    const sec = await consoleCall('POST', `/${kind}/${id}/secret`, { key: `${name.toUpperCase()}_TOKEN`, value: 'hidden' });
    await consoleCall('PUT', `/${kind}/${id}/secret/${sec.id}`, { key: `${name.toUpperCase()}_TOKEN`, value: 'hidden-too' });
    await consoleCall('GET', `/${kind}/${id}/secret`);
    await consoleCall('DELETE', `/${kind}/${id}/secret/${sec.id}`);
  }
  await consoleCall('GET', `/environment/${environmentId}/environmentVariable`);
  await consoleCall('GET', `/environment/${environmentId}/secret`);
  await consoleCall('POST', `/container/${byName('side').id}/deploy`, { image_tag: '1.27' });
  await consoleCall('POST', `/helm/${byName('chart').id}/deploy`, {});
  await consoleCall('POST', `/job/${byName('nightly').id}/deploy`, { image_tag: '1.36' });
  await consoleCall('POST', `/terraform/${byName('infra').id}/deploy`, {});
  await consoleCall('POST', `/database/${byName('cache').id}/deploy`);
  await settle(environmentId);
  await consoleCall('POST', `/application/${byName('worker').id}/redeploy`);
  await settle(environmentId);
  await consoleCall('POST', `/container/${byName('side').id}/stop`);
  await settle(environmentId);
  await consoleCall('POST', `/database/${byName('cache').id}/backup`, { name: 'before-upgrade', message: 'by hand' });
  await consoleCall('GET', `/database/${byName('cache').id}/backup`);
  const repos = await consoleCall('GET', `/organization/${h.emu.organizationId}/helmRepository`);
  await consoleCall('GET', `/organization/${h.emu.organizationId}/helmRepository/${repos.results[0].id}`);

  // An update in Git of each kind: the chart's values, the terraform variables.
  writeFileSync(join(h.dir, 'kinds', 'main.yaml'), kinds('3', 'eu-central-1'));
  await cli('apply kinds: an update in Git', ['apply', 'kinds', '--auto-approve', ...FAST]);
  await cli('plan kinds after the update (clean)', ['plan', 'kinds', '--detailed-exitcode']);

  // The audit log as a reader sees it, page by page.
  let next: string | undefined = `/organization/${h.emu.organizationId}/events?pageSize=25`;
  for (let pages = 0; next && pages < 100; pages++) {
    const res = await fetch(proxy.url + next, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
    const body: any = await res.json();
    next = body.links?.next ? new URL(body.links.next).pathname + new URL(body.links.next).search : undefined;
  }
  await fetch(`${proxy.url}/organization/${h.emu.organizationId}/targets`, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
  // The deliveries of the example's webhook (the deployments above called it).
  for (const hook of Object.values(s.webhooks) as any[])
    await fetch(`${proxy.url}/organization/${h.emu.organizationId}/webhook/${hook.id}/event`, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
  // The URLs of the services (what `preview up` prints): per environment and per application.
  const web = Object.values(s.services).find((x: any) => x.service_type === 'APPLICATION' && x.environment.id === helloStaging.id)!;
  for (const path of [`/environment/${helloStaging.id}/link`, `/application/${web.id}/link`]) {
    await fetch(proxy.url + path, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } });
  }

  // The console takes its hotfix back (no scope prunes environment variables here).
  const hotfix = Object.values(s.variables).find((v: any) => v.key === 'HOTFIX')!;
  await consoleCall('DELETE', `/variable/${hotfix.id}`);
  await cli('export', ['export', '--out', 'exported', '--layout', 'directory']);
  await cli('drift (in sync)', ['drift', 'realistic', 'minimal', 'kinds'], 0);

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
      'POST /environment/{environmentId}/helm',
      'PUT /helm/{helmId}',
      'GET /helm/{helmId}/status',
      'POST /environment/{environmentId}/terraform',
      'PUT /terraform/{terraformId}',
      'POST /organization/{organizationId}/parseTerraformVariablesFromGitRepo',
      'POST /environment/{environmentId}/job',
      'GET /job/{jobId}/deploymentHistoryV2',
      'POST /application/{applicationId}/environmentVariable',
      'POST /container/{containerId}/secret',
      'POST /job/{jobId}/environmentVariable/{environmentVariableId}/alias',
      'POST /container/{containerId}/environmentVariable/{environmentVariableId}/override',
      'POST /database/{databaseId}/backup',
      'GET /organization/{organizationId}/helmRepository',
      'GET /organization/{organizationId}/webhook/{webhookId}/event',
    ]) expect([...report.covered], op).toContain(op);
  });

  it('lists no sanctioned difference the scenario never meets (each entry earns its place)', () => {
    const unused = REFERENCE_DIFFERENCES.filter((d) => !report.sanctioned.has(d.id)).map((d) => d.id);
    expect(unused).toEqual([]);
  });
});
