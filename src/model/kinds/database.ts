/** The `database` kind (src/model/kinds/descriptor.ts). */
import { renamed, same, serviceCommon } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const databaseKind: KindDescriptor<'database'> = {
  kind: 'database',
  apiType: 'DATABASE',
  auditTarget: { type: 'DATABASE' },
  caseInsensitiveName: true,
  parent: 'environment',
  immutableFields: ['type', 'mode'],
  requestFields: [
    'name', 'description', 'version', 'accessibility', 'cpu', 'memory', 'storage', 'instance_type', 'annotations_groups',
    'labels_groups', 'icon_uri', 'disk_type',
  ],
  manifestDefaults: { accessibility: 'PRIVATE', cpu: 250, storage: 10 },
  exportWritesDefaults: true,
  ignorePaths: {
    ...serviceCommon,
    ...renamed('database_type', 'type'),
    ...same('version', 'mode', 'accessibility', 'cpu', 'memory', 'storage', 'instance_type', 'disk_type'),
  },
};
