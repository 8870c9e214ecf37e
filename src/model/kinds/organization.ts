/** The `organization` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact, desc, sortedSet, put } from '../../graph/attrs.js';
import { clean } from '../../export/manifest-helpers.js';

export const organizationKind: KindDescriptor<'organization'> = {
  kind: 'organization',
  singleton: true,
  readOnly: true,
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
  attrsFromManifest(o) {
    const attrs: Record<string, unknown> = {};
    put(attrs, 'name', o.name);
    if (o.description !== undefined) attrs.description = desc(o.description);
    for (const k of ['website_url', 'repository', 'logo_url', 'icon_url'] as const) put(attrs, k, o[k]);
    if (o.admin_emails) attrs.admin_emails = sortedSet(o.admin_emails);
    return { attrs };
  },
  toManifestDoc(r) {
    const a = r.attrs;
    return clean({
      name: a.name,
      description: a.description,
      website_url: a.website_url,
      repository: a.repository,
      logo_url: a.logo_url,
      icon_url: a.icon_url,
      admin_emails: a.admin_emails,
    });
  },
};
