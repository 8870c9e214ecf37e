/**
 * Desired attrs of the six service kinds, in the API's request-body shapes (see ./attrs.ts).
 */
import { error } from '../diag/diagnostic.js';
import type {
  ApplicationSpec,
  ContainerSpec,
  DatabaseSpec,
  GitRepositorySpec,
  HelmSpec,
  JobSpec,
  ServiceSpec,
  TerraformSpec,
} from '../manifest/types.js';
import { sourceOf } from '../manifest/types.js';
import type { Address, DesiredResource } from '../model/resource.js';
import { addressOf, parseAddress } from '../model/resource.js';
import { compact, desc, keyValuePairs, normalizeGitRepository, normalizeHealthchecks, normalizePorts, normalizeStorage, num, put, sortedSet } from './attrs.js';
import { checkDescription, secret, type GraphBuilder } from './builder.js';

export interface ServiceBuild {
  attrs: Record<string, unknown>;
  dependsOn: Address[];
  sensitiveFields: string[];
  deploy?: DesiredResource['deploy'];
  /** `deploy: false` in the manifest (DesiredResource.noDeploy). */
  noDeploy?: true;
  cloneFrom?: Address;
}

export function serviceAttrs(s: ServiceSpec, env: Address, b: GraphBuilder): ServiceBuild {
  const out: ServiceBuild = { attrs: { name: s.name }, dependsOn: [], sensitiveFields: [] };
  const a = out.attrs;
  if (s.description !== undefined) a.description = desc(s.description);
  put(a, 'icon_uri', s.icon_uri);
  if (s.deploy === false) out.noDeploy = true;
  if (s.annotation_groups) {
    a.annotations_groups = sortedSet(s.annotation_groups);
    for (const g of a.annotations_groups as string[]) depend(b, out, addressOf('annotations_group', g));
  }
  if (s.label_groups) {
    a.labels_groups = sortedSet(s.label_groups);
    for (const g of a.labels_groups as string[]) depend(b, out, addressOf('labels_group', g));
  }
  switch (s.type) {
    case 'application':
      application(s, out);
      break;
    case 'container':
      container(s, out);
      break;
    case 'database':
      database(s, env, b, out);
      break;
    case 'job':
      job(s, out);
      break;
    case 'helm':
      helm(s, out);
      break;
    case 'terraform':
      terraform(s, env, b, out);
      break;
  }
  return out;
}

/** Depend on a declared resource (undeclared groups are checked by the manifest validator). */
function depend(b: GraphBuilder, out: ServiceBuild, address: Address): void {
  if (b.resources.has(address)) out.dependsOn.push(address);
}

function git(g: GitRepositorySpec): Record<string, unknown> {
  return normalizeGitRepository(g as unknown as Record<string, unknown>);
}

function compute(s: ApplicationSpec | ContainerSpec, a: Record<string, unknown>): void {
  put(a, 'cpu', num(s.cpu));
  put(a, 'memory', num(s.memory));
  put(a, 'min_running_instances', num(s.min_running_instances));
  put(a, 'max_running_instances', num(s.max_running_instances));
  if (s.ports) a.ports = normalizePorts(s.ports as unknown as Array<Record<string, unknown>>);
  // Declaring healthchecks owns both probes (one left out is none); without the key the live ones stay.
  if (s.healthchecks) a.healthchecks = normalizeHealthchecks(s.healthchecks);
  if (s.storage) a.storage = normalizeStorage(s.storage as unknown as Array<Record<string, unknown>>);
  put(a, 'arguments', s.arguments ? [...s.arguments] : undefined);
  put(a, 'entrypoint', s.entrypoint);
  put(a, 'auto_deploy', s.auto_deploy);
}

function application(s: ApplicationSpec, out: ServiceBuild): void {
  const a = out.attrs;
  a.git_repository = git(s.git_repository);
  put(a, 'build_mode', s.build_mode);
  put(a, 'dockerfile_path', s.dockerfile_path);
  compute(s, a);
  if (s.git_commit_id !== undefined) out.deploy = { git_commit_id: s.git_commit_id };
}

function container(s: ContainerSpec, out: ServiceBuild): void {
  const a = out.attrs;
  a.registry = s.registry;
  a.image_name = s.image_name;
  a.tag = String(s.tag);
  compute(s, a);
  out.deploy = { image_tag: String(s.tag) };
}

function database(s: DatabaseSpec, env: Address, b: GraphBuilder, out: ServiceBuild): void {
  const a = out.attrs;
  a.type = s.database_type;
  a.version = String(s.version);
  a.mode = s.mode;
  put(a, 'accessibility', s.accessibility);
  put(a, 'cpu', num(s.cpu));
  put(a, 'memory', num(s.memory));
  put(a, 'storage', num(s.storage));
  put(a, 'instance_type', s.instance_type);
  put(a, 'disk_type', s.disk_type);
  if (s.clone_from) {
    const segs = parseAddress(env);
    const project = s.clone_from.project ?? segs[0]!.name!;
    const environment = s.clone_from.environment ?? segs[1]!.name!;
    const source = addressOf('database', s.clone_from.database, addressOf('environment', environment, addressOf('project', project)));
    out.cloneFrom = source;
    if (b.resources.has(source)) out.dependsOn.push(source);
    // A source declared later in the manifest is linked in resolveCloneSources (after the walk).
    else b.pendingClones.push({ address: addressOf('database', s.name, env), source, range: sourceOf(s, 'clone_from') });
  }
}

