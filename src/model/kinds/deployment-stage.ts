/** The `deployment_stage` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { desc, num, sortedSet } from '../../graph/attrs.js';
import type { ApiRecord } from '../../live/record-helpers.js';
import { clean } from '../../export/manifest-helpers.js';

export const deploymentStageKind: KindDescriptor<'deployment_stage'> = {
  kind: 'deployment_stage',
  fromRecord: (r, lookup) => ({
    attrs: {
      name: r.name,
      description: desc(r.description),
      services: sortedSet((r.services ?? []).map((s: ApiRecord) => lookup.services.get(String(s.service_id))?.name ?? `(unknown id ${String(s.service_id)})`)),
      deployment_order: num(r.deployment_order) ?? 0,
    },
  }),
  toRequest(a) {
    // Its services move in and its place after another stage is set by calls of their own (src/apply/writers.ts).
    delete a.services;
    delete a.after;
  },
  apiType: 'DEPLOYMENT_STAGE',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
  parent: 'environment',
  requestFields: ['name', 'description'],
  ignorePaths: same('description', 'services'),
  attrsFromManifest(st, at) {
    const attrs: Record<string, unknown> = { name: st.name };
    if (st.description !== undefined) attrs.description = desc(st.description);
    attrs.services = sortedSet(st.services ?? []);
    // Stages run in the order the manifest lists them: each after the one before it.
    if (at.previous !== undefined) attrs.after = at.previous;
    return { attrs };
  },
  toManifestDoc: (r) => clean({ name: r.name, description: r.attrs.description, services: r.attrs.services }),
};
