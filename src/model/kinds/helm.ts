/** The `helm` kind (src/model/kinds/descriptor.ts). */
import { git, pinOnly, renamed, same, serviceCommon } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const helmKind: KindDescriptor<'helm'> = {
  kind: 'helm',
  apiType: 'HELM',
  auditTarget: { type: 'HELM' },
  variableScope: 'HELM',
  caseInsensitiveName: true,
  parent: 'environment',
  requestFields: [
    'name', 'description', 'timeout_sec', 'auto_preview', 'auto_deploy', 'arguments', 'allow_cluster_wide_resources',
    'icon_uri', 'source', 'values_override', 'ports', 'annotations_groups', 'labels_groups',
  ],
  createDefaults: { auto_deploy: false, arguments: [], values_override: {} },
  manifestDefaults: { timeout_sec: 600, allow_cluster_wide_resources: false },
  exportWritesDefaults: true,
  ignorePaths: {
    ...serviceCommon,
    ...same('source', 'source.helm_repository', 'source.helm_repository.repository', 'source.helm_repository.chart_name', 'source.helm_repository.chart_version'),
    ...git('source.git_repository', 'source.git_repository'),
    ...renamed('source.chart_path', 'source.git_repository.root_path'),
    ...same('values_override', 'values_override.file', 'values_override.set', 'values_override.set_string'),
    ...same('arguments', 'timeout_sec', 'allow_cluster_wide_resources', 'auto_deploy'),
    ...pinOnly('git_commit_id'),
  },
};
