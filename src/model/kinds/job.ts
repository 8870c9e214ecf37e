/** The `job` kind (src/model/kinds/descriptor.ts). */
import { git, hooks, pinOnly, renamed, same, serviceCommon } from '../ignore-table.js';
import type { ServiceKindDescriptor } from './descriptor.js';
import { list } from '../../manifest/shape-helpers.js';
import { error } from '../../manifest/codes.js';
import { sourceOf } from '../../manifest/types.js';
import type { JobSpec } from '../../manifest/types.js';
import type { LiveResource } from '../resource.js';
import { git as gitAttrs, type ServiceBuild } from '../../graph/service-helpers.js';
import { compact, num, put } from '../../graph/attrs.js';
import { args, deployedCommit, gitRepo, registryName, serviceFromRecord } from '../../live/record-helpers.js';
import { clean, computeUnmanaged, gitRepository, obj } from '../../export/manifest-helpers.js';
import { withoutKindDefaults, withoutPartDefaults } from '../../export/part-defaults.js';
import { gitRequest, isObj, pick } from '../../apply/body-helpers.js';

type Doc = Record<string, unknown>;
type Obj = Doc;

/** A lifecycle job's hooks, in the schedule of the manifest, the attrs and the API alike (`on_start`...). */
const LIFECYCLE_HOOKS = ['on_start', 'on_stop', 'on_delete'] as const;

