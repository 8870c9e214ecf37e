/**
 * The schema and src/manifest/types.ts describe the same shape: a manifest literal that uses every
 * field is type-checked against `Manifest` (an unknown field is a compile error) and validated
 * against the schema (an unknown field is a validation error), and every property the schema
 * declares appears in it.
 */
import { describe, expect, it } from 'vitest';
import { manifestSchema, validateManifestSchema } from '../../src/manifest/index.js';
import type { Manifest } from '../../src/manifest/types.js';

const git = { url: 'https://github.com/acme/x.git', branch: 'main', root_path: '/', provider: 'GITHUB' as const };
const everyVariableField = [
  { key: 'A', ignore_changes: ['value'], value: 'v', override: false, secret: true, mount_path: '/etc/a', description: 'd', enable_interpolation_in_file: true },
  { key: 'B', alias: 'A' },
  { key: 'D', alias: { service: 'app', builtin: 'HOST_INTERNAL' } },
  { key: 'C', external_secret: { secret_manager_access_id: '5b0f5c8e-2d0a-4b7e-9a3c-1f2e3d4c5b6a', reference: 'r' } },
];
const prune = { projects: true, annotation_groups: true, label_groups: true, alert_receivers: true, alert_rules: true, webhooks: true, environments: true, services: true, deployment_stages: true, variables: true };
const common = { description: 'd', ignore_changes: ['description'], annotation_groups: ['g'], label_groups: ['l'], icon_uri: 'app://x', deploy: false, protect: true, variables: everyVariableField, prune: { variables: true } };
const compute = { cpu: 500, memory: 512, min_running_instances: 1, max_running_instances: 2, ports: [{ name: 'http', internal_port: 80, external_port: 443, protocol: 'HTTP' as const, publicly_accessible: true }], arguments: ['a'], entrypoint: '/e', auto_deploy: true };

const timings = { initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 };
const appProbes = { healthchecks: { readiness_probe: { type: { http: { port: 80, path: '/ready', scheme: 'HTTP' } }, ...timings }, liveness_probe: { type: { tcp: { port: 80, host: 'localhost' } } } }, storage: [{ type: 'FAST_SSD' as const, size: 10, mount_point: '/data' }] };
const ctrProbes = { healthchecks: { readiness_probe: { type: { exec: { command: ['true'] } } }, liveness_probe: { type: { grpc: { port: 9000, service: 'health' } } } }, storage: [{ size: 4, mount_point: '/cache' }] };

