/**
 * Shared fixtures: a manifest declaring every kind of resource, and the API records the service
 * would return for the same objects once applied (written in the API's own shapes: ids, embedded
 * groups, fingerprint markers in descriptions), turned into a LiveState by the real normaliser.
 */
import type { Manifest } from '../../src/manifest/types.js';
import type { Address, LiveResource, LiveState, ResourceKind } from '../../src/model/resource.js';
import { addressOf } from '../../src/model/resource.js';
import { SecretValue } from '../../src/model/secret.js';
import { buildLiveLookup, normalizeLive } from '../../src/live/normalize.js';
import type { ApiRecord } from '../../src/live/record-helpers.js';
import { fingerprint, withFingerprintMarker } from '../../src/plan/fingerprint.js';

export const KEY = 'test-fingerprint-key';
export const SECRET_API_KEY = 'sk_live_DO_NOT_PRINT_1';
export const SECRET_SLACK = 'https://hooks.slack.com/services/T0/B0/DO_NOT_PRINT_2';
export const SECRET_WEBHOOK = 'whsec_DO_NOT_PRINT_3';
export const SECRET_TF = 'tf-pass-DO_NOT_PRINT_4';
export const ALL_SECRETS = [SECRET_API_KEY, SECRET_SLACK, SECRET_WEBHOOK, SECRET_TF];

export function fullManifest(): Manifest {
  return {
    version: 1,
    organization: { description: 'The shop organization' },
    clusters: [{ name: 'production-cluster' }],
    annotation_groups: [{ name: 'monitoring', annotations: { 'prometheus.io/scrape': 'true', 'a.b/c': 'x' }, scopes: ['PODS', 'DEPLOYMENTS'] }],
    label_groups: [{ name: 'team', labels: [{ key: 'team', value: 'shop' }, { key: 'cost', value: 'web', propagate_to_cloud_provider: true }] }],
    alert_receivers: [
      { name: 'slack-ops', type: 'SLACK', description: 'Ops channel', send_resolved: true, webhook_url: new SecretValue(SECRET_SLACK) },
    ],
    alert_rules: [
      {
        name: 'high-cpu',
        description: 'CPU above 90%',
        target: { project: 'shop', environment: 'production', service: 'api' },
        condition: { kind: 'CUSTOM', promql: 'rate(cpu[5m]) > 0.9', operator: 'ABOVE', threshold: 0.9, function: 'AVG' },
        for_duration: 'PT5M',
        severity: 'HIGH',
        enabled: true,
        receivers: ['slack-ops'],
        presentation: { summary: 'CPU is high' },
      },
    ],
    webhooks: [
      {
        target_url: 'https://hooks.example.com/deploy',
        kind: 'STANDARD',
        events: ['DEPLOYMENT_SUCCESSFUL', 'DEPLOYMENT_STARTED'],
        enabled: true,
        secret: new SecretValue(SECRET_WEBHOOK),
      },
    ],
    projects: [
      {
        name: 'shop',
        description: 'Online shop',
        variables: [
          { key: 'LOG_LEVEL', value: 'info' },
          { key: 'API_KEY', value: new SecretValue(SECRET_API_KEY), secret: true, description: 'Payment API key' },
        ],
        environments: [
          {
            name: 'production',
            mode: 'PRODUCTION',
            cluster: 'production-cluster',
            variables: [
              { key: 'LOG_LEVEL', value: 'warn', override: true },
              { key: 'LOGGING', alias: 'LOG_LEVEL' },
              { key: 'CONFIG_FILE', value: 'a: 1\nb: 2\n', mount_path: '/etc/app/config.yaml' },
            ],
            deployment_stages: [
              { name: 'data', services: ['db'] },
              { name: 'apps', description: 'Applications', services: ['web', 'api'] },
            ],
            services: [
              {
                type: 'application',
                name: 'api',
                git_repository: { url: 'https://github.com/acme/api.git', branch: 'main', provider: 'GITHUB' },
                build_mode: 'DOCKER',
                dockerfile_path: 'Dockerfile',
                cpu: 500,
                memory: 512,
                min_running_instances: 1,
                max_running_instances: 3,
                ports: [{ internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true }],
                annotation_groups: ['monitoring'],
                label_groups: ['team'],
                git_commit_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
                variables: [{ key: 'PORT', value: '8080' }],
              },
              { type: 'container', name: 'web', registry: 'docker-hub', image_name: 'nginx', tag: '1.27', cpu: 250, memory: 256 },
              { type: 'database', name: 'db', database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', storage: 10 },
              {
                type: 'job',
                name: 'nightly',
                source: { image: { registry: 'docker-hub', image_name: 'acme/report', tag: '2.0' } },
                schedule: { cron: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['--full'] } },
                max_nb_restart: 1,
              },
              {
                type: 'helm',
                name: 'chart',
                source: { helm_repository: { repository: 'bitnami', chart_name: 'redis', chart_version: '19.0.0' } },
                values_override: { file: 'replicas: 2\nimage:\n  tag: "7"\n', set: { 'auth.enabled': 'false' } },
                arguments: ['--wait'],
                auto_deploy: false,
              },
              {
                type: 'terraform',
                name: 'infra',
                description: 'Buckets',
                git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main', provider: 'GITHUB' },
                engine: 'TERRAFORM',
                provider_version: '1.9.0',
                tf_vars: { region: 'eu-west-3', db_password: new SecretValue(SECRET_TF) },
                sensitive_tf_vars: ['db_password'],
              },
            ],
          },
        ],
      },
    ],
  };
}