export const jobKind: ServiceKindDescriptor<'job'> = {
  kind: 'job',
  fromRecord: (r, lookup) => serviceFromRecord(r, lookup, jobKind.service.fromRecord),
  apiType: 'JOB',
  holdsVariables: true,
  caseInsensitiveName: true,
  refersTo: ['container_registry'],
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
    ...hooks(LIFECYCLE_HOOKS),
    ...pinOnly('git_commit_id'),
  },
  service: {
    deleteIds: 'job_ids',
    checkShape(s, c) {
      c.exactlyOne(s.source, ['image', 'git_repository'], `the source of ${c.what}`, c.address);
      c.onlyWith(s.source, 'dockerfile_path', 'git_repository', `the source of ${c.what}`, c.address);
      const sched = s.schedule as Record<string, unknown>;
      const hooks = LIFECYCLE_HOOKS.filter((k) => c.present(sched, k));
      if (c.present(sched, 'cron') === hooks.length > 0) {
        c.report(
          error('manifest.exclusive', hooks.length ? `the schedule of ${c.what} mixes \`cron\` with ${list(hooks)}` : `the schedule of ${c.what} is empty`, {
            detail: 'A job is either a cron job (`cron`) or a lifecycle job (one or more of `on_start`, `on_stop`, `on_delete`).',
            range: sourceOf(sched) ?? c.at(s, 'schedule'),
            address: c.address,
          }),
        );
      }
    },
    named: (s) => ('image' in s.source && s.source.image ? [{ kind: 'container_registry', holder: s.source.image, field: 'registry', name: s.source.image.registry }] : []),
    limited: (s) => [
      { holder: s, field: 'cpu', label: 'cpu', value: s.cpu, resource: 'cpu' },
      { holder: s, field: 'memory', label: 'memory', value: s.memory, resource: 'memory' },
    ],
    fromManifest: (s, out) => jobFromManifest(s, out),
    fromRecord(r, a, lookup) {
      Object.assign(
        a,
        compact({
          cpu: num(r.cpu),
          memory: num(r.memory),
          max_nb_restart: num(r.max_nb_restart),
          max_duration_seconds: num(r.max_duration_seconds),
          auto_deploy: r.auto_deploy ?? undefined,
        }),
      );
      let deployed: LiveResource['deployed'];
      const src = r.source ?? {};
      if (src.image) {
        a.source = { image: { registry: registryName(src.image, lookup), image_name: src.image.image_name, tag: String(src.image.tag) } };
        deployed = { image_tag: String(src.image.tag) };
      } else if (src.docker) {
        a.source = { docker: compact({ git_repository: gitRepo(src.docker.git_repository), dockerfile_path: src.docker.dockerfile_path ?? undefined }) };
        deployed = deployedCommit(src.docker.git_repository);
      }
      const sc = r.schedule ?? {};
      if (sc.cronjob) {
        a.schedule = { cronjob: compact({ scheduled_at: sc.cronjob.scheduled_at, timezone: sc.cronjob.timezone ?? undefined, arguments: args(sc.cronjob.arguments), entrypoint: sc.cronjob.entrypoint ?? undefined }) };
      } else {
        const s: Record<string, unknown> = {};
        for (const k of LIFECYCLE_HOOKS) if (sc[k]) s[k] = compact({ arguments: args(sc[k].arguments), entrypoint: sc[k].entrypoint ?? undefined });
        a.schedule = s;
      }
      return deployed;
    },
    toRequest(a, ctx) {
      if (!isObj(a.source)) return;
      const s = a.source;
      if (isObj(s.image)) {
        const { registry, ...rest } = s.image;
        a.source = { image: { ...rest, ...(typeof registry === 'string' ? { registry_id: ctx.refs.idOf('container_registry', registry, ctx.address) } : {}) } };
      } else if (isObj(s.docker)) {
        a.source = { docker: { ...s.docker, git_repository: gitRequest(s.docker.git_repository) } };
      }
    },
    recordToRequest(out) {
      if (isObj(out.source)) out.source = jobSourceFromRecord(out.source);
    },
    finishUpdate: (body, base) => keepUnownedJobFields(body, base),
    toManifest(a, s) {
      // The manifest has no auto_deploy for jobs (schema): left unowned.
      const body: Doc = { ...withoutKindDefaults(jobKind, { cpu: a.cpu, memory: a.memory, max_nb_restart: a.max_nb_restart, max_duration_seconds: a.max_duration_seconds }), ...jobSource(a.source, s.deployed) };
      body.schedule = jobSchedule(a.schedule);
      return body;
    },
    unmanagedFields(r) {
      const out: string[] = [];
      const hc = obj(r.healthchecks);
      if ((hc.readiness_probe ?? null) !== null || (hc.liveness_probe ?? null) !== null) out.push('healthchecks');
      out.push(...computeUnmanaged(r));
      if (r.auto_deploy === true) out.push('auto_deploy');
      const docker = obj(obj(r.source).docker);
      if ((docker.dockerfile_raw ?? null) !== null) out.push('source.docker.dockerfile_raw');
      if ((docker.docker_target_build_stage ?? null) !== null) out.push('source.docker.docker_target_build_stage');
      const lt = obj(r.schedule).lifecycle_type;
      if (typeof lt === 'string' && lt !== 'GENERIC') out.push('schedule.lifecycle_type');
      return out;
    },
    deploy: {
      list: 'jobs',
      item: (s) => compact({ id: s.id, image_tag: s.image_tag, git_commit_id: s.image_tag ? undefined : s.git_commit_id }),
      bodyFields: ['image_tag', 'git_commit_id'],
      forceEvent: true,
    },
  },
};

