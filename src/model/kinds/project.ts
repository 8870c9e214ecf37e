/** The `project` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { desc } from '../../graph/attrs.js';
import { splitFingerprintMarker } from '../../plan/fingerprint.js';
import { clean } from '../../export/manifest-helpers.js';

export const projectKind: KindDescriptor<'project'> = {
  kind: 'project',
  fromRecord(r) {
    // Its description may carry the protect mark (never shown, never compared).
    const d = splitFingerprintMarker(r.description);
    return { attrs: { name: r.name, description: desc(d.description) }, fingerprints: d.fingerprints };
  },
  apiType: 'PROJECT',
  holdsVariables: true,
  caseInsensitiveName: true,
  orgList: 'projects',
  requestFields: ['name', 'description'],
  ignorePaths: same('description'),
  attrsFromManifest(p) {
    const attrs: Record<string, unknown> = { name: p.name };
    if (p.description !== undefined) attrs.description = desc(p.description);
    return { attrs };
  },
  toManifestDoc: (r) => clean({ name: r.name, description: r.attrs.description }),
};
