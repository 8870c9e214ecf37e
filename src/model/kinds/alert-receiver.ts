/** The `alert_receiver` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact } from '../../graph/attrs.js';
import { splitFingerprintMarker } from '../../plan/fingerprint.js';

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
  namedByOthers: true,
  requestFields: [
    'name', 'description', 'type', 'send_resolved', 'owner', 'severity', 'webhook_url',
    'to', 'from', 'smarthost', 'auth_username', 'auth_password', 'require_tls',
  ],
  createDefaults: { description: '', send_resolved: SEND_RESOLVED },
  manifestDefaults: { send_resolved: SEND_RESOLVED, require_tls: true },
  exportWritesDefaults: true,
  ignorePaths: same('description', 'send_resolved', 'owner', 'severity', 'webhook_url', 'to', 'from', 'smarthost', 'auth_username', 'auth_password', 'require_tls'),
};
