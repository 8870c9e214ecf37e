/** The `environment` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact, put } from '../../graph/attrs.js';
import { nameOf } from '../../live/record-helpers.js';
import { clean } from '../../export/manifest-helpers.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';

export const environmentKind: KindDescriptor<'environment'> = {
  kind: 'environment',
  fromRecord: (r, lookup) => ({
    attrs: compact({
      name: r.name,
      mode: r.mode,
      cluster: nameOf(lookup.clusters, r.cluster_id ?? r.cloud_provider?.cluster),
    }),
  }),
  toRequest(a) {
    // Its cluster (immutable) goes as the create's `cluster_id`, resolved by the writer (src/apply/writers.ts).
    delete a.cluster;
  },
  apiType: 'ENVIRONMENT',
  holdsVariables: true,
  caseInsensitiveName: true,
  refersTo: ['cluster'],
  parent: 'project',
  immutableFields: ['cluster'],
  requestFields: ['name', 'mode'],
  manifestDefaults: { mode: 'DEVELOPMENT' },
  exportWritesDefaults: true,
  ignorePaths: same('mode', 'cluster'),
  attrsFromManifest(e) {
    const attrs: Record<string, unknown> = { name: e.name };
    put(attrs, 'mode', e.mode);
    attrs.cluster = e.cluster;
    return { attrs };
  },
  toManifestDoc: (r) => clean({ name: r.name, cluster: r.attrs.cluster, ...withoutKindDefaults(environmentKind, { mode: r.attrs.mode }) }),
};
