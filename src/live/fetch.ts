/**
 * fetchLiveState(api, graph) -> LiveState: the live organization, normalised to the attrs shape of
 * the desired graph, read with the list endpoints only (see ./read.ts for the request budget).
 * The plan pipeline's read stage (src/pipeline/plan.ts).
 *
 * Everything a read returned becomes a LiveResource, including objects the manifest does not
 * declare (computePlan lists them as unmanaged, or deletes them where the manifest prunes).
 */
import type { Address, DesiredGraph, LiveResource, LiveState } from '../model/resource.js';
import { addressOf } from '../model/resource.js';
import type { ApiPort } from './api-port.js';
import { buildLiveLookup, normalizeLive, serviceKindOf } from './normalize.js';
import { readLiveRecords, type ApiRecord, type LiveRecords, type ReadOptions } from './read.js';
import type { RecordsReader } from './refresh.js';
import { distrustStaleSecretFingerprints } from './stale-secrets.js';

/**
 * How the records are read: given the full read of the graph, either runs it or answers from
 * somewhere it can prove current (the refresh cache, src/cli/live-cache.ts), with what it learnt
 * on the way (`X`: the audit events, the keys answered from the cache...).
 */
export type RecordsVia<X extends object> = (api: ApiPort, read: RecordsReader) => Promise<{ records: LiveRecords } & X>;

export interface FetchOptions<X extends object = object> extends ReadOptions {
  /** Default: the full read. */
  via?: RecordsVia<X>;
}

/** The live state, and what the reader said besides its records. */
export interface FetchedLiveState<X extends object = object> {
  live: LiveState;
  read: { records: LiveRecords } & X;
}

export async function fetchLiveState<X extends object = object>(api: ApiPort, graph: DesiredGraph, opts: FetchOptions<X> = {}): Promise<FetchedLiveState<X>> {
  const before = api.requestCount;
  const full: RecordsReader = (port) => readLiveRecords(port, graph, opts.parallelism !== undefined ? { parallelism: opts.parallelism } : {});
  const read = opts.via ? await opts.via(api, full) : ({ records: await full(api) } as { records: LiveRecords } & X);
  const live = liveStateFromRecords(read.records, graph);
  live.requestCount = api.requestCount - before;
  return { live, read };
}

/** Pure: the LiveState of a set of records read by readLiveRecords. */
export function liveStateFromRecords(records: LiveRecords, graph: DesiredGraph): LiveState {
  const { lists } = records;
  const projectName = new Map<string, string>();
  for (const p of lists.projects ?? []) projectName.set(p.id, String(p.name));

  // Every service read, with the names of its environment and project (for name lookups).
  const envInfo = new Map<string, { name: string; project: string; address: Address }>();
  for (const [projectId, envs] of records.environments) {
    const pAddr = addressOf('project', projectName.get(projectId) ?? projectId);
    for (const e of envs) {
      envInfo.set(e.id, { name: String(e.name), project: projectName.get(projectId) ?? projectId, address: addressOf('environment', String(e.name), pAddr) });
    }
  }
  const servicesForLookup: Array<{ record: ApiRecord; environment: string; project: string }> = [];
  for (const [envId, services] of records.services) {
    const info = envInfo.get(envId);
    if (!info) continue;
    for (const s of services) servicesForLookup.push({ record: s, environment: info.name, project: info.project });
  }
  const lookup = buildLiveLookup({
    clusters: lists.clusters,
    registries: lists.containerRegistries,
    helmRepositories: lists.helmRepositories,
    annotationsGroups: lists.annotationsGroups,
    labelsGroups: lists.labelsGroups,
    alertReceivers: lists.alertReceivers,
    services: servicesForLookup,
  });

  const resources = new Map<Address, LiveResource>();
  const add = (r: LiveResource): void => {
    // Two live objects with one address (e.g. two webhooks with the same URL): the first wins; the
    // plan cannot tell them apart by name either.
    if (!resources.has(r.address)) resources.set(r.address, r);
  };

  if (graph.resources.has('organization')) add(normalizeLive('organization', records.organization, undefined, lookup));
  const statusByCluster = new Map((lists.clusterStatuses ?? []).map((s) => [String(s.cluster_id ?? s.id), s]));
  for (const c of lists.clusters ?? []) add(normalizeLive('cluster', c, undefined, lookup, { clusterStatus: statusByCluster.get(c.id) }));
  for (const r of lists.containerRegistries ?? []) add(normalizeLive('container_registry', r, undefined, lookup));
  for (const r of lists.helmRepositories ?? []) add(normalizeLive('helm_repository', r, undefined, lookup));
  for (const g of lists.annotationsGroups ?? []) add(normalizeLive('annotations_group', g, undefined, lookup));
  for (const g of lists.labelsGroups ?? []) add(normalizeLive('labels_group', g, undefined, lookup));
  for (const r of lists.alertReceivers ?? []) add(normalizeLive('alert_receiver', r, undefined, lookup));
  // GHOST rules exist only in the alerting system; they cannot be managed through the API's records.
  for (const r of lists.alertRules ?? []) if (r.source !== 'GHOST') add(normalizeLive('alert_rule', r, undefined, lookup));
  for (const w of lists.webhooks ?? []) add(normalizeLive('webhook', w, undefined, lookup));

  const variablesOf = (parentId: string, parent: Address): void => {
    for (const v of records.variables.get(parentId) ?? []) add(normalizeLive('variable', v, parent, lookup));
  };
  for (const p of lists.projects ?? []) {
    const project = normalizeLive('project', p, undefined, lookup);
    add(project);
    variablesOf(p.id, project.address);
    for (const e of records.environments.get(p.id) ?? []) {
      const env = normalizeLive('environment', e, project.address, lookup);
      add(env);
      variablesOf(e.id, env.address);
      for (const st of records.stages.get(e.id) ?? []) add(normalizeLive('deployment_stage', st, env.address, lookup));
      const statuses = statusesById(records.statuses.get(e.id));
      for (const s of records.services.get(e.id) ?? []) {
        const kind = serviceKindOf(s);
        if (!kind) continue;
        const svc = normalizeLive(kind, s, env.address, lookup);
        const st = statuses.get(s.id);
        if (st) svc.status = compactStatus(st);
        add(svc);
        variablesOf(s.id, svc.address);
      }
    }
  }
  distrustStaleSecretFingerprints(resources);
  return { organizationId: records.organization.id, resources, requestCount: 0 };
}

/** `{applications: [...], containers: [...], ...}` -> status by service id. */
function statusesById(resp: Record<string, unknown> | undefined): Map<string, ApiRecord> {
  const out = new Map<string, ApiRecord>();
  for (const [key, v] of Object.entries(resp ?? {})) {
    if (key === 'environment' || !Array.isArray(v)) continue;
    for (const st of v as ApiRecord[]) if (st && typeof st.id === 'string') out.set(st.id, st);
  }
  return out;
}

function compactStatus(st: ApiRecord): NonNullable<LiveResource['status']> {
  const out: NonNullable<LiveResource['status']> = {};
  if (typeof st.state === 'string') out.state = st.state;
  if (typeof st.service_deployment_status === 'string') out.service_deployment_status = st.service_deployment_status;
  if (typeof st.last_deployment_date === 'string') out.last_deployment_date = st.last_deployment_date;
  return out;
}
