/** The `alert_receiver` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const alertReceiverKind: KindDescriptor<'alert_receiver'> = {
  kind: 'alert_receiver',
  apiType: 'ALERT_RECEIVER',
  auditTarget: { subTypes: ['ALERT_RECEIVER'] },
  caseInsensitiveName: true,
  requestFields: [
    'name', 'description', 'type', 'send_resolved', 'owner', 'severity', 'webhook_url',
    'to', 'from', 'smarthost', 'auth_username', 'auth_password', 'require_tls',
  ],
  createDefaults: { description: '', send_resolved: false },
  manifestDefaults: { send_resolved: true, require_tls: true },
  exportWritesDefaults: true,
  ignorePaths: same('description', 'send_resolved', 'owner', 'severity', 'webhook_url', 'to', 'from', 'smarthost', 'auth_username', 'auth_password', 'require_tls'),
};
