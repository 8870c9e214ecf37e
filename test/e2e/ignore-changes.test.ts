/**
 * End to end: `ignore_changes` against the emulator. A field is written when its object is created
 * and never compared or written afterwards: changed in the console (straight through the API) it is
 * neither drift nor a change in the plan; changed in the manifest it is not written; a change of
 * another field does not write it back; `all` ignores every field; plan says how many fields it
 * ignored; an unknown path is refused by validate and plan at its file:line:col.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, ONLY_USAGE_LINE, startHarness, type Harness } from './helpers.js';

let h: Harness;
const SECRET = 'first-secret-value-1234';
const SECRET_ENV = { API_KEY: SECRET };

function manifest(o: { tag?: string; cpu?: number; memory?: number; workerTag?: string; projectDescription?: string } = {}): string {
  return `version: 1
projects:
  - name: Shop
    description: ${o.projectDescription ?? 'the shop'}
    ignore_changes: [description]
    environments:
      - name: staging
        cluster: staging-cluster
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: acme/web
            tag: "${o.tag ?? '1.0'}"
            cpu: ${o.cpu ?? 500}
            memory: ${o.memory ?? 512}
            ignore_changes: [tag, cpu]
            variables:
              - key: API_KEY
                value: \${env:API_KEY}
                secret: true
                ignore_changes: [value]
          - type: container
            name: worker
            registry: docker-hub
            image_name: acme/worker
            tag: "${o.workerTag ?? '1.0'}"
            memory: 256
            ignore_changes: all
`;
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

async function environment(): Promise<any> {
  const project = ((await api('GET', `/organization/${h.emu.organizationId}/project`)).results as any[]).find((p) => p.name === 'Shop');
  return ((await api('GET', `/project/${project.id}/environment`)).results as any[])[0];
}

async function container(name: string): Promise<any> {
  const env = await environment();
  const svc = ((await api('GET', `/environment/${env.id}/services`)).results as any[]).find((s) => s.name === name);
  return api('GET', `/container/${svc.id}`);
}

/** A console edit: the record PUT back with some fields changed. */
async function editContainer(name: string, changes: Record<string, unknown>): Promise<void> {
  const { id, created_at: _c, updated_at: _u, ...rest } = await container(name);
  await api('PUT', `/container/${id}`, { ...rest, ...changes });
}

async function deployments(name: string): Promise<number> {
  const c = await container(name);
  return ((await api('GET', `/container/${c.id}/deploymentHistoryV2`)).results as any[]).length;
}

beforeAll(async () => {
  h = await startHarness({ deployDurationMs: 30 });
  h.write({ 'infra/main.yaml': manifest() });
  const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST], { env: SECRET_ENV });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 30_000);

afterAll(async () => {
  await h?.close();
});

describe('ignore_changes', () => {
  it('writes the ignored fields when the object is created', async () => {
    const web = await container('web');
    expect([web.tag, web.cpu, web.memory]).toEqual(['1.0', 500, 512]);
    const worker = await container('worker');
    expect([worker.tag, worker.memory]).toEqual(['1.0', 256]);
  });

  it('does not report an ignored field changed in the console: not drift, not in the plan, and says how many it ignored', async () => {
    await editContainer('web', { tag: '2.0', cpu: 1000 });
    await editContainer('worker', { tag: '9.9', memory: 1024 });
    const web = await container('web');
    const variable = ((await api('GET', `/variable?parent_id=${web.id}&scope=CONTAINER`)).results as any[]).find((v) => v.key === 'API_KEY');
    await api('PUT', `/variable/${variable.id}`, { key: 'API_KEY', value: 'set-in-the-console' });
    const project = ((await api('GET', `/organization/${h.emu.organizationId}/project`)).results as any[]).find((p) => p.name === 'Shop');
    await api('PUT', `/project/${project.id}`, { name: 'Shop', description: 'edited in the console' });

    const plan = await h.run(['plan', 'infra', '--json', '--detailed-exitcode'], { env: SECRET_ENV });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stderr).toMatch(ONLY_USAGE_LINE);
    const doc = JSON.parse(plan.stdout);
    expect(doc.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    const byAddress = new Map((doc.resource_changes as any[]).map((c) => [c.address, c]));
    const env = 'project.Shop/environment.staging';
    expect(byAddress.get(`${env}/container.web`).change.ignored_fields).toEqual(['tag', 'cpu']);
    expect(byAddress.get(`${env}/container.web/variable.API_KEY`).change.ignored_fields).toEqual(['value']);
    expect(byAddress.get('project.Shop').change.ignored_fields).toEqual(['description']);
    // `all`: every field but the name (registry, image_name, tag, memory).
    expect(byAddress.get(`${env}/container.worker`).change.ignored_fields).toEqual(['registry', 'image_name', 'tag', 'memory']);
    expect(doc.ignored_fields).toBe(2 + 1 + 1 + 4);
    expect(plan.stdout).not.toContain(SECRET);
    expect(plan.stdout).not.toContain('set-in-the-console');

    const human = await h.run(['plan', 'infra'], { env: SECRET_ENV });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.match(/Ignored 8 fields of 4 objects \(ignore_changes\)/g)).toHaveLength(1);
    const markdown = await h.run(['plan', 'infra', '--format', 'markdown'], { env: SECRET_ENV });
    expect(markdown.stdout.match(/Ignored 8 fields of 4 objects \(ignore_changes\)/g)).toHaveLength(1);

    const drift = await h.run(['drift', 'infra', '--format', 'json'], { env: SECRET_ENV });
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(JSON.parse(drift.stdout).items).toEqual([]);
  });

  it('never writes an ignored field afterwards, neither when the manifest changes it nor with an update of another field', async () => {
    const before = await deployments('web');
    h.write({ 'infra/main.yaml': manifest({ tag: '3.0', cpu: 2000, memory: 768, workerTag: '4.0', projectDescription: 'new text' }) });
    const plan = await h.run(['plan', 'infra', '--json'], { env: { API_KEY: 'a-new-secret-in-git-5678' } });
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout);
    const changed = (doc.resource_changes as any[]).filter((c) => c.change.actions[0] !== 'no-op');
    // Only memory of web is owned and changed; its deploy deploys what runs, not the ignored tag.
    expect(changed.map((c) => [c.address, c.change.changed_fields])).toEqual([['project.Shop/environment.staging/container.web', ['memory']]]);
    expect(changed[0].change.deploy.image_tag).toBeUndefined();

    const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST], { env: { API_KEY: 'a-new-secret-in-git-5678' } });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const web = await container('web');
    expect([web.tag, web.cpu, web.memory]).toEqual(['2.0', 1000, 768]);
    expect((await container('worker')).tag).toBe('9.9');
    expect(await deployments('web')).toBe(before + 1);

    const after = await h.run(['plan', 'infra', '--detailed-exitcode'], { env: { API_KEY: 'a-new-secret-in-git-5678' } });
    expect(after.code, after.stdout).toBe(0);
  }, 30_000);

  it('refuses an unknown path with a suggestion and the allowed paths, at file:line:col, in validate and plan', async () => {
    h.write({ 'bad/main.yaml': manifest().replace('ignore_changes: [tag, cpu]', 'ignore_changes: [tag, cpus]') });
    for (const argv of [['validate', 'bad'], ['plan', 'bad']]) {
      const r = await h.run(argv, { env: SECRET_ENV });
      expect(r.code).toBe(1);
      const out = r.stdout + r.stderr;
      expect(out).toContain('error[manifest.ignore-path]: container `web`: ignore_changes names `cpus`, which is not one of its fields; did you mean `cpu`?');
      expect(out).toMatch(/bad\/main\.yaml:17:35/);
      expect(out).toContain('Allowed here: description, icon_uri, annotation_groups, label_groups, cpu, memory,');
    }
  });
});

