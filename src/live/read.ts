/**
 * readLiveRecords: the raw API records a plan needs, read with the fewest requests.
 *
 * Request budget (issue 6): one call per organization-level list the manifest needs (plus the
 * organization itself); per project declared in the manifest and live: its environment list; per
 * environment declared and live: its service list (`GET /environment/{id}/services`, every kind in
 * full), its statuses, and its deployment-stage list when it declares or prunes stages; per service
 * declared and live that declares (even as an empty `variables: []`) or prunes variables: one unified variable list. That list also
 * holds the variables the service inherits, so an environment's or project's own list is read only
 * when no service list below it covers it. Never a GET per resource: the lists return full records.
 *
 * So: requests <= 1 per service with variables + 3 per environment + 2 per project + 11 (the
 * organization and at most ten organization-level lists; a manifest of projects only needs three;
 * the helm repository list only when it has helm services).
 * (An environment with stages and variables but no service with variables costs 4, paid for by
 * its project's variable list, which it then covers.)
 *
 * What a plan deletes with its parent is read as well (principle 5: it is listed, counted and
 * guarded like an object deleted on its own): an undeclared project where the top level prunes
 * projects costs its environment list, and each environment deleted (undeclared where its project
 * prunes environments, or in a deleted project) 3 lists plus one variable list per service (see
 * readWhatGoesWith). A manifest that prunes nothing pays nothing for this.
 */
import type { Address, DesiredGraph, DesiredResource, ResourceKind } from '../model/resource.js';
import { addressOf, isServiceKind, matchKey } from '../model/resource.js';
import { kindsReferringTo, variableScopeOf } from '../model/kinds/index.js';
import type { ApiPort } from './api-port.js';
import { routes, type OrgListName } from '../api/routes.js';
import { mapWithLimit, withGetLimit } from './limit.js';
import { serviceKindOf } from './normalize.js';
import { previousNames } from '../plan/moved.js';
import type { ApiRecord } from './api-record.js';
export type { ApiRecord } from './api-record.js';

export type { OrgListName } from '../api/routes.js';

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
  /** environment id -> `GET /environment/{id}/statuses` ({applications: [...], containers: [...], ...}) */
  statuses: Map<string, Record<string, unknown>>;
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
  // `scope: organization` owns every organization-level kind: its lists are read so that an
  // undeclared one (a webhook added in the console) is reported, even when none is declared.
  if (graph.scope === 'organization') for (const k of ['project', 'annotations_group', 'labels_group', 'alert_receiver', 'alert_rule', 'webhook'] as const) pruned.add(k);
  const has = (k: ResourceKind) => kinds.has(k) || pruned.has(k);
  const need = new Set<OrgListName>();
  if (has('project')) need.add('projects');
  // A list is read when its kind is declared, or a kind that names its objects (the descriptors'
  // refersTo: clusters from environments and alert rules, registries from containers and jobs...).
  const named = (k: ResourceKind) => has(k) || kindsReferringTo(k).some(has);
  if (named('cluster')) need.add('clusters');
  // Upgrades need next_k8s_available_version, which only the status list has.
  if (kinds.has('cluster')) need.add('clusterStatuses');
  if (named('container_registry')) need.add('containerRegistries');
  // A live helm record embeds its chart repository's name: the list is read only when the manifest
  // declares (or prunes) services that name one.
  if (named('helm_repository')) need.add('helmRepositories');
  if (has('annotations_group') || hasGroupRefs(graph, 'annotations_groups')) need.add('annotationsGroups');
  if (has('labels_group') || hasGroupRefs(graph, 'labels_groups')) need.add('labelsGroups');
  if (named('alert_receiver')) need.add('alertReceivers');
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

