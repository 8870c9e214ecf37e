/**
 * The defaults of schemas/manifest.schema.json, per manifest object. An export leaves out every
 * field equal to its default, so that what remains is what someone chose. (Omitting a field also
 * means the manifest does not own it; since the live value is the default, nothing diffs either way.)
 *
 * test/export/defaults.test.ts checks this table against the schema, so the two cannot drift apart.
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

/** The object without its members that are undefined, null, or equal to the default of `kind`. */
export function withoutDefaults<T extends Record<string, unknown>>(kind: DefaultsOf, obj: T): Partial<T> {
  const defaults = MANIFEST_DEFAULTS[kind] as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null) continue;
    if (k in defaults && defaults[k] === v) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}
