/** The `environment` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { put } from '../../graph/attrs.js';
import { clean } from '../../export/manifest-helpers.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';

export const environmentKind: KindDescriptor<'environment'> = {
  kind: 'environment',
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
