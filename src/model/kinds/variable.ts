/** The `variable` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { desc, put } from '../../graph/attrs.js';
import { secret } from '../../graph/builder.js';
import { isSecretValue } from '../secret.js';
import { clean, EnvRef, fitDescription, type Doc } from '../../export/manifest-helpers.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';

export const variableKind: KindDescriptor<'variable'> = {
  kind: 'variable',
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
