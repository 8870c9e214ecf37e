/** The `organization` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const organizationKind: KindDescriptor<'organization'> = {
  kind: 'organization',
  apiType: 'ORGANIZATION',
  caseInsensitiveName: true,
  requestFields: ['name', 'description', 'website_url', 'repository', 'logo_url', 'icon_url', 'admin_emails'],
  ignorePaths: same('name', 'description', 'website_url', 'repository', 'logo_url', 'icon_url', 'admin_emails'),
};
