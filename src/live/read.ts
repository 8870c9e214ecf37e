/**
 * readLiveRecords: the raw API records a plan needs, read with the fewest requests.
 *
 * Request budget (issue 6): one call per organization-level list the manifest needs (plus the
 * organization itself), per project declared in the manifest and live: its environment list and,
 * when it declares or prunes variables, its variable list; per environment declared and live: its
 * service list (`GET /environment/{id}/services`, every kind in full), its deployment-stage list
 * when it declares or prunes stages, its variable list when it declares or prunes variables; per
 * service declared and live that declares or prunes variables: one unified variable list. Never a
 * GET per resource: the lists return full records.
 *
 * So: requests <= 1 per service with variables + 3 per environment + 2 per project + 10 (the
 * organization and at most nine organization-level lists; a manifest of projects only needs three).
 */
import type { Address, DesiredGraph, DesiredResource, ResourceKind } from '../model/resource.js';
import { addressOf, isServiceKind, matchKey } from '../model/resource.js';
import type { ApiPort } from './api-port.js';
import { mapWithLimit } from './limit.js';

export type ApiRecord = Record<string, unknown> & { id: string };

export type OrgListName =
  | 'projects'
  | 'clusters'
  | 'clusterStatuses'
  | 'containerRegistries'
  | 'annotationsGroups'
  | 'labelsGroups'
  | 'alertReceivers'
  | 'alertRules'
  | 'webhooks';

export const ORG_LIST_PATHS: Record<OrgListName, (orgId: string) => string> = {
  projects: (o) => `/organization/${o}/project`,
  clusters: (o) => `/organization/${o}/cluster`,
  clusterStatuses: (o) => `/organization/${o}/cluster/status`,
  containerRegistries: (o) => `/organization/${o}/containerRegistry`,
  annotationsGroups: (o) => `/organization/${o}/annotationsGroups`,
  labelsGroups: (o) => `/organization/${o}/labelsGroups`,
  alertReceivers: (o) => `/organization/${o}/alert-receivers`,
  alertRules: (o) => `/organization/${o}/alert-rules`,
  webhooks: (o) => `/organization/${o}/webhook`,
};

export interface LiveRecords {
  organization: ApiRecord;
  lists: Partial<Record<OrgListName, ApiRecord[]>>;
  /** project id -> its environments */
  environments: Map<string, ApiRecord[]>;
  /** project / environment / service id -> variables declared at exactly that scope */
  variables: Map<string, ApiRecord[]>;
  /** environment id -> every service of every kind */
  services: Map<string, ApiRecord[]>;
  /** environment id -> deployment stages */
  stages: Map<string, ApiRecord[]>;
}

/** The variable scope name of the unified `/variable` endpoint for a service kind. */
export function variableScopeOf(kind: ResourceKind): string {
  if (kind === 'project') return 'PROJECT';
  if (kind === 'environment') return 'ENVIRONMENT';
  return kind.toUpperCase();
}

/** `{results: [...]}` (the API's list convention), or a bare array. */
export function listResults(resp: unknown): ApiRecord[] {
  if (Array.isArray(resp)) return resp as ApiRecord[];
  const r = (resp as { results?: unknown } | null)?.results;
  return Array.isArray(r) ? (r as ApiRecord[]) : [];
}

/** Which organization-level lists a desired graph needs. */
export function orgListsNeeded(graph: DesiredGraph): Set<OrgListName> {
  const kinds = new Set<ResourceKind>();
  const pruned = new Set<ResourceKind>();
  for (const r of graph.resources.values()) {
    kinds.add(r.kind);
  }
  for (const p of graph.prune ?? []) pruned.add(p);
  const has = (k: ResourceKind) => kinds.has(k) || pruned.has(k);
  const need = new Set<OrgListName>();
  if (has('project')) need.add('projects');
  // Clusters are referred to by name from environments and alert rules.
  if (has('cluster') || has('environment') || has('alert_rule')) need.add('clusters');
  // Upgrades need next_k8s_available_version, which only the status list has.
  if (kinds.has('cluster')) need.add('clusterStatuses');
  if (has('container_registry') || has('container') || has('job')) need.add('containerRegistries');
  if (has('annotations_group') || hasGroupRefs(graph, 'annotations_groups')) need.add('annotationsGroups');
  if (has('labels_group') || hasGroupRefs(graph, 'labels_groups')) need.add('labelsGroups');
  if (has('alert_receiver') || has('alert_rule')) need.add('alertReceivers');
  if (has('alert_rule')) need.add('alertRules');
  if (has('webhook')) need.add('webhooks');
  return need;
}

function hasGroupRefs(graph: DesiredGraph, field: string): boolean {
  for (const r of graph.resources.values()) {
    const v = r.attrs[field];
    if (Array.isArray(v) && v.length > 0) return true;
  }
  return false;
}

/** Desired children of `parent` by kind, keyed by matchKey of their address. */
function childrenOf(graph: DesiredGraph, parent: Address | undefined): DesiredResource[] {
  const out: DesiredResource[] = [];
  for (const r of graph.resources.values()) if (r.parent === parent) out.push(r);
  return out;
}

