/**
 * The attrs of each resource kind: the one shape that desired (src/graph/build.ts) and live
 * (src/live/normalize.ts) resources share, so that computePlan compares like with like.
 *
 * Rules common to every kind:
 * - Field names are the API's request-body names; nested objects keep the request-body shape.
 * - References are by NAME, never by id (apply resolves names to ids through `Plan.live_objects`
 *   or the records it creates). Set-like lists of names are sorted.
 * - Numbers are numbers; an empty description is `null`.
 * - Desired attrs hold only the fields the manifest sets (a field the manifest omits is not owned
 *   and never diffs; a nested object owns only the sub-fields it sets). Live attrs hold everything
 *   the normaliser knows; computePlan projects them onto the desired ones.
 * - Secret / write-only values are `SecretValue`s on the desired side and absent on the live side;
 *   they are compared through fingerprints (src/plan/fingerprint.ts) kept in the `description`
 *   marker. `sensitiveFields` lists them; `immutableFields` lists fields that force a replace.
 *
 * Per kind (address; attrs; request it maps to):
 *
 * organization (`organization`): name, description, website_url, repository, logo_url, icon_url,
 *   admin_emails (sorted). Update = PUT /organization/{id} (name is required: take it from the record).
 *
 * cluster (`cluster.NAME`): read-only except the upgrade. Desired attrs: { upgrade_kubernetes: true }
 *   only when asked. Live attrs: { kubernetes_version, next_k8s_available_version (string|null),
 *   upgrade_kubernetes: true when no newer version is available }. A change of upgrade_kubernetes
 *   false -> true = POST /cluster/{id}/upgrade. Clusters are never created, deleted or unmanaged.
 *
 * container_registry (`container_registry.NAME`): live only, for name -> id resolution.
 * helm_repository (`helm_repository.NAME`): live only (read when the manifest has helm services),
 *   for name -> id resolution of a helm source; attrs name, kind, url.
 *
 * annotations_group (`annotations_group.NAME`): name, annotations [{key, value}] sorted by key,
 *   scopes (sorted). Create/PUT body as is.
 * labels_group (`labels_group.NAME`): name, labels [{key, value, propagate_to_cloud_provider}] sorted
 *   by key (propagate defaults to false, explicit). Create/PUT body as is.
 *
 * alert_receiver (`alert_receiver.NAME`): name, type, description, send_resolved, owner, severity;
 *   SLACK: webhook_url (sensitive); EMAIL: to, from, smarthost, auth_username, auth_password
 *   (sensitive), require_tls. Write the description with `withFingerprintMarker`.
 *
 * alert_rule (`alert_rule.NAME`): name, description, tag, condition {kind, promql, operator,
 *   threshold, function}, for_duration, severity, enabled, presentation {summary, runbook_url},
 *   alert_receivers [receiver names, sorted] (-> alert_receiver_ids), target (immutable):
 *   { cluster: NAME } or { project, environment, service } (names; -> target {target_type,
 *   target_id} and cluster_id: the target cluster, or the cluster of the service's environment).
 *
 * webhook (`webhook.TARGET_URL`): target_url, kind, description, events (sorted), enabled,
 *   target_secret (sensitive), project_names_filter (sorted), environment_types_filter (sorted).
 *   PUT replaces the whole object.
 *
 * project (`project.P`): name, description.
 *
 * environment (`project.P/environment.E`): name, mode, cluster (NAME; immutable: -> cluster_id on create).
 *
 * deployment_stage (`.../environment.E/deployment_stage.S`): name, description,
 *   services [service names of the environment, sorted] (-> PUT /deploymentStage/{id}/service/{sid}
 *   for each), after (name of the stage just before it in the manifest; absent for the first;
 *   -> PUT /deploymentStage/{id}/moveAfter/{afterId}). Live `after` is computed by computePlan from
 *   `deployment_order` among the stages the manifest manages, and live `services` is restricted to
 *   the services the manifest manages in that environment.
 *
 * Services (`.../environment.E/<kind>.NAME`), all: name, description, icon_uri,
 *   annotations_groups, labels_groups ([names], sorted; -> [{id}]).
 *   application: git_repository {url, branch, root_path, provider}, build_mode, dockerfile_path,
 *     cpu, memory, min_running_instances, max_running_instances, ports, healthchecks, storage,
 *     arguments, entrypoint, auto_deploy. Deploy pin: git_commit_id (DesiredResource.deploy).
 *   ports: [{name, internal_port, external_port, protocol, publicly_accessible}] sorted by
 *     internal_port (PUT: match live ports by internal_port to keep their ids).
 *   healthchecks (application, container): {readiness_probe, liveness_probe}, each null (none) or
 *     {type: {tcp: {port, host|null}} | {http: {path, scheme, port}} | {exec: {command}} |
 *     {grpc: {port, service|null}}, initial_delay_seconds, period_seconds, timeout_seconds,
 *     success_threshold, failure_threshold}, the API's defaults filled in (normalizeHealthchecks).
 *     Declaring the key owns both probes (one left out is none); without it the live ones stay.
 *   storage (application, container): [{type, size (GB), mount_point}] sorted by mount_point
 *     (PUT: match live storage by mount_point to keep their ids).
 *   container: registry (NAME -> registry_id), image_name, tag, cpu, memory, min/max_running_instances,
 *     ports, healthchecks, storage, arguments, entrypoint, auto_deploy. Deploy pin: image_tag = tag.
 *   database: type, version (string), mode, accessibility, cpu, memory, storage, instance_type,
 *     disk_type. Immutable: type, mode. `DesiredResource.cloneFrom`: create via POST /database/{src}/clone.
 *   job: cpu, memory, max_nb_restart, max_duration_seconds, auto_deploy,
 *     source { image: {registry (NAME), image_name, tag} } | { docker: {git_repository, dockerfile_path} },
 *     schedule { cronjob: {scheduled_at, timezone, arguments, entrypoint} } | { on_start, on_stop,
 *     on_delete: {arguments, entrypoint} }. Deploy pins: git_commit_id, image_tag = source.image.tag.
 *   helm: timeout_sec, auto_deploy, arguments, allow_cluster_wide_resources,
 *     source { helm_repository: {repository (NAME of a helm_repository -> id), chart_name, chart_version} } | { git_repository:
 *     {url, branch, root_path (= chart_path), provider} },
 *     values_override { set: [[k, v]] sorted, set_string: [[k, v]] sorted,
 *     file: { raw: { values: [{name: 'values.yaml', content}] } } }. Deploy pin: git_commit_id.
 *   terraform: terraform_files_source {git_repository}, engine, provider_version {explicit_version,
 *     read_from_terraform_block: false}, terraform_variables_source {tf_var_file_paths,
 *     tf_vars [{key, value, secret}] sorted by key (value a SecretValue when secret: sensitive field
 *     `tf_vars`)}, timeout_sec, job_resources {cpu_milli, ram_mib, storage_gib},
 *     auto_deploy_config {auto_deploy, terraform_action}. Deploy pin: git_commit_id.
 *
 * variable (`<scope address>/variable.KEY`, scope = project, environment or service): key,
 *   variable_type VALUE|FILE|ALIAS|OVERRIDE|EXTERNAL_SECRET, is_secret, value (string, or SecretValue
 *   when is_secret: sensitive field `value`; absent for ALIAS and EXTERNAL_SECRET), mount_path (FILE),
 *   description, enable_interpolation_in_file, aliased_key + aliased_scope (ALIAS: the key it points
 *   to and the scope that declares it: PROJECT | ENVIRONMENT | BUILT_IN), aliased_service +
 *   aliased_builtin (ALIAS of a service's built-in by name, `alias: {service, builtin}`: no
 *   aliased_key, whose hash differs per environment; live aliases of a `QOVERY_<KIND>_Z<HASH>_*` key
 *   of a service of their environment carry both too), overridden_scope (OVERRIDE),
 *   secret_manager_access_id + reference (EXTERNAL_SECRET).
 *   Immutable (replace): is_secret, variable_type, mount_path, aliased_key, aliased_scope,
 *   aliased_service, aliased_builtin, overridden_scope. Requests: POST /variable {key, value, mount_path, is_secret, variable_scope,
 *   variable_parent_id, description (with marker when secret), enable_interpolation_in_file};
 *   ALIAS: POST /variable/{targetId}/alias {key, alias_scope, alias_parent_id};
 *   OVERRIDE: POST /variable/{targetId}/override {value, override_scope, override_parent_id};
 *   update: PUT /variable/{id} {key, value, description, enable_interpolation_in_file}.
 */
