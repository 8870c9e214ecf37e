import type { ResourceKind } from '../model/resource.js';
import { isResourceKind, kindDescriptor, kindsWhere } from '../model/kinds/index.js';

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

/** The defaults of a kind's fields (its descriptor) or of a part, by name. */
export function manifestDefaultsOf(name: DefaultsOf): Readonly<Record<string, unknown>> {
  if (name in PART_DEFAULTS) return PART_DEFAULTS[name as keyof typeof PART_DEFAULTS];
  const nested = nestedPart(name);
  if (nested) return (kindDescriptor(nested.kind).manifestDefaults?.[nested.field] ?? {}) as Record<string, unknown>;
  return kindDescriptor(name as ResourceKind).manifestDefaults ?? {};
}

/** Every table of defaults, by name (parts and kinds). */
export function allManifestDefaults(): Record<string, Readonly<Record<string, unknown>>> {
  const out: Record<string, Readonly<Record<string, unknown>>> = { ...PART_DEFAULTS };
  for (const k of kindsWhere((d) => d.manifestDefaults !== undefined)) {
    const { job_resources, ...own } = kindDescriptor(k).manifestDefaults!;
    out[k] = own;
    if (job_resources !== undefined) out[`${k}_job_resources`] = job_resources as Record<string, unknown>;
  }
  return out;
}

/** A kind, a part, or a nested object of a kind's defaults named `<kind>_<field>` (`terraform_job_resources`). */
export type DefaultsOf = keyof typeof PART_DEFAULTS | ResourceKind | `${ResourceKind}_job_resources`;

/** `<kind>_job_resources` -> the kind and the field of its defaults that holds the nested object. */
function nestedPart(name: DefaultsOf): { kind: ResourceKind; field: string } | undefined {
  const m = /^(.+)_(job_resources)$/.exec(name);
  return m && isResourceKind(m[1]!) ? { kind: m[1]!, field: m[2]! } : undefined;
}

/**
 * Objects whose settings an export writes even at their default: a manifest owns only what it
 * declares, so an alert rule left out as `enabled: true`, or a service's cpu left out at 500, would
 * not be drift when a console user disables the rule or changes the cpu. (Structural flags and
 * nested details, such as a variable's `secret: false` or a port's protocol, stay implicit.)
 */
function ownedAtDefault(name: DefaultsOf): boolean {
  if (name === 'git_repository') return true;
  const nested = nestedPart(name);
  if (nested) return kindDescriptor(nested.kind).exportWritesDefaults === true;
  return !(name in PART_DEFAULTS) && kindDescriptor(name as ResourceKind).exportWritesDefaults === true;
}

/**
 * The object without its members that are undefined or null, nor (for the kinds whose settings an
 * export does not own at their default) those equal to the default of `kind`.
 */
export function withoutDefaults<T extends Record<string, unknown>>(kind: DefaultsOf, obj: T): Partial<T> {
  const defaults = (ownedAtDefault(kind) ? {} : manifestDefaultsOf(kind)) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null) continue;
    if (k in defaults && defaults[k] === v) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}
