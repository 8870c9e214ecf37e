/** The `cluster` kind (src/model/kinds/descriptor.ts). */
import type { KindDescriptor } from './descriptor.js';

export const clusterKind: KindDescriptor<'cluster'> = {
  kind: 'cluster',
  apiType: 'CLUSTER',
  caseInsensitiveName: false,
  namedByOthers: true,
  // Only the upgrade is declared: a cluster is never created, changed otherwise, or exported.
  attrsFromManifest: (c) => ({ attrs: c.upgrade_kubernetes === true ? { upgrade_kubernetes: true } : {} }),
};