import { PART_DEFAULTS } from '../export/part-defaults.js';

/**
 * Fields whose change never requires a redeploy of the service (metadata only). `name`: a rename
 * (`moved`) changes what the API and the console call the object, not what runs (the platform's
 * workloads are named by id), so it deploys nothing by itself. `protect`: its mark is written into
 * the description (src/plan/protect-mark.ts).
 */
export const NON_DEPLOY_FIELDS: ReadonlySet<string> = new Set(['description', 'icon_uri', 'name', 'protect']);

/** Sorted copy of a list of names (set-like lists). */
export function sortedSet(list: readonly string[]): string[] {
  return [...new Set(list)].sort();
}

/** A number from a number or a numeric string (YAML and some API fields give strings). */
export function num(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return undefined;
}

/** Description convention: '' and missing are the same (null). */
export function desc(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Sets `key` only when `value` is defined: what the manifest omits is not owned. */
export function put(attrs: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) attrs[key] = value;
}

/** Drops undefined members, so that optional sub-fields the manifest omits are not owned. */
export function compact<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as Partial<T>;
}

export interface PortAttrs {
  name?: string;
  internal_port: number;
  external_port?: number;
  protocol?: string;
  publicly_accessible?: boolean;
}

export function normalizePorts(ports: ReadonlyArray<Record<string, unknown>>): PortAttrs[] {
  return ports
    .map(
      (p) =>
        compact({
          name: typeof p.name === 'string' ? p.name : undefined,
          internal_port: num(p.internal_port),
          external_port: num(p.external_port ?? undefined),
          protocol: typeof p.protocol === 'string' ? p.protocol.toUpperCase() : undefined,
          publicly_accessible: typeof p.publicly_accessible === 'boolean' ? p.publicly_accessible : undefined,
        }) as PortAttrs,
    )
    .sort((a, b) => a.internal_port - b.internal_port);
}

