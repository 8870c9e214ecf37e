/**
 * Acceptance: two more organizations built by hand through the API, with the request shapes of the
 * real OpenAPI document and fields the other export tests do not set (healthchecks, storage,
 * TCP/UDP ports, entrypoints, auto_deploy, a MANAGED database, a MONGODB container database,
 * lifecycle jobs with on_stop, cron entrypoints, terraform with a user-provided backend, variables
 * described at every scope, secret files at environment scope, aliases at service scope, several
 * projects, environments of every mode). Each goes through export, validate, plan (nothing: the
 * secrets driftless never wrote are under ignore_changes), apply, plan ("No changes."), a console
 * edit and drift (exit 2, naming it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runPlan } from '../../src/cli/run-plan.js';
import { expectValidAndInSync, protectMarksOnly, run, startEmu, tempDir, waitForDeployments, type Emu } from '../export/helpers.js';

const tmp = tempDir('driftless-hand-built-');
const emus: Emu[] = [];

afterAll(async () => {
  for (const e of emus) await e.close();
  tmp.cleanup();
});

async function basics(emu: Emu) {
  const org = emu.em.organizationId;
  const clusters = (await emu.api('GET', `/organization/${org}/cluster`)).results as any[];
  const registries = (await emu.api('GET', `/organization/${org}/containerRegistry`)).results as any[];
  return { org, clusters, cluster: (n: string) => clusters.find((c) => c.name === n).id as string, registry: registries.find((r) => r.name === 'docker-hub').id as string };
}

/** A console edit of a container: the ContainerRequest built from what GET returns, with changes. */
async function editContainer(emu: Emu, id: string, change: Record<string, unknown>) {
  const c = await emu.api('GET', `/container/${id}`);
  const keep = ['name', 'description', 'image_name', 'tag', 'cpu', 'memory', 'min_running_instances', 'max_running_instances', 'ports', 'arguments', 'entrypoint', 'healthchecks', 'storage', 'auto_deploy', 'auto_preview', 'annotations_groups', 'labels_groups'];
  const body: Record<string, unknown> = { registry_id: c.registry?.id ?? c.registry_id };
  for (const k of keep) if (c[k] !== undefined && c[k] !== null) body[k] = c[k];
  await emu.api('PUT', `/container/${id}`, { ...body, ...change });
}

/** The placeholders export listed on stderr, each set to a value (driftless never wrote them). */
function placeholders(stderr: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of stderr.matchAll(/\b([A-Z][A-Z0-9_]{2,})\b/g)) if (m[1]!.includes('_')) out[m[1]!] = m[1]!.endsWith('WEBHOOK_URL') ? `https://hooks.slack.com/services/T0/B0/${m[1]}` : `value-of-${m[1]}`;
  return out;
}

