/**
 * The BUILT_IN variables the platform gives every service, and how their keys are spelled:
 * `QOVERY_<KIND>_Z<HASH>_<SUFFIX>`, e.g. `QOVERY_POSTGRESQL_Z5E9B62FB_DATABASE_URL_INTERNAL`, where
 * KIND is the service type (a database's engine: POSTGRESQL, MYSQL...), HASH the first 8 hex
 * digits of the service's id (PRIOR-ART: the Terraform provider finds hosts the same way), and
 * SUFFIX the name a manifest uses: `alias: {service: pg, builtin: DATABASE_URL_INTERNAL}`.
 *
 * The hash differs in every environment, so a manifest (a template, a preview) names the service
 * and the suffix; the key is found on the platform once the service exists. This table is what
 * `validate` and `plan` check the suffix against (test/emulator/builtin-names.test.ts holds the
 * emulator to it); a kind with built-ins of its own lists them in its descriptor (`service.builtIns`).
 */
import type { ServiceKind } from './resource.js';
import { serviceMappings, type BuiltInName } from './kinds/index.js';
import { builtInHash, parseBuiltInKey } from './builtin-keys.js';

export { builtInHash, parseBuiltInKey } from './builtin-keys.js';

const SERVICE_BUILT_INS: readonly BuiltInName[] = [
  { suffix: 'HOST_INTERNAL', secret: false },
  { suffix: 'NAME', secret: false },
];

/** The built-ins a service of this kind has, by suffix (its descriptor's, else every service's). */
export function builtInsOfKind(kind: ServiceKind): readonly BuiltInName[] {
  return serviceMappings(kind).builtIns ?? SERVICE_BUILT_INS;
}

export function builtInOfKind(kind: ServiceKind, suffix: string): BuiltInName | undefined {
  return builtInsOfKind(kind).find((b) => b.suffix === suffix);
}


/** Whether `key` is the built-in `suffix` of the service with this id. */
export function isBuiltInOf(key: string, serviceId: string, suffix: string): boolean {
  const p = parseBuiltInKey(key);
  return p !== undefined && p.hash === builtInHash(serviceId) && p.suffix === suffix;
}
