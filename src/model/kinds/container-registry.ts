/** The `container_registry` kind (src/model/kinds/descriptor.ts). */
import type { KindDescriptor } from './descriptor.js';

export const containerRegistryKind: KindDescriptor<'container_registry'> = {
  kind: 'container_registry',
  apiType: 'CONTAINER_REGISTRY',
  caseInsensitiveName: false,
  namedByOthers: true,
};