/**
 * The API's probe defaults (OpenAPI `Probe`), filled in on both sides so a probe is owned whole:
 * the schema's, kept in one table with the other parts' (src/export/part-defaults.ts).
 */
export const PROBE_DEFAULTS = PART_DEFAULTS.probe;
export const PROBE_TYPES = ['tcp', 'http', 'exec', 'grpc'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function probeType(kind: (typeof PROBE_TYPES)[number], t: Record<string, unknown>): Record<string, unknown> {
  switch (kind) {
    case 'tcp':
      return compact({ port: num(t.port), host: strOrNull(t.host) });
    case 'http':
      return compact({ path: typeof t.path === 'string' && t.path !== '' ? t.path : PART_DEFAULTS.probe_http.path, scheme: typeof t.scheme === 'string' ? t.scheme.toUpperCase() : PART_DEFAULTS.probe_http.scheme, port: num(t.port) });
    case 'exec':
      return { command: Array.isArray(t.command) ? t.command.map(String) : [] };
    case 'grpc':
      return compact({ port: num(t.port), service: strOrNull(t.service) });
  }
}

/**
 * A probe (manifest or API record) in one shape: `type` holds the one probe kind set (the API may
 * return the others as null), optional members at their API default; null when there is no probe.
 */
export function normalizeProbe(p: unknown): Record<string, unknown> | null {
  if (!isRecord(p)) return null;
  const t = isRecord(p.type) ? p.type : {};
  const kind = PROBE_TYPES.find((k) => isRecord(t[k]));
  return {
    type: kind ? { [kind]: probeType(kind, t[kind] as Record<string, unknown>) } : {},
    initial_delay_seconds: num(p.initial_delay_seconds) ?? PROBE_DEFAULTS.initial_delay_seconds,
    period_seconds: num(p.period_seconds) ?? PROBE_DEFAULTS.period_seconds,
    timeout_seconds: num(p.timeout_seconds) ?? PROBE_DEFAULTS.timeout_seconds,
    success_threshold: num(p.success_threshold) ?? PROBE_DEFAULTS.success_threshold,
    failure_threshold: num(p.failure_threshold) ?? PROBE_DEFAULTS.failure_threshold,
  };
}

/** Both probes, each null when not set: the healthchecks a manifest declares or a record has. */
export function normalizeHealthchecks(h: unknown): { readiness_probe: Record<string, unknown> | null; liveness_probe: Record<string, unknown> | null } {
  const r = isRecord(h) ? h : {};
  return { readiness_probe: normalizeProbe(r.readiness_probe), liveness_probe: normalizeProbe(r.liveness_probe) };
}

export interface StorageAttrs {
  type: string;
  size?: number;
  mount_point: string;
}

/** Persistent storage without ids, type defaulting to the schema's (FAST_SSD), sorted by mount_point. */
export function normalizeStorage(list: ReadonlyArray<Record<string, unknown>>): StorageAttrs[] {
  return list
    .map((s) => compact({ type: typeof s.type === 'string' ? s.type : PART_DEFAULTS.storage_volume.type, size: num(s.size), mount_point: String(s.mount_point ?? '') }) as StorageAttrs)
    .sort((a, b) => (a.mount_point < b.mount_point ? -1 : a.mount_point > b.mount_point ? 1 : 0));
}

export function normalizeGitRepository(g: Record<string, unknown>): Record<string, unknown> {
  return compact({
    url: typeof g.url === 'string' ? g.url : undefined,
    branch: typeof g.branch === 'string' ? g.branch : undefined,
    root_path: typeof g.root_path === 'string' ? g.root_path : undefined,
    provider: typeof g.provider === 'string' ? g.provider : undefined,
  });
}

/** Helm --set pairs as the API's [[key, value]] list, sorted by key. */
export function keyValuePairs(rec: Record<string, string>): string[][] {
  return Object.keys(rec)
    .sort()
    .map((k) => [k, String(rec[k])]);
}
