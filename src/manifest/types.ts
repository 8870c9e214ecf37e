/**
 * The manifest as users write it, after `${env:}` / `${file:}` resolution (secret fields are then
 * SecretValues). Defaults are NOT filled in: a field the user omitted stays absent, because the
 * manifest owns only what it says (DESIGN principle 2); the schema documents each default the API
 * applies. Loaded by `loadManifest` (src/manifest/load.ts).
 *
 * This is the contract between src/manifest (which loads, validates and resolves it; the JSON
 * schema in schemas/manifest.schema.json must describe exactly this shape) and src/graph (which
 * turns it into desired resources). Field names follow the API's own names where the API has one,
 * so that a platform engineer who knows the API or the Terraform provider recognises them; the
 * manifest refers to other objects by name, never by UUID.
 *
 * Every object loaded from YAML carries a hidden `[SOURCE]` entry (see `sourceOf`) with the file
 * and line/column where it was written, so that later stages can point diagnostics at it.
 */
import type { SecretValue } from '../model/secret.js';
import type { SourceRange } from '../diag/diagnostic.js';
import type { ManifestScope } from '../model/resource.js';

export const SOURCE: unique symbol = Symbol('driftless.source');

export interface Located {
  /** Where this object was declared. Non-enumerable: never serialised. */
  [SOURCE]?: SourceRange;
  /** Where each of its keys was declared (key -> range of the value). */
  [FIELD_SOURCES]?: Record<string, SourceRange>;
}
export const FIELD_SOURCES: unique symbol = Symbol('driftless.fieldSources');

export function sourceOf(obj: unknown, field?: string): SourceRange | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const o = obj as Located;
  if (field !== undefined) return o[FIELD_SOURCES]?.[field] ?? o[SOURCE];
  return o[SOURCE];
}

/** A value that may be secret: plain text, or a SecretValue when it came from `${env:}`/`${file:}` of a secret. */
export type MaybeSecret = string | SecretValue;

export interface Manifest extends Located {
  /** Manifest format version. Always 1 for now. */
  version: 1;
  /** Editable settings of the organization the token belongs to. Omitted = not managed. */
  organization?: OrganizationSpec;
  /** Existing clusters (clusters are not created through the API): upgrade requests only. */
  clusters?: ClusterSpec[];
  annotation_groups?: AnnotationGroupSpec[];
  label_groups?: LabelGroupSpec[];
  alert_receivers?: AlertReceiverSpec[];
  alert_rules?: AlertRuleSpec[];
  webhooks?: WebhookSpec[];
  projects?: ProjectSpec[];
  /** Organization-level pruning: delete live objects of these kinds that the manifest does not declare. */
  prune?: PruneSpec;
  /**
   * How much of the organization this manifest owns: what plan and drift report as unmanaged
   * outside the projects it declares. Omitted: `kinds`. See ManifestScope.
   */
  scope?: ManifestScope;
  /**
   * Renames in place (Terraform's `moved` blocks): the live object at `from` becomes the declared
   * object at `to`, keeping its id. Applied by computePlan's live matching (src/plan/moved.ts).
   */
  moved?: MovedSpec[];
}

/** One rename: driftless addresses as plan prints them (`project.shop/environment.staging/application.api`). */
export interface MovedSpec extends Located {
  /** The address the object has live (its old address). */
  from: string;
  /** The address the manifest declares it at now. */
  to: string;
}

/**
 * `ignore_changes:` on an object: field paths as the manifest spells them (src/model/ignore-paths.ts
 * lists them per kind), or `all`. Those fields are written when the object is created and never
 * compared or written afterwards.
 */
export type IgnoreChangesSpec = string[] | 'all';

export interface IgnoresChanges {
  ignore_changes?: IgnoreChangesSpec;
}

export interface PruneSpec extends Located {
  projects?: boolean;
  annotation_groups?: boolean;
  label_groups?: boolean;
  alert_receivers?: boolean;
  alert_rules?: boolean;
  webhooks?: boolean;
  /** On a project: its environments. */
  environments?: boolean;
  /** On an environment: its services and deployment stages. */
  services?: boolean;
  deployment_stages?: boolean;
  /** On a project, an environment or a service (not a database): variables and secrets of that scope. */
  variables?: boolean;
}

