/** The `job` kind (src/model/kinds/descriptor.ts). */
import { git, hook, pinOnly, renamed, same, serviceCommon } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const jobKind: KindDescriptor<'job'> = {
  kind: 'job',
  apiType: 'JOB',
  auditTarget: { type: 'JOB' },
  variableScope: 'JOB',
  caseInsensitiveName: true,
  parent: 'environment',
  requestFields: [
    'name', 'description', 'cpu', 'memory', 'gpu', 'ephemeral_storage_in_gib', 'cpu_architecture', 'max_nb_restart',
    'max_duration_seconds', 'auto_preview', 'port', 'healthchecks', 'auto_deploy', 'annotations_groups', 'labels_groups',
    'icon_uri', 'source', 'schedule',
  ],
  createDefaults: { healthchecks: {} },
  manifestDefaults: { cpu: 500, memory: 512, max_nb_restart: 0, max_duration_seconds: 300 },
  exportWritesDefaults: true,
  ignorePaths: {
    ...serviceCommon,
    ...same('cpu', 'memory', 'max_nb_restart', 'max_duration_seconds'),
    source: { attrs: ['source'], pins: ['image_tag'] },
    'source.image': { attrs: ['source.image'], pins: ['image_tag'] },
    ...same('source.image.registry', 'source.image.image_name'),
    'source.image.tag': { attrs: ['source.image.tag'], pins: ['image_tag'] },
    ...git('source.git_repository', 'source.docker.git_repository'),
    ...renamed('source.dockerfile_path', 'source.docker.dockerfile_path'),
    ...same('schedule'),
    ...renamed('schedule.cron', 'schedule.cronjob'),
    ...renamed('schedule.cron.scheduled_at', 'schedule.cronjob.scheduled_at'),
    ...renamed('schedule.cron.timezone', 'schedule.cronjob.timezone'),
    ...renamed('schedule.cron.arguments', 'schedule.cronjob.arguments'),
    ...renamed('schedule.cron.entrypoint', 'schedule.cronjob.entrypoint'),
    ...hook('on_start'),
    ...hook('on_stop'),
    ...hook('on_delete'),
    ...pinOnly('git_commit_id'),
  },
};
