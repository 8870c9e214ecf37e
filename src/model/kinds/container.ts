/** The `container` kind (src/model/kinds/descriptor.ts). */
import { compute, renamed, same, serviceCommon } from '../ignore-table.js';
import type { ServiceKindDescriptor } from './descriptor.js';
import { checkComputeShape } from '../../manifest/shape-helpers.js';
import { compute as computeAttrs } from '../../graph/service-helpers.js';
import { compact } from '../../graph/attrs.js';
import { computeFromRecord, registryName, serviceFromRecord } from '../../live/record-helpers.js';
import { computeToManifest, computeUnmanaged } from '../../export/manifest-helpers.js';
import { isObj } from '../../apply/body-helpers.js';

export const containerKind: ServiceKindDescriptor<'container'> = {
  kind: 'container',
  fromRecord: (r, lookup) => serviceFromRecord(r, lookup, containerKind.service.fromRecord),
  apiType: 'CONTAINER',
  holdsVariables: true,
  caseInsensitiveName: true,
  refersTo: ['container_registry'],
  parent: 'environment',
  requestFields: [
    'name', 'description', 'registry_id', 'image_name', 'tag', 'arguments', 'entrypoint', 'cpu', 'memory', 'gpu',
    'ephemeral_storage_in_gib', 'cpu_architecture', 'min_running_instances', 'max_running_instances', 'healthchecks',
    'auto_preview', 'auto_deploy', 'ports', 'storage', 'annotations_groups', 'labels_groups', 'icon_uri', 'autoscaling',
  ],
  createDefaults: { healthchecks: {} },
  manifestDefaults: { cpu: 500, memory: 512, min_running_instances: 1, max_running_instances: 1 },
  exportWritesDefaults: true,
  ignorePaths: {
    ...serviceCommon,
    ...compute,
    ...same('registry', 'image_name'),
    ...renamed('tag', 'tag', ['image_tag']),
  },
  service: {
    deleteIds: 'container_ids',
    checkShape: (s, c) => checkComputeShape(s, c),
    named: (s) => [{ kind: 'container_registry', holder: s, field: 'registry', name: s.registry }],
    limited: (s) => [
      { holder: s, field: 'cpu', label: 'cpu', value: s.cpu, resource: 'cpu' },
      { holder: s, field: 'memory', label: 'memory', value: s.memory, resource: 'memory' },
    ],
    fromManifest(s, out) {
      const a = out.attrs;
      a.registry = s.registry;
      a.image_name = s.image_name;
      a.tag = String(s.tag);
      computeAttrs(s, a);
      out.deploy = { image_tag: String(s.tag) };
    },
    fromRecord(r, a, lookup) {
      Object.assign(a, { registry: registryName(r, lookup), image_name: r.image_name, tag: String(r.tag) });
      Object.assign(a, computeFromRecord(r));
      return { image_tag: String(r.tag) };
    },
    toRequest(a, ctx) {
      // The manifest names the registry; the API wants its id.
      if (typeof a.registry === 'string') {
        a.registry_id = ctx.refs.idOf('container_registry', a.registry, ctx.address);
        delete a.registry;
      }
    },
    recordToRequest(out, record) {
      if (out.registry_id === undefined && isObj(record.registry)) out.registry_id = record.registry.id;
    },
    toManifest(a) {
      return { registry: a.registry, image_name: a.image_name, tag: a.tag, ...computeToManifest(containerKind, a) };
    },
    unmanagedFields(r) {
      const out: string[] = [];
      if ((r.autoscaling ?? null) !== null) out.push('autoscaling');
      out.push(...computeUnmanaged(r));
      return out;
    },
    deploy: {
      list: 'containers',
      item: (s) => compact({ id: s.id, image_tag: s.image_tag }),
      bodyFields: ['image_tag'],
    },
  },
};
