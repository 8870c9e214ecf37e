/**
 * `ignore_changes:` field paths: what a user may write on each kind of object, and what each path
 * means in the desired attrs (src/graph/attrs.ts) and deploy pins.
 *
 * A path is written as the manifest spells the field (`tag`, `git_repository.branch`,
 * `schedule.cron.timezone`), through nested objects only. A list (`ports`, `storage`, `arguments`,
 * `events`) or a map of user-chosen keys (`tf_vars`, `annotations`, `values_override.set`) is one
 * field: it is ignored whole, never item by item (items have no stable name the path could use).
 * Children that are objects of their own (`variables`, `environments`, `services`,
 * `deployment_stages`) are not fields: each carries its own `ignore_changes`. Neither is an
 * object's identity (`name`, a variable's `key`, a webhook's `target_url`) nor a driftless setting
 * (`prune`, `deploy`, `type`).
 *
 * Shared by src/manifest (which refuses unknown paths, offline) and src/graph (which maps them onto
 * attrs): one table, so that a path validate accepts is always one the plan knows.
 */
import type { DeployPin, ResourceKind } from './resource.js';

export type { DeployPin } from './resource.js';

export interface IgnoreTarget {
  /** Attr paths (dot-separated) the manifest path sets. */
  attrs: string[];
  /** Deploy pins it sets. */
  pins?: DeployPin[];
}

type Table = Record<string, IgnoreTarget>;

const same = (...paths: string[]): Table => Object.fromEntries(paths.map((p) => [p, { attrs: [p] }]));
const renamed = (from: string, to: string, pins?: DeployPin[]): Table => ({ [from]: pins ? { attrs: [to], pins } : { attrs: [to] } });
const pinOnly = (pin: DeployPin): Table => ({ [pin]: { attrs: [], pins: [pin] } });

/** A git repository object written at `from` and kept at `to` in the attrs, with its sub-fields. */
function git(from: string, to: string): Table {
  const out: Table = { [from]: { attrs: [to] } };
  for (const f of ['url', 'branch', 'root_path', 'provider']) out[`${from}.${f}`] = { attrs: [`${to}.${f}`] };
  return out;
}

const serviceCommon: Table = {
  ...same('description', 'icon_uri'),
  ...renamed('annotation_groups', 'annotations_groups'),
  ...renamed('label_groups', 'labels_groups'),
};

const compute: Table = same(
  'cpu',
  'memory',
  'min_running_instances',
  'max_running_instances',
  'ports',
  'healthchecks',
  'healthchecks.readiness_probe',
  'healthchecks.liveness_probe',
  'storage',
  'arguments',
  'entrypoint',
  'auto_deploy',
);

function hook(name: string): Table {
  return same(`schedule.${name}`, `schedule.${name}.arguments`, `schedule.${name}.entrypoint`);
}

export const IGNORABLE_PATHS: Partial<Record<ResourceKind, Table>> = {
  organization: same('name', 'description', 'website_url', 'repository', 'logo_url', 'icon_url', 'admin_emails'),
  annotations_group: same('annotations', 'scopes'),
  labels_group: same('labels'),
  alert_receiver: same('description', 'send_resolved', 'owner', 'severity', 'webhook_url', 'to', 'from', 'smarthost', 'auth_username', 'auth_password', 'require_tls'),
  alert_rule: {
    ...same('description', 'tag', 'condition', 'condition.kind', 'condition.promql', 'condition.operator', 'condition.threshold', 'condition.function'),
    ...same('for_duration', 'severity', 'enabled', 'presentation', 'presentation.summary', 'presentation.runbook_url', 'target'),
    ...renamed('receivers', 'alert_receivers'),
  },
  webhook: {
    ...same('description', 'kind', 'events', 'enabled', 'project_names_filter', 'environment_types_filter'),
    ...renamed('secret', 'target_secret'),
  },
  project: same('description'),
  environment: same('mode', 'cluster'),
  deployment_stage: same('description', 'services'),
  variable: same('value', 'description', 'enable_interpolation_in_file'),
  application: {
    ...serviceCommon,
    ...compute,
    ...git('git_repository', 'git_repository'),
    ...same('build_mode', 'dockerfile_path'),
    ...pinOnly('git_commit_id'),
  },
  container: {
    ...serviceCommon,
    ...compute,
    ...same('registry', 'image_name'),
    ...renamed('tag', 'tag', ['image_tag']),
  },
  database: {
    ...serviceCommon,
    ...renamed('database_type', 'type'),
    ...same('version', 'mode', 'accessibility', 'cpu', 'memory', 'storage', 'instance_type', 'disk_type'),
  },
  job: {
    ...serviceCommon,
    ...same('cpu', 'memory', 'max_nb_restart', 'max_duration_seconds'),
    source: { attrs: ['source'], pins: ['image_tag'] },
    'source.image': { attrs: ['source.image'], pins: ['image_tag'] },
    ...same('source.image.registry', 'source.image.image_name'),
    'source.image.tag': { attrs: ['source.image.tag'], pins: ['image_tag'] },
    ...git('source.git_repository', 'source.docker.git_repository'),
    ...renamed('source.dockerfile_path', 'source.docker.dockerfile_path'),
    ...same('schedule'),
    ...renamed('schedule.cron', 'schedule.cronjob'),
    ...renamed('schedule.cron.scheduled_at', 'schedule.cronjob.scheduled_at'),
    ...renamed('schedule.cron.timezone', 'schedule.cronjob.timezone'),
    ...renamed('schedule.cron.arguments', 'schedule.cronjob.arguments'),
    ...renamed('schedule.cron.entrypoint', 'schedule.cronjob.entrypoint'),
    ...hook('on_start'),
    ...hook('on_stop'),
    ...hook('on_delete'),
    ...pinOnly('git_commit_id'),
  },
  helm: {
    ...serviceCommon,
    ...same('source', 'source.helm_repository', 'source.helm_repository.repository', 'source.helm_repository.chart_name', 'source.helm_repository.chart_version'),
    ...git('source.git_repository', 'source.git_repository'),
    ...renamed('source.chart_path', 'source.git_repository.root_path'),
    ...same('values_override', 'values_override.file', 'values_override.set', 'values_override.set_string'),
    ...same('arguments', 'timeout_sec', 'allow_cluster_wide_resources', 'auto_deploy'),
    ...pinOnly('git_commit_id'),
  },
  terraform: {
    ...serviceCommon,
    ...git('git_repository', 'terraform_files_source.git_repository'),
    ...same('engine', 'provider_version', 'timeout_sec', 'job_resources', 'job_resources.cpu_milli', 'job_resources.ram_mib', 'job_resources.storage_gib'),
    ...renamed('tf_var_file_paths', 'terraform_variables_source.tf_var_file_paths'),
    ...renamed('tf_vars', 'terraform_variables_source.tf_vars'),
    ...renamed('auto_deploy', 'auto_deploy_config.auto_deploy'),
    ...renamed('terraform_action', 'auto_deploy_config.terraform_action'),
    ...pinOnly('git_commit_id'),
  },
};

/** Attrs that name an object: never ignored, even by `ignore_changes: all`. */
export const IDENTITY_ATTRS: ReadonlySet<string> = new Set(['name', 'key', 'target_url']);

/** The paths `ignore_changes` accepts on an object of this kind (empty: the kind has none). */
export function ignorablePaths(kind: ResourceKind): string[] {
  return Object.keys(IGNORABLE_PATHS[kind] ?? {});
}
