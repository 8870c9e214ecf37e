/** The `container` kind (src/model/kinds/descriptor.ts). */
import { compute, renamed, same, serviceCommon } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const containerKind: KindDescriptor<'container'> = {
  kind: 'container',
  apiType: 'CONTAINER',
  auditTarget: { type: 'CONTAINER' },
  variableScope: 'CONTAINER',
  caseInsensitiveName: true,
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
};
