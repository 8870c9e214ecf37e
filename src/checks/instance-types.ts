/**
 * A managed database's `instance_type` against the managed-database instance-type listing of its
 * cluster's cloud provider and region.
 *
 * Which listing: the API documents a database's instance_type as "retrieved via
 * /{CloudProvider}/managedDatabase/instanceType/{region}/{dbType}", and only AWS has that listing
 * (the Kubernetes node listings, `/aws/eks/instanceType/{region}` etc., name node types such as
 * `t3.large`, which a managed database refuses). So databases on AWS clusters are checked against
 * `GET /aws/managedDatabase/instanceType/{region}/{type}`, asked once per distinct (provider,
 * region, database type) in a run; a provider without a listing is not checked (the API offers
 * nothing to check against).
 *
 * Severity: an instance type the plan would send (a new database, or one whose live instance type
 * differs) is an error; one the live database already runs (the listing stopped offering it) is a
 * warning, since nothing will be sent.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { routes } from '../api/routes.js';
import { error, warning } from '../diag/diagnostic.js';
import { nearest } from '../manifest/suggest.js';
import type { DatabaseSpec } from '../manifest/types.js';
import { sourceOf } from '../manifest/types.js';
import type { LiveResource, LiveState } from '../model/resource.js';
import { matchKey } from '../model/resource.js';
import type { ApiPort } from '../live/api-port.js';
import { OnceCache, resultsOf } from './fetch-once.js';
import { nameList, quote } from './text.js';

/** A managed database of the manifest, with the cluster its environment names. */
export interface ManagedDatabaseTarget {
  address: string;
  spec: DatabaseSpec;
  cluster: string;
}

/** The managed-database instance-type listing of each cloud provider that has one. */
export const MANAGED_DB_LISTINGS: Readonly<Record<string, (region: string, databaseType: string) => string>> = {
  AWS: (region, type) => routes.awsManagedDatabaseInstanceTypes(region, type),
};

/** Names offered by a listing: instance types carry `name` (managed databases) and/or `type` (nodes). */
function namesOf(body: unknown): string[] {
  const out: string[] = [];
  for (const row of resultsOf(body)) {
    const n = typeof row.name === 'string' ? row.name : typeof row.type === 'string' ? row.type : undefined;
    if (n !== undefined && !out.includes(n)) out.push(n);
  }
  return out;
}

export function liveClusters(live: LiveState): Map<string, LiveResource> {
  const out = new Map<string, LiveResource>();
  for (const r of live.resources.values()) if (r.kind === 'cluster') out.set(r.name, r);
  return out;
}

function findCluster(clusters: Map<string, LiveResource>, name: string): LiveResource | undefined {
  const exact = clusters.get(name);
  if (exact) return exact;
  const lower = name.toLowerCase();
  for (const [n, c] of clusters) if (n.toLowerCase() === lower) return c;
  return undefined;
}

export async function checkInstanceTypes(
  targets: readonly ManagedDatabaseTarget[],
  live: LiveState,
  api: ApiPort,
  cache: OnceCache<string[]> = new OnceCache<string[]>(),
): Promise<Diagnostic[]> {
  const clusters = liveClusters(live);
  // The targets' live objects, paired on matchKey (names folded as the API compares them).
  const wantedKeys = new Set(targets.map((t) => matchKey(t.address)));
  const liveByKey = new Map<string, LiveResource>();
  for (const r of live.resources.values()) if (wantedKeys.has(matchKey(r.address))) liveByKey.set(matchKey(r.address), r);

  const results = await Promise.all(
    targets.map(async (t): Promise<Diagnostic[]> => {
      const wanted = t.spec.instance_type;
      if (t.spec.mode !== 'MANAGED' || typeof wanted !== 'string') return [];
      // An unknown cluster is reported where the environment names it (reference checks).
      const cluster = findCluster(clusters, t.cluster);
      if (!cluster) return [];
      const provider = String(cluster.record.cloud_provider ?? '').toUpperCase();
      const region = String(cluster.record.region ?? '');
      const listing = MANAGED_DB_LISTINGS[provider];
      if (!listing || region === '') return [];
      const type = t.spec.database_type;
      const path = listing(region, type);
      const got = await cache.get(`${provider} ${region} ${type}`, async () => namesOf(await api.get(path)));
      const range = sourceOf(t.spec, 'instance_type');
      const where = `${type} in ${provider} region ${region} (cluster ${cluster.name})`;
      if (!got.ok) {
        return [
          warning('check.instance-type-unchecked', `database ${t.spec.name}: instance_type ${quote(wanted)} could not be checked: the listing of ${where} failed`, {
            detail: `GET ${path}: ${got.message}`,
            address: t.address,
            ...(range ? { range } : {}),
          }),
        ];
      }
      const allowed = got.value;
      if (allowed.includes(wanted)) return [];
      const hint = nearest(wanted, allowed);
      const detail =
        (allowed.length > 0 ? `Allowed: ${nameList(allowed)}.` : `The listing offers no instance type for ${type} there.`) +
        (hint ? ` Did you mean ${quote(hint)}?` : '') +
        ` (GET ${path})`;
      const liveDb = liveByKey.get(matchKey(t.address));
      if (liveDb && liveDb.record.instance_type === wanted) {
        return [
          warning('check.instance-type', `database ${t.spec.name}: instance_type ${quote(wanted)} is no longer offered for ${where}; the live database runs it, so nothing is sent`, {
            detail,
            address: t.address,
            ...(range ? { range } : {}),
          }),
        ];
      }
      return [
        error('check.instance-type', `database ${t.spec.name}: instance_type ${quote(wanted)} is not offered for ${where}`, {
          detail,
          address: t.address,
          ...(range ? { range } : {}),
        }),
      ];
    }),
  );
  return results.flat();
}