/** Desired resources by parent address (undefined: top level), built once: graphs can be large. */
function indexChildren(graph: DesiredGraph): Map<Address | undefined, DesiredResource[]> {
  const out = new Map<Address | undefined, DesiredResource[]>();
  for (const r of graph.resources.values()) {
    const list = out.get(r.parent);
    if (list) list.push(r);
    else out.set(r.parent, [r]);
  }
  return out;
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

/**
 * The organization and the given organization-level lists, in a `LiveRecords` whose per-project and
 * per-environment maps are still empty: the common start of the plan's and the export's readers.
 */
export async function readOrganizationLists(api: ApiPort, names: Iterable<OrgListName>, limit: number): Promise<LiveRecords> {
  const out = await readOrganizationRecord(api);
  await readListsInto(api, out, [...names], limit);
  return out;
}

/** The organization, in a `LiveRecords` whose lists and maps are still empty. */
async function readOrganizationRecord(api: ApiPort): Promise<LiveRecords> {
  const orgResp = await api.get<unknown>(routes.organization());
  const organization = (listResults(orgResp)[0] ?? orgResp) as ApiRecord;
  return {
    organization,
    lists: {},
    environments: new Map(),
    variables: new Map(),
    services: new Map(),
    stages: new Map(),
    statuses: new Map(),
  };
}

async function readListsInto(api: ApiPort, out: LiveRecords, names: readonly OrgListName[], limit: number): Promise<void> {
  await mapWithLimit(names, limit, async (name) => {
    out.lists[name] = listResults(await api.get(routes.orgList(out.organization.id, name)));
  });
}

export async function readLiveRecords(client: ApiPort, graph: DesiredGraph, opts: ReadOptions = {}): Promise<LiveRecords> {
  const limit = opts.parallelism ?? 8;
  const api = withGetLimit(client, limit);
  const out = await readOrganizationRecord(api);
  // The walk down the tree needs the projects alone: the other organization-level lists (the
  // clusters, read live on every warm run, the registries...) are read alongside it rather than
  // before it, which takes a round trip off every read (the same requests, the projects' first).
  const needed = [...orgListsNeeded(graph)];
  const projectsRead = readListsInto(api, out, needed.filter((n) => n === 'projects'), 1);
  const othersRead = readListsInto(api, out, needed.filter((n) => n !== 'projects'), limit);
  // Awaited once the walk is done; until then a failure is not an unhandled one.
  othersRead.catch(() => undefined);
  await projectsRead;

  const children = indexChildren(graph);
  const wants = (r: DesiredResource, kind: ResourceKind): boolean =>
    r.prune?.includes(kind) === true || r.owns?.includes(kind) === true || (children.get(r.address) ?? []).some((c) => c.kind === kind);

  // A declared object is read under its own name, else under the earlier names its `moved`
  // entries give it (the plan matches it the same way: src/plan/moved.ts).
  const earlier = previousNames(graph.moved);
  const recordOf = (records: Map<string, ApiRecord>, r: DesiredResource, kind: ResourceKind = r.kind): ApiRecord | undefined =>
    records.get(matchKey(r.address)) ?? earlier(r.address).map((p) => records.get(matchKey(addressOf(kind, p.name, r.parent)))).find((x) => x !== undefined);

  // Projects declared in the manifest and present live.
  const liveProjects = byName(out.lists.projects ?? [], 'project', undefined);
  const projects = (children.get(undefined) ?? [])
    .filter((r) => r.kind === 'project')
    .flatMap((r) => {
      const rec = recordOf(liveProjects, r);
      return rec ? [{ desired: r, rec }] : [];
    });
  const envReads: Array<{ desired: DesiredResource; rec: ApiRecord; projectId: string }> = [];
  /** Live environments apply would delete (undeclared where the project prunes environments). */
  const deletedEnvs: Array<{ rec: ApiRecord; projectId: string }> = [];
  await mapWithLimit(projects, limit, async ({ desired, rec }) => {
    const envs = listResults(await api.get(routes.environments(rec.id)));
    out.environments.set(rec.id, envs);
    const liveEnvs = byName(envs, 'environment', desired.address);
    const claimed = new Set<string>();
    for (const e of (children.get(desired.address) ?? []).filter((c) => c.kind === 'environment')) {
      const envRec = recordOf(liveEnvs, e);
      if (envRec) {
        envReads.push({ desired: e, rec: envRec, projectId: rec.id });
        claimed.add(envRec.id);
      }
    }
    if (desired.prune?.includes('environment')) for (const e of envs) if (!claimed.has(e.id)) deletedEnvs.push({ rec: e, projectId: rec.id });
  });

  type EnvTask = { kind: 'services' | 'stages' | 'statuses'; desired: DesiredResource; rec: ApiRecord; projectId: string };
  const envTasks: EnvTask[] = [];
  for (const e of envReads) {
    // The service list is read even when the environment declares no service: pruning and the
    // unmanaged listing need it. Statuses tell which services were never deployed (an apply
    // interrupted between create and deploy converges on the next run).
    envTasks.push({ kind: 'services', ...e }, { kind: 'statuses', ...e });
    if (wants(e.desired, 'deployment_stage')) envTasks.push({ kind: 'stages', ...e });
  }
  const serviceReads: Array<{ id: string; scope: string; envId: string; projectId: string }> = [];
  await mapWithLimit(envTasks, limit, async (t) => {
    if (t.kind === 'stages') {
      out.stages.set(t.rec.id, listResults(await api.get(routes.environmentList(t.rec.id, 'deploymentStage'))));
      return;
    }
    if (t.kind === 'statuses') {
      out.statuses.set(t.rec.id, await api.get(routes.environmentList(t.rec.id, 'statuses')));
      return;
    }
    const services = listResults(await api.get(routes.environmentList(t.rec.id, 'services')));
    out.services.set(t.rec.id, services);
    const byKindName = new Map<string, ApiRecord>();
    for (const s of services) {
      const kind = serviceKindOf(s);
      if (!kind) continue;
      byKindName.set(matchKey(addressOf(kind, String(s.name ?? ''), t.desired.address)), s);
    }
    const claimed = new Set<string>();
    const declaredNames = new Set<string>();
    for (const c of children.get(t.desired.address) ?? []) {
      if (!isServiceKind(c.kind)) continue;
      declaredNames.add(c.name.toLowerCase());
      const rec = recordOf(byKindName, c);
      if (rec) claimed.add(rec.id);
      const scope = variableScopeOf(c.kind);
      if (scope === undefined) continue;
      if (rec && wants(c, 'variable')) serviceReads.push({ id: rec.id, scope, envId: t.rec.id, projectId: t.projectId });
    }
    // A live service the plan deletes (undeclared where the environment prunes its kind) or
    // replaces (another kind under a declared name: plan/kind-change.ts): its variables go with
    // it, so they are read for the plan to list and count them. A database holds none.
    for (const s of services) {
      const kind = serviceKindOf(s);
      const scope = kind && variableScopeOf(kind);
      if (!kind || !scope || claimed.has(s.id)) continue;
      if (t.desired.prune?.includes(kind) || declaredNames.has(String(s.name ?? '').toLowerCase())) {
        serviceReads.push({ id: s.id, scope, envId: t.rec.id, projectId: t.projectId });
      }
    }
  });

  // A service's unified variable list also holds the variables of its environment and project
  // (api-notes 6b): those scopes are read separately only when no service list covers them.
  const covered = new Map<string, { listOf: string; scope: string }>();
  for (const s of serviceReads) {
    if (!covered.has(s.envId)) covered.set(s.envId, { listOf: s.id, scope: 'ENVIRONMENT' });
    if (!covered.has(s.projectId)) covered.set(s.projectId, { listOf: s.id, scope: 'PROJECT' });
  }
  const scopeReads: Array<{ id: string; scope: string }> = [];
  for (const e of envReads) {
    if (wants(e.desired, 'variable') && !covered.has(e.rec.id)) {
      scopeReads.push({ id: e.rec.id, scope: 'ENVIRONMENT' });
      if (!covered.has(e.projectId)) covered.set(e.projectId, { listOf: e.rec.id, scope: 'PROJECT' });
    }
  }
  for (const { desired, rec } of projects) {
    if (wants(desired, 'variable') && !covered.has(rec.id)) scopeReads.push({ id: rec.id, scope: 'PROJECT' });
  }
  await readVariableLists(api, out, [...serviceReads, ...scopeReads], covered, limit);
  const deletedProjects = deletedProjectsOf(graph, out.lists.projects ?? [], new Set(projects.map((p) => p.rec.id)));
  // Read live even through the refresh cache: the cache may lack a service made while the audit
  // log missed it, and it would go with its parent unlisted and unguarded (a database without
  // --allow-data-loss). Only a pending deletion pays for it; a plan that deletes nothing does not.
  await readWhatGoesWith(api.live?.() ?? api, out, deletedProjects, deletedEnvs, limit);
  await othersRead;
  return out;
}

/** Live projects apply would delete: undeclared, where the top level prunes projects. */
function deletedProjectsOf(graph: DesiredGraph, live: readonly ApiRecord[], declared: ReadonlySet<string>): ApiRecord[] {
  if (!graph.prune?.includes('project')) return [];
  return live.filter((p) => !declared.has(p.id));
}

/**
 * What goes with a deleted project or environment, read so that the plan lists it, guards it
 * (its databases) and counts it: the environments of each deleted project, and for every deleted
 * environment its services, their statuses (a database never deployed has no backup to take), its
 * deployment stages and its variables. The same list endpoints as a declared environment, so the
 * refresh cache keeps them (read live all the same: the caller passes `api.live()`): per environment 3 requests plus one variable list per service (each
 * also holds its environment's and project's variables; one environment or project list stands in
 * when no service covers it).
 */
async function readWhatGoesWith(
  api: ApiPort,
  out: LiveRecords,
  projects: readonly ApiRecord[],
  envs: ReadonlyArray<{ rec: ApiRecord; projectId: string }>,
  limit: number,
): Promise<void> {
  const allEnvs = [...envs];
  await mapWithLimit([...projects], limit, async (p) => {
    const list = listResults(await api.get(routes.environments(p.id)));
    out.environments.set(p.id, list);
    for (const e of list) allEnvs.push({ rec: e, projectId: p.id });
  });
  const serviceReads: Array<{ id: string; scope: string; envId: string; projectId: string }> = [];
  const tasks = allEnvs.flatMap((e) => (['services', 'statuses', 'stages'] as const).map((kind) => ({ kind, ...e })));
  await mapWithLimit(tasks, limit, async (t) => {
    const id = t.rec.id;
    if (t.kind === 'stages') out.stages.set(id, listResults(await api.get(routes.environmentList(id, 'deploymentStage'))));
    else if (t.kind === 'statuses') out.statuses.set(id, await api.get(routes.environmentList(id, 'statuses')));
    else {
      const services = listResults(await api.get(routes.environmentList(id, 'services')));
      out.services.set(id, services);
      for (const s of services) {
        const kind = serviceKindOf(s);
        // A database holds no variables of its own.
        const scope = kind && variableScopeOf(kind);
        if (scope) serviceReads.push({ id: s.id, scope, envId: id, projectId: t.projectId });
      }
    }
  });
  const deletedProjectIds = new Set(projects.map((p) => p.id));
  const covered = new Map<string, { listOf: string; scope: string }>();
  for (const s of serviceReads) {
    if (!covered.has(s.envId)) covered.set(s.envId, { listOf: s.id, scope: 'ENVIRONMENT' });
    if (deletedProjectIds.has(s.projectId) && !covered.has(s.projectId)) covered.set(s.projectId, { listOf: s.id, scope: 'PROJECT' });
  }
  const scopeReads: Array<{ id: string; scope: string }> = [];
  for (const e of allEnvs) {
    if (covered.has(e.rec.id)) continue;
    scopeReads.push({ id: e.rec.id, scope: 'ENVIRONMENT' });
    if (deletedProjectIds.has(e.projectId) && !covered.has(e.projectId)) covered.set(e.projectId, { listOf: e.rec.id, scope: 'PROJECT' });
  }
  for (const p of projects) if (!covered.has(p.id)) scopeReads.push({ id: p.id, scope: 'PROJECT' });
  await readVariableLists(api, out, [...serviceReads, ...scopeReads], covered, limit);
}

/**
 * Reads the unified `/variable` list of each of `reads` into `out.variables` (the variables declared
 * at exactly that scope), then gives each environment or project in `covered` its own variables
 * from the list that covers it (api-notes 6b: a service's list also holds its environment's and
 * project's).
 */
export async function readVariableLists(
  api: ApiPort,
  out: LiveRecords,
  reads: ReadonlyArray<{ id: string; scope: string }>,
  covered: ReadonlyMap<string, { listOf: string; scope: string }>,
  limit: number,
): Promise<void> {
  // Only the lists that cover an environment or a project are kept whole, and only until their
  // scopes are extracted: each service's list also holds every BUILT_IN of its environment (two
  // per sibling service), so keeping them all held ~200 records per service (bench: 350 MB for
  // 1,000 services).
  const coveringLists = new Set([...covered.values()].map((c) => c.listOf));
  const fullLists = new Map<string, ApiRecord[]>();
  await mapWithLimit(reads, limit, async ({ id, scope }) => {
    const all = listResults(await api.get(routes.variables(), { parent_id: id, scope }));
    if (coveringLists.has(id)) fullLists.set(id, all.filter((v) => v.scope === 'ENVIRONMENT' || v.scope === 'PROJECT'));
    // The list also returns inherited and built-in variables: each scope keeps its own.
    out.variables.set(id, all.filter((v) => v.scope === scope));
  });
  for (const [parentId, { listOf, scope }] of covered) {
    if (out.variables.has(parentId)) continue;
    const all = fullLists.get(listOf);
    if (all) out.variables.set(parentId, all.filter((v) => v.scope === scope));
  }
}
