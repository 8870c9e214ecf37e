/** The `variable` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { parseAddress, type Address } from '../resource.js';
import { parseBuiltInKey } from '../builtin-keys.js';
import { splitFingerprintMarker } from '../../plan/fingerprint.js';
import { servicesByHash, type ApiRecord, type LiveLookup } from '../../live/record-helpers.js';
import { desc, put } from '../../graph/attrs.js';
import { secret } from '../../graph/builder.js';
import { isSecretValue } from '../secret.js';
import { clean, EnvRef, fitDescription, type Doc } from '../../export/manifest-helpers.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';

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
  attrsFromManifest(v) {
    const attrs: Record<string, unknown> = { key: v.key };
    let type: string;
    if (v.alias !== undefined) type = 'ALIAS';
    else if (v.external_secret !== undefined) type = 'EXTERNAL_SECRET';
    else if (v.override === true) type = 'OVERRIDE';
    else if (v.mount_path !== undefined) type = 'FILE';
    else type = 'VALUE';
    attrs.variable_type = type;
    const isSecret = v.secret === true || isSecretValue(v.value);
    attrs.is_secret = isSecret;
    if (v.value !== undefined && type !== 'ALIAS' && type !== 'EXTERNAL_SECRET') {
      attrs.value = isSecret ? secret(v.value) : String(v.value);
    }
    put(attrs, 'mount_path', v.mount_path);
    if (v.description !== undefined) attrs.description = desc(v.description);
    put(attrs, 'enable_interpolation_in_file', v.enable_interpolation_in_file);
    if (v.external_secret) {
      attrs.secret_manager_access_id = v.external_secret.secret_manager_access_id;
      // A secret's value (here the reference) is never returned: it is compared by fingerprint.
      put(attrs, 'reference', isSecret ? secret(v.external_secret.reference) : v.external_secret.reference);
    }
    const sensitive = isSecret && attrs.value !== undefined ? ['value'] : isSecret && attrs.reference !== undefined ? ['reference'] : [];
    return { attrs, sensitiveFields: sensitive.length > 0 ? sensitive : undefined };
  },
  toManifestDoc(v, ctx, path) {
    const a = v.attrs;
    const type = String(a.variable_type);
    const isSecret = a.is_secret === true;
    const doc: Doc = { key: v.name };
    if (type === 'ALIAS') {
      // A built-in of a service of this environment by name (live/normalize.ts found it): its
      // hashed key would tie the manifest to this one environment.
      doc.alias = typeof a.aliased_service === 'string' ? { service: a.aliased_service, builtin: a.aliased_builtin } : a.aliased_key;
    } else if (type === 'EXTERNAL_SECRET') {
      doc.external_secret = clean({ secret_manager_access_id: a.secret_manager_access_id, reference: a.reference });
    } else if (type === 'VALUE' || type === 'FILE' || type === 'OVERRIDE') {
      if (type === 'OVERRIDE') doc.override = true;
      doc.value = isSecret
        ? new EnvRef(ctx.secrets.allocate([...path], { address: v.address, field: 'value', fingerprinted: v.fingerprints?.value !== undefined }))
        : (typeof a.value === 'string' ? a.value : '');
    } else {
      ctx.warnings.push(`${v.address}: variables of type ${type} cannot be declared in a manifest; left out.`);
      return undefined;
    }
    if (isSecret) doc.secret = true;
    // An alias takes its mount path from the file it points to; a manifest alias cannot set one.
    if (type !== 'ALIAS') doc.mount_path = a.mount_path;
    doc.description = a.description;
    if (isSecret && doc.value !== undefined && v.fingerprints?.value === undefined) doc.ignore_changes = ['value'];
    if (isSecret && doc.value !== undefined) fitDescription(doc, v.address, ['value'], ctx, (doc.ignore_changes as string[] | undefined) ?? []);
    // The flag means something for a file only; a manifest takes it only with a mount_path.
    if (doc.mount_path !== undefined && doc.mount_path !== null) Object.assign(doc, withoutKindDefaults(variableKind, { enable_interpolation_in_file: a.enable_interpolation_in_file }));
    return clean(doc);
  },
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
