import type { ResourceKind } from '../model/resource.js';
import { isResourceKind, kindDescriptor, kindsWhere } from '../model/kinds/index.js';

/**
 * The defaults of schemas/manifest.schema.json: the parts' (a port, a probe, a git repository...)
 * in ./part-defaults.ts, those of a kind's own fields in its descriptor (src/model/kinds,
 * `manifestDefaults`). An export leaves out the structural fields equal to their default
 * (a variable's `secret: false`, a port's protocol); the settings of services (their git
 * repository's branch and root path too), environments and organization-level objects it writes
 * even at their default (the kinds' `exportWritesDefaults`): omitting a field means the manifest
 * does not own it, and a console edit of it would not be drift.
 *
 * test/export/units.test.ts and test/model/kind-defaults.test.ts check these against the schema,
 * so the two cannot drift apart.
 */
import { PART_DEFAULTS, withoutKindDefaults, withoutPartDefaults, type DefaultsPart } from './part-defaults.js';
export { PART_DEFAULTS } from './part-defaults.js';

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
 * The object without its members that are undefined or null, nor (for the kinds whose settings an
 * export does not own at their default) those equal to the default of `kind`. Objects whose settings
 * an export writes even at their default (a manifest owns only what it declares, so an alert rule
 * left out as `enabled: true`, or a service's cpu left out at 500, would not be drift when a console
 * user disables the rule or changes the cpu) keep them; structural flags and nested details, such as
 * a variable's `secret: false` or a port's protocol, stay implicit.
 */
export function withoutDefaults<T extends Record<string, unknown>>(kind: DefaultsOf, obj: T): Partial<T> {
  if (kind in PART_DEFAULTS) return withoutPartDefaults(kind as DefaultsPart, obj);
  const nested = nestedPart(kind);
  if (nested) return withoutKindDefaults(kindDescriptor(nested.kind), obj, nested.field);
  return withoutKindDefaults(kindDescriptor(kind as ResourceKind), obj);
}