const T = '2026-11-01T10:00:00Z';
export function id(name: string): string {
  return `id-${name}`;
}

function fp(v: string): string {
  return fingerprint(v, KEY);
}

/** What the API would return for the objects of fullManifest(), once applied by driftless. */
export function apiRecords() {
  const organization: ApiRecord = { id: 'org-1', name: 'Acme', description: 'The shop organization', plan: 'TEAM_2025', created_at: T, updated_at: T };
  const clusters: ApiRecord[] = [
    { id: id('production-cluster'), name: 'production-cluster', region: 'eu-west-3', cloud_provider: 'AWS', version: '1.30', created_at: T },
    { id: id('staging-cluster'), name: 'staging-cluster', region: 'europe-west1', cloud_provider: 'GCP', version: '1.30', created_at: T },
  ];
  const clusterStatuses: ApiRecord[] = [{ cluster_id: id('production-cluster'), status: 'DEPLOYED', next_k8s_available_version: null }];
  const registries: ApiRecord[] = [{ id: id('docker-hub'), name: 'docker-hub', kind: 'DOCKER_HUB', url: 'https://docker.io', created_at: T }];
  const helmRepositories: ApiRecord[] = [
    { id: id('bitnami'), name: 'bitnami', kind: 'HTTPS', url: 'https://charts.bitnami.com/bitnami', skip_tls_verification: false, config: {}, associated_services_count: 1, created_at: T },
  ];
  const annotationsGroups: ApiRecord[] = [
    { id: id('group-monitoring'), name: 'monitoring', annotations: [{ key: 'prometheus.io/scrape', value: 'true' }, { key: 'a.b/c', value: 'x' }], scopes: ['DEPLOYMENTS', 'PODS'], created_at: T, updated_at: T },
  ];
  const labelsGroups: ApiRecord[] = [
    { id: id('group-team'), name: 'team', labels: [{ key: 'cost', value: 'web', propagate_to_cloud_provider: true }, { key: 'team', value: 'shop', propagate_to_cloud_provider: false }], created_at: T, updated_at: T },
  ];
  const alertReceivers: ApiRecord[] = [
    { id: id('slack-ops'), name: 'slack-ops', type: 'SLACK', description: withFingerprintMarker('Ops channel', { webhook_url: fp(SECRET_SLACK) }), send_resolved: true, owner: null, severity: null, created_at: T, updated_at: T },
  ];
  const services: ApiRecord[] = [
    {
      id: id('api'),
      service_type: 'APPLICATION',
      name: 'api',
      description: '',
      environment: { id: id('production') },
      git_repository: { url: 'https://github.com/acme/api.git', branch: 'main', root_path: '/', provider: 'GITHUB', owner: 'acme', name: 'api', deployed_commit_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
      build_mode: 'DOCKER',
      dockerfile_path: 'Dockerfile',
      cpu: 500,
      memory: 512,
      gpu: 0,
      min_running_instances: 1,
      max_running_instances: 3,
      ports: [{ id: id('port-1'), name: 'p8080', internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true, is_default: true }],
      healthchecks: {},
      annotations_groups: [annotationsGroups[0]],
      labels_groups: [labelsGroups[0]],
      arguments: [],
      auto_preview: true,
      created_at: T,
      updated_at: T,
    },
    {
      id: id('web'),
      service_type: 'CONTAINER',
      name: 'web',
      description: null,
      registry: { id: id('docker-hub'), name: 'docker-hub', url: 'https://docker.io', kind: 'DOCKER_HUB' },
      image_name: 'nginx',
      tag: '1.27',
      cpu: 250,
      memory: 256,
      min_running_instances: 1,
      max_running_instances: 1,
      ports: [],
      created_at: T,
      updated_at: T,
    },
    { id: id('db'), service_type: 'DATABASE', name: 'db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', cpu: 250, memory: 256, storage: 10, instance_type: null, disk_type: null, host: 'db.internal', port: 5432, created_at: T, updated_at: T },
    {
      id: id('nightly'),
      service_type: 'JOB',
      job_type: 'CRON',
      name: 'nightly',
      cpu: 500,
      memory: 512,
      max_nb_restart: 1,
      max_duration_seconds: 300,
      source: { image: { registry_id: id('docker-hub'), image_name: 'acme/report', tag: '2.0' } },
      schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['--full'], entrypoint: null } },
      created_at: T,
      updated_at: T,
    },
    {
      id: id('chart'),
      service_type: 'HELM',
      name: 'chart',
      timeout_sec: 600,
      auto_deploy: false,
      arguments: ['--wait'],
      allow_cluster_wide_resources: false,
      source: { repository: { chart_name: 'redis', chart_version: '19.0.0', repository: { id: id('bitnami'), name: 'bitnami', url: 'https://charts.bitnami.com/bitnami' } } },
      values_override: { set: [['auth.enabled', 'false']], set_string: [], set_json: [], file: { raw: { values: [{ name: 'values.yaml', content: 'replicas: 2\nimage:\n  tag: "7"\n' }] } } },
      created_at: T,
      updated_at: T,
    },
    {
      id: id('infra'),
      service_type: 'TERRAFORM',
      name: 'infra',
      description: withFingerprintMarker('Buckets', { 'tf_vars.db_password': fp(SECRET_TF) }),
      terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main', root_path: '/', provider: 'GITHUB' } },
      engine: 'TERRAFORM',
      provider_version: { explicit_version: '1.9.0', read_from_terraform_block: false },
      terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'region', value: 'eu-west-3', secret: false }, { key: 'db_password', value: null, secret: true }] },
      job_resources: { cpu_milli: 1000, ram_mib: 1024, storage_gib: 2 },
      auto_deploy_config: { auto_deploy: true, terraform_action: 'DEFAULT' },
      timeout_sec: 1800,
      created_at: T,
      updated_at: T,
    },
  ];
  const alertRules: ApiRecord[] = [
    {
      id: id('high-cpu'),
      source: 'MANAGED',
      name: 'high-cpu',
      description: 'CPU above 90%',
      organization_id: 'org-1',
      cluster_id: id('production-cluster'),
      tag: 'default',
      condition: { kind: 'CUSTOM', promql: 'rate(cpu[5m]) > 0.9', operator: 'ABOVE', threshold: 0.9, function: 'AVG' },
      for_duration: 'PT5M',
      severity: 'HIGH',
      enabled: true,
      alert_receiver_ids: [id('slack-ops')],
      presentation: { summary: 'CPU is high', runbook_url: null },
      target: { target_type: 'APPLICATION', target_id: id('api') },
      state: 'OK',
      created_at: T,
      updated_at: T,
    },
  ];
  const webhooks: ApiRecord[] = [
    {
      id: id('webhook'),
      kind: 'STANDARD',
      target_url: 'https://hooks.example.com/deploy',
      target_secret_set: true,
      description: withFingerprintMarker(null, { target_secret: fp(SECRET_WEBHOOK) }),
      enabled: true,
      events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCESSFUL'],
      project_names_filter: [],
      environment_types_filter: [],
      created_at: T,
      updated_at: T,
    },
  ];
  const projects: ApiRecord[] = [{ id: id('shop'), name: 'shop', description: 'Online shop', created_at: T, updated_at: T }];
  const environments: ApiRecord[] = [
    { id: id('production'), name: 'production', mode: 'PRODUCTION', cluster_id: id('production-cluster'), project: { id: id('shop') }, created_at: T, updated_at: T },
  ];
  const stages: ApiRecord[] = [
    { id: id('stage-default'), name: 'DEFAULT', description: '', deployment_order: 0, environment: { id: id('production') }, services: [{ service_id: id('chart'), service_type: 'HELM' }, { service_id: id('infra'), service_type: 'TERRAFORM' }], created_at: T },
    { id: id('stage-data'), name: 'data', description: '', deployment_order: 1, environment: { id: id('production') }, services: [{ service_id: id('db'), service_type: 'DATABASE' }], created_at: T },
    {
      id: id('stage-apps'),
      name: 'apps',
      description: 'Applications',
      deployment_order: 2,
      environment: { id: id('production') },
      services: [
        { service_id: id('api'), service_type: 'APPLICATION' },
        { service_id: id('web'), service_type: 'CONTAINER' },
        { service_id: id('nightly'), service_type: 'JOB' },
      ],
      created_at: T,
    },
  ];
  const variable = (over: ApiRecord): ApiRecord => ({ created_at: T, updated_at: T, is_secret: false, description: null, mount_path: null, ...over });
  const variables: Record<string, ApiRecord[]> = {
    [id('shop')]: [
      variable({ id: id('v-log'), key: 'LOG_LEVEL', value: 'info', scope: 'PROJECT', variable_type: 'VALUE' }),
      variable({ id: id('v-apikey'), key: 'API_KEY', value: null, is_secret: true, scope: 'PROJECT', variable_type: 'VALUE', description: withFingerprintMarker('Payment API key', { value: fp(SECRET_API_KEY) }) }),
    ],
    [id('production')]: [
      variable({ id: id('v-log-o'), key: 'LOG_LEVEL', value: 'warn', scope: 'ENVIRONMENT', variable_type: 'OVERRIDE', overridden_variable: { id: id('v-log'), key: 'LOG_LEVEL', scope: 'PROJECT', variable_type: 'VALUE' } }),
      variable({ id: id('v-logging'), key: 'LOGGING', value: null, scope: 'ENVIRONMENT', variable_type: 'ALIAS', aliased_variable: { id: id('v-log'), key: 'LOG_LEVEL', scope: 'PROJECT', variable_type: 'VALUE' } }),
      variable({ id: id('v-config'), key: 'CONFIG_FILE', value: 'a: 1\nb: 2\n', scope: 'ENVIRONMENT', variable_type: 'FILE', mount_path: '/etc/app/config.yaml' }),
    ],
    [id('api')]: [variable({ id: id('v-port'), key: 'PORT', value: '8080', scope: 'APPLICATION', variable_type: 'VALUE' })],
  };
  return { organization, clusters, clusterStatuses, registries, helmRepositories, annotationsGroups, labelsGroups, alertReceivers, alertRules, webhooks, projects, environments, stages, services, variables };
}

