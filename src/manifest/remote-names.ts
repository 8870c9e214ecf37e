/**
 * The names that live outside the manifest (clusters, container registries, helm repositories),
 * read from the API so that `validate --remote` can check them: four requests (the organization and
 * three lists), nothing else. The API is reached
 * through the narrow ApiPort that live-state reading uses, so this is testable with a fake.
 */
import type { ApiPort } from '../live/api-port.js';
import { listResults } from '../live/read.js';
import type { ReferenceContext } from './references.js';

type Named = { id?: unknown; name?: unknown };

const names = (items: Named[]) => items.map((i) => i.name).filter((n): n is string => typeof n === 'string');

/**
 * Cluster, container registry and helm repository names of the token's organization. Throws (an ApiError, or an Error naming
 * the choices) when the organization cannot be determined; the caller turns that into a diagnostic.
 */
export async function fetchReferenceNames(port: ApiPort): Promise<ReferenceContext> {
  const orgBody = await port.get<unknown>('/organization');
  // The seed returns one record, the real API a list.
  const orgs: Named[] = orgBody && typeof orgBody === 'object' && !Array.isArray(orgBody) && !('results' in orgBody) ? [orgBody as Named] : listResults(orgBody);
  if (orgs.length !== 1 || typeof orgs[0]!.id !== 'string') {
    throw new Error(orgs.length === 0 ? 'the API token gives access to no organization' : `the API token sees ${orgs.length} organizations; remote checks need exactly one`);
  }
  const org = encodeURIComponent(orgs[0]!.id as string);
  const [clusters, registries, helmRepositories] = await Promise.all([
    port.get<unknown>(`/organization/${org}/cluster`),
    port.get<unknown>(`/organization/${org}/containerRegistry`),
    port.get<unknown>(`/organization/${org}/helmRepository`),
  ]);
  return {
    clusters: names(listResults(clusters)),
    registries: names(listResults(registries)),
    helmRepositories: names(listResults(helmRepositories)),
  };
}