export interface OrganizationSpec extends Located, IgnoresChanges {
  name?: string;
  description?: string;
  website_url?: string;
  repository?: string;
  logo_url?: string;
  icon_url?: string;
  admin_emails?: string[];
}

export interface ClusterSpec extends Located {
  /** Name of an existing cluster of the organization. */
  name: string;
  /** true: upgrade to the cluster's `next_k8s_available_version` when one is available. */
  upgrade_kubernetes?: boolean;
}

export interface AnnotationGroupSpec extends Located, IgnoresChanges {
  name: string;
  /** key -> value */
  annotations: Record<string, string>;
  scopes: string[];
}

export interface LabelGroupSpec extends Located, IgnoresChanges {
  name: string;
  labels: Array<{ key: string; value: string; propagate_to_cloud_provider?: boolean } & Located>;
}

export interface AlertReceiverSpec extends Located, IgnoresChanges {
  name: string;
  type: 'SLACK' | 'EMAIL';
  description?: string;
  send_resolved?: boolean;
  owner?: string;
  severity?: string;
  /** SLACK: write-only in the API, usually `${env:...}`. */
  webhook_url?: MaybeSecret;
  /** EMAIL fields. */
  to?: string;
  from?: string;
  smarthost?: string;
  auth_username?: string;
  auth_password?: MaybeSecret;
  require_tls?: boolean;
}

export interface AlertRuleSpec extends Located, IgnoresChanges {
  name: string;
  description?: string;
  tag?: string;
  /** What the rule watches: a cluster by name, or a service by project/environment/name. */
  target: { cluster: string } | { project: string; environment: string; service: string };
  condition: {
    kind?: string;
    promql: string;
    operator?: string;
    threshold?: number;
    function?: string;
  };
  for_duration?: string;
  severity: 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
  enabled?: boolean;
  /** Receiver names (at least one). */
  receivers: string[];
  presentation?: { summary?: string; runbook_url?: string };
}

export interface WebhookSpec extends Located, IgnoresChanges {
  /** Identity of a webhook: the API gives webhooks no name. */
  target_url: string;
  description?: string;
  kind?: 'STANDARD' | 'SLACK';
  events: string[];
  enabled?: boolean;
  /** HMAC signing secret (write-only in the API). */
  secret?: MaybeSecret;
  project_names_filter?: string[];
  environment_types_filter?: string[];
}

/**
 * `protect: true` (Terraform's `prevent_destroy`) on a project, an environment or a service:
 * driftless never deletes or replaces it, whatever the flags (src/plan/protect.ts).
 */
export interface Protectable {
  protect?: boolean;
}

export interface ProjectSpec extends Located, IgnoresChanges, Protectable {
  name: string;
  description?: string;
  variables?: VariableSpec[];
  /** Environment templates, as written. Expanded away by the loader (templates.ts): never present after loading. */
  templates?: EnvironmentTemplateSpec[];
  environments?: EnvironmentSpec[];
  prune?: PruneSpec;
  /**
   * Preview environments (one per pull request), made from a template by `driftless preview up`.
   * Kept after loading (unlike `templates`): plan and drift leave the environments that match its
   * `name` alone (src/manifest/previews.ts).
   */
  previews?: PreviewSpec;
}

/** `previews:` of a project: how `driftless preview` makes the environment of pull request N. */
export interface PreviewSpec extends Located {
  /** A template of the project. */
  template: string;
  /** The environment's name, with `{number}` where the pull request number goes (`pr-{number}`). */
  name: string;
  cluster: string;
  /** A duration (`72h`, `7d`): `preview prune` deletes older previews. */
  ttl?: string;
  /** A preview's databases may be deleted with it. */
  allow_data_loss?: boolean;
  /** As an environment's `overrides`. */
  overrides?: EnvironmentSpec['overrides'];
}

/** Variables, stages and services written once, instantiated by every environment that names the template. */
export interface EnvironmentTemplateSpec extends Located {
  name: string;
  description?: string;
  variables?: VariableSpec[];
  deployment_stages?: DeploymentStageSpec[];
  services?: ServiceSpec[];
}

/** Any field of a service except `type` and `name`; lists of variables, ports and storage merge by key. */
export type ServiceOverrideSpec = Located & Record<string, unknown>;

