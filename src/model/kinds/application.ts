/** The `application` kind (src/model/kinds/descriptor.ts). */
import { compute, git, pinOnly, same, serviceCommon } from '../ignore-table.js';
import type { ServiceKindDescriptor } from './descriptor.js';
import { checkComputeShape } from '../../manifest/shape-helpers.js';
import { error } from '../../manifest/codes.js';
import { sourceOf } from '../../manifest/types.js';
import { compute as computeAttrs, git as gitAttrs } from '../../graph/service-helpers.js';
import { compact, put } from '../../graph/attrs.js';
import { computeFromRecord, deployedCommit, gitRepo, serviceFromRecord } from '../../live/record-helpers.js';
import { computeToManifest, computeUnmanaged, gitRepository } from '../../export/manifest-helpers.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';

export const applicationKind: ServiceKindDescriptor<'application'> = {
  kind: 'application',
  fromRecord: (r, lookup) => serviceFromRecord(r, lookup, applicationKind.service.fromRecord),
  apiType: 'APPLICATION',
  holdsVariables: true,
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
  service: {
    deleteIds: 'application_ids',
    checkShape(s, c) {
      checkComputeShape(s, c);
      if ((s.build_mode ?? 'DOCKER') === 'DOCKER' && !c.present(s, 'dockerfile_path')) {
        c.report(error('schema.missing-key', `${c.what} is missing \`dockerfile_path\``, { detail: 'build_mode DOCKER (the default) builds from a Dockerfile: give its path relative to root_path, e.g. `Dockerfile`.', range: sourceOf(s), address: c.address }));
      }
    },
    limited: (s) => [
      { holder: s, field: 'cpu', label: 'cpu', value: s.cpu, resource: 'cpu' },
      { holder: s, field: 'memory', label: 'memory', value: s.memory, resource: 'memory' },
    ],
    fromManifest(s, out) {
      const a = out.attrs;
      a.git_repository = gitAttrs(s.git_repository);
      put(a, 'build_mode', s.build_mode);
      put(a, 'dockerfile_path', s.dockerfile_path);
      computeAttrs(s, a);
      if (s.git_commit_id !== undefined) out.deploy = { git_commit_id: s.git_commit_id };
    },
    fromRecord(r, a) {
      Object.assign(a, compact({ git_repository: gitRepo(r.git_repository), build_mode: r.build_mode ?? undefined, dockerfile_path: r.dockerfile_path ?? undefined }));
      Object.assign(a, computeFromRecord(r));
      return deployedCommit(r.git_repository);
    },
    toManifest(a, s) {
      return {
        git_repository: gitRepository(a.git_repository),
        ...withoutKindDefaults(applicationKind, { build_mode: a.build_mode }),
        dockerfile_path: a.dockerfile_path,
        ...computeToManifest(applicationKind, a),
        git_commit_id: s.deployed?.git_commit_id,
      };
    },
    unmanagedFields(r) {
      const out: string[] = [];
      if ((r.autoscaling ?? null) !== null) out.push('autoscaling');
      out.push(...computeUnmanaged(r));
      if ((r.docker_target_build_stage ?? null) !== null) out.push('docker_target_build_stage');
      return out;
    },
    deploy: {
      list: 'applications',
      item: (s) => compact({ application_id: s.id, git_commit_id: s.git_commit_id }),
      bodyFields: ['git_commit_id'],
    },
  },
};
