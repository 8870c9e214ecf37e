/**
 * The defaults of schemas/manifest.schema.json, per manifest object. An export leaves out the
 * structural fields equal to their default (a variable's `secret: false`, a port's protocol); the
 * settings of services (their git repository's branch and root path too), environments and
 * organization-level objects it writes even at their default
 * (OWNED_AT_DEFAULT): omitting a field means the manifest does not own it, and a console edit of it
 * would not be drift.
 *
 * test/export/units.test.ts ('defaults left out of an export') checks this table against the schema, so the two cannot drift apart.
 */
export const MANIFEST_DEFAULTS = {
  alert_receiver: { send_resolved: true, require_tls: true },
  alert_rule: { for_duration: 'PT5M', enabled: true },
  alert_rule_condition: { kind: 'CUSTOM', operator: 'NONE', function: 'NONE' },
  webhook: { kind: 'STANDARD', enabled: true },
  label: { propagate_to_cloud_provider: false },
  variable: { override: false, secret: false, enable_interpolation_in_file: false },
  git_repository: { branch: 'main', root_path: '/' },
  port: { protocol: 'HTTP', publicly_accessible: false },
  /** A probe's timings (the API's defaults). */
  probe: { initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 },
  probe_http: { path: '/', scheme: 'HTTP' },
  /** A service's persistent storage volume. */
  storage_volume: { type: 'FAST_SSD' },
  /** Every service kind. */
  service: { deploy: true },
  application: { cpu: 500, memory: 512, min_running_instances: 1, max_running_instances: 1, build_mode: 'DOCKER' },
  container: { cpu: 500, memory: 512, min_running_instances: 1, max_running_instances: 1 },
  database: { accessibility: 'PRIVATE', cpu: 250, storage: 10 },
  job: { cpu: 500, memory: 512, max_nb_restart: 0, max_duration_seconds: 300 },
  job_cron: { timezone: 'Etc/UTC' },
  helm: { timeout_sec: 600, allow_cluster_wide_resources: false },
  terraform: { engine: 'TERRAFORM', timeout_sec: 1800, terraform_action: 'DEFAULT' },
  terraform_job_resources: { cpu_milli: 1000, ram_mib: 1024, storage_gib: 20 },
  environment: { mode: 'DEVELOPMENT' },
} as const satisfies Record<string, Record<string, unknown>>;

export type DefaultsOf = keyof typeof MANIFEST_DEFAULTS;

/**
 * Objects whose settings an export writes even at their default: a manifest owns only what it
 * declares, so an alert rule left out as `enabled: true`, or a service's cpu left out at 500, would
 * not be drift when a console user disables the rule or changes the cpu. (Structural flags and
 * nested details, such as a variable's `secret: false` or a port's protocol, stay implicit.)
 */
const OWNED_AT_DEFAULT: ReadonlySet<DefaultsOf> = new Set<DefaultsOf>([
  'alert_receiver', 'alert_rule', 'webhook', 'application', 'container', 'database', 'job', 'helm', 'terraform', 'terraform_job_resources', 'environment', 'git_repository',
]);

/**
 * The object without its members that are undefined or null, nor (for the kinds whose settings an
 * export does not own at their default) those equal to the default of `kind`.
 */
export function withoutDefaults<T extends Record<string, unknown>>(kind: DefaultsOf, obj: T): Partial<T> {
  const defaults = (OWNED_AT_DEFAULT.has(kind) ? {} : MANIFEST_DEFAULTS[kind]) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null) continue;
    if (k in defaults && defaults[k] === v) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}