export interface EnvironmentSpec extends Located, IgnoresChanges, Protectable {
  name: string;
  mode?: 'DEVELOPMENT' | 'STAGING' | 'PRODUCTION';
  /** Cluster name. Immutable once the environment exists (a change is a replace). */
  cluster: string;
  /** The following three are as written; the loader expands them into the fields below and removes them. */
  /** Name of a template of the project to instantiate here. */
  template?: string;
  /** What this environment changes in its template: services by name, environment variables by key. */
  overrides?: { services?: Record<string, ServiceOverrideSpec>; variables?: Array<Partial<VariableSpec> & { key: string }> } & Located;
  /** Template services this environment leaves out. */
  exclude_services?: string[];
  variables?: VariableSpec[];
  /** In deployment order. A service listed in no stage stays in the environment's default stage. */
  deployment_stages?: DeploymentStageSpec[];
  services?: ServiceSpec[];
  prune?: PruneSpec;
}

export interface DeploymentStageSpec extends Located, IgnoresChanges {
  name: string;
  description?: string;
  /** Service names of this environment. */
  services?: string[];
}

/**
 * A variable or secret at project, environment or service scope. Exactly one of `value`, `alias`,
 * `external_secret` is set; `override: true` turns a `value` into an override of the same key
 * declared at a higher scope.
 */
export interface VariableSpec extends Located, IgnoresChanges {
  key: string;
  value?: MaybeSecret;
  /**
   * Key of a higher-scope variable (or a `QOVERY_*` built-in) this one is an alias of, or a
   * built-in of a service of the same environment by name (the key is found on the platform).
   */
  alias?: string | BuiltInAliasSpec;
  /** This entry overrides the same key declared at a higher scope. */
  override?: boolean;
  secret?: boolean;
  /** Makes it a file variable mounted at this path. */
  mount_path?: string;
  description?: string;
  enable_interpolation_in_file?: boolean;
  /** EXTERNAL_SECRET: the secret manager access the value is read from. */
  external_secret?: { secret_manager_access_id: string; reference?: string };
}

/** `alias: {service: pg, builtin: DATABASE_URL_INTERNAL}`: a built-in of a service of the same environment. */
export interface BuiltInAliasSpec extends Located {
  /** A service of the variable's environment. */
  service: string;
  /** The part of the built-in's key after the service's hash (src/model/builtins.ts). */
  builtin: string;
}

export type ServiceSpec =
  | ApplicationSpec
  | ContainerSpec
  | DatabaseSpec
  | JobSpec
  | HelmSpec
  | TerraformSpec;

interface ServiceCommon extends Located, IgnoresChanges, Protectable {
  name: string;
  description?: string;
  /** Annotation / label group names. */
  annotation_groups?: string[];
  label_groups?: string[];
  variables?: VariableSpec[];
  /**
   * `prune: {variables: true}`: delete live variables and secrets of this service that `variables`
   * does not declare, as on a project or an environment. Not on a database (it has no variables:
   * the schema refuses it there).
   */
  prune?: PruneSpec;
  icon_uri?: string;
  /** false: driftless creates and configures the service but never deploys it (a service that is not running yet); default true. */
  deploy?: boolean;
}

export interface GitRepositorySpec extends Located {
  url: string;
  branch?: string;
  root_path?: string;
  provider?: 'GITHUB' | 'GITLAB' | 'BITBUCKET';
}

export interface PortSpec extends Located {
  name?: string;
  internal_port: number;
  external_port?: number;
  protocol?: 'HTTP' | 'GRPC' | 'TCP' | 'UDP';
  publicly_accessible?: boolean;
}

/** Exactly one probe kind (the API's `Probe.type`). */
export type ProbeTypeSpec =
  | { tcp: { port?: number; host?: string } }
  | { http: { port?: number; path?: string; scheme?: string } }
  | { exec: { command: string[] } }
  | { grpc: { port?: number; service?: string } };

export interface ProbeSpec extends Located {
  type: ProbeTypeSpec;
  initial_delay_seconds?: number;
  period_seconds?: number;
  timeout_seconds?: number;
  success_threshold?: number;
  failure_threshold?: number;
}

