/** The `application` kind (src/model/kinds/descriptor.ts). */
import { compute, git, pinOnly, same, serviceCommon } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const applicationKind: KindDescriptor<'application'> = {
  kind: 'application',
  apiType: 'APPLICATION',
  auditTarget: { type: 'APPLICATION' },
  variableScope: 'APPLICATION',
  caseInsensitiveName: true,
  parent: 'environment',
  requestFields: [
    'name', 'description', 'git_repository', 'build_mode', 'dockerfile_path', 'docker_target_build_stage', 'cpu', 'memory',
    'gpu', 'ephemeral_storage_in_gib', 'cpu_architecture', 'min_running_instances', 'max_running_instances', 'healthchecks',
    'auto_preview', 'auto_deploy', 'arguments', 'entrypoint', 'ports', 'storage', 'annotations_groups', 'labels_groups',
    'icon_uri', 'autoscaling',
  ],
  createDefaults: { healthchecks: {} },
  manifestDefaults: { cpu: 500, memory: 512, min_running_instances: 1, max_running_instances: 1, build_mode: 'DOCKER' },
  exportWritesDefaults: true,
  ignorePaths: {
    ...serviceCommon,
    ...compute,
    ...git('git_repository', 'git_repository'),
    ...same('build_mode', 'dockerfile_path'),
    ...pinOnly('git_commit_id'),
  },
};
