/** The `cluster` kind (src/model/kinds/descriptor.ts). */
import type { KindDescriptor } from './descriptor.js';

export const clusterKind: KindDescriptor<'cluster'> = {
  kind: 'cluster',
  fromRecord(r, _lookup, extra) {
    const next = extra.clusterStatus?.next_k8s_available_version ?? r.next_k8s_available_version ?? null;
    // An upgrade (or any deployment) in progress counts as done: asking again would be refused (409).
    const busy = /QUEUED|ING$/.test(String(extra.clusterStatus?.status ?? ''));
    return {
      attrs: {
        kubernetes_version: r.kubernetes_version ?? r.version ?? r.kubernetes ?? null,
        next_k8s_available_version: next,
        upgrade_kubernetes: busy || next === null || next === undefined || next === '',
      },
    };
  },
  apiType: 'CLUSTER',
  caseInsensitiveName: false,
  orgList: 'clusters',
  readOnly: true,
  namedByOthers: true,
  // Only the upgrade is declared: a cluster is never created, changed otherwise, or exported.
  attrsFromManifest: (c) => ({ attrs: c.upgrade_kubernetes === true ? { upgrade_kubernetes: true } : {} }),
};
