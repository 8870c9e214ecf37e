/** The `annotations_group` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { sortedSet } from '../../graph/attrs.js';
import { byKey, type ApiRecord } from '../../live/record-helpers.js';

export const annotationsGroupKind: KindDescriptor<'annotations_group'> = {
  kind: 'annotations_group',
  fromRecord: (r) => ({
    attrs: {
      name: r.name,
      annotations: [...(r.annotations ?? [])]
        .map((a: ApiRecord) => ({ key: String(a.key), value: String(a.value) }))
        .sort(byKey),
      scopes: sortedSet(r.scopes ?? []),
    },
  }),
  apiType: 'ANNOTATIONS_GROUP',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
  orgList: 'annotationsGroups',
  namedByOthers: true,
  requestFields: ['name', 'annotations', 'scopes'],
  ignorePaths: same('annotations', 'scopes'),
  attrsFromManifest(g) {
    const annotations = Object.keys(g.annotations ?? {})
      .sort()
      .map((key) => ({ key, value: String(g.annotations[key]) }));
    return { attrs: { name: g.name, annotations, scopes: sortedSet(g.scopes ?? []) } };
  },
  toManifestDoc(r) {
    const annotations: Record<string, string> = {};
    for (const x of (r.attrs.annotations as Array<{ key: string; value: string }>) ?? []) annotations[x.key] = x.value;
    return { name: r.name, annotations, scopes: r.attrs.scopes };
  },
};
