/**
 * The refresh cache's promise, checked write by write: every list a write changes, directly or
 * through the API's cascades (a database deleted takes the aliases of its built-ins; a group
 * changed makes its services out of date...), is one that src/live/touched.ts makes stale given
 * the audit events the write recorded. Otherwise a cached plan would keep the old answer.
 *
 * `snapshotLists` reads every list driftless can read (the organization's lists, each project's
 * environments and variables, each environment's services, statuses, stages and variables, each
 * service's variables) after noting the newest event; `unexplainedChanges` reads them again with
 * the events since, and names each list whose answer differs while touched.ts would have answered
 * it from the cache. Lists of objects gone (404) are left out: the list that named them changed,
 * and that one is checked.
 */
import { errorStatus, type ApiPort, type Query } from '../../src/live/api-port.js';
import type { AuditEvent } from '../../src/live/audit-log.js';
import { listResults } from '../../src/live/read.js';
import { ORG_LISTS, routes, type OrgListName } from '../../src/api/routes.js';
import { requestKey, stalenessOf, topologyOf } from '../../src/live/touched.js';

interface Request {
  path: string;
  query?: Query;
}

export interface ListSnapshot {
  organizationId: string;
  /** The newest event when the snapshot began (undefined: an empty log). */
  newest: { timestamp: string; id: string } | undefined;
  /** request key (touched.ts) -> the request and its answer, as the cache keeps it. */
  lists: Map<string, { req: Request; body: unknown }>;
}

const SERVICE_SCOPES = new Set(['APPLICATION', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM']);

/** A variable list as the cache keeps it: without its BUILT_INs (src/live/refresh.ts). */
function asCached(req: Request, body: unknown): unknown {
  if (req.path !== '/variable') return body;
  return { ...(body as object), results: listResults(body).filter((v) => v.scope !== 'BUILT_IN') };
}

async function getOrGone(api: ApiPort, req: Request): Promise<{ body: unknown } | undefined> {
  try {
    return { body: await api.get(req.path, req.query) };
  } catch (e) {
    if (errorStatus(e) === 404) return undefined;
    throw e;
  }
}

/** Every request driftless can make for the organization as it is now. */
async function readAll(api: ApiPort, organizationId: string): Promise<Map<string, { req: Request; body: unknown }>> {
  const out = new Map<string, { req: Request; body: unknown }>();
  const read = async (req: Request): Promise<unknown> => {
    const got = await getOrGone(api, req);
    if (got === undefined) return undefined;
    out.set(requestKey(req.path, req.query), { req, body: asCached(req, got.body) });
    return got.body;
  };
  await Promise.all([read({ path: '/organization' }), ...(Object.keys(ORG_LISTS) as OrgListName[]).map((list) => read({ path: routes.orgList(organizationId, list) }))]);
  const projects = listResults(out.get(requestKey(routes.orgList(organizationId, 'projects')))?.body);
  const environment = async (envId: string) => {
    const [services] = await Promise.all([
      read({ path: `/environment/${envId}/services` }),
      read({ path: `/environment/${envId}/statuses` }),
      read({ path: `/environment/${envId}/deploymentStage` }),
      read({ path: '/variable', query: { parent_id: envId, scope: 'ENVIRONMENT' } }),
    ]);
    const withVariables = listResults(services).filter((svc) => SERVICE_SCOPES.has(String(svc.service_type)));
    await Promise.all(withVariables.map((svc) => read({ path: '/variable', query: { parent_id: svc.id, scope: String(svc.service_type) } })));
  };
  await Promise.all(
    projects.map(async (p) => {
      const [envs] = await Promise.all([read({ path: `/project/${p.id}/environment` }), read({ path: '/variable', query: { parent_id: p.id, scope: 'PROJECT' } })]);
      await Promise.all(listResults(envs).map((e) => environment(e.id)));
    }),
  );
  return out;
}

async function newestEvent(api: ApiPort, organizationId: string): Promise<{ timestamp: string; id: string } | undefined> {
  const page = await api.get<{ events: AuditEvent[] }>(`/organization/${organizationId}/events`, { pageSize: 1 });
  const e = page.events[0];
  return e ? { timestamp: e.timestamp, id: e.id } : undefined;
}

/** Every event after `newest`, oldest first. */
async function eventsAfter(api: ApiPort, organizationId: string, newest: ListSnapshot['newest']): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  let token: string | undefined;
  for (;;) {
    const query: Query = { pageSize: 100, ...(newest ? { fromTimestamp: newest.timestamp } : {}), ...(token ? { continueToken: token } : {}) };
    const page = await api.get<{ events: AuditEvent[]; links: { next?: string } }>(`/organization/${organizationId}/events`, query);
    out.push(...page.events.filter((e) => e.id !== newest?.id));
    const next = page.links.next ? new URL(page.links.next).searchParams.get('continueToken') : null;
    if (!next || page.events.length === 0) break;
    token = next;
  }
  return out.reverse();
}

export async function snapshotLists(api: ApiPort, organizationId: string): Promise<ListSnapshot> {
  const newest = await newestEvent(api, organizationId);
  return { organizationId, newest, lists: await readAll(api, organizationId) };
}

export interface Unexplained {
  /** Lists whose answer changed while touched.ts would answer them from the cache. */
  lists: string[];
  /** The events the refresh would have read. */
  events: AuditEvent[];
  /** Set when touched.ts gives up on these events (the refresh then reads everything: never wrong). */
  fullReadReason?: string;
}

export async function unexplainedChanges(api: ApiPort, before: ListSnapshot): Promise<Unexplained> {
  const events = await eventsAfter(api, before.organizationId, before.newest);
  const responses = Object.fromEntries([...before.lists].map(([k, v]) => [k, v.body]));
  const staleness = stalenessOf(events, topologyOf(responses));
  if ('reason' in staleness) return { lists: [], events, fullReadReason: staleness.reason };
  const cached = [...before.lists].filter(([key]) => !staleness.isStale(key));
  const changed = await Promise.all(
    cached.map(async ([key, { req, body }]) => {
      const now = await getOrGone(api, req);
      return now !== undefined && JSON.stringify(asCached(req, now.body)) !== JSON.stringify(body) ? key : undefined;
    }),
  );
  return { lists: changed.filter((k): k is string => k !== undefined), events };
}

/** "GET key: what changed" lines, for a failure message. */
export function describeEvents(events: readonly AuditEvent[]): string {
  return events.map((e) => `${e.event_type} ${e.target_type}${e.sub_target_type ? `/${e.sub_target_type}` : ''} ${e.target_name ?? e.target_id ?? ''}`).join('; ');
}
