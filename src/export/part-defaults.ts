/**
 * The defaults of the parts of a manifest object, and the rule that leaves defaults out of an
 * export, in a module that does not import the kind registry: the kind descriptors
 * (src/model/kinds) use them, and the registry imports the descriptors (no import cycle).
 * ./defaults.ts adds the kinds' defaults, read from the registry.
 */
/**
 * The defaults of schemas/manifest.schema.json. Those of a kind's own fields are in its descriptor
 * (src/model/kinds, `manifestDefaults`); this table holds the parts that are not kinds (a port, a
 * probe, a git repository...). An export leaves out the structural fields equal to their default
 * (a variable's `secret: false`, a port's protocol); the settings of services (their git
 * repository's branch and root path too), environments and organization-level objects it writes
 * even at their default (ownedAtDefault; the kinds' `exportWritesDefaults`): omitting a field means the manifest does not own it,
 * and a console edit of it would not be drift.
 *
 * test/export/units.test.ts and test/model/kind-defaults.test.ts check these against the schema,
 * so the two cannot drift apart.
 */
export const PART_DEFAULTS = {
  alert_rule_condition: { kind: 'CUSTOM', operator: 'NONE', function: 'NONE' },
  label: { propagate_to_cloud_provider: false },
  git_repository: { branch: 'main', root_path: '/' },
  port: { protocol: 'HTTP', publicly_accessible: false },
  /** A probe's timings (the API's defaults). */
  probe: { initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 },
  probe_http: { path: '/', scheme: 'HTTP' },
  /** A service's persistent storage volume. */
  storage_volume: { type: 'FAST_SSD' },
  /** Every service kind. */
  service: { deploy: true },
  job_cron: { timezone: 'Etc/UTC' },
} as const satisfies Record<string, Record<string, unknown>>;

/** The parts of an object that are not kinds (a port, a probe, a git repository...). */
export type DefaultsPart = keyof typeof PART_DEFAULTS;

/** What of a kind's descriptor (src/model/kinds/descriptor.ts) says which of its defaults an export leaves out. */
export interface KindDefaults {
  readonly manifestDefaults?: Readonly<Record<string, unknown>>;
  readonly exportWritesDefaults?: true;
}

/** The object without its members that are undefined or null, nor those equal to `defaults`. */
function withoutValues<T extends Record<string, unknown>>(defaults: Readonly<Record<string, unknown>>, obj: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null) continue;
    if (k in defaults && defaults[k] === v) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}

/**
 * `withoutDefaults` (./defaults.ts) of a part: a git repository's settings are written even at
 * their default (a manifest owns only what it declares); the other parts' defaults are left out.
 */
export function withoutPartDefaults<T extends Record<string, unknown>>(part: DefaultsPart, obj: T): Partial<T> {
  return withoutValues(part === 'git_repository' ? {} : PART_DEFAULTS[part], obj);
}

/**
 * `withoutDefaults` of a kind given its descriptor (a descriptor passes its own: it may not import
 * the registry), or of the nested object `field` of its defaults (`job_resources`). Nothing is
 * left out for a kind whose settings an export writes even at their default (`exportWritesDefaults`).
 */
export function withoutKindDefaults<T extends Record<string, unknown>>(kind: KindDefaults, obj: T, field?: string): Partial<T> {
  if (kind.exportWritesDefaults === true) return withoutValues({}, obj);
  const defaults = field === undefined ? kind.manifestDefaults : kind.manifestDefaults?.[field];
  return withoutValues((defaults ?? {}) as Record<string, unknown>, obj);
}
