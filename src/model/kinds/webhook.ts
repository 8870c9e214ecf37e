/** The `webhook` kind (src/model/kinds/descriptor.ts). */
import { renamed, same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact, sortedSet } from '../../graph/attrs.js';
import { splitFingerprintMarker } from '../../plan/fingerprint.js';

export const webhookKind: KindDescriptor<'webhook'> = {
  kind: 'webhook',
  recordName: (r) => String(r.target_url),
  fromRecord(r) {
    const d = splitFingerprintMarker(r.description);
    return {
      attrs: compact({
        target_url: r.target_url,
        kind: r.kind,
        description: d.description,
        events: sortedSet(r.events ?? []),
        enabled: r.enabled,
        project_names_filter: Array.isArray(r.project_names_filter) ? sortedSet(r.project_names_filter) : undefined,
        environment_types_filter: Array.isArray(r.environment_types_filter) ? sortedSet(r.environment_types_filter) : undefined,
      }),
      fingerprints: d.fingerprints,
    };
  },
  apiType: 'WEBHOOK',
  caseInsensitiveName: false,
  requestFields: ['kind', 'target_url', 'target_secret', 'description', 'enabled', 'events', 'project_names_filter', 'environment_types_filter'],
  createDefaults: { kind: 'STANDARD', enabled: true },
  manifestDefaults: { kind: 'STANDARD', enabled: true },
  exportWritesDefaults: true,
  ignorePaths: {
    ...same('description', 'kind', 'events', 'enabled', 'project_names_filter', 'environment_types_filter'),
    ...renamed('secret', 'target_secret'),
  },
};
