/**
 * The desired attrs of every service kind, field by field, against the shapes documented in
 * src/graph/attrs.ts (the API's request bodies). Expected values are written out from the manifest
 * below, not computed by the code under test: a field dropped, renamed, left unsorted or not
 * converted (a number kept as text, a version as a number) fails here, long before an apply.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest, ServiceSpec } from '../../src/manifest/types.js';
import { SecretValue, isSecretValue } from '../../src/model/secret.js';

const ENV = 'project.shop/environment.prod';
const GIT = { url: 'https://github.com/acme/x.git', branch: 'release', root_path: '/srv', provider: 'GITHUB' as const };

function graphOf(services: ServiceSpec[], extra: Partial<Manifest> = {}) {
  const manifest = {
    version: 1,
    ...extra,
    projects: [{ name: 'shop', environments: [{ name: 'prod', cluster: 'production-cluster', services }] }],
  } as unknown as Manifest;
  return buildGraph(manifest);
}

function only(services: ServiceSpec[], address: string, extra: Partial<Manifest> = {}) {
  const { graph, diagnostics } = graphOf(services, extra);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const r = graph.resources.get(address);
  expect(r, address).toBeDefined();
  return r!;
}

/** attrs with each SecretValue replaced by `secret(<clear value>)`, to compare in full. */
function revealed(v: unknown): unknown {
  if (isSecretValue(v)) return `secret(${v.reveal()})`;
  if (Array.isArray(v)) return v.map(revealed);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revealed(x)]));
  return v;
}

