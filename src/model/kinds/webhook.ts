/** The `webhook` kind (src/model/kinds/descriptor.ts). */
import { renamed, same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const webhookKind: KindDescriptor<'webhook'> = {
  kind: 'webhook',
  apiType: 'WEBHOOK',
  caseInsensitiveName: false,
  requestFields: ['kind', 'target_url', 'target_secret', 'description', 'enabled', 'events', 'project_names_filter', 'environment_types_filter'],
  createDefaults: { kind: 'STANDARD', enabled: true },
  manifestDefaults: { kind: 'STANDARD', enabled: true },
  exportWritesDefaults: true,
  ignorePaths: {
    ...same('description', 'kind', 'events', 'enabled', 'project_names_filter', 'environment_types_filter'),
    ...renamed('secret', 'target_secret'),
  },
};