/** Declared, owns both probes: one left out means none. */
export interface HealthchecksSpec extends Located {
  readiness_probe?: ProbeSpec;
  liveness_probe?: ProbeSpec;
}

export interface StorageSpec extends Located {
  type?: 'FAST_SSD';
  /** GB, at least 4. */
  size: number;
  mount_point: string;
}

interface ComputeCommon {
  cpu?: number;
  memory?: number;
  min_running_instances?: number;
  max_running_instances?: number;
  ports?: PortSpec[];
  healthchecks?: HealthchecksSpec;
  storage?: StorageSpec[];
  arguments?: string[];
  entrypoint?: string;
  auto_deploy?: boolean;
}

export interface ApplicationSpec extends ServiceCommon, ComputeCommon {
  type: 'application';
  git_repository: GitRepositorySpec;
  build_mode?: 'DOCKER';
  dockerfile_path?: string;
  /** Pinned commit deployed with the service; a change marks it for deploy. */
  git_commit_id?: string;
}

export interface ContainerSpec extends ServiceCommon, ComputeCommon {
  type: 'container';
  /** Container registry name (organization-level; see the emulator's seeded registries). */
  registry: string;
  image_name: string;
  tag: string;
}

export interface DatabaseSpec extends ServiceCommon {
  type: 'database';
  database_type: 'MONGODB' | 'MYSQL' | 'POSTGRESQL' | 'REDIS';
  version: string;
  mode: 'CONTAINER' | 'MANAGED';
  accessibility?: 'PRIVATE' | 'PUBLIC';
  cpu?: number;
  memory?: number;
  storage?: number;
  instance_type?: string;
  disk_type?: 'gp2' | 'gp3';
  /** Create this database as a clone of another one (project/environment/name, same project by default). */
  clone_from?: { project?: string; environment?: string; database: string };
}

export interface JobSpec extends ServiceCommon {
  type: 'job';
  cpu?: number;
  memory?: number;
  max_nb_restart?: number;
  max_duration_seconds?: number;
  source:
    | { image: { registry: string; image_name: string; tag: string } }
    | { git_repository: GitRepositorySpec; dockerfile_path?: string };
  schedule:
    | { cron: { scheduled_at: string; timezone?: string; arguments?: string[]; entrypoint?: string } }
    | { on_start?: LifecycleHook; on_stop?: LifecycleHook; on_delete?: LifecycleHook };
  git_commit_id?: string;
}

export interface LifecycleHook {
  arguments?: string[];
  entrypoint?: string;
}

export interface HelmSpec extends ServiceCommon {
  type: 'helm';
  source:
    /** `repository`: the NAME of an organization helm repository (resolved to its id at apply). */
    | { helm_repository: { repository: string; chart_name: string; chart_version: string } }
    | { git_repository: GitRepositorySpec; chart_path?: string };
  /** Values passed to the chart: a YAML document (multi-line string) and/or --set pairs. */
  values_override?: { file?: string; set?: Record<string, string>; set_string?: Record<string, string> };
  arguments?: string[];
  timeout_sec?: number;
  allow_cluster_wide_resources?: boolean;
  auto_deploy?: boolean;
  git_commit_id?: string;
}

export interface TerraformSpec extends ServiceCommon {
  type: 'terraform';
  git_repository: GitRepositorySpec;
  engine?: 'TERRAFORM' | 'OPEN_TOFU';
  provider_version?: string;
  tf_var_file_paths?: string[];
  /** Terraform input variables; checked at plan time against those parsed from the repository. */
  tf_vars?: Record<string, MaybeSecret>;
  /** Names of tf_vars that are sensitive. */
  sensitive_tf_vars?: string[];
  timeout_sec?: number;
  job_resources?: { cpu_milli?: number; ram_mib?: number; storage_gib?: number };
  auto_deploy?: boolean;
  terraform_action?: 'DEFAULT' | 'PLAN' | 'NOOP';
  git_commit_id?: string;
}

import { SERVICE_KINDS } from '../model/kinds/names.js';

export type ServiceType = ServiceSpec['type'];
/** The service kinds (src/model/kinds/names.ts). */
export const SERVICE_TYPES: readonly ServiceType[] = SERVICE_KINDS;