async function roundTrip(emu: Emu, name: string, envIds: string[], secretValues: string[]) {
  const file = path.join(tmp.dir, `${name}.yaml`);
  const exp = await run(['export', '--out', file], emu.env());
  expect(exp.code, exp.stderr).toBe(0);
  const text = readFileSync(file, 'utf8');
  for (const v of secretValues) {
    expect(text).not.toContain(v);
    expect(exp.stderr).not.toContain(v);
  }
  const env = emu.env(placeholders(exp.stderr));
  const validate = await run(['validate', file], env);
  expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  const planned = await runPlan([file], {}, { env, cwd: tmp.dir });
  await planned.session?.close();
  expect(planned.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  // Nothing to change: the secrets driftless never wrote cannot be known, so the export puts them
  // under ignore_changes and no apply writes over them. The one write is the protect mark the
  // export puts on each database (issue 18), recorded on it by the first apply.
  const databases = planned.plan!.changes.filter((c) => c.kind === 'database').map((c) => c.address).sort();
  expect(protectMarksOnly(planned.plan!)).toEqual(databases);
  const ignored = planned.plan!.changes.filter((c) => c.ignored).map((c) => `${c.address} ${c.ignored!.join(',')}`).sort();
  const applied = await run(['apply', file, '--auto-approve'], env);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  await waitForDeployments(emu, envIds);
  await expectValidAndInSync(file, env);
  return { file, env, text, stderr: exp.stderr, ignored };
}

describe('hand-built organization: one project, rich services', () => {
  it('exports, plans nothing (unwritten secrets are ignored), applies, is in sync, and drift names a console edit', async () => {
    const emu = await startEmu();
    emus.push(emu);
    const { api } = emu;
    const { org, cluster, registry } = await basics(emu);
    const secret = { DB: 'managed-db-pass-1', FILE: '-----BEGIN-----\nenv-secret-file\n-----END-----\n', JOB: 'job-token-3' };

    const lab = await api('POST', `/organization/${org}/labelsGroups`, { name: 'billing', labels: [{ key: 'cost', value: 'payments', propagate_to_cloud_provider: false }] });
    const ann = await api('POST', `/organization/${org}/annotationsGroups`, { name: 'mesh', annotations: [{ key: 'linkerd.io/inject', value: 'enabled' }], scopes: ['PODS'] });
    const project = await api('POST', `/organization/${org}/project`, { name: 'payments', description: 'payment services' });
    const prod = await api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: cluster('production-cluster') });
    const variable = (body: Record<string, unknown>) => api('POST', '/variable', { is_secret: false, ...body });
    const region = await variable({ key: 'REGION', value: 'eu-west-3', variable_scope: 'ENVIRONMENT', variable_parent_id: prod.id, description: 'cloud region' });
    await variable({ key: 'CA_BUNDLE', value: secret.FILE, is_secret: true, mount_path: '/etc/ssl/ca.pem', variable_scope: 'ENVIRONMENT', variable_parent_id: prod.id, description: 'private CA' });
    await variable({ key: 'FEATURES', value: 'a,b', variable_scope: 'PROJECT', variable_parent_id: project.id, description: 'feature flags' });

    const app = await api('POST', `/environment/${prod.id}/application`, {
      name: 'gateway', description: 'edge gateway',
      git_repository: { url: 'https://github.com/acme/gateway.git', branch: 'main', root_path: '/', provider: 'GITHUB' },
      build_mode: 'DOCKER', dockerfile_path: 'build/Dockerfile', cpu: 750, memory: 768,
      min_running_instances: 2, max_running_instances: 6, auto_deploy: true, auto_preview: false,
      ports: [
        { internal_port: 8443, external_port: 443, protocol: 'HTTP', publicly_accessible: true, name: 'https' },
        { internal_port: 5432, protocol: 'TCP', publicly_accessible: false, name: 'pg-proxy' },
        { internal_port: 5353, protocol: 'UDP', publicly_accessible: false, name: 'dns' },
      ],
      healthchecks: {
        readiness_probe: { type: { http: { path: '/ready', scheme: 'HTTP' } }, port: 8443, initial_delay_seconds: 5, period_seconds: 10, timeout_seconds: 2, success_threshold: 1, failure_threshold: 3 },
        liveness_probe: { type: { tcp: { host: null } }, port: 8443, initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 3 },
      },
      storage: [{ type: 'FAST_SSD', size: 10, mount_point: '/data' }],
      entrypoint: '/bin/gateway',
      arguments: ['--port', '8443'],
      labels_groups: [{ id: lab.id }],
      annotations_groups: [{ id: ann.id }],
    });
    await api('POST', `/variable/${region.id}/alias`, { key: 'AWS_REGION', alias_scope: 'APPLICATION', alias_parent_id: app.id });
    await variable({ key: 'GATEWAY_MODE', value: 'strict', variable_scope: 'APPLICATION', variable_parent_id: app.id, description: 'routing mode' });

    const worker = await api('POST', `/environment/${prod.id}/container`, {
      name: 'worker', registry_id: registry, image_name: 'acme/worker', tag: '2.1.0', cpu: 250, memory: 384,
      min_running_instances: 1, max_running_instances: 3, entrypoint: '/worker', arguments: ['--queue', 'payments'], auto_deploy: false,
      ports: [],
    });
    const ledger = await api('POST', `/environment/${prod.id}/database`, { name: 'ledger', type: 'POSTGRESQL', version: '15', mode: 'MANAGED', accessibility: 'PRIVATE', storage: 50, instance_type: 'db.t3.medium' });
    const mongo = await api('POST', `/environment/${prod.id}/database`, { name: 'events', type: 'MONGODB', version: '7.0', mode: 'CONTAINER', accessibility: 'PUBLIC', cpu: 1000, memory: 2048, storage: 30, description: 'event store' });
    const settle = await api('POST', `/environment/${prod.id}/job`, {
      name: 'settle', description: 'daily settlement', cpu: 300, memory: 256, max_nb_restart: 1, max_duration_seconds: 1200, auto_deploy: true,
      source: { image: { registry_id: registry, image_name: 'acme/settle', tag: '5' } },
      schedule: { cronjob: { scheduled_at: '30 1 * * 1-5', timezone: 'Etc/UTC', entrypoint: '/settle', arguments: ['--dry-run=false'] } },
    });
    await variable({ key: 'JOB_TOKEN', value: secret.JOB, is_secret: true, variable_scope: 'JOB', variable_parent_id: settle.id, description: 'settlement API token' });
    const seed = await api('POST', `/environment/${prod.id}/job`, {
      name: 'seed', source: { docker: { git_repository: { url: 'https://github.com/acme/seed.git', branch: 'main', root_path: '/seed' }, dockerfile_path: 'Dockerfile' } },
      schedule: { on_start: { arguments: ['seed'], entrypoint: '/run' }, on_stop: { arguments: ['snapshot'] } },
    });
    const tf = await api('POST', `/environment/${prod.id}/terraform`, {
      name: 'dns', terraform_files_source: { git_repository: { url: 'https://github.com/acme/dns.git', branch: 'main', root_path: '/' } },
      terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'zone', value: 'acme.io', secret: false }] },
      engine: 'TERRAFORM', provider_version: { read_from_terraform_block: true, explicit_version: '1.5.0' }, job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 5 },
      timeout_sec: 1200, auto_deploy_config: { auto_deploy: true, terraform_action: 'DEFAULT' }, backend: { user_provided: {} }, use_cluster_credentials: true,
    });
    const s1 = await api('POST', `/environment/${prod.id}/deploymentStage`, { name: 'infra' });
    const s2 = await api('POST', `/environment/${prod.id}/deploymentStage`, { name: 'data', description: 'stores' });
    const s3 = await api('POST', `/environment/${prod.id}/deploymentStage`, { name: 'apps' });
    await api('POST', `/environment/${prod.id}/deploymentStage`, { name: 'later', description: 'empty for now' });
    await api('PUT', `/deploymentStage/${s1.id}/service/${tf.id}`, {});
    for (const id of [ledger.id, mongo.id, seed.id]) await api('PUT', `/deploymentStage/${s2.id}/service/${id}`, {});
    for (const id of [app.id, worker.id, settle.id]) await api('PUT', `/deploymentStage/${s3.id}/service/${id}`, {});

    const rcv = await api('POST', '/alert-receivers', { organization_id: org, name: 'pager', description: 'pager duty mail', type: 'EMAIL', send_resolved: true, to: 'pd@example.com', from: 'alerts@example.com', smarthost: 'smtp.example.com:25', auth_password: secret.DB + '-smtp', require_tls: false });
    const rule = await api('POST', '/alert-rules', {
      organization_id: org, cluster_id: cluster('production-cluster'), name: 'gateway-5xx', description: '5xx rate', tag: 'http',
      condition: { kind: 'CUSTOM', promql: 'rate(http_5xx[5m]) > 1', operator: 'ABOVE', threshold: 1, function: 'NONE' },
      for_duration: 'PT2M', severity: 'CRITICAL', presentation: { summary: 'gateway errors' }, enabled: true,
      alert_receiver_ids: [rcv.id], target: { target_type: 'APPLICATION', target_id: app.id },
    });
    await api('POST', `/organization/${org}/webhook`, { kind: 'SLACK', target_url: 'https://hooks.slack.com/services/T1/B1/x', events: ['DEPLOYMENT_SUCCEEDED'], enabled: false, project_names_filter: ['payments'], environment_types_filter: [] });

    await api('POST', `/environment/${prod.id}/deploy`);
    await waitForDeployments(emu, [prod.id]);

    const { file, env, stderr, ignored, text } = await roundTrip(emu, 'payments', [prod.id], [...Object.values(secret), secret.DB + '-smtp']);
    // The EMAIL receiver's password (required to create one) is a placeholder, never written over.
    expect(ignored).toEqual([
      'alert_receiver.pager auth_password',
      'project.payments/environment.prod/job.settle/variable.JOB_TOKEN value',
      'project.payments/environment.prod/variable.CA_BUNDLE value',
    ]);
    // What a manifest cannot declare is named on stderr, never silently dropped.
    // The gateway's probes and storage are declarable: exported (so the round trip above owns
    // them), and no longer named as left out.
    expect(stderr).not.toContain('project.payments/environment.prod/application.gateway:');
    const gateway = (YAML.parse(text).projects[0].environments[0].services as any[]).find((s) => s.name === 'gateway');
    expect(gateway.healthchecks).toEqual({
      readiness_probe: { type: { http: { path: '/ready' } }, initial_delay_seconds: 5, timeout_seconds: 2, failure_threshold: 3 },
      liveness_probe: { type: { tcp: {} }, failure_threshold: 3 },
    });
    expect(gateway.storage).toEqual([{ size: 10, mount_point: '/data' }]);
    expect(stderr).toContain('project.payments/environment.prod/terraform.dns: backend (user_provided), use_cluster_credentials, provider_version (read from the terraform block) set in the API');
    expect(stderr).toContain('project.payments/environment.prod/job.settle: auto_deploy set in the API');

    // The team changes what the manifest owns; the full-replacement PUTs keep what it does not.
    writeFileSync(file, readFileSync(file, 'utf8').replace('cpu: 750', 'cpu: 800').replace('timeout_sec: 1200\n            job_resources', 'timeout_sec: 1300\n            job_resources').replace('max_nb_restart: 1', 'max_nb_restart: 2'));
    const edited = await run(['apply', file, '--auto-approve'], env);
    expect(edited.code, edited.stdout + edited.stderr).toBe(0);
    await waitForDeployments(emu, [prod.id]);
    await expectValidAndInSync(file, env);

    // Fields the manifest does not own are still there after the apply.
    const after = await api('GET', `/application/${app.id}`);
    expect(after.cpu).toBe(800);
    expect(after.healthchecks.liveness_probe?.type?.tcp).toBeDefined();
    expect(after.healthchecks.readiness_probe?.type?.http?.path).toBe('/ready');
    expect(after.storage).toHaveLength(1);
    expect(after.ports.map((p: any) => p.protocol).sort()).toEqual(['HTTP', 'TCP', 'UDP']);
    const tfAfter = await api('GET', `/terraform/${tf.id}`);
    expect(tfAfter.timeout_sec).toBe(1300);
    expect(tfAfter.use_cluster_credentials).toBe(true);
    expect(tfAfter.backend.user_provided).toEqual({});
    expect(tfAfter.provider_version).toEqual({ read_from_terraform_block: true, explicit_version: '1.5.0' });
    const settleAfter = await api('GET', `/job/${settle.id}`);
    expect(settleAfter.max_nb_restart).toBe(2);
    expect(settleAfter.auto_deploy).toBe(true);

    // A console user changes the worker's arguments and the cron schedule.
    await editContainer(emu, worker.id, { arguments: ['--queue', 'refunds'] });
    const drift = await run(['drift', file, '--format', 'json'], env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout);
    expect(report.items.map((i: any) => i.address)).toEqual(['project.payments/environment.prod/container.worker']);
    expect(JSON.stringify(report.items[0])).toContain('arguments');

    // More console edits: an environment variable's value, a service moved to another stage, a
    // variable added by hand to a service. Each is named.
    await api('PUT', `/variable/${region.id}`, { key: 'REGION', value: 'eu-west-1', description: 'cloud region' });
    await api('PUT', `/deploymentStage/${s2.id}/service/${settle.id}`, {});
    await variable({ key: 'EXTRA', value: '1', variable_scope: 'CONTAINER', variable_parent_id: worker.id });
    // Settings at their default when exported: the alert rule disabled, the gateway's branch.
    const g = await api('GET', `/application/${app.id}`);
    await api('PUT', `/application/${app.id}`, { name: g.name, git_repository: { ...g.git_repository, branch: 'develop' }, build_mode: g.build_mode, dockerfile_path: g.dockerfile_path, cpu: g.cpu, memory: g.memory, min_running_instances: g.min_running_instances, max_running_instances: g.max_running_instances, ports: g.ports, healthchecks: g.healthchecks, storage: g.storage, arguments: g.arguments, entrypoint: g.entrypoint, auto_deploy: g.auto_deploy });
    const r = await api('GET', `/alert-rules/${rule.id}`);
    await api('PUT', `/alert-rules/${rule.id}`, { name: r.name, description: r.description, tag: r.tag, condition: r.condition, for_duration: r.for_duration, severity: r.severity, enabled: false, alert_receiver_ids: r.alert_receiver_ids, presentation: r.presentation });
    const drift2 = await run(['drift', file, '--format', 'json'], env);
    expect(drift2.code, drift2.stdout + drift2.stderr).toBe(2);
    const items = JSON.parse(drift2.stdout).items as any[];
    const addresses = items.map((i) => i.address);
    expect(addresses).toContain('project.payments/environment.prod/variable.REGION');
    expect(addresses).toContain('project.payments/environment.prod/container.worker/variable.EXTRA');
    expect(JSON.stringify(items.find((i) => i.address === 'alert_rule.gateway-5xx')?.fields)).toContain('enabled');
    expect(JSON.stringify(items.find((i) => i.address === 'project.payments/environment.prod/application.gateway')?.fields), JSON.stringify(items)).toContain('develop');
    expect(JSON.stringify(items.filter((i) => /deployment_stage|job\.settle/.test(i.address)))).toContain('settle');
    // The audit log names who made each edit (the test's admin token, not driftless), so every item,
    // organization-level ones included, is known to be changed outside Git (not inferred).
    for (const i of items) {
      expect(i.origin, JSON.stringify(i)).toBe('outside_git');
      expect(i.changed_by, JSON.stringify(i)).toMatchObject({ origin: 'API', triggered_by: 'admin token' });
    }
  }, 120_000);
});