export type ApiRecords = ReturnType<typeof apiRecords>;

const KIND_OF_TYPE: Record<string, ResourceKind> = {
  APPLICATION: 'application',
  CONTAINER: 'container',
  DATABASE: 'database',
  JOB: 'job',
  HELM: 'helm',
  TERRAFORM: 'terraform',
};

/** The LiveState of a set of records (one project, its environments share that project). */
export function liveFrom(r: ApiRecords, requestCount = 7): LiveState {
  const envName = new Map(r.environments.map((e) => [e.id, String(e.name)]));
  const lookup = buildLiveLookup({
    clusters: r.clusters,
    registries: r.registries,
    helmRepositories: r.helmRepositories,
    annotationsGroups: r.annotationsGroups,
    labelsGroups: r.labelsGroups,
    alertReceivers: r.alertReceivers,
    services: r.services.map((s) => ({ record: s, environment: envName.get(s.environment?.id ?? id('production')) ?? 'production', project: 'shop' })),
  });
  const resources = new Map<Address, LiveResource>();
  const add = (l: LiveResource) => resources.set(l.address, l);
  add(normalizeLive('organization', r.organization, undefined, lookup));
  for (const c of r.clusters) add(normalizeLive('cluster', c, undefined, lookup, { clusterStatus: r.clusterStatuses.find((s) => s.cluster_id === c.id) }));
  for (const x of r.registries) add(normalizeLive('container_registry', x, undefined, lookup));
  for (const x of r.helmRepositories) add(normalizeLive('helm_repository', x, undefined, lookup));
  for (const x of r.annotationsGroups) add(normalizeLive('annotations_group', x, undefined, lookup));
  for (const x of r.labelsGroups) add(normalizeLive('labels_group', x, undefined, lookup));
  for (const x of r.alertReceivers) add(normalizeLive('alert_receiver', x, undefined, lookup));
  for (const x of r.alertRules) add(normalizeLive('alert_rule', x, undefined, lookup));
  for (const x of r.webhooks) add(normalizeLive('webhook', x, undefined, lookup));
  const vars = (ownerId: string, parent: Address) => {
    for (const v of r.variables[ownerId] ?? []) add(normalizeLive('variable', v, parent, lookup));
  };
  for (const p of r.projects) {
    const project = normalizeLive('project', p, undefined, lookup);
    add(project);
    vars(p.id, project.address);
    for (const e of r.environments.filter((x) => (x.project?.id ?? id('shop')) === p.id)) {
      const env = normalizeLive('environment', e, project.address, lookup);
      add(env);
      vars(e.id, env.address);
      for (const st of r.stages.filter((s) => s.environment.id === e.id)) add(normalizeLive('deployment_stage', st, env.address, lookup));
      for (const s of r.services.filter((s) => (s.environment?.id ?? id('production')) === e.id)) {
        const svc = normalizeLive(KIND_OF_TYPE[s.service_type]!, s, env.address, lookup);
        svc.status = { state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE' };
        add(svc);
        vars(s.id, svc.address);
      }
    }
  }
  return { organizationId: 'org-1', resources, requestCount };
}

export const PROD: Address = addressOf('environment', 'production', addressOf('project', 'shop'));
export const API: Address = addressOf('application', 'api', PROD);
