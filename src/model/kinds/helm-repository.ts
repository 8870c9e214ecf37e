/** The `helm_repository` kind (src/model/kinds/descriptor.ts). */
import type { KindDescriptor } from './descriptor.js';
import { compact } from '../../graph/attrs.js';

export const helmRepositoryKind: KindDescriptor<'helm_repository'> = {
  kind: 'helm_repository',
  fromRecord: (r) => ({ attrs: compact({ name: r.name, kind: r.kind, url: r.url }) }),
  apiType: 'HELM_REPOSITORY',
  caseInsensitiveName: false,
  orgList: 'helmRepositories',
  readOnly: true,
  namedByOthers: true,
};
