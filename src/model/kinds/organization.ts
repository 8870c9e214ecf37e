/** The `organization` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact, desc, sortedSet } from '../../graph/attrs.js';

export const organizationKind: KindDescriptor<'organization'> = {
  kind: 'organization',
  singleton: true,
  fromRecord: (r) => ({
    attrs: compact({
      name: r.name,
      description: desc(r.description),
      website_url: r.website_url ?? undefined,
      repository: r.repository ?? undefined,
      logo_url: r.logo_url ?? undefined,
      icon_url: r.icon_url ?? undefined,
      admin_emails: Array.isArray(r.admin_emails) ? sortedSet(r.admin_emails) : undefined,
    }),
  }),
  apiType: 'ORGANIZATION',
  caseInsensitiveName: true,
  requestFields: ['name', 'description', 'website_url', 'repository', 'logo_url', 'icon_url', 'admin_emails'],
  ignorePaths: same('name', 'description', 'website_url', 'repository', 'logo_url', 'icon_url', 'admin_emails'),
};
