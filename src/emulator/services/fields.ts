/**
 * Field builders and checks shared by the service kinds: cluster limits, group and registry
 * references, git repositories, ports and storage with their ids, compute defaults. Each throws a
 * 400 naming the offending field.
 */
import type { EmulatorContext } from '../context.js';
import { invalidField } from '../errors.js';
import type { ApiRecord } from '../state.js';

export type Body = Record<string, any>;
export type Fields = Record<string, any>;

const DEFAULT_MAX_CPU = 8000;
const DEFAULT_MAX_MEMORY = 16384;

export function clusterOf(ctx: EmulatorContext, env: ApiRecord): ApiRecord | undefined {
  return ctx.state.clusters[env.cluster_id];
}

export function limits(ctx: EmulatorContext, env: ApiRecord): { maximum_cpu: number; maximum_memory: number } {
  const c = clusterOf(ctx, env);
  return { maximum_cpu: c?.maximum_cpu ?? DEFAULT_MAX_CPU, maximum_memory: c?.maximum_memory ?? DEFAULT_MAX_MEMORY };
}

export function checkResources(ctx: EmulatorContext, env: ApiRecord, f: Fields, cpuField = 'cpu', memField = 'memory'): void {
  const { maximum_cpu, maximum_memory } = limits(ctx, env);
  if (typeof f.cpu === 'number' && f.cpu > maximum_cpu) throw invalidField(cpuField, `${f.cpu} millicores is above maximum_cpu ${maximum_cpu} of cluster '${env.cluster_name ?? env.cluster_id}'`);
  if (typeof f.memory === 'number' && f.memory > maximum_memory) throw invalidField(memField, `${f.memory} MB is above maximum_memory ${maximum_memory} of cluster '${env.cluster_name ?? env.cluster_id}'`);
  if (typeof f.min_running_instances === 'number' && typeof f.max_running_instances === 'number' && f.min_running_instances > f.max_running_instances) {
    throw invalidField('min_running_instances', `must not exceed max_running_instances (${f.max_running_instances})`);
  }
}

export function groupRefs(ctx: EmulatorContext, refs: Body[] | undefined, field: 'annotations_groups' | 'labels_groups'): Array<{ id: string }> {
  const coll = field === 'annotations_groups' ? ctx.state.annotationsGroups : ctx.state.labelsGroups;
  return (refs ?? []).map((r, i) => {
    if (!coll[r.id]) throw invalidField(`${field}[${i}].id`, `no ${field === 'annotations_groups' ? 'annotations' : 'labels'} group with id '${r.id}'`);
    return { id: r.id };
  });
}

export function checkRegistry(ctx: EmulatorContext, id: string, field: string): ApiRecord {
  const r = ctx.state.containerRegistries[id];
  if (!r) throw invalidField(field, `no container registry with id '${id}' (see GET /organization/{id}/containerRegistry)`);
  return r;
}

export function providerOf(url: string): string {
  if (/gitlab/i.test(url)) return 'GITLAB';
  if (/bitbucket/i.test(url)) return 'BITBUCKET';
  return 'GITHUB';
}

/** A git URL the platform can clone: `http(s)://host/owner/name[.git]` or `git@host:owner/name[.git]`. */
const GIT_URL = /^(?:https?:\/\/[^/\s]+\/|git@[^:\s]+:)[^\s]*[^/\s]\/[^/\s]+\/?$/i;

export function gitRepository(req: Body, old?: Body, field = 'git_repository'): Fields {
  if (typeof req.url !== 'string' || !GIT_URL.test(req.url)) {
    throw invalidField(`${field}.url`, `'${String(req.url)}' is not a git repository URL; use https://<host>/<owner>/<name>[.git] or git@<host>:<owner>/<name>[.git]`);
  }
  const path = req.url.replace(/\.git$/, '').replace(/^[a-z]+:\/\/[^/]+\//i, '').replace(/^git@[^:]+:/, '');
  const [owner, name] = [path.split('/').slice(0, -1).join('/') || path, path.split('/').pop() ?? path];
  return {
    url: req.url,
    branch: req.branch ?? 'main',
    root_path: req.root_path ?? '/',
    provider: req.provider ?? providerOf(req.url),
    owner,
    name,
    git_token_id: req.git_token_id ?? null,
    deployed_commit_id: old && old.url === req.url ? old.deployed_commit_id ?? null : null,
  };
}

export function ports(ctx: EmulatorContext, reqPorts: Body[] | undefined, oldPorts: Body[] | undefined, field = 'ports'): Fields[] {
  const known = new Set((oldPorts ?? []).map((p) => p.id));
  return (reqPorts ?? []).map((p, i) => {
    if (p.id !== undefined && !known.has(p.id)) throw invalidField(`${field}[${i}].id`, `no port with id '${p.id}' on this service; omit id to create a port`);
    return {
      id: p.id ?? ctx.newId(),
      name: p.name ?? `p${p.internal_port}`,
      internal_port: p.internal_port,
      external_port: p.external_port ?? (p.publicly_accessible ? 443 : null),
      publicly_accessible: p.publicly_accessible ?? false,
      is_default: p.is_default ?? i === 0,
      protocol: p.protocol ?? 'HTTP',
      public_path: p.public_path ?? null,
      public_path_rewrite: p.public_path_rewrite ?? null,
    };
  });
}

export function storage(ctx: EmulatorContext, req: Body[] | undefined, old: Body[] | undefined): Fields[] {
  const known = new Set((old ?? []).map((p) => p.id));
  return (req ?? []).map((st, i) => {
    if (st.id !== undefined && !known.has(st.id)) throw invalidField(`storage[${i}].id`, `no storage with id '${st.id}' on this service`);
    return { id: st.id ?? ctx.newId(), type: st.type, size: st.size, mount_point: st.mount_point };
  });
}

export const NO_HEALTHCHECKS = { readiness_probe: null, liveness_probe: null };

export function computeCommon(ctx: EmulatorContext, b: Body, old?: ApiRecord): Fields {
  return {
    description: b.description ?? null,
    arguments: b.arguments ?? [],
    entrypoint: b.entrypoint ?? null,
    cpu: b.cpu ?? 500,
    memory: b.memory ?? 512,
    gpu: b.gpu ?? 0,
    ephemeral_storage_in_gib: b.ephemeral_storage_in_gib ?? null,
    cpu_architecture: b.cpu_architecture ?? 'AMD64',
    min_running_instances: b.min_running_instances ?? 1,
    max_running_instances: b.max_running_instances ?? 1,
    healthchecks: b.healthchecks ?? NO_HEALTHCHECKS,
    auto_preview: b.auto_preview ?? true,
    auto_deploy: b.auto_deploy ?? false,
    ports: ports(ctx, b.ports, old?.ports),
    storage: storage(ctx, b.storage, old?.storage),
    annotations_groups: groupRefs(ctx, b.annotations_groups, 'annotations_groups'),
    labels_groups: groupRefs(ctx, b.labels_groups, 'labels_groups'),
    icon_uri: b.icon_uri ?? null,
    autoscaling: b.autoscaling ?? null,
  };
}