describe('hand-built organization: two projects, every environment mode (DEVELOPMENT, STAGING, PRODUCTION), variables at every scope', () => {
  it('exports, plans nothing (unwritten secrets are ignored), applies, is in sync, and drift names a console edit', async () => {
    const emu = await startEmu();
    emus.push(emu);
    const { api } = emu;
    const { org, cluster, registry } = await basics(emu);
    const secret = { PROJ: 'proj-secret-1', OVR: 'override-secret-2', SVC: 'svc-file-secret-3' };
    const variable = (body: Record<string, unknown>) => api('POST', '/variable', { is_secret: false, ...body });

    const envIds: string[] = [];
    const ids: Record<string, string> = {};
    for (const projectName of ['Storefront', 'back-office']) {
      const project = await api('POST', `/organization/${org}/project`, { name: projectName });
      const pv = await variable({ key: 'SENTRY_DSN', value: secret.PROJ, is_secret: true, variable_scope: 'PROJECT', variable_parent_id: project.id, description: 'error reporting' });
      const plain = await variable({ key: 'TZ', value: 'Europe/Berlin', variable_scope: 'PROJECT', variable_parent_id: project.id });
      for (const [envName, mode, cl] of [['dev', 'DEVELOPMENT', 'staging-cluster'], ['preview', 'STAGING', 'staging-cluster'], ['live', 'PRODUCTION', 'production-cluster']] as const) {
        const e = await api('POST', `/project/${project.id}/environment`, { name: envName, mode, cluster_id: cluster(cl) });
        envIds.push(e.id);
        if (envName === 'dev') await api('POST', `/variable/${plain.id}/override`, { value: 'UTC', override_scope: 'ENVIRONMENT', override_parent_id: e.id });
        if (envName === 'live') await api('POST', `/variable/${pv.id}/override`, { value: secret.OVR, override_scope: 'ENVIRONMENT', override_parent_id: e.id });
        const c = await api('POST', `/environment/${e.id}/container`, {
          name: 'frontend', registry_id: registry, image_name: `acme/${projectName.toLowerCase()}`, tag: envName === 'live' ? '3.0.0' : 'latest',
          cpu: 200, memory: 128, ports: [{ internal_port: 3000, external_port: 443, publicly_accessible: true, protocol: 'HTTP', name: 'web' }, { internal_port: 9000, publicly_accessible: false, protocol: 'GRPC', name: 'rpc' }],
          healthchecks: { readiness_probe: { type: { http: { path: '/', scheme: 'HTTP' } }, port: 3000, initial_delay_seconds: 1, period_seconds: 5, timeout_seconds: 1, success_threshold: 1, failure_threshold: 2 }, liveness_probe: null },
        });
        ids[`${projectName}/${envName}`] = c.id;
        ids[`${projectName}/${envName}/TIMEZONE`] = (await api('POST', `/variable/${plain.id}/alias`, { key: 'TIMEZONE', alias_scope: 'CONTAINER', alias_parent_id: c.id })).id;
        await variable({ key: 'SETTINGS', value: 'debug = false\nport = 3000\n', mount_path: '/app/settings.toml', variable_scope: 'CONTAINER', variable_parent_id: c.id, description: 'settings file' });
        await variable({ key: 'KEYS', value: secret.SVC, is_secret: true, mount_path: '/app/keys.json', variable_scope: 'CONTAINER', variable_parent_id: c.id });
        ids[`${projectName}/${envName}/cache`] = (await api('POST', `/environment/${e.id}/database`, { name: 'cache', type: 'REDIS', version: '7', mode: 'CONTAINER', accessibility: 'PRIVATE' })).id;
        await api('POST', `/environment/${e.id}/helm`, {
          name: 'metrics', source: { git_repository: { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/metrics' } },
          values_override: { set: [['replicas', envName === 'live' ? '3' : '1']], set_string: [], file: { raw: { values: [{ name: 'override', content: `env: ${envName}\n` }] } } },
          arguments: ['--atomic'], timeout_sec: 300, auto_deploy: envName !== 'live', allow_cluster_wide_resources: true,
        });
        await api('POST', `/environment/${e.id}/deploy`);
      }
    }
    await waitForDeployments(emu, envIds);

    const { file, env, text, stderr } = await roundTrip(emu, 'two-projects', envIds, Object.values(secret));
    // A single raw values file is the manifest's values document, whatever the console named it.
    expect(text).toContain('file: |\n                env: live\n');
    expect(stderr).not.toContain('values_override');

    // A console user raises the live frontend's CPU in back-office.
    const id = ids['back-office/live']!;
    await editContainer(emu, id, { cpu: 400 });
    const drift = await run(['drift', file, '--format', 'json'], env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout);
    expect(report.items.map((i: any) => i.address)).toEqual(['project.back-office/environment.live/container.frontend']);
    expect(JSON.stringify(report.items[0])).toContain('cpu');

    // More console edits: an alias deleted, a database at the default accessibility made public.
    // (A description set where there was none is not drift: an export cannot write "no description".)
    await api('DELETE', `/variable/${ids['Storefront/dev/TIMEZONE']}`);
    const db = await api('GET', `/database/${ids['Storefront/preview/cache']}`);
    await api('PUT', `/database/${db.id}`, { name: db.name, version: db.version, accessibility: 'PUBLIC', cpu: db.cpu, memory: db.memory, storage: db.storage });
    const drift2 = await run(['drift', file, '--format', 'json'], env);
    expect(drift2.code, drift2.stdout + drift2.stderr).toBe(2);
    const items = JSON.parse(drift2.stdout).items as any[];
    const byAddress = new Map(items.map((i) => [i.address, i]));
    expect(byAddress.get('project.Storefront/environment.dev/container.frontend/variable.TIMEZONE')?.drift, JSON.stringify(items)).toBe('missing');
    expect(JSON.stringify(byAddress.get('project.Storefront/environment.preview/database.cache')?.fields), JSON.stringify(items)).toContain('accessibility');
  }, 120_000);
});

describe('hand-built organization: console edits of stage order, alert rule, webhook, cron schedule, helm chart and secrets', () => {
  it('each edit is drift and named (changed outside Git where a deployment dates it)', async () => {
    const emu = await startEmu();
    emus.push(emu);
    const { api } = emu;
    const { org, cluster, registry } = await basics(emu);
    const helmRepos = (await api('GET', `/organization/${org}/helmRepository`)).results as any[];
    const bitnami = helmRepos.find((r) => r.name === 'bitnami').id as string;
    const variable = (body: Record<string, unknown>) => api('POST', '/variable', { is_secret: false, ...body });
    const project = await api('POST', `/organization/${org}/project`, { name: 'data-platform' });
    const env = await api('POST', `/project/${project.id}/environment`, { name: 'main', mode: 'STAGING', cluster_id: cluster('staging-cluster') });
    const pfile = await variable({ key: 'KAFKA_CA', value: 'ca-secret-9', is_secret: true, mount_path: '/etc/kafka/ca.pem', variable_scope: 'PROJECT', variable_parent_id: project.id, enable_interpolation_in_file: true });
    await api('POST', `/variable/${pfile.id}/alias`, { key: 'BROKER_CA', alias_scope: 'ENVIRONMENT', alias_parent_id: env.id });
    const envVar = await variable({ key: 'BATCH_SIZE', value: '500', variable_scope: 'ENVIRONMENT', variable_parent_id: env.id });
    const etl = await api('POST', `/environment/${env.id}/job`, {
      name: 'etl', cpu: 1000, memory: 2048, max_duration_seconds: 3600,
      source: { image: { registry_id: registry, image_name: 'acme/etl', tag: '2024.11' } },
      schedule: { cronjob: { scheduled_at: '*/15 * * * *', timezone: 'America/New_York', arguments: ['run'] } },
    });
    await api('POST', `/variable/${envVar.id}/override`, { value: '1000', override_scope: 'JOB', override_parent_id: etl.id, description: 'bigger batches for etl' });
    const cleanup = await api('POST', `/environment/${env.id}/job`, {
      name: 'teardown', source: { image: { registry_id: registry, image_name: 'acme/teardown', tag: '1' } },
      schedule: { on_delete: { arguments: ['--force'] } },
    });
    const chart = await api('POST', `/environment/${env.id}/helm`, {
      name: 'kafka', source: { helm_repository: { repository: bitnami, chart_name: 'kafka', chart_version: '26.0.0' } },
      values_override: { set: [['controller.replicaCount', '3']], set_string: [['image.tag', '3.6']], file: { raw: { values: [{ name: 'values.yaml', content: 'listeners:\n  client:\n    protocol: SASL\n' }] } } },
      arguments: [], timeout_sec: 1200, auto_deploy: false,
    });
    const tf = await api('POST', `/environment/${env.id}/terraform`, {
      name: 'buckets', terraform_files_source: { git_repository: { url: 'https://gitlab.com/acme/buckets.git', branch: 'develop', root_path: '/tf' } },
      terraform_variables_source: { tf_var_file_paths: ['a.tfvars', 'b.tfvars'], tf_vars: [{ key: 'prefix', value: 'acme-', secret: false }, { key: 'api_key', value: 'tf-key-10', secret: true }] },
      engine: 'OPEN_TOFU', provider_version: { read_from_terraform_block: false, explicit_version: '1.7.2' }, job_resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 20 },
      auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' }, backend: { kubernetes: {} }, use_cluster_credentials: false,
    });
    const first = await api('POST', `/environment/${env.id}/deploymentStage`, { name: 'first' });
    const second = await api('POST', `/environment/${env.id}/deploymentStage`, { name: 'second' });
    await api('PUT', `/deploymentStage/${first.id}/service/${tf.id}`, {});
    for (const id of [etl.id, cleanup.id, chart.id]) await api('PUT', `/deploymentStage/${second.id}/service/${id}`, {});
    const receiver = await api('POST', '/alert-receivers', { organization_id: org, name: 'data-slack', type: 'SLACK', send_resolved: false, webhook_url: 'https://hooks.slack.com/services/T9/B9/data' });
    const rule = await api('POST', '/alert-rules', {
      organization_id: org, cluster_id: cluster('staging-cluster'), name: 'etl-slow', description: 'etl too slow', tag: 'etl',
      condition: { kind: 'CUSTOM', promql: 'etl_duration_seconds > 600', operator: 'ABOVE', threshold: 600, function: 'MAX' },
      for_duration: 'PT15M', severity: 'LOW', presentation: {}, enabled: true,
      alert_receiver_ids: [receiver.id], target: { target_type: 'CRONJOB', target_id: etl.id },
    });
    const hook = await api('POST', `/organization/${org}/webhook`, { kind: 'STANDARD', target_url: 'https://ci.example.com/data', events: ['DEPLOYMENT_FAILED'], enabled: true, target_secret: 'hook-secret-11', project_names_filter: ['data-platform'], environment_types_filter: ['STAGING'] });
    await api('POST', `/environment/${env.id}/deploy`);
    await waitForDeployments(emu, [env.id]);

    const { file, env: cliEnv, text } = await roundTrip(emu, 'data-platform', [env.id], ['ca-secret-9', 'tf-key-10', 'hook-secret-11', 'https://hooks.slack.com/services/T9/B9/data']);
    expect(text).toContain('enable_interpolation_in_file: true');

    // Console edits: stage order, alert rule threshold, webhook events, cron schedule, chart version.
    await api('PUT', `/deploymentStage/${second.id}/moveBefore/${first.id}`);
    const r = await api('GET', `/alert-rules/${rule.id}`);
    await api('PUT', `/alert-rules/${rule.id}`, { name: r.name, description: r.description, tag: r.tag, condition: { ...r.condition, threshold: 900 }, for_duration: r.for_duration, severity: r.severity, enabled: r.enabled, alert_receiver_ids: r.alert_receiver_ids, presentation: r.presentation });
    await api('PUT', `/organization/${org}/webhook/${hook.id}`, { kind: 'STANDARD', target_url: 'https://ci.example.com/data', events: ['DEPLOYMENT_FAILED', 'DEPLOYMENT_STARTED'], enabled: true, project_names_filter: ['data-platform'], environment_types_filter: ['STAGING'] });
    const j = await api('GET', `/job/${etl.id}`);
    await api('PUT', `/job/${etl.id}`, { name: j.name, cpu: j.cpu, memory: j.memory, max_duration_seconds: j.max_duration_seconds, max_nb_restart: j.max_nb_restart, source: { image: { registry_id: registry, image_name: 'acme/etl', tag: '2024.11' } }, schedule: { cronjob: { ...j.schedule.cronjob, scheduled_at: '0 * * * *' } } });
    const h = await api('GET', `/helm/${chart.id}`);
    await api('PUT', `/helm/${chart.id}`, { name: h.name, source: { helm_repository: { repository: bitnami, chart_name: 'kafka', chart_version: '26.1.0' } }, values_override: h.values_override, arguments: h.arguments, timeout_sec: h.timeout_sec, auto_deploy: h.auto_deploy, allow_cluster_wide_resources: h.allow_cluster_wide_resources });

    const drift = await run(['drift', file, '--format', 'json'], cliEnv);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    const items = JSON.parse(drift.stdout).items as any[];
    const byAddress = new Map(items.map((i) => [i.address, i]));
    const fieldsOf = (a: string) => (byAddress.get(a)?.fields ?? []).map((f: any) => f.field);
    expect(fieldsOf('project.data-platform/environment.main/job.etl'), JSON.stringify(items)).toContain('schedule');
    expect(fieldsOf('project.data-platform/environment.main/helm.kafka'), JSON.stringify(items)).toEqual(expect.arrayContaining([expect.stringMatching(/source|chart_version/)]));
    expect(fieldsOf('alert_rule.etl-slow'), JSON.stringify(items)).toEqual(expect.arrayContaining([expect.stringMatching(/condition|threshold/)]));
    expect(fieldsOf('webhook.https:%2F%2Fci.example.com%2Fdata'), JSON.stringify(items)).toContain('events');
    expect(JSON.stringify(items.filter((i) => i.kind === 'deployment_stage')), JSON.stringify(items)).toMatch(/order|first|second/);
    // Organization-level objects have no deployment to date an edit against, but the audit log names
    // who made each edit (the test's admin token, not driftless): changed outside Git, not inferred.
    for (const i of items) {
      expect(i.origin, JSON.stringify(i)).toBe('outside_git');
      expect(i.changed_by, JSON.stringify(i)).toMatchObject({ origin: 'API', triggered_by: 'admin token' });
    }
    for (const v of ['ca-secret-9', 'tf-key-10', 'hook-secret-11']) expect(drift.stdout + drift.stderr).not.toContain(v);
  }, 120_000);
});