const kitchenSink: Manifest = {
  version: 1,
  organization: { name: 'acme', ignore_changes: 'all', description: 'd', website_url: 'https://acme.example', repository: 'https://github.com/acme', logo_url: 'https://acme.example/l.png', icon_url: 'https://acme.example/i.png', admin_emails: ['ops@acme.example'] },
  clusters: [{ name: 'c', upgrade_kubernetes: true }],
  annotation_groups: [{ name: 'g', annotations: { a: 'b' }, scopes: ['PODS'] }],
  label_groups: [{ name: 'l', labels: [{ key: 'k', value: 'v', propagate_to_cloud_provider: true }] }],
  alert_receivers: [
    { name: 's', type: 'SLACK', description: 'd', send_resolved: true, owner: 'o', severity: 'HIGH', webhook_url: 'https://hooks.slack.com/x' },
    { name: 'e', type: 'EMAIL', to: 'a@b.c', from: 'b@b.c', smarthost: 'smtp:587', auth_username: 'u', auth_password: 'p', require_tls: true },
  ],
  alert_rules: [
    { name: 'r1', description: 'd', tag: 't', target: { cluster: 'c' }, condition: { kind: 'CUSTOM', promql: 'up', operator: 'ABOVE', threshold: 1, function: 'AVG' }, for_duration: 'PT5M', severity: 'LOW', enabled: true, receivers: ['s'], presentation: { summary: 's', runbook_url: 'https://r.example' } },
    { name: 'r2', target: { project: 'p', environment: 'e', service: 'app' }, condition: { promql: 'up' }, severity: 'HIGH', receivers: ['e'] },
  ],
  webhooks: [{ target_url: 'https://h.example/x', description: 'd', kind: 'STANDARD', events: ['DEPLOYMENT_STARTED'], enabled: true, secret: 's', project_names_filter: ['p'], environment_types_filter: ['PRODUCTION'] }],
  prune,
  scope: 'organization',
  moved: [{ from: 'project.old', to: 'project.p' }],
  projects: [
    {
      name: 'p',
      ignore_changes: ['description'],
      description: 'd',
      protect: false,
      variables: everyVariableField,
      prune,
      templates: [{ name: 't', description: 'd', variables: [{ key: 'A', value: 'v' }], deployment_stages: [{ name: 's', services: ['app'] }], services: [{ type: 'container', name: 'app', registry: 'docker-hub', image_name: 'nginx', tag: '1' }] }],
      previews: { template: 't', name: 'pr-{number}', cluster: 'c', ttl: '72h', allow_data_loss: true, overrides: { services: { app: { tag: '3' } } } },
      environments: [
        { name: 'from-template', cluster: 'c', template: 't', exclude_services: ['x'], overrides: { services: { app: { tag: '2', cpu: 1000, ports: [{ name: 'http', publicly_accessible: true }] } }, variables: [{ key: 'A', value: 'w' }] } },
        {
          name: 'e',
          mode: 'PRODUCTION',
          cluster: 'c',
          protect: true,
          variables: everyVariableField,
          prune,
          deployment_stages: [{ name: 's', description: 'd', services: ['app'] }],
          services: [
            { type: 'application', name: 'app', ...common, ...compute, ...appProbes, git_repository: git, build_mode: 'DOCKER', dockerfile_path: 'Dockerfile', git_commit_id: 'abcdef1' },
            { type: 'container', name: 'ctr', ...common, ...compute, ...ctrProbes, registry: 'docker-hub', image_name: 'nginx', tag: '1' },
            { type: 'database', name: 'db', description: 'd', annotation_groups: ['g'], label_groups: ['l'], icon_uri: 'x', deploy: true, protect: true, database_type: 'POSTGRESQL', version: '16', mode: 'MANAGED', accessibility: 'PRIVATE', cpu: 250, memory: 256, storage: 10, instance_type: 't3.medium', disk_type: 'gp3', clone_from: { project: 'p', environment: 'e', database: 'db2' } },
            { type: 'job', name: 'cron', ...common, cpu: 1, memory: 1, max_nb_restart: 0, max_duration_seconds: 60, source: { image: { registry: 'docker-hub', image_name: 'i', tag: '1' } }, schedule: { cron: { scheduled_at: '0 3 * * *', timezone: 'Etc/UTC', arguments: ['a'], entrypoint: 'e' } }, git_commit_id: 'abcdef1' },
            { type: 'job', name: 'life', source: { git_repository: git, dockerfile_path: 'Dockerfile' }, schedule: { on_start: { arguments: ['a'], entrypoint: 'e' }, on_stop: {}, on_delete: {} } },
            { type: 'helm', name: 'h1', ...common, source: { helm_repository: { repository: 'bitnami', chart_name: 'redis', chart_version: '1.0.0' } }, values_override: { file: 'a: 1\n', set: { a: '1' }, set_string: { b: '2' } }, arguments: ['--wait'], timeout_sec: 600, allow_cluster_wide_resources: false, auto_deploy: true, git_commit_id: 'abcdef1' },
            { type: 'helm', name: 'h2', source: { git_repository: git, chart_path: 'chart' } },
            { type: 'terraform', name: 'tf', ...common, git_repository: git, engine: 'OPEN_TOFU', provider_version: '1.8.0', tf_var_file_paths: ['a.tfvars'], tf_vars: { region: 'x', pw: 'y' }, sensitive_tf_vars: ['pw'], timeout_sec: 1800, job_resources: { cpu_milli: 1000, ram_mib: 1024, storage_gib: 20 }, auto_deploy: false, terraform_action: 'PLAN', git_commit_id: 'abcdef1' },
          ],
        },
      ],
    },
  ],
};

function keysDeep(v: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => keysDeep(x, into));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) {
    into.add(k);
    keysDeep(x, into);
  }
  return into;
}

function schemaPropertyNames(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((x) => schemaPropertyNames(x, into));
  else if (node && typeof node === 'object') {
    const n = node as Record<string, unknown>;
    if (n.properties && typeof n.properties === 'object') for (const k of Object.keys(n.properties)) into.add(k);
    for (const [k, x] of Object.entries(n)) if (k !== 'enum' && k !== 'const' && k !== 'default') schemaPropertyNames(x, into);
  }
  return into;
}

describe('types.ts and the schema agree', () => {
  it('a manifest using every typed field is schema-valid', () => {
    expect(validateManifestSchema(JSON.parse(JSON.stringify(kitchenSink)), 'sink.yaml')).toEqual([]);
  });

  it('every property of the schema is a field of the types', () => {
    const used = keysDeep(kitchenSink);
    const missing = [...schemaPropertyNames(manifestSchema())].filter((k) => !used.has(k));
    expect(missing).toEqual([]);
  });
});
