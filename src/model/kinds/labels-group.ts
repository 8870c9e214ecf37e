/** The `labels_group` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const labelsGroupKind: KindDescriptor<'labels_group'> = {
  kind: 'labels_group',
  apiType: 'LABELS_GROUP',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
  namedByOthers: true,
  requestFields: ['name', 'labels'],
  ignorePaths: same('labels'),
};
