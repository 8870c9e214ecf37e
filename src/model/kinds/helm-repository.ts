/** The `helm_repository` kind (src/model/kinds/descriptor.ts). */
import type { KindDescriptor } from './descriptor.js';

export const helmRepositoryKind: KindDescriptor<'helm_repository'> = {
  kind: 'helm_repository',
  apiType: 'HELM_REPOSITORY',
  caseInsensitiveName: false,
  namedByOthers: true,
};