function jobFromManifest(s: JobSpec, out: ServiceBuild): void {
  const a = out.attrs;
  put(a, 'cpu', num(s.cpu));
  put(a, 'memory', num(s.memory));
  put(a, 'max_nb_restart', num(s.max_nb_restart));
  put(a, 'max_duration_seconds', num(s.max_duration_seconds));
  put(a, 'auto_deploy', (s as { auto_deploy?: boolean }).auto_deploy);
  const deploy: NonNullable<ServiceBuild['deploy']> = {};
  if ('image' in s.source) {
    const i = s.source.image;
    a.source = { image: { registry: i.registry, image_name: i.image_name, tag: String(i.tag) } };
    deploy.image_tag = String(i.tag);
  } else {
    a.source = { docker: compact({ git_repository: gitAttrs(s.source.git_repository), dockerfile_path: s.source.dockerfile_path }) };
  }
  if ('cron' in s.schedule) {
    const c = s.schedule.cron;
    a.schedule = {
      cronjob: compact({
        scheduled_at: c.scheduled_at,
        timezone: c.timezone,
        arguments: c.arguments ? [...c.arguments] : undefined,
        entrypoint: c.entrypoint,
      }),
    };
  } else {
    const sched: Record<string, unknown> = {};
    for (const k of LIFECYCLE_HOOKS) {
      const h = (s.schedule as Record<string, { arguments?: string[]; entrypoint?: string } | undefined>)[k];
      if (h) sched[k] = compact({ arguments: h.arguments ? [...h.arguments] : undefined, entrypoint: h.entrypoint });
    }
    a.schedule = sched;
  }
  if (s.git_commit_id !== undefined) deploy.git_commit_id = s.git_commit_id;
  if (deploy.git_commit_id !== undefined || deploy.image_tag !== undefined) out.deploy = deploy;
}


function jobSourceFromRecord(src: Obj): Obj {
  if (isObj(src.image)) {
    const i = src.image;
    return { image: { image_name: i.image_name, tag: i.tag, registry_id: i.registry_id ?? (isObj(i.registry) ? i.registry.id : undefined) } };
  }
  if (isObj(src.docker)) {
    const d = src.docker;
    return { docker: { ...pick(d, ['dockerfile_path', 'dockerfile_raw', 'docker_target_build_stage']), git_repository: gitRequest(d.git_repository) } };
  }
  return src;
}

/**
 * `source` and `schedule` are replaced whole (a job may switch image <-> docker, cron <-> lifecycle),
 * but a manifest cannot declare a lifecycle job's lifecycle_type nor a docker job's dockerfile_raw /
 * docker_target_build_stage: when the kind of source / schedule stays, the live values are kept.
 */
function keepUnownedJobFields(body: Obj, base: Obj): void {
  const bs = body.schedule, ls = base.schedule;
  if (isObj(bs) && isObj(ls) && bs !== ls && !isObj(bs.cronjob) && !isObj(ls.cronjob) && bs.lifecycle_type === undefined && ls.lifecycle_type !== undefined) {
    body.schedule = { ...bs, lifecycle_type: ls.lifecycle_type };
  }
  const bd = isObj(body.source) ? body.source.docker : undefined, ld = isObj(base.source) ? base.source.docker : undefined;
  if (isObj(bd) && isObj(ld) && bd !== ld) {
    const kept: Obj = {};
    for (const f of ['dockerfile_raw', 'docker_target_build_stage']) if (bd[f] === undefined && ld[f] !== undefined && ld[f] !== null) kept[f] = ld[f];
    if (Object.keys(kept).length > 0) body.source = { docker: { ...bd, ...kept } };
  }
}


function jobSource(source: unknown, deployed: LiveResource['deployed']): Doc {
  const src = obj(source);
  if (src.image) {
    const i = obj(src.image);
    return { source: { image: { registry: i.registry, image_name: i.image_name, tag: i.tag } } };
  }
  const d = obj(src.docker);
  return {
    source: clean({ git_repository: gitRepository(d.git_repository), dockerfile_path: d.dockerfile_path }),
    git_commit_id: deployed?.git_commit_id,
  };
}

function jobSchedule(schedule: unknown): Doc {
  const sc = obj(schedule);
  if (sc.cronjob) {
    const c = obj(sc.cronjob);
    return { cron: clean({ scheduled_at: c.scheduled_at, ...withoutPartDefaults('job_cron', { timezone: c.timezone }), arguments: c.arguments, entrypoint: c.entrypoint }) };
  }
  const out: Doc = {};
  for (const k of LIFECYCLE_HOOKS) if (sc[k]) out[k] = clean(obj(sc[k]));
  return out;
}
