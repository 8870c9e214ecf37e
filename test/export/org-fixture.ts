/**
 * An organization built by hand through the API (as people do in the console before adopting
 * driftless), holding every kind of resource a manifest can declare: both group kinds, SLACK and
 * EMAIL receivers, cluster and service alert rules, a signed webhook, two environments on two
 * clusters, every service kind (a cron and a lifecycle job), deployment stages, and variables of
 * every type at every scope (value, secret, file, secret file, alias, override, external secret,
 * and a value holding `${`).
 *
 * Secret values written here are returned so that tests can set the export's placeholders to them.
 */
import type { Emu } from './helpers.js';
import { waitForDeployments } from './helpers.js';

export interface HandBuiltOrg {
  projectId: string;
  envIds: { production: string; staging: string };
  ids: Record<string, string>;
  /** Clear values of the secrets written, by variable key / field. */
  secrets: Record<string, string>;
}

export async function buildOrganizationByHand(emu: Emu): Promise<HandBuiltOrg> {
  const { api } = emu;
  const org = emu.em.organizationId;
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const cluster = (n: string) => clusters.find((c) => c.name === n).id as string;
  const registry = ((await api('GET', `/organization/${org}/containerRegistry`)).results as any[]).find((r) => r.name === 'docker-hub').id as string;
  const ids: Record<string, string> = {};
  const secrets: Record<string, string> = {
    DB_PASSWORD: 'pg-pass-Ω-1',
    API_TOKEN: 'api-token-2',
    SLACK: 'https://hooks.slack.com/services/T0/B0/handmade',
    SMTP: 'smtp-pass-3',
    WEBHOOK: 'hmac-key-4',
    TF_TOKEN: 'tf-secret-5',
    TLS_KEY: '-----BEGIN KEY-----\nsecret-file-6\n-----END KEY-----\n',
    HELM_REPOSITORY: 'helm-repo-pass-7',
  };

  const ann = await api('POST', `/organization/${org}/annotationsGroups`, { name: 'observability', annotations: [{ key: 'prometheus.io/scrape', value: 'true' }], scopes: ['PODS', 'DEPLOYMENTS'] });
  const lab = await api('POST', `/organization/${org}/labelsGroups`, { name: 'cost-center', labels: [{ key: 'team', value: 'shop', propagate_to_cloud_provider: true }, { key: 'tier', value: 'web', propagate_to_cloud_provider: false }] });
  const slack = await api('POST', '/alert-receivers', { organization_id: org, name: 'ops-slack', description: 'team channel', type: 'SLACK', send_resolved: true, webhook_url: secrets.SLACK });
  const mail = await api('POST', '/alert-receivers', { organization_id: org, name: 'oncall-mail', description: 'pager', type: 'EMAIL', send_resolved: false, to: 'oncall@example.com', from: 'alerts@example.com', smarthost: 'smtp.example.com:587', auth_username: 'alerts', auth_password: secrets.SMTP, require_tls: true });
  await api('POST', `/organization/${org}/webhook`, { kind: 'STANDARD', target_url: 'https://ci.example.com/hooks/deploy', description: 'release dashboard', events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_FAILED'], enabled: true, target_secret: secrets.WEBHOOK, environment_types_filter: ['PRODUCTION'] });

  const project = await api('POST', `/organization/${org}/project`, { name: 'shop', description: 'the web shop' });
  const production = await api('POST', `/project/${project.id}/environment`, { name: 'production', mode: 'PRODUCTION', cluster_id: cluster('production-cluster') });
  const staging = await api('POST', `/project/${project.id}/environment`, { name: 'staging', mode: 'STAGING', cluster_id: cluster('staging-cluster') });

  const variable = (body: Record<string, unknown>) => api('POST', '/variable', { is_secret: false, ...body });
  const projVar = await variable({ key: 'API_URL', value: 'https://api.example.com', variable_scope: 'PROJECT', variable_parent_id: project.id, description: 'public API' });
  await variable({ key: 'DB_PASSWORD', value: secrets.DB_PASSWORD, is_secret: true, variable_scope: 'PROJECT', variable_parent_id: project.id });
  await variable({ key: 'TEMPLATE', value: 'Hello ${USER}, {{name}}', variable_scope: 'PROJECT', variable_parent_id: project.id });
  await variable({ key: 'LOG_LEVEL', value: 'info', variable_scope: 'ENVIRONMENT', variable_parent_id: production.id });
  await variable({ key: 'OIDC_CLIENT_SECRET', value: 'shop/production/oidc', is_secret: true, secret_manager_access_id: '5b0f5c8e-2d0a-4b7e-9a3c-1f2e3d4c5b6a', variable_scope: 'ENVIRONMENT', variable_parent_id: production.id });
  await api('POST', `/variable/${projVar.id}/alias`, { key: 'BACKEND_URL', alias_scope: 'ENVIRONMENT', alias_parent_id: production.id });
  await api('POST', `/variable/${projVar.id}/override`, { value: 'https://staging-api.example.com', override_scope: 'ENVIRONMENT', override_parent_id: staging.id });

  const app = await api('POST', `/environment/${production.id}/application`, {
    name: 'api',
    description: 'public API',
    git_repository: { url: 'https://github.com/acme/api.git', branch: 'release', root_path: '/api', provider: 'GITHUB' },
    build_mode: 'DOCKER',
    dockerfile_path: 'Dockerfile',
    cpu: 1000,
    memory: 1024,
    min_running_instances: 2,
    max_running_instances: 4,
    ports: [{ internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true, name: 'web' }, { internal_port: 9090, protocol: 'GRPC', publicly_accessible: false }],
    arguments: ['--serve'],
    annotations_groups: [{ id: ann.id }],
    labels_groups: [{ id: lab.id }],
  });
  ids.api = app.id;
  await variable({ key: 'API_TOKEN', value: secrets.API_TOKEN, is_secret: true, variable_scope: 'APPLICATION', variable_parent_id: app.id, description: 'token for partners' });
  await variable({ key: 'TLS_KEY', value: secrets.TLS_KEY, is_secret: true, mount_path: '/etc/api/tls.key', variable_scope: 'APPLICATION', variable_parent_id: app.id });
  await variable({ key: 'CONFIG', value: '{"feature": "${FLAG}"}\nsecond line\n', mount_path: '/etc/api/config.json', variable_scope: 'APPLICATION', variable_parent_id: app.id });
  await api('POST', `/variable/${projVar.id}/override`, { value: 'http://localhost:8080', override_scope: 'APPLICATION', override_parent_id: app.id });

  const web = await api('POST', `/environment/${production.id}/container`, { name: 'web', registry_id: registry, image_name: 'acme/web', tag: '1.4.2', cpu: 500, memory: 256, ports: [{ internal_port: 80, publicly_accessible: true, protocol: 'HTTP' }] });
  ids.web = web.id;
  await variable({ key: 'GREETING', value: 'hi', variable_scope: 'CONTAINER', variable_parent_id: web.id });
  const db = await api('POST', `/environment/${production.id}/database`, { name: 'orders-db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', cpu: 500, memory: 512, storage: 20 });
  ids.db = db.id;
  const cron = await api('POST', `/environment/${production.id}/job`, { name: 'nightly-report', max_nb_restart: 2, source: { image: { registry_id: registry, image_name: 'acme/report', tag: 'v3' } }, schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['--all'] } } });
  ids.cron = cron.id;
  const migrate = await api('POST', `/environment/${production.id}/job`, { name: 'migrate', source: { docker: { git_repository: { url: 'https://github.com/acme/migrate.git', branch: 'main' }, dockerfile_path: 'Dockerfile.migrate' } }, schedule: { on_start: { arguments: ['up'] }, on_delete: { entrypoint: '/bin/down' } } });
  ids.migrate = migrate.id;
  // A chart repository of the organization's own (not one of the defaults), with a credential.
  const charts = await api('POST', `/organization/${org}/helmRepository`, {
    name: 'acme-charts', kind: 'OCI_GITHUB_CR', url: 'oci://ghcr.io/acme/charts', skip_tls_verification: false, config: { username: 'ci', password: secrets.HELM_REPOSITORY },
  });
  ids.charts = charts.id;
  const chart = await api('POST', `/environment/${production.id}/helm`, {
    name: 'cache',
    source: { helm_repository: { repository: charts.id, chart_name: 'redis', chart_version: '19.0.0' } },
    values_override: { set: [['replica.count', '2']], set_string: [['image.tag', '7.2']], file: { raw: { values: [{ name: 'values.yaml', content: 'auth:\n  enabled: false\n' }] } } },
    arguments: ['--wait'],
    timeout_sec: 900,
    allow_cluster_wide_resources: false,
    auto_deploy: false,
  });
  ids.cache = chart.id;
  const gitChart = await api('POST', `/environment/${production.id}/helm`, {
    name: 'ingress',
    source: { git_repository: { url: 'https://github.com/acme/charts.git', branch: 'stable', root_path: '/charts/ingress', provider: 'GITHUB' } },
    values_override: { set: [], set_string: [] },
    arguments: [],
    auto_deploy: true,
  });
  ids.ingress = gitChart.id;
  const infra = await api('POST', `/environment/${production.id}/terraform`, {
    name: 'network',
    description: 'VPC and subnets',
    terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main', root_path: '/network' } },
    terraform_variables_source: { tf_var_file_paths: ['prod.tfvars'], tf_vars: [{ key: 'region', value: 'eu-west-3', secret: false }, { key: 'token', value: secrets.TF_TOKEN, secret: true }] },
    engine: 'OPEN_TOFU',
    provider_version: { read_from_terraform_block: false, explicit_version: '1.8.0' },
    job_resources: { cpu_milli: 2000, ram_mib: 2048, gpu: 0, storage_gib: 20 },
    timeout_sec: 3600,
    auto_deploy_config: { auto_deploy: false, terraform_action: 'PLAN' },
    backend: { kubernetes: {} },
    use_cluster_credentials: false,
  });
  ids.network = infra.id;
  const stagingWeb = await api('POST', `/environment/${staging.id}/container`, { name: 'web', registry_id: registry, image_name: 'acme/web', tag: '1.5.0-rc1' });
  ids.stagingWeb = stagingWeb.id;

  const stageData = await api('POST', `/environment/${production.id}/deploymentStage`, { name: 'data', description: 'databases first' });
  const stageApps = await api('POST', `/environment/${production.id}/deploymentStage`, { name: 'apps' });
  for (const id of [db.id, migrate.id, infra.id]) await api('PUT', `/deploymentStage/${stageData.id}/service/${id}`, {});
  for (const id of [app.id, web.id, cron.id, chart.id, gitChart.id]) await api('PUT', `/deploymentStage/${stageApps.id}/service/${id}`, {});

  await api('POST', '/alert-rules', {
    organization_id: org, cluster_id: cluster('production-cluster'), name: 'cluster-cpu', description: 'CPU above 90%', tag: 'cpu',
    condition: { kind: 'CUSTOM', promql: 'avg(cpu) > 0.9', operator: 'ABOVE', threshold: 0.9, function: 'AVG' },
    for_duration: 'PT10M', severity: 'HIGH', presentation: { summary: 'CPU high', runbook_url: 'https://runbooks.example.com/cpu' }, enabled: true,
    alert_receiver_ids: [slack.id, mail.id], target: { target_type: 'CLUSTER', target_id: cluster('production-cluster') },
  });
  await api('POST', '/alert-rules', {
    organization_id: org, cluster_id: cluster('production-cluster'), name: 'report-failed', description: 'nightly report failed', tag: 'jobs',
    condition: { kind: 'CUSTOM', promql: 'job_failed > 0', operator: 'NONE', threshold: 0, function: 'NONE' },
    for_duration: 'PT5M', severity: 'MEDIUM', presentation: {}, enabled: false,
    alert_receiver_ids: [slack.id], target: { target_type: 'CRONJOB', target_id: cron.id },
  });

  // Running services, as in any organization worth adopting.
  await api('POST', `/environment/${production.id}/deploy`);
  await api('POST', `/environment/${staging.id}/deploy`);
  await waitForDeployments(emu, [production.id, staging.id]);
  return { projectId: project.id, envIds: { production: production.id, staging: staging.id }, ids, secrets };
}