describe('ignore_changes on other kinds', () => {
  let k: Harness;
  const manifestOf = (o: { mode: string; enabled: boolean; team: string; stage: string }) => `version: 1
label_groups:
  - name: team
    labels: [{key: team, value: ${o.team}}]
    ignore_changes: all
webhooks:
  - target_url: https://ci.example.com/hook
    events: [DEPLOYMENT_FAILED]
    enabled: ${o.enabled}
    ignore_changes: [enabled]
projects:
  - name: Ops
    environments:
      - name: tools
        cluster: staging-cluster
        mode: ${o.mode}
        ignore_changes: [mode]
        deployment_stages:
          - name: first
            description: ${o.stage}
            ignore_changes: [description]
`;
  const call = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(k.emu.url + p, { method, headers: { authorization: `Token ${k.emu.tokens.ADMIN}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const t = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${t}`);
    return t ? JSON.parse(t) : undefined;
  };

  afterAll(async () => {
    await k?.close();
  });

  it('a label group, a webhook, an environment and a stage: console edits of ignored fields are neither drift nor plan changes', async () => {
    k = await startHarness({ deployDurationMs: 30 });
    k.write({ 'o/main.yaml': manifestOf({ mode: 'STAGING', enabled: true, team: 'ops', stage: 'first stage' }) });
    const applied = await k.run(['apply', 'o', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const org = k.emu.organizationId;

    const group = ((await call('GET', `/organization/${org}/labelsGroups`)).results as any[])[0];
    expect(group.labels).toEqual([{ key: 'team', value: 'ops', propagate_to_cloud_provider: false }]);
    await call('PUT', `/organization/${org}/labelsGroups/${group.id}`, { name: 'team', labels: [{ key: 'team', value: 'platform', propagate_to_cloud_provider: true }] });
    const hook = ((await call('GET', `/organization/${org}/webhook`)).results as any[])[0];
    expect(hook.enabled).toBe(true);
    await call('PUT', `/organization/${org}/webhook/${hook.id}`, { kind: hook.kind, target_url: hook.target_url, events: hook.events, enabled: false });
    const project = ((await call('GET', `/organization/${org}/project`)).results as any[])[0];
    const env = ((await call('GET', `/project/${project.id}/environment`)).results as any[])[0];
    expect(env.mode).toBe('STAGING');
    await call('PUT', `/environment/${env.id}`, { name: env.name, mode: 'DEVELOPMENT' });
    const stage = ((await call('GET', `/environment/${env.id}/deploymentStage`)).results as any[]).find((s) => s.name === 'first');
    expect(stage.description).toBe('first stage');
    await call('PUT', `/deploymentStage/${stage.id}`, { name: 'first', description: 'renamed in the console' });

    // The manifest moves too: still nothing is compared or written.
    k.write({ 'o/main.yaml': manifestOf({ mode: 'PRODUCTION', enabled: true, team: 'ops-2', stage: 'other text' }) });
    const plan = await k.run(['plan', 'o', '--json', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout);
    expect(doc.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    expect((doc.resource_changes as any[]).filter((c) => c.change.ignored_fields).map((c) => [c.address, c.change.ignored_fields])).toEqual([
      ['labels_group.team', ['labels']],
      ['webhook.https:%2F%2Fci.example.com%2Fhook', ['enabled']],
      ['project.Ops/environment.tools', ['mode']],
      ['project.Ops/environment.tools/deployment_stage.first', ['description']],
    ]);
    const drift = await k.run(['drift', 'o', '--format', 'json']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect((await call('GET', `/organization/${org}/webhook`)).results[0].enabled).toBe(false);
  }, 30_000);
});

