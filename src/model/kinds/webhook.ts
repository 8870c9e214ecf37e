/** The `webhook` kind (src/model/kinds/descriptor.ts). */
import { renamed, same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact, sortedSet, desc, put } from '../../graph/attrs.js';
import { splitFingerprintMarker } from '../../plan/fingerprint.js';
import { secret } from '../../graph/builder.js';
import { clean, EnvRef, fitDescription, unknowable, type Doc } from '../../export/manifest-helpers.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';

export const webhookKind: KindDescriptor<'webhook'> = {
  kind: 'webhook',
  recordName: (r) => String(r.target_url),
  fromRecord(r) {
    const d = splitFingerprintMarker(r.description);
    return {
      attrs: compact({
        target_url: r.target_url,
        kind: r.kind,
        description: d.description,
        events: sortedSet(r.events ?? []),
        enabled: r.enabled,
        project_names_filter: Array.isArray(r.project_names_filter) ? sortedSet(r.project_names_filter) : undefined,
        environment_types_filter: Array.isArray(r.environment_types_filter) ? sortedSet(r.environment_types_filter) : undefined,
      }),
      fingerprints: d.fingerprints,
    };
  },
  apiType: 'WEBHOOK',
  caseInsensitiveName: false,
  orgList: 'webhooks',
  requestFields: ['kind', 'target_url', 'target_secret', 'description', 'enabled', 'events', 'project_names_filter', 'environment_types_filter'],
  createDefaults: { kind: 'STANDARD', enabled: true },
  manifestDefaults: { kind: 'STANDARD', enabled: true },
  exportWritesDefaults: true,
  ignorePaths: {
    ...same('description', 'kind', 'events', 'enabled', 'project_names_filter', 'environment_types_filter'),
    ...renamed('secret', 'target_secret'),
  },
  attrsFromManifest(w) {
    const attrs: Record<string, unknown> = { target_url: w.target_url };
    put(attrs, 'kind', w.kind);
    if (w.description !== undefined) attrs.description = desc(w.description);
    attrs.events = sortedSet(w.events ?? []);
    put(attrs, 'enabled', w.enabled);
    const sensitive: string[] = [];
    if (w.secret !== undefined) {
      attrs.target_secret = secret(w.secret);
      sensitive.push('target_secret');
    }
    if (w.project_names_filter) attrs.project_names_filter = sortedSet(w.project_names_filter);
    if (w.environment_types_filter) attrs.environment_types_filter = sortedSet(w.environment_types_filter);
    return { attrs, sensitiveFields: sensitive };
  },
  toManifestDoc(r, ctx) {
    const a = r.attrs;
    const doc: Doc = { target_url: a.target_url, description: a.description };
    Object.assign(doc, withoutKindDefaults(webhookKind, { kind: a.kind }));
    doc.events = a.events;
    Object.assign(doc, withoutKindDefaults(webhookKind, { enabled: a.enabled }));
    if (r.record.target_secret_set === true) {
      doc.secret = new EnvRef(ctx.secrets.allocate(['WEBHOOK', hostAndPath(String(a.target_url)), 'SECRET'], { address: r.address, field: 'target_secret', fingerprinted: r.fingerprints?.target_secret !== undefined }));
    }
    doc.project_names_filter = a.project_names_filter;
    doc.environment_types_filter = a.environment_types_filter;
    doc.ignore_changes = unknowable(doc.secret !== undefined && r.fingerprints?.target_secret === undefined ? ['secret'] : []);
    if (doc.secret !== undefined) fitDescription(doc, r.address, ['target_secret'], ctx, (doc.ignore_changes as string[] | undefined) ?? []);
    return clean(doc);
  },
};

/** The placeholder's name part of a webhook: its URL's host and path. */
function hostAndPath(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.pathname}`;
  } catch {
    return url;
  }
}
