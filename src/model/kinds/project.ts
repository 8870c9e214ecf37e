/** The `project` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const projectKind: KindDescriptor<'project'> = {
  kind: 'project',
  apiType: 'PROJECT',
  holdsVariables: true,
  caseInsensitiveName: true,
  requestFields: ['name', 'description'],
  ignorePaths: same('description'),
};
