/** The `annotations_group` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const annotationsGroupKind: KindDescriptor<'annotations_group'> = {
  kind: 'annotations_group',
  apiType: 'ANNOTATIONS_GROUP',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
  namedByOthers: true,
  requestFields: ['name', 'annotations', 'scopes'],
  ignorePaths: same('annotations', 'scopes'),
};
