/**
 * Desired attrs of services, in the API's request-body shapes (see ./attrs.ts): the fields every
 * service has here, each kind's own in its descriptor (src/model/kinds, `service.fromManifest`).
 */
import type { ServiceSpec } from '../manifest/types.js';
import { serviceMappings } from '../model/kinds/index.js';
import type { Address } from '../model/resource.js';
import { addressOf } from '../model/resource.js';
import { desc, put, sortedSet } from './attrs.js';
import type { GraphBuilder } from './builder.js';
import type { ServiceBuild } from './service-helpers.js';

export function serviceAttrs(s: ServiceSpec, env: Address, b: GraphBuilder): ServiceBuild {
  const out: ServiceBuild = { attrs: { name: s.name }, dependsOn: [], sensitiveFields: [] };
  const a = out.attrs;
  if (s.description !== undefined) a.description = desc(s.description);
  put(a, 'icon_uri', s.icon_uri);
  if (s.deploy === false) out.noDeploy = true;
  if (s.annotation_groups) {
    a.annotations_groups = sortedSet(s.annotation_groups);
    for (const g of a.annotations_groups as string[]) depend(b, out, addressOf('annotations_group', g));
  }
  if (s.label_groups) {
    a.labels_groups = sortedSet(s.label_groups);
    for (const g of a.labels_groups as string[]) depend(b, out, addressOf('labels_group', g));
  }
  // The kind's own fields: its descriptor's mapping (src/model/kinds).
  serviceMappings(s.type).fromManifest(s as never, out, env, b);
  return out;
}

/** Depend on a declared resource (undeclared groups are checked by the manifest validator). */
function depend(b: GraphBuilder, out: ServiceBuild, address: Address): void {
  if (b.resources.has(address)) out.dependsOn.push(address);
}
