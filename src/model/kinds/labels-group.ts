/** The `labels_group` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { byKey, type ApiRecord } from '../../live/record-helpers.js';
import type { Doc } from '../../export/manifest-helpers.js';
import { withoutPartDefaults } from '../../export/part-defaults.js';

export const labelsGroupKind: KindDescriptor<'labels_group'> = {
  kind: 'labels_group',
  fromRecord: (r) => ({
    attrs: {
      name: r.name,
      labels: [...(r.labels ?? [])]
        .map((l: ApiRecord) => ({ key: String(l.key), value: String(l.value), propagate_to_cloud_provider: l.propagate_to_cloud_provider === true }))
        .sort(byKey),
    },
  }),
  apiType: 'LABELS_GROUP',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
  orgList: 'labelsGroups',
  namedByOthers: true,
  requestFields: ['name', 'labels'],
  ignorePaths: same('labels'),
  attrsFromManifest(g) {
    const labels = [...(g.labels ?? [])]
      .map((l) => ({ key: l.key, value: String(l.value), propagate_to_cloud_provider: l.propagate_to_cloud_provider ?? false }))
      .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    return { attrs: { name: g.name, labels } };
  },
  toManifestDoc(r) {
    const labels = ((r.attrs.labels as Doc[]) ?? []).map((l) => withoutPartDefaults('label', { key: l.key, value: l.value, propagate_to_cloud_provider: l.propagate_to_cloud_provider }));
    return { name: r.name, labels };
  },
};
