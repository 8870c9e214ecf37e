/**
 * The desired attrs of the organization-level objects, projects, environments and deployment
 * stages, the prune kinds of each level, and the messages of unresolved references, against the
 * shapes documented in src/graph/attrs.ts. Expected values are written out from the manifest.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { buildGraph, pruneKinds } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import { isSecretValue } from '../../src/model/secret.js';

function revealed(v: unknown): unknown {
  if (isSecretValue(v)) return `secret(${v.reveal()})`;
  if (Array.isArray(v)) return v.map(revealed);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revealed(x)]));
  return v;
}

const build = (m: Record<string, unknown>) => buildGraph({ version: 1, ...m } as unknown as Manifest);
const SERVICES = ['application', 'container', 'database', 'job', 'helm', 'terraform'];

describe('organization-level objects', () => {
  // Built in each test (not once at collection): mutation testing attributes it to the test.
  let graph: ReturnType<typeof build>['graph'];
  let diagnostics: ReturnType<typeof build>['diagnostics'];
  beforeEach(() => ({ graph, diagnostics } = build(MANIFEST)));
  const MANIFEST = {
    organization: { name: 'Acme', description: '', website_url: 'https://acme.example', repository: 'https://github.com/acme', logo_url: 'https://acme.example/l.png', icon_url: 'https://acme.example/i.png', admin_emails: ['z@acme.example', 'a@acme.example'] },
    clusters: [{ name: 'production-cluster', upgrade_kubernetes: true }, { name: 'staging-cluster' }],
    annotation_groups: [{ name: 'obs', annotations: { 'z.io/b': 2, 'a.io/a': 'x' }, scopes: ['PODS', 'DEPLOYMENTS'] }],
    label_groups: [{ name: 'cost', labels: [{ key: 'tier', value: 3 }, { key: 'team', value: 'shop', propagate_to_cloud_provider: true }] }],
    alert_receivers: [
      { name: 'ops', type: 'SLACK', description: 'team', send_resolved: false, owner: 'sre', severity: 'HIGH', webhook_url: 'https://hooks.slack.com/x' },
      { name: 'mail', type: 'EMAIL', to: 't@x.io', from: 'f@x.io', smarthost: 'smtp.x.io:587', auth_username: 'u', auth_password: 'pw', require_tls: false },
    ],
    webhooks: [{ target_url: 'https://ci.example/hook', kind: 'SLACK', description: 'ci', events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_FAILED'], enabled: false, secret: 'hook-key', project_names_filter: ['web-*', 'api-*'], environment_types_filter: ['STAGING', 'PRODUCTION'] }],
    alert_rules: [
      { name: 'cpu', description: 'CPU', tag: 'infra', target: { cluster: 'production-cluster' }, condition: { kind: 'CUSTOM', promql: 'avg(cpu) > 0.9', threshold: 0.9 }, for_duration: 'PT10M', severity: 'HIGH', enabled: false, receivers: ['ops', 'mail'], presentation: { summary: 'CPU high' } },
      { name: 'api-down', target: { project: 'shop', environment: 'prod', service: 'api' }, condition: { promql: 'up == 0' }, severity: 'CRITICAL', receivers: ['ops'] },
    ],
    projects: [
      {
        name: 'shop',
        description: 'the shop',
        environments: [
          {
            name: 'prod', mode: 'PRODUCTION', cluster: 'production-cluster',
            services: [
              { type: 'container', name: 'api', registry: 'docker-hub', image_name: 'a', tag: '1' },
              { type: 'container', name: 'web', registry: 'docker-hub', image_name: 'w', tag: '1' },
            ],
            deployment_stages: [{ name: 'first', description: 'db first', services: ['web', 'api'] }, { name: 'second', services: [] }],
          },
          { name: 'dev', cluster: 'elsewhere' },
        ],
      },
    ],
  };
  const get = (a: string) => {
    const r = graph.resources.get(a);
    expect(r, a).toBeDefined();
    return r!;
  };

  it('builds without errors', () => {
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('organization: every field, admin emails sorted, empty description null', () => {
    expect(get('organization')).toMatchObject({ kind: 'organization', name: 'Acme' });
    expect(get('organization').attrs).toEqual({ name: 'Acme', description: null, website_url: 'https://acme.example', repository: 'https://github.com/acme', logo_url: 'https://acme.example/l.png', icon_url: 'https://acme.example/i.png', admin_emails: ['a@acme.example', 'z@acme.example'] });
  });

  it('clusters and groups: annotations and labels sorted by key, values as text', () => {
    expect(get('cluster.production-cluster').attrs).toEqual({ upgrade_kubernetes: true });
    expect(get('cluster.staging-cluster').attrs).toEqual({});
    expect(get('annotations_group.obs').attrs).toEqual({ name: 'obs', annotations: [{ key: 'a.io/a', value: 'x' }, { key: 'z.io/b', value: '2' }], scopes: ['DEPLOYMENTS', 'PODS'] });
    expect(get('labels_group.cost').attrs).toEqual({ name: 'cost', labels: [{ key: 'team', value: 'shop', propagate_to_cloud_provider: true }, { key: 'tier', value: '3', propagate_to_cloud_provider: false }] });
  });

  it('alert receivers: settings, and the secret fields wrapped and listed as sensitive', () => {
    const ops = get('alert_receiver.ops');
    expect(revealed(ops.attrs)).toEqual({ name: 'ops', type: 'SLACK', description: 'team', send_resolved: false, owner: 'sre', severity: 'HIGH', webhook_url: 'secret(https://hooks.slack.com/x)' });
    expect(ops.sensitiveFields).toEqual(['webhook_url']);
    const mail = get('alert_receiver.mail');
    expect(revealed(mail.attrs)).toEqual({ name: 'mail', type: 'EMAIL', to: 't@x.io', from: 'f@x.io', smarthost: 'smtp.x.io:587', auth_username: 'u', auth_password: 'secret(pw)', require_tls: false });
    expect(mail.sensitiveFields).toEqual(['auth_password']);
  });

  it('webhooks: addressed by URL, events and filters sorted, secret wrapped', () => {
    const w = get('webhook.https:%2F%2Fci.example%2Fhook');
    expect(w.name).toBe('https://ci.example/hook');
    expect(revealed(w.attrs)).toEqual({ target_url: 'https://ci.example/hook', kind: 'SLACK', description: 'ci', events: ['DEPLOYMENT_FAILED', 'DEPLOYMENT_STARTED'], enabled: false, target_secret: 'secret(hook-key)', project_names_filter: ['api-*', 'web-*'], environment_types_filter: ['PRODUCTION', 'STAGING'] });
    expect(w.sensitiveFields).toEqual(['target_secret']);
  });

  it('alert rules: settings, receivers sorted, target, and dependencies on what they name', () => {
    const cpu = get('alert_rule.cpu');
    expect(cpu.attrs).toEqual({ name: 'cpu', description: 'CPU', tag: 'infra', condition: { kind: 'CUSTOM', promql: 'avg(cpu) > 0.9', threshold: 0.9 }, for_duration: 'PT10M', severity: 'HIGH', enabled: false, alert_receivers: ['mail', 'ops'], presentation: { summary: 'CPU high' }, target: { cluster: 'production-cluster' } });
    expect([...cpu.dependsOn].sort()).toEqual(['alert_receiver.mail', 'alert_receiver.ops', 'cluster.production-cluster']);
    const down = get('alert_rule.api-down');
    expect(down.attrs).toEqual({ name: 'api-down', condition: { promql: 'up == 0' }, severity: 'CRITICAL', alert_receivers: ['ops'], target: { project: 'shop', environment: 'prod', service: 'api' } });
    expect([...down.dependsOn].sort()).toEqual(['alert_receiver.ops', 'project.shop/environment.prod/container.api']);
  });

  it('projects, environments and stages: attrs, cluster dependency only when declared, stage order', () => {
    expect(get('project.shop').attrs).toEqual({ name: 'shop', description: 'the shop' });
    const prod = get('project.shop/environment.prod');
    expect(prod.attrs).toEqual({ name: 'prod', mode: 'PRODUCTION', cluster: 'production-cluster' });
    expect(prod.dependsOn).toEqual(['cluster.production-cluster']);
    const dev = get('project.shop/environment.dev');
    expect(dev.attrs).toEqual({ name: 'dev', cluster: 'elsewhere' });
    expect(dev.dependsOn).toEqual([]);
    const first = get('project.shop/environment.prod/deployment_stage.first');
    expect(first.attrs).toEqual({ name: 'first', description: 'db first', services: ['api', 'web'] });
    expect(first.dependsOn).toEqual(['project.shop/environment.prod/container.api', 'project.shop/environment.prod/container.web']);
    const second = get('project.shop/environment.prod/deployment_stage.second');
    expect(second.attrs).toEqual({ name: 'second', services: [], after: 'first' });
    expect(second.dependsOn).toEqual(['project.shop/environment.prod/deployment_stage.first']);
    expect(graph.prune).toBeUndefined();
    expect(graph.scope).toBeUndefined();
  });
});

describe('prune kinds', () => {
  it('each level prunes only its own kinds; true is every one of them; false or nothing none', () => {
    expect(pruneKinds(undefined, 'project')).toEqual([]);
    expect(pruneKinds(false, 'environment')).toEqual([]);
    expect(pruneKinds(true, 'organization')).toEqual(['project', 'annotations_group', 'labels_group', 'alert_receiver', 'alert_rule', 'webhook']);
    expect(pruneKinds(true, 'project')).toEqual(['environment', 'variable']);
    expect(pruneKinds(true, 'environment')).toEqual([...SERVICES, 'deployment_stage', 'variable']);
    expect(pruneKinds(true, 'service')).toEqual(['variable']);
    expect(pruneKinds({ annotation_groups: true }, 'organization')).toEqual(['annotations_group']);
    expect(pruneKinds({ label_groups: true }, 'organization')).toEqual(['labels_group']);
    expect(pruneKinds({ alert_receivers: true }, 'organization')).toEqual(['alert_receiver']);
    expect(pruneKinds({ alert_rules: true }, 'organization')).toEqual(['alert_rule']);
    expect(pruneKinds({ webhooks: true, variables: true, environments: true }, 'organization')).toEqual(['webhook']);
    expect(pruneKinds({ environments: true, services: true }, 'project')).toEqual(['environment']);
    expect(pruneKinds({ services: true, environments: true }, 'environment')).toEqual(SERVICES);
    expect(pruneKinds({ deployment_stages: true, variables: false }, 'environment')).toEqual(['deployment_stage']);
    expect(pruneKinds({ variables: true, services: true }, 'service')).toEqual(['variable']);
  });

  it('a top-level prune and scope are kept on the graph', () => {
    const { graph } = build({ prune: { webhooks: true }, scope: 'organization', projects: [] });
    expect(graph.prune).toEqual(['webhook']);
    expect(graph.scope).toBe('organization');
  });
});

describe('unresolved references say what is declared', () => {
  it('an unknown receiver lists the declared receivers, or (none)', () => {
    const rule = { name: 'r', target: { cluster: 'c' }, condition: { promql: 'x' }, severity: 'LOW', receivers: ['opps'] };
    const withOne = build({ alert_receivers: [{ name: 'ops', type: 'SLACK', webhook_url: 'https://h.example/x' }], alert_rules: [rule] }).diagnostics;
    expect(withOne.map((d) => [d.code, d.summary, d.detail, d.address])).toEqual([['ref.unresolved', 'alert rule r: unknown alert receiver "opps"', 'Declare it under alert_receivers. Declared: ops.', 'alert_rule.r']]);
    expect(build({ alert_rules: [rule] }).diagnostics.map((d) => d.detail)).toEqual(['Declare it under alert_receivers. Declared: (none).']);
  });

  it('a stage naming an unknown service lists the services of the environment, or (none)', () => {
    const env = (services: unknown[]) => ({ projects: [{ name: 'p', environments: [{ name: 'e', cluster: 'c', services, deployment_stages: [{ name: 's', services: ['ghost'] }] }] }] });
    const withTwo = build(env([{ type: 'container', name: 'web', registry: 'r', image_name: 'i', tag: '1' }, { type: 'container', name: 'api', registry: 'r', image_name: 'i', tag: '1' }])).diagnostics;
    expect(withTwo.map((d) => [d.code, d.summary, d.detail, d.address])).toEqual([['ref.unresolved', 'deployment stage s: unknown service "ghost"', 'Services of this environment: api, web.', 'project.p/environment.e/deployment_stage.s']]);
    expect(build(env([])).diagnostics.map((d) => d.detail)).toEqual(['Services of this environment: (none).']);
  });

  it('an object declared twice names the first place; a secret description too long says why', () => {
    const dup = build({ projects: [{ name: 'p' }, { name: 'p' }] }).diagnostics;
    expect(dup.map((d) => [d.code, d.summary.startsWith('project.p is declared twice'), d.detail])).toEqual([['graph.duplicate', true, 'Each object may be declared once. Remove or rename one of the declarations.']]);
    const long = build({ webhooks: [{ target_url: 'https://x.example/h', events: ['DEPLOYMENT_STARTED'], secret: 's', description: 'd'.repeat(255) }] }).diagnostics;
    expect(long.map((d) => d.code)).toEqual(['graph.description-too-long']);
    expect(long[0]!.summary).toMatch(/^description is 255 characters; at most \d+/);
    expect(long[0]!.detail).toContain('driftless appends a');
    const plainLong = build({ webhooks: [{ target_url: 'https://x.example/h', events: ['DEPLOYMENT_STARTED'], description: 'd'.repeat(256) }] }).diagnostics;
    expect(plainLong.map((d) => d.detail)).toEqual(['The API limits descriptions to 255 characters.']);
    expect(build({ webhooks: [{ target_url: 'https://x.example/h', events: ['DEPLOYMENT_STARTED'], description: 'd'.repeat(255) }] }).diagnostics).toEqual([]);
  });
});

describe('immutable fields and limits', () => {
  it('the fields that force a replace are recorded on the kinds that have them, and only there', () => {
    const { graph } = build({
      alert_rules: [{ name: 'r', target: { cluster: 'c' }, condition: { promql: 'x' }, severity: 'LOW', receivers: [] }],
      projects: [{ name: 'p', variables: [{ key: 'K', value: 'v' }], environments: [{ name: 'e', cluster: 'c', services: [{ type: 'database', name: 'db', database_type: 'REDIS', version: '7', mode: 'CONTAINER' }, { type: 'container', name: 'w', registry: 'r', image_name: 'i', tag: '1' }] }] }],
    });
    const f = (a: string) => graph.resources.get(a)!.immutableFields;
    expect(f('project.p/environment.e')).toEqual(['cluster']);
    expect(f('project.p/environment.e/database.db')).toEqual(['type', 'mode']);
    expect(f('alert_rule.r')).toEqual(['target']);
    expect(f('project.p/variable.K')).toEqual(['is_secret', 'variable_type', 'mount_path', 'aliased_key', 'aliased_scope', 'aliased_service', 'aliased_builtin', 'overridden_scope']);
    expect(f('project.p')).toBeUndefined();
    expect(f('project.p/environment.e/container.w')).toBeUndefined();
  });

  it('a description next to a secret may fill exactly what the fingerprint marker leaves, not one character more', () => {
    const receiver = (description: string) => build({ alert_receivers: [{ name: 'ops', type: 'SLACK', webhook_url: 'https://h.example/x', description }] }).diagnostics;
    const tooLong = receiver('d'.repeat(255));
    const room = Number(/at most (\d+) are allowed/.exec(tooLong[0]!.summary)?.[1]);
    // The marker takes room: the limit is below the API's 255, and the message says so.
    expect(room).toBeLessThan(255);
    expect(room).toBeGreaterThan(100);
    expect(tooLong[0]!.detail).toBe(`The API limits descriptions to 255 characters, and driftless appends a ${255 - room}-character fingerprint marker to records holding secrets.`);
    expect(receiver('d'.repeat(room))).toEqual([]);
    expect(receiver('d'.repeat(room + 1)).map((d) => [d.code, d.summary, d.address])).toEqual([['graph.description-too-long', `description is ${room + 1} characters; at most ${room} are allowed here`, 'alert_receiver.ops']]);
  });

  it('a cycle is one error naming the chain, at its first resource', () => {
    const db = (name: string, clone: string) => ({ type: 'database', name, database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', clone_from: { database: clone } });
    const { diagnostics } = build({ projects: [{ name: 'p', environments: [{ name: 'e', cluster: 'c', services: [db('a', 'b'), db('b', 'a')] }] }] });
    const E = 'project.p/environment.e';
    expect(diagnostics.map((d) => [d.code, d.summary, d.address])).toEqual([['graph.cycle', `Dependency cycle: ${E}/database.a -> ${E}/database.b -> ${E}/database.a`, `${E}/database.a`]]);
    expect(diagnostics[0]!.detail).toMatch(/^Each resource in the cycle needs the next one to exist first\./);
  });
});
