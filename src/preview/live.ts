/**
 * The live side of preview environments, read and deleted through the API port with requests in
 * proportion to the previews, never to the organization: the project by name, its environments,
 * and per preview its status and links.
 *
 * No printing: results and errors come back as values (the commands render them).
 */
import type { ApiPort } from '../live/api-port.js';
import { isNotFound } from '../live/api-port.js';
import { listResults } from '../live/read.js';
import { serviceKindOf } from '../live/normalize.js';
import { holdsData } from '../model/kinds/index.js';
import { previewNumberOf } from '../manifest/preview-names.js';
import { routes } from '../api/routes.js';
import { splitFingerprintMarker } from '../plan/fingerprint.js';
import { splitProtectMark } from '../plan/protect-mark.js';

type ApiRecord = Record<string, any> & { id: string };

export interface LivePreview {
  id: string;
  name: string;
  number: number;
  created_at: string;
}

export interface PreviewUrl {
  service: string;
  url: string;
}

/**
 * The projects of those names (letter case ignored), by the name asked; a name no project has is
 * absent. Two requests (the organization and its projects), however many names are asked.
 */
export async function projectsNamed(api: ApiPort, names: readonly string[]): Promise<Map<string, { id: string; name: string }>> {
  const orgResp = await api.get<unknown>(routes.organization());
  const organization = (listResults(orgResp)[0] ?? orgResp) as ApiRecord;
  const projects = listResults(await api.get(routes.orgList(organization.id, 'projects')));
  const found = new Map<string, { id: string; name: string }>();
  for (const name of names) {
    const p = projects.find((x) => String(x.name).toLowerCase() === name.toLowerCase());
    if (p) found.set(name, { id: String(p.id), name: String(p.name) });
  }
  return found;
}

/** The project's environments whose name matches the pattern, by number. One request. */
export async function livePreviews(api: ApiPort, projectId: string, pattern: string): Promise<LivePreview[]> {
  const envs = listResults(await api.get(routes.environments(projectId)));
  const out: LivePreview[] = [];
  for (const e of envs) {
    const n = previewNumberOf(pattern, String(e.name));
    if (n !== undefined) out.push({ id: String(e.id), name: String(e.name), number: n, created_at: String(e.created_at) });
  }
  return out.sort((a, b) => a.number - b.number);
}

/**
 * The URLs of the environment's public services, by service name (`GET /environment/{id}/link`,
 * names from `GET /environment/{id}/services`): the default URL of each service first. Two requests.
 */
export async function previewUrls(api: ApiPort, environmentId: string): Promise<PreviewUrl[]> {
  const links = listResults(await api.get(routes.environmentLinks(environmentId)));
  if (links.length === 0) return [];
  const services = listResults(await api.get(routes.environmentList(environmentId, 'services')));
  const nameOf = new Map(services.map((s) => [String(s.id), String(s.name)]));
  return links
    .map((l) => ({ service: nameOf.get(String(l.service_id)) ?? String(l.service_id), url: String(l.url), isDefault: l.is_default === true }))
    .sort((a, b) => a.service.localeCompare(b.service) || Number(b.isDefault) - Number(a.isDefault))
    .map(({ service, url }) => ({ service, url }));
}

interface PreviewStatus {
  state: string;
  last_deployment_date: string | null;
}

/** `GET /environment/{id}/status`: the state and the last deployment's date. One request. */
export async function previewStatus(api: ApiPort, environmentId: string): Promise<PreviewStatus> {
  const s = (await api.get<ApiRecord>(routes.environmentStatus(environmentId))) ?? {};
  return { state: String(s.state ?? 'UNKNOWN'), last_deployment_date: s.last_deployment_date ?? null };
}

/** A service the preview holds and may not lose: `kind` as the plan names it (`database`), for messages. */
export interface ProtectedService {
  name: string;
  kind: string;
  /** `declared`: the manifest says `protect: true`; `mark`: its live record carries the protect mark. */
  by: 'declared' | 'mark';
}

type DeleteOutcome = { status: 'deleted' } | { status: 'gone' } | { status: 'blocked'; databases: string[] } | { status: 'protected'; services: ProtectedService[] };

/** Whether a live record's description ends with the marker holding `protect=true` (src/plan/protect-mark.ts). */
function carriesProtectMark(record: ApiRecord): boolean {
  return typeof record.description === 'string' && splitProtectMark(splitFingerprintMarker(record.description).fingerprints).marked;
}

/**
 * Deletes a preview environment and everything in it. A protected service (declared so, the names
 * in `protectedServices`, or carrying the live mark) keeps it whatever the flags, as `protect:
 * true` keeps any environment holding one; its databases go only with `allowDataLoss`. Either
 * way the deletion is blocked before any write and names them. Already gone counts as done
 * (idempotent). Waits until a read of the environment answers 404 (the API may delete it
 * asynchronously), up to `timeoutMs`.
 */
export async function deletePreview(
  api: ApiPort,
  environmentId: string,
  opts: { allowDataLoss: boolean; protectedServices?: readonly string[]; timeoutMs: number; pollMs: number; sleep?: (ms: number) => Promise<void>; now?: () => number },
): Promise<DeleteOutcome> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  let services: ApiRecord[];
  try {
    services = listResults(await api.get(routes.environmentList(environmentId, 'services')));
  } catch (e) {
    if (isNotFound(e)) return { status: 'gone' };
    throw e;
  }
  // What holds data (its databases) goes only with --allow-data-loss.
  const holdingData = (s: ApiRecord): boolean => {
    const kind = serviceKindOf(s);
    return kind !== undefined && holdsData(kind);
  };
  // Protection comes first: no flag, allow_data_loss included, lifts it.
  const declared = new Set((opts.protectedServices ?? []).map((n) => n.toLowerCase()));
  const guarded: ProtectedService[] = [];
  for (const s of services) {
    const by = declared.has(String(s.name).toLowerCase()) ? 'declared' : carriesProtectMark(s) ? 'mark' : undefined;
    if (by) guarded.push({ name: String(s.name), kind: serviceKindOf(s) ?? 'service', by });
  }
  if (guarded.length > 0) return { status: 'protected', services: guarded };
  const databases = services.filter(holdingData).map((s) => String(s.name));
  if (databases.length > 0 && !opts.allowDataLoss) return { status: 'blocked', databases };
  try {
    await api.delete(routes.environmentItem(environmentId));
  } catch (e) {
    if (isNotFound(e)) return { status: 'gone' };
    throw e;
  }
  const deadline = now() + opts.timeoutMs;
  for (;;) {
    try {
      await api.get(routes.environmentItem(environmentId));
    } catch (e) {
      if (isNotFound(e)) return { status: 'deleted' };
      throw e;
    }
    if (now() >= deadline) throw new Error(`the environment was still there ${Math.round(opts.timeoutMs / 1000)}s after its deletion was asked for`);
    await sleep(opts.pollMs);
  }
}
