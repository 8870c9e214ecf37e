/** The `cluster` kind (src/model/kinds/descriptor.ts). */
import type { KindDescriptor } from './descriptor.js';

export const clusterKind: KindDescriptor<'cluster'> = {
  kind: 'cluster',
  apiType: 'CLUSTER',
  caseInsensitiveName: false,
  namedByOthers: true,
};
