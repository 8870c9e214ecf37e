/** The `alert_receiver` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact, desc, put } from '../../graph/attrs.js';
import { splitFingerprintMarker } from '../../plan/fingerprint.js';
import { secret } from '../../graph/builder.js';
import { clean, EnvRef, fitDescription, unknowable, type Doc } from '../../export/manifest-helpers.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';

/**
 * `send_resolved` when the manifest leaves it out: false, what a create has always sent. The API
 * requires the field and documents no default (seed 2.12, the OpenAPI document's
 * AlertReceiverCreationValidationRequest); the platform's Terraform provider has no alert receiver;
 * the receivers are Alertmanager's Slack and email configurations, whose own default is false. The
 * schema said true, so the editor's hover promised resolved notifications a create never asked for:
 * the schema now says false, and existing receivers keep what apply wrote.
 */
const SEND_RESOLVED = false;

export const alertReceiverKind: KindDescriptor<'alert_receiver'> = {
  kind: 'alert_receiver',
  fromRecord(r) {
    const d = splitFingerprintMarker(r.description);
    return {
      attrs: compact({
        name: r.name,
        type: r.type,
        description: d.description,
        send_resolved: r.send_resolved,
        owner: r.owner ?? undefined,
        severity: r.severity ?? undefined,
        to: r.to ?? undefined,
        from: r.from ?? undefined,
        smarthost: r.smarthost ?? undefined,
        auth_username: r.auth_username ?? undefined,
        require_tls: r.require_tls ?? undefined,
      }),
      fingerprints: d.fingerprints,
    };
  },
  apiType: 'ALERT_RECEIVER',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
  orgList: 'alertReceivers',
  namedByOthers: true,
  requestFields: [
    'name', 'description', 'type', 'send_resolved', 'owner', 'severity', 'webhook_url',
    'to', 'from', 'smarthost', 'auth_username', 'auth_password', 'require_tls',
  ],
  createDefaults: { description: '', send_resolved: SEND_RESOLVED },
  manifestDefaults: { send_resolved: SEND_RESOLVED, require_tls: true },
  exportWritesDefaults: true,
  ignorePaths: same('description', 'send_resolved', 'owner', 'severity', 'webhook_url', 'to', 'from', 'smarthost', 'auth_username', 'auth_password', 'require_tls'),
  attrsFromManifest(r) {
    const attrs: Record<string, unknown> = { name: r.name, type: r.type };
    if (r.description !== undefined) attrs.description = desc(r.description);
    put(attrs, 'send_resolved', r.send_resolved);
    put(attrs, 'owner', r.owner);
    put(attrs, 'severity', r.severity);
    const sensitive: string[] = [];
    if (r.webhook_url !== undefined) {
      attrs.webhook_url = secret(r.webhook_url);
      sensitive.push('webhook_url');
    }
    for (const k of ['to', 'from', 'smarthost', 'auth_username'] as const) put(attrs, k, r[k]);
    if (r.auth_password !== undefined) {
      attrs.auth_password = secret(r.auth_password);
      sensitive.push('auth_password');
    }
    put(attrs, 'require_tls', r.require_tls);
    return { attrs, sensitiveFields: sensitive };
  },
  toManifestDoc(r, ctx) {
    const a = r.attrs;
    const secret = (field: string) =>
      new EnvRef(ctx.secrets.allocate(['ALERT_RECEIVER', r.name, field], { address: r.address, field, fingerprinted: r.fingerprints?.[field] !== undefined }));
    const doc: Doc = { name: r.name, type: a.type, description: a.description };
    Object.assign(doc, withoutKindDefaults(alertReceiverKind, { send_resolved: a.send_resolved, owner: a.owner, severity: a.severity }));
    // Write-only fields: SLACK always has a webhook URL; an EMAIL receiver always has a password.
    if (a.type === 'SLACK') doc.webhook_url = secret('webhook_url');
    Object.assign(doc, { to: a.to, from: a.from, smarthost: a.smarthost, auth_username: a.auth_username });
    // The API requires a password to create an EMAIL receiver (EmailAlertReceiverCreationRequest),
    // with or without a user name: the manifest needs one to recreate the receiver.
    if (a.type === 'EMAIL') doc.auth_password = secret('auth_password');
    Object.assign(doc, withoutKindDefaults(alertReceiverKind, { require_tls: a.require_tls }));
    doc.ignore_changes = unknowable(['webhook_url', 'auth_password'].filter((f) => doc[f] !== undefined && r.fingerprints?.[f] === undefined));
    fitDescription(doc, r.address, ['webhook_url', 'auth_password'].filter((f) => doc[f] !== undefined), ctx, (doc.ignore_changes as string[] | undefined) ?? []);
    return clean(doc);
  },
};