describe('service attrs, every kind', () => {
  it('application: common fields, git repository, compute, ports sorted, arguments, pin', () => {
    const r = only(
      [
        {
          type: 'application', name: 'api', description: 'the API', icon_uri: 'app://icons/api', annotation_groups: ['zeta', 'alpha'], label_groups: ['team'],
          git_repository: GIT, build_mode: 'DOCKER', dockerfile_path: 'Dockerfile.api', cpu: 750, memory: 640, min_running_instances: 0, max_running_instances: 3,
          ports: [{ internal_port: 9090, protocol: 'GRPC', publicly_accessible: false }, { internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true, name: 'web' }],
          arguments: ['--serve', '--port=8080'], entrypoint: '/bin/api', auto_deploy: true, git_commit_id: 'abc123',
        } as ServiceSpec,
      ],
      `${ENV}/application.api`,
      {
        annotation_groups: [{ name: 'alpha', annotations: { a: '1' }, scopes: ['PODS'] }, { name: 'zeta', annotations: { z: '2' }, scopes: ['PODS'] }],
        label_groups: [{ name: 'team', labels: [{ key: 'team', value: 'shop' }] }],
      } as unknown as Partial<Manifest>,
    );
    expect(r.attrs).toMatchObject({
      name: 'api', description: 'the API', icon_uri: 'app://icons/api', annotations_groups: ['alpha', 'zeta'], labels_groups: ['team'],
      git_repository: { url: 'https://github.com/acme/x.git', branch: 'release', root_path: '/srv', provider: 'GITHUB' },
      build_mode: 'DOCKER', dockerfile_path: 'Dockerfile.api', cpu: 750, memory: 640, min_running_instances: 0, max_running_instances: 3,
      arguments: ['--serve', '--port=8080'], entrypoint: '/bin/api', auto_deploy: true,
    });
    expect((r.attrs.ports as Array<{ internal_port: number }>).map((p) => p.internal_port)).toEqual([8080, 9090]);
    expect(r.deploy).toEqual({ git_commit_id: 'abc123' });
    expect(r.dependsOn).toEqual(expect.arrayContaining(['annotations_group.alpha', 'annotations_group.zeta', 'labels_group.team']));
    expect(r.noDeploy).toBeUndefined();
  });

  it('what the manifest omits is absent, an empty description is null, and deploy: false is kept', () => {
    const r = only([{ type: 'container', name: 'web', description: '', registry: 'docker-hub', image_name: 'nginx', tag: '1.27', deploy: false } as ServiceSpec], `${ENV}/container.web`);
    expect(r.attrs).toEqual({ name: 'web', description: null, registry: 'docker-hub', image_name: 'nginx', tag: '1.27' });
    expect(r.deploy).toEqual({ image_tag: '1.27' });
    expect(r.noDeploy).toBe(true);
    expect(r.dependsOn).toEqual([]);
  });

  it('no pin, no deploy mark; a group the manifest does not declare is no dependency', () => {
    const app = only([{ type: 'application', name: 'api', git_repository: GIT, label_groups: ['undeclared'] } as ServiceSpec], `${ENV}/application.api`);
    expect(app.deploy).toBeUndefined();
    expect(app.dependsOn).toEqual([]);
    expect(app.attrs.labels_groups).toEqual(['undeclared']);
    const imageJob = only([{ type: 'job', name: 'j', source: { image: { registry: 'docker-hub', image_name: 'acme/j', tag: '5' } }, schedule: { on_start: {} } } as ServiceSpec], `${ENV}/job.j`);
    expect(imageJob.deploy).toStrictEqual({ image_tag: '5' });
  });

  it('terraform: a description next to secret variables leaves room for their marker', () => {
    const tf = (description: string, secret: boolean) =>
      graphOf([{ type: 'terraform', name: 'net', description, git_repository: GIT, tf_vars: { token: 't', region: 'eu' }, ...(secret ? { sensitive_tf_vars: ['token'] } : {}) } as ServiceSpec]).diagnostics;
    expect(tf('d'.repeat(255), false)).toEqual([]);
    const withSecret = tf('d'.repeat(255), true);
    expect(withSecret.map((d) => [d.code, d.address])).toEqual([['graph.description-too-long', `${ENV}/terraform.net`]]);
    // The marker holds `tf_vars.token=<16 characters>`: the limit is 255 minus that marker and a space.
    const marker = ' [driftless:v1 tf_vars.token=' + 'x'.repeat(16) + ']';
    expect(withSecret[0]!.summary).toBe(`description is 255 characters; at most ${255 - marker.length} are allowed here`);
    expect(tf('d'.repeat(255 - marker.length), true)).toEqual([]);
  });

  it('container: registry, image, tag as text, compute, pin on the tag', () => {
    const r = only([{ type: 'container', name: 'web', registry: 'docker-hub', image_name: 'acme/web', tag: 2 as unknown as string, cpu: 250, memory: 128, min_running_instances: 1, max_running_instances: 1, arguments: [], entrypoint: 'nginx', auto_deploy: false } as ServiceSpec], `${ENV}/container.web`);
    expect(r.attrs).toEqual({ name: 'web', registry: 'docker-hub', image_name: 'acme/web', tag: '2', cpu: 250, memory: 128, min_running_instances: 1, max_running_instances: 1, arguments: [], entrypoint: 'nginx', auto_deploy: false });
    expect(r.deploy).toEqual({ image_tag: '2' });
  });

  it('database: type, version as text, every setting, no pin', () => {
    const r = only([{ type: 'database', name: 'db', database_type: 'POSTGRESQL', version: 16 as unknown as string, mode: 'MANAGED', accessibility: 'PUBLIC', cpu: 500, memory: 1024, storage: 20, instance_type: 'db.t3.micro', disk_type: 'gp3' } as ServiceSpec], `${ENV}/database.db`);
    expect(r.attrs).toEqual({ name: 'db', type: 'POSTGRESQL', version: '16', mode: 'MANAGED', accessibility: 'PUBLIC', cpu: 500, memory: 1024, storage: 20, instance_type: 'db.t3.micro', disk_type: 'gp3' });
    expect(r.deploy).toBeUndefined();
    expect(r.cloneFrom).toBeUndefined();
  });

  it('database clone: the source in the same environment by default, declared before or after', () => {
    const db = (name: string, clone?: string) => ({ type: 'database', name, database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', ...(clone ? { clone_from: { database: clone } } : {}) }) as ServiceSpec;
    const before = graphOf([db('main'), db('copy', 'main')]).graph.resources.get(`${ENV}/database.copy`)!;
    expect(before.cloneFrom).toBe(`${ENV}/database.main`);
    expect(before.dependsOn).toContain(`${ENV}/database.main`);
    const after = graphOf([db('copy', 'main'), db('main')]).graph.resources.get(`${ENV}/database.copy`)!;
    expect(after.cloneFrom).toBe(`${ENV}/database.main`);
    expect(after.dependsOn).toContain(`${ENV}/database.main`);
  });

  it('database clone from another environment or project, declared later or not at all', () => {
    const db = (name: string, clone?: Record<string, string>) => ({ type: 'database', name, database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', ...(clone ? { clone_from: clone } : {}) });
    const { graph } = buildGraph({
      version: 1,
      projects: [
        { name: 'shop', environments: [
          { name: 'prod', cluster: 'c', services: [db('copy', { environment: 'staging', database: 'main' }), db('other', { project: 'legacy', environment: 'old', database: 'orders' }), db('ghost', { database: 'missing' })] },
          { name: 'staging', cluster: 'c', services: [db('main')] },
        ] },
        { name: 'legacy', environments: [{ name: 'old', cluster: 'c', services: [db('orders')] }] },
      ],
    } as unknown as Manifest);
    const r = (n: string) => graph.resources.get(`${ENV}/database.${n}`)!;
    expect(r('copy').cloneFrom).toBe('project.shop/environment.staging/database.main');
    expect(r('copy').dependsOn).toEqual(['project.shop/environment.staging/database.main']);
    expect(r('other').cloneFrom).toBe('project.legacy/environment.old/database.orders');
    expect(r('other').dependsOn).toEqual(['project.legacy/environment.old/database.orders']);
    expect(r('ghost').cloneFrom).toBe(`${ENV}/database.missing`);
    expect(r('ghost').dependsOn).toEqual([]);
    expect(graph.order.indexOf('project.legacy/environment.old/database.orders')).toBeLessThan(graph.order.indexOf(`${ENV}/database.other`));
  });

  it('job from an image on a cron: source, schedule, settings, pin on the image tag and the commit', () => {
    const r = only(
      [{ type: 'job', name: 'report', cpu: 300, memory: 384, max_nb_restart: 2, max_duration_seconds: 600, auto_deploy: true, source: { image: { registry: 'docker-hub', image_name: 'acme/report', tag: 3 as unknown as string } }, schedule: { cron: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['--all'], entrypoint: '/report' } }, git_commit_id: 'c0ffee' } as unknown as ServiceSpec],
      `${ENV}/job.report`,
    );
    expect(r.attrs).toEqual({
      name: 'report', cpu: 300, memory: 384, max_nb_restart: 2, max_duration_seconds: 600, auto_deploy: true,
      source: { image: { registry: 'docker-hub', image_name: 'acme/report', tag: '3' } },
      schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['--all'], entrypoint: '/report' } },
    });
    expect(r.deploy).toEqual({ image_tag: '3', git_commit_id: 'c0ffee' });
  });

  it('job built from git on lifecycle events: docker source, only the hooks declared, pin on the commit only', () => {
    const r = only(
      [{ type: 'job', name: 'migrate', source: { git_repository: GIT, dockerfile_path: 'Dockerfile.migrate' }, schedule: { on_start: { arguments: ['up'] }, on_delete: { entrypoint: '/down' } }, git_commit_id: 'feed' } as ServiceSpec],
      `${ENV}/job.migrate`,
    );
    expect(r.attrs).toEqual({
      name: 'migrate',
      source: { docker: { git_repository: { url: 'https://github.com/acme/x.git', branch: 'release', root_path: '/srv', provider: 'GITHUB' }, dockerfile_path: 'Dockerfile.migrate' } },
      schedule: { on_start: { arguments: ['up'] }, on_delete: { entrypoint: '/down' } },
    });
    expect(r.deploy).toEqual({ git_commit_id: 'feed' });
    const unpinned = only([{ type: 'job', name: 'm', source: { git_repository: GIT }, schedule: { on_stop: {} } } as ServiceSpec], `${ENV}/job.m`);
    expect(unpinned.attrs.schedule).toEqual({ on_stop: {} });
    expect(unpinned.deploy).toBeUndefined();
  });

  it('helm from a repository: chart version as text, values override sorted, file wrapped as the API takes it', () => {
    const r = only(
      [{ type: 'helm', name: 'cache', timeout_sec: 900, auto_deploy: false, arguments: ['--wait'], allow_cluster_wide_resources: true, source: { helm_repository: { repository: 'bitnami', chart_name: 'redis', chart_version: 19 as unknown as string } }, values_override: { file: 'auth:\n  enabled: false\n', set: { 'z.key': '1', 'a.key': '2' }, set_string: { tag: '7.2' } }, git_commit_id: 'beef' } as unknown as ServiceSpec],
      `${ENV}/helm.cache`,
    );
    expect(r.attrs).toEqual({
      name: 'cache', timeout_sec: 900, auto_deploy: false, arguments: ['--wait'], allow_cluster_wide_resources: true,
      source: { helm_repository: { repository: 'bitnami', chart_name: 'redis', chart_version: '19' } },
      values_override: { set: [['a.key', '2'], ['z.key', '1']], set_string: [['tag', '7.2']], file: { raw: { values: [{ name: 'values.yaml', content: 'auth:\n  enabled: false\n' }] } } },
    });
    expect(r.deploy).toEqual({ git_commit_id: 'beef' });
  });

  it('helm from git: the chart path is the root path; an empty override owns nothing but itself', () => {
    const r = only([{ type: 'helm', name: 'ingress', source: { git_repository: { url: 'https://github.com/acme/charts.git' }, chart_path: '/charts/ingress' }, values_override: {} } as ServiceSpec], `${ENV}/helm.ingress`);
    expect(r.attrs).toEqual({ name: 'ingress', source: { git_repository: { url: 'https://github.com/acme/charts.git', root_path: '/charts/ingress' } }, values_override: {} });
    expect(r.deploy).toBeUndefined();
    const noPath = only([{ type: 'helm', name: 'plain', source: { git_repository: GIT } } as ServiceSpec], `${ENV}/helm.plain`);
    expect(noPath.attrs).toEqual({ name: 'plain', source: { git_repository: { url: 'https://github.com/acme/x.git', branch: 'release', root_path: '/srv', provider: 'GITHUB' } } });
  });

  it('terraform: sources, engine, provider version, variables sorted with the sensitive ones secret, resources, auto deploy, pin', () => {
    const r = only(
      [{
        type: 'terraform', name: 'network', description: 'VPC', git_repository: GIT, engine: 'OPEN_TOFU', provider_version: 1.8 as unknown as string, tf_var_file_paths: ['prod.tfvars'],
        tf_vars: { region: 'eu-west-3', token: 'tok-1', api_key: new SecretValue('key-2') }, sensitive_tf_vars: ['token'], timeout_sec: 3600,
        job_resources: { cpu_milli: 2000, ram_mib: 2048 }, auto_deploy: false, terraform_action: 'PLAN', git_commit_id: 'deadbeef',
      } as unknown as ServiceSpec],
      `${ENV}/terraform.network`,
    );
    expect(revealed(r.attrs)).toEqual({
      name: 'network', description: 'VPC',
      terraform_files_source: { git_repository: { url: 'https://github.com/acme/x.git', branch: 'release', root_path: '/srv', provider: 'GITHUB' } },
      engine: 'OPEN_TOFU',
      provider_version: { explicit_version: '1.8', read_from_terraform_block: false },
      terraform_variables_source: {
        tf_var_file_paths: ['prod.tfvars'],
        tf_vars: [
          { key: 'api_key', value: 'secret(key-2)', secret: true },
          { key: 'region', value: 'eu-west-3', secret: false },
          { key: 'token', value: 'secret(tok-1)', secret: true },
        ],
      },
      timeout_sec: 3600,
      job_resources: { cpu_milli: 2000, ram_mib: 2048 },
      auto_deploy_config: { auto_deploy: false, terraform_action: 'PLAN' },
    });
    expect(r.sensitiveFields).toEqual(['terraform_variables_source']);
    expect(r.deploy).toEqual({ git_commit_id: 'deadbeef' });
  });

  it('terraform without variables or auto-deploy settings owns none of them; only file paths is still a variables source', () => {
    const bare = only([{ type: 'terraform', name: 'bare', git_repository: GIT } as ServiceSpec], `${ENV}/terraform.bare`);
    expect(Object.keys(bare.attrs).sort()).toEqual(['name', 'terraform_files_source']);
    expect(bare.sensitiveFields ?? []).toEqual([]);
    expect(bare.deploy).toBeUndefined();
    const paths = only([{ type: 'terraform', name: 'paths', git_repository: GIT, tf_var_file_paths: ['a.tfvars'], terraform_action: 'NOOP' } as ServiceSpec], `${ENV}/terraform.paths`);
    expect(paths.attrs.terraform_variables_source).toEqual({ tf_var_file_paths: ['a.tfvars'] });
    expect(paths.attrs.auto_deploy_config).toEqual({ terraform_action: 'NOOP' });
    const plainVars = only([{ type: 'terraform', name: 'plain', git_repository: GIT, tf_vars: { a: '1' }, auto_deploy: true } as ServiceSpec], `${ENV}/terraform.plain`);
    expect(plainVars.attrs.terraform_variables_source).toEqual({ tf_vars: [{ key: 'a', value: '1', secret: false }] });
    expect(plainVars.sensitiveFields ?? []).toEqual([]);
    expect(plainVars.attrs.auto_deploy_config).toEqual({ auto_deploy: true });
  });

  it('terraform: a sensitive name that is not a variable is an unresolved reference, located and named', () => {
    const { diagnostics } = graphOf([{ type: 'terraform', name: 'net', git_repository: GIT, tf_vars: { region: 'eu' }, sensitive_tf_vars: ['tokn'] } as ServiceSpec]);
    expect(diagnostics.map((d) => [d.severity, d.code, d.summary, d.address])).toEqual([
      ['error', 'ref.unresolved', 'terraform net: sensitive_tf_vars names "tokn", which is not in tf_vars', `${ENV}/terraform.net`],
    ]);
    const none = graphOf([{ type: 'terraform', name: 'net', git_repository: GIT, sensitive_tf_vars: ['token'] } as ServiceSpec]).diagnostics;
    expect(none.map((d) => d.summary)).toEqual(['terraform net: sensitive_tf_vars names "token", which is not in tf_vars']);
  });
});
