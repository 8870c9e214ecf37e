/** The `deployment_stage` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const deploymentStageKind: KindDescriptor<'deployment_stage'> = {
  kind: 'deployment_stage',
  apiType: 'DEPLOYMENT_STAGE',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
  parent: 'environment',
  requestFields: ['name', 'description'],
  ignorePaths: same('description', 'services'),
};