function wantsChildren(graph: DesiredGraph, r: DesiredResource, kind: ResourceKind): boolean {
  if (r.prune?.includes(kind)) return true;
  for (const c of graph.resources.values()) if (c.parent === r.address && c.kind === kind) return true;
  return false;
}

function byName(records: ApiRecord[], kind: ResourceKind, parent: Address | undefined): Map<string, ApiRecord> {
  const m = new Map<string, ApiRecord>();
  for (const rec of records) {
    const name = String(rec.name ?? '');
    const k = matchKey(addressOf(kind, name, parent));
    if (!m.has(k)) m.set(k, rec);
  }
  return m;
}

export interface ReadOptions {
  parallelism?: number;
}

export async function readLiveRecords(api: ApiPort, graph: DesiredGraph, opts: ReadOptions = {}): Promise<LiveRecords> {
  const limit = opts.parallelism ?? 8;
  const orgResp = await api.get<unknown>('/organization');
  const organization = (listResults(orgResp)[0] ?? orgResp) as ApiRecord;
  const orgId = organization.id;
  const out: LiveRecords = {
    organization,
    lists: {},
    environments: new Map(),
    variables: new Map(),
    services: new Map(),
    stages: new Map(),
  };

  const lists = [...orgListsNeeded(graph)];
  await mapWithLimit(lists, limit, async (name) => {
    out.lists[name] = listResults(await api.get(ORG_LIST_PATHS[name](orgId)));
  });

  // Projects declared in the manifest and present live.
  const liveProjects = byName(out.lists.projects ?? [], 'project', undefined);
  const projects = childrenOf(graph, undefined)
    .filter((r) => r.kind === 'project')
    .flatMap((r) => {
      const rec = liveProjects.get(matchKey(r.address));
      return rec ? [{ desired: r, rec }] : [];
    });
  const variableReads: Array<{ id: string; scope: string }> = [];
  const envReads: Array<{ desired: DesiredResource; rec: ApiRecord }> = [];
  await mapWithLimit(projects, limit, async ({ desired, rec }) => {
    const envs = listResults(await api.get(`/project/${rec.id}/environment`));
    out.environments.set(rec.id, envs);
    const liveEnvs = byName(envs, 'environment', desired.address);
    for (const e of childrenOf(graph, desired.address).filter((c) => c.kind === 'environment')) {
      const envRec = liveEnvs.get(matchKey(e.address));
      if (envRec) envReads.push({ desired: e, rec: envRec });
    }
  });
  for (const { desired, rec } of projects) {
    if (wantsChildren(graph, desired, 'variable')) variableReads.push({ id: rec.id, scope: 'PROJECT' });
  }

  type EnvTask = { kind: 'services' | 'stages'; desired: DesiredResource; rec: ApiRecord };
  const envTasks: EnvTask[] = [];
  for (const e of envReads) {
    envTasks.push({ kind: 'services', ...e });
    if (wantsChildren(graph, e.desired, 'deployment_stage')) envTasks.push({ kind: 'stages', ...e });
    if (wantsChildren(graph, e.desired, 'variable')) variableReads.push({ id: e.rec.id, scope: 'ENVIRONMENT' });
  }
  const serviceReads: Array<{ desired: DesiredResource; rec: ApiRecord }> = [];
  await mapWithLimit(envTasks, limit, async (t) => {
    if (t.kind === 'stages') {
      out.stages.set(t.rec.id, listResults(await api.get(`/environment/${t.rec.id}/deploymentStage`)));
      return;
    }
    // The service list is read even when the environment declares no service: pruning and the
    // unmanaged listing need it, and it is one request.
    const services = listResults(await api.get(`/environment/${t.rec.id}/services`));
    out.services.set(t.rec.id, services);
    const byKindName = new Map<string, ApiRecord>();
    for (const s of services) {
      const kind = String(s.service_type ?? '').toLowerCase() as ResourceKind;
      if (!isServiceKind(kind)) continue;
      byKindName.set(matchKey(addressOf(kind, String(s.name ?? ''), t.desired.address)), s);
    }
    for (const c of childrenOf(graph, t.desired.address)) {
      if (!isServiceKind(c.kind) || c.kind === 'database') continue;
      const rec = byKindName.get(matchKey(c.address));
      if (rec && wantsChildren(graph, c, 'variable')) serviceReads.push({ desired: c, rec });
    }
  });
  for (const s of serviceReads) variableReads.push({ id: s.rec.id, scope: variableScopeOf(s.desired.kind) });

  await mapWithLimit(variableReads, limit, async ({ id, scope }) => {
    const all = listResults(await api.get('/variable', { parent_id: id, scope }));
    // The unified list also returns inherited (higher-scope) and built-in variables: keep this scope's own.
    out.variables.set(
      id,
      all.filter((v) => v.scope === scope),
    );
  });
  return out;
}
