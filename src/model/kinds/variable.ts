/** The `variable` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { parseAddress, type Address } from '../resource.js';
import { parseBuiltInKey } from '../builtin-keys.js';
import { splitFingerprintMarker } from '../../plan/fingerprint.js';
import { servicesByHash, type ApiRecord, type LiveLookup } from '../../live/record-helpers.js';

export const variableKind: KindDescriptor<'variable'> = {
  kind: 'variable',
  recordName: (r) => String(r.key),
  fromRecord(r, lookup, { parent }) {
    const n = attrsOf(r);
    if (parent !== undefined) Object.assign(n.attrs, builtInTarget(n.attrs, parent, lookup));
    return n;
  },
  auditedAs: { subTypes: ['VARIABLE', 'SECRET'] },
  caseInsensitiveName: false,
  immutableFields: ['is_secret', 'variable_type', 'mount_path', 'aliased_key', 'aliased_scope', 'aliased_service', 'aliased_builtin', 'overridden_scope'],
  manifestDefaults: { override: false, secret: false, enable_interpolation_in_file: false },
  ignorePaths: same('value', 'description', 'enable_interpolation_in_file'),
};

function attrsOf(r: ApiRecord): { attrs: Record<string, unknown>; fingerprints: Record<string, string> } {
  const d = splitFingerprintMarker(r.description);
  const isSecret = r.is_secret === true;
  const type = String(r.variable_type ?? (r.mount_path ? 'FILE' : 'VALUE'));
  const aliased = r.aliased_variable ?? r.aliased_secret;
  const overridden = r.overridden_variable ?? r.overridden_secret;
  const attrs: Record<string, unknown> = { key: r.key, variable_type: type, is_secret: isSecret };
  if (!isSecret && type !== 'ALIAS' && type !== 'EXTERNAL_SECRET' && r.value !== undefined && r.value !== null) attrs.value = String(r.value);
  if (r.mount_path) attrs.mount_path = r.mount_path;
  attrs.description = d.description;
  if (typeof r.enable_interpolation_in_file === 'boolean') attrs.enable_interpolation_in_file = r.enable_interpolation_in_file;
  if (type === 'ALIAS' && aliased) {
    attrs.aliased_key = aliased.key;
    attrs.aliased_scope = aliased.scope;
  }
  if (type === 'OVERRIDE' && overridden) attrs.overridden_scope = overridden.scope;
  if (r.secret_manager_access_id) attrs.secret_manager_access_id = r.secret_manager_access_id;
  // The API has no field for the reference of an external secret: it is written as the value.
  if (type === 'EXTERNAL_SECRET' && (r.reference ?? r.value) != null) attrs.reference = String(r.reference ?? r.value);
  return { attrs, fingerprints: d.fingerprints };
}

/**
 * An alias of a service's built-in (`QOVERY_POSTGRESQL_Z5E9B62FB_DATABASE_URL_INTERNAL`) as a
 * manifest names it: `aliased_service` (the service of the alias's environment whose id gives that
 * hash) and `aliased_builtin` (the suffix), compared with `alias: {service, builtin}`. Nothing
 * when no service of the environment has the hash (its service is gone: the alias went with it).
 */
function builtInTarget(attrs: Record<string, unknown>, parent: Address, lookup: LiveLookup): Record<string, unknown> {
  if (attrs.variable_type !== 'ALIAS' || attrs.aliased_scope !== 'BUILT_IN' || typeof attrs.aliased_key !== 'string') return {};
  const key = parseBuiltInKey(attrs.aliased_key);
  const [project, environment] = parseAddress(parent);
  if (!key || project?.kind !== 'project' || environment?.kind !== 'environment') return {};
  const service = servicesByHash(lookup).get(key.hash)?.find(
    (s) => s.project.toLowerCase() === project.name!.toLowerCase() && s.environment.toLowerCase() === environment.name!.toLowerCase(),
  );
  return service ? { aliased_service: service.name, aliased_builtin: key.suffix } : {};
}