function job(s: JobSpec, out: ServiceBuild): void {
  const a = out.attrs;
  put(a, 'cpu', num(s.cpu));
  put(a, 'memory', num(s.memory));
  put(a, 'max_nb_restart', num(s.max_nb_restart));
  put(a, 'max_duration_seconds', num(s.max_duration_seconds));
  put(a, 'auto_deploy', (s as { auto_deploy?: boolean }).auto_deploy);
  const deploy: NonNullable<ServiceBuild['deploy']> = {};
  if ('image' in s.source) {
    const i = s.source.image;
    a.source = { image: { registry: i.registry, image_name: i.image_name, tag: String(i.tag) } };
    deploy.image_tag = String(i.tag);
  } else {
    a.source = { docker: compact({ git_repository: git(s.source.git_repository), dockerfile_path: s.source.dockerfile_path }) };
  }
  if ('cron' in s.schedule) {
    const c = s.schedule.cron;
    a.schedule = {
      cronjob: compact({
        scheduled_at: c.scheduled_at,
        timezone: c.timezone,
        arguments: c.arguments ? [...c.arguments] : undefined,
        entrypoint: c.entrypoint,
      }),
    };
  } else {
    const sched: Record<string, unknown> = {};
    for (const k of ['on_start', 'on_stop', 'on_delete'] as const) {
      const h = (s.schedule as Record<string, { arguments?: string[]; entrypoint?: string } | undefined>)[k];
      if (h) sched[k] = compact({ arguments: h.arguments ? [...h.arguments] : undefined, entrypoint: h.entrypoint });
    }
    a.schedule = sched;
  }
  if (s.git_commit_id !== undefined) deploy.git_commit_id = s.git_commit_id;
  if (deploy.git_commit_id !== undefined || deploy.image_tag !== undefined) out.deploy = deploy;
}

function helm(s: HelmSpec, out: ServiceBuild): void {
  const a = out.attrs;
  put(a, 'timeout_sec', num(s.timeout_sec));
  put(a, 'auto_deploy', s.auto_deploy);
  put(a, 'arguments', s.arguments ? [...s.arguments] : undefined);
  put(a, 'allow_cluster_wide_resources', s.allow_cluster_wide_resources);
  if ('helm_repository' in s.source) {
    const h = s.source.helm_repository;
    a.source = { helm_repository: { repository: h.repository, chart_name: h.chart_name, chart_version: String(h.chart_version) } };
  } else {
    const g = git(s.source.git_repository);
    if (s.source.chart_path !== undefined) g.root_path = s.source.chart_path;
    a.source = { git_repository: g };
  }
  if (s.values_override) {
    const v = s.values_override;
    const vo: Record<string, unknown> = {};
    if (v.set) vo.set = keyValuePairs(v.set);
    if (v.set_string) vo.set_string = keyValuePairs(v.set_string);
    if (v.file !== undefined) vo.file = { raw: { values: [{ name: 'values.yaml', content: v.file }] } };
    a.values_override = vo;
  }
  if (s.git_commit_id !== undefined) out.deploy = { git_commit_id: s.git_commit_id };
}

function terraform(s: TerraformSpec, env: Address, b: GraphBuilder, out: ServiceBuild): void {
  const a = out.attrs;
  a.terraform_files_source = { git_repository: git(s.git_repository) };
  put(a, 'engine', s.engine);
  if (s.provider_version !== undefined) a.provider_version = { explicit_version: String(s.provider_version), read_from_terraform_block: false };
  const sensitiveNames = new Set(s.sensitive_tf_vars ?? []);
  if (s.tf_vars !== undefined || s.tf_var_file_paths !== undefined) {
    const vs: Record<string, unknown> = {};
    if (s.tf_var_file_paths) vs.tf_var_file_paths = [...s.tf_var_file_paths];
    if (s.tf_vars) {
      vs.tf_vars = Object.keys(s.tf_vars)
        .sort()
        .map((key) => {
          const v = s.tf_vars![key]!;
          const isSecret = sensitiveNames.has(key) || typeof v !== 'string';
          return { key, value: isSecret ? secret(v) : v, secret: isSecret };
        });
      if ((vs.tf_vars as Array<{ secret: boolean }>).some((t) => t.secret)) out.sensitiveFields.push('terraform_variables_source');
    }
    a.terraform_variables_source = vs;
  }
  put(a, 'timeout_sec', num(s.timeout_sec));
  if (s.job_resources) a.job_resources = compact({ ...s.job_resources });
  if (s.auto_deploy !== undefined || s.terraform_action !== undefined)
    a.auto_deploy_config = compact({ auto_deploy: s.auto_deploy, terraform_action: s.terraform_action });
  if (s.git_commit_id !== undefined) out.deploy = { git_commit_id: s.git_commit_id };
  const address = addressOf('terraform', s.name, env);
  if (s.description !== undefined) checkDescription(b, s.description, out.sensitiveFields.length ? secretTfVarFields(a) : [], address, sourceOf(s, 'description'));
  for (const name of sensitiveNames)
    if (!s.tf_vars || !(name in s.tf_vars))
      b.diagnostics.push(
        error('ref.unresolved', `terraform ${s.name}: sensitive_tf_vars names "${name}", which is not in tf_vars`, {
          address,
          range: sourceOf(s, 'sensitive_tf_vars'),
        }),
      );
}

/** Fingerprint field names of the secret tf_vars: `tf_vars.KEY`. */
export function secretTfVarFields(a: Record<string, unknown>): string[] {
  const vs = a.terraform_variables_source as { tf_vars?: Array<{ key: string; secret: boolean }> } | undefined;
  return (vs?.tf_vars ?? []).filter((t) => t.secret).map((t) => `tf_vars.${t.key}`);
}
