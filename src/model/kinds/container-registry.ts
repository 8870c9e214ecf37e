/** The `container_registry` kind (src/model/kinds/descriptor.ts). */
import type { KindDescriptor } from './descriptor.js';
import { compact } from '../../graph/attrs.js';

export const containerRegistryKind: KindDescriptor<'container_registry'> = {
  kind: 'container_registry',
  fromRecord: (r) => ({ attrs: compact({ name: r.name, kind: r.kind, url: r.url }) }),
  apiType: 'CONTAINER_REGISTRY',
  caseInsensitiveName: false,
  orgList: 'containerRegistries',
  readOnly: true,
  namedByOthers: true,
};
