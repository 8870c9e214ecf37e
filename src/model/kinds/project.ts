/** The `project` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { desc } from '../../graph/attrs.js';
import { splitFingerprintMarker } from '../../plan/fingerprint.js';

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
  requestFields: ['name', 'description'],
  ignorePaths: same('description'),
};
