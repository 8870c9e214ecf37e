/**
 * The names that live outside the manifest (clusters, container registries, helm repositories)
 * and the clusters' maxima, as a ReferenceContext for checkOrganizationReferences, from either
 * source:
 * - fetchReferenceNames: read from the API for `validate --remote`: four requests (the organization
 *   and three lists), nothing else, through the narrow ApiPort that live-state reading uses (testable
 *   with a fake);
 * - referenceContextOfLive: taken from the live state `plan` has read anyway (no request).
 * Both read the same listings, so validate --remote and plan check the same facts.
 */
import type { ApiPort } from '../live/api-port.js';
import { routes } from '../api/routes.js';
import { listResults } from '../live/read.js';
import { addressOf, type LiveResource, type LiveState, type ResourceKind } from '../model/resource.js';
import type { ClusterLimits, ReferenceContext } from './references.js';

type Named = { id?: unknown; name?: unknown };

const names = (items: Named[]) => items.map((i) => i.name).filter((n): n is string => typeof n === 'string');

/** maximum_cpu / maximum_memory of a cluster record, when it has them. */
function limitsOf(record: Record<string, unknown>): ClusterLimits | undefined {
  const out: ClusterLimits = {};
  if (typeof record.maximum_cpu === 'number' && Number.isFinite(record.maximum_cpu)) out.maximum_cpu = record.maximum_cpu;
  if (typeof record.maximum_memory === 'number' && Number.isFinite(record.maximum_memory)) out.maximum_memory = record.maximum_memory;
  return Object.keys(out).length > 0 ? out : undefined;
}

function clusterLimits(records: Array<Record<string, unknown>>): Record<string, ClusterLimits> {
  const out: Record<string, ClusterLimits> = {};
  for (const r of records) {
    const l = limitsOf(r);
    if (typeof r.name === 'string' && l) out[r.name] = l;
  }
  return out;
}

/**
 * The same context from a live state. The live read lists clusters, registries and helm
 * repositories whenever the manifest refers to one (src/live/read.ts orgListsNeeded), so an empty
 * list here means the organization has none.
 */
export function referenceContextOfLive(live: LiveState): ReferenceContext {
  const of = (kind: ResourceKind) => [...live.resources.values()].filter((r) => r.kind === kind);
  const clusters = of('cluster');
  return {
    clusters: clusters.map((c) => c.name),
    registries: of('container_registry').map((r) => r.name),
    helmRepositories: of('helm_repository').map((r) => r.name),
    clusterLimits: clusterLimits(clusters.map((c) => ({ ...c.record, name: c.name }))),
  };
}

/**
 * Cluster, container registry and helm repository names of the token's organization. Throws (an ApiError, or an Error naming
 * the choices) when the organization cannot be determined; the caller turns that into a diagnostic.
 */
export async function fetchReferenceNames(port: ApiPort): Promise<ReferenceContext> {
  return (await fetchOrganizationFacts(port)).references;
}

/**
 * The same reads, also as a LiveState holding the organization's clusters only: what the
 * listing checks of plan (src/checks: instance types by cluster provider and region, terraform
 * variables by organization) need, so that `validate --remote` runs them too.
 */
export async function fetchOrganizationFacts(port: ApiPort): Promise<{ references: ReferenceContext; clusters: LiveState }> {
  const orgBody = await port.get<unknown>(routes.organization());
  // The seed returns one record, the real API a list.
  const orgs: Named[] = orgBody && typeof orgBody === 'object' && !Array.isArray(orgBody) && !('results' in orgBody) ? [orgBody as Named] : listResults(orgBody);
  if (orgs.length !== 1 || typeof orgs[0]!.id !== 'string') {
    throw new Error(orgs.length === 0 ? 'the API token gives access to no organization' : `the API token sees ${orgs.length} organizations; remote checks need exactly one`);
  }
  const org = encodeURIComponent(orgs[0]!.id as string);
  const [clusters, registries, helmRepositories] = await Promise.all([
    port.get<unknown>(routes.orgList(org, 'clusters')),
    port.get<unknown>(routes.orgList(org, 'containerRegistries')),
    port.get<unknown>(routes.orgList(org, 'helmRepositories')),
  ]);
  const clusterRecords = listResults(clusters);
  const resources = new Map<string, LiveResource>();
  for (const r of clusterRecords) {
    if (typeof r.name !== 'string' || typeof r.id !== 'string') continue;
    const address = addressOf('cluster', r.name);
    resources.set(address, { address, kind: 'cluster', name: r.name, id: r.id, attrs: {}, record: r, version: String(r.updated_at ?? '') });
  }
  return {
    references: {
      clusters: names(clusterRecords),
      registries: names(listResults(registries)),
      helmRepositories: names(listResults(helmRepositories)),
      clusterLimits: clusterLimits(clusterRecords as Array<Record<string, unknown>>),
    },
    clusters: { organizationId: orgs[0]!.id as string, resources, requestCount: 0 },
  };
}
