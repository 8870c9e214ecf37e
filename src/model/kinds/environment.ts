/** The `environment` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const environmentKind: KindDescriptor<'environment'> = {
  kind: 'environment',
  apiType: 'ENVIRONMENT',
  holdsVariables: true,
  caseInsensitiveName: true,
  refersTo: ['cluster'],
  parent: 'project',
  immutableFields: ['cluster'],
  requestFields: ['name', 'mode'],
  manifestDefaults: { mode: 'DEVELOPMENT' },
  exportWritesDefaults: true,
  ignorePaths: same('mode', 'cluster'),
};
