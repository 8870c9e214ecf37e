/**
 * The live normaliser's record type, its name look-ups and the small field normalisers the kind
 * descriptors (src/model/kinds) use, in a module that does not import the kind registry: the
 * registry imports the descriptors, and ./normalize.ts imports the registry (no import cycle).
 */
import type { Address, LiveResource, ServiceKind } from '../model/resource.js';
import { builtInHash } from '../model/builtin-keys.js';
import { splitFingerprintMarker } from '../plan/fingerprint.js';
import { compact, desc, keyValuePairs, sortedSet, normalizeGitRepository, normalizeHealthchecks, normalizePorts, normalizeStorage, num } from '../graph/attrs.js';

export type ApiRecord = Record<string, any>;

/** What a live id refers to, by name. */
export interface LiveServiceRef {
  name: string;
  kind: ServiceKind;
  environment: string;
  project: string;
}

/** Name lookups built from one live read; normalisers turn ids back into names with them. */
export interface LiveLookup {
  clusters: Map<string, string>;
  registries: Map<string, string>;
  /** Helm repository id -> name (empty when the read did not need the list). */
  helmRepositories: Map<string, string>;
  annotationsGroups: Map<string, string>;
  labelsGroups: Map<string, string>;
  alertReceivers: Map<string, string>;
  services: Map<string, LiveServiceRef>;
}

/** What the live normaliser is given besides the record and the lookup (a kind's fromRecord, src/model/kinds). */
export interface NormalizeExtra {
  /** Clusters: the status record (next_k8s_available_version). */
  clusterStatus?: ApiRecord;
  /** The address of the object the record is under (a variable's: its project, environment or service). */
  parent?: Address;
}

/** A record's attrs, and what its description's marker and its record say besides (src/live/normalize.ts). */
export interface RecordAttrs {
  attrs: Record<string, unknown>;
  fingerprints?: Record<string, string>;
  deployed?: LiveResource['deployed'];
}

/** An id the lookup does not know stays visible (and diffs) instead of vanishing. */
export function nameOf(map: Map<string, string>, id: unknown): string {
  return map.get(String(id)) ?? `(unknown id ${String(id)})`;
}

export function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export function args(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.map(String) : undefined;
}

export function gitRepo(g: unknown): Record<string, unknown> | undefined {
  return g && typeof g === 'object' ? normalizeGitRepository(g as Record<string, unknown>) : undefined;
}

/** What a service built from this git repository last deployed (the record's `deployed_commit_id`), if the API says. */
export function deployedCommit(repo: ApiRecord | null | undefined): LiveResource['deployed'] {
  const commit = repo?.deployed_commit_id;
  return commit ? { git_commit_id: commit } : undefined;
}

export function registryName(r: ApiRecord, lookup: LiveLookup): string {
  if (r.registry && typeof r.registry.name === 'string') return r.registry.name;
  return nameOf(lookup.registries, r.registry_id ?? r.registry?.id);
}

/** The compute fields of an application's or a container's record (cpu, instances, ports, probes, storage...). */
export function computeFromRecord(r: ApiRecord): Record<string, unknown> {
  return compact({
    cpu: num(r.cpu),
    memory: num(r.memory),
    min_running_instances: num(r.min_running_instances),
    max_running_instances: num(r.max_running_instances),
    ports: Array.isArray(r.ports) ? normalizePorts(r.ports) : undefined,
    healthchecks: normalizeHealthchecks(r.healthchecks),
    storage: Array.isArray(r.storage) ? normalizeStorage(r.storage) : undefined,
    arguments: args(r.arguments),
    entrypoint: r.entrypoint ?? undefined,
    auto_deploy: r.auto_deploy ?? undefined,
  });
}

/**
 * A helm record's source in the attrs shape (`helm_repository: {repository: NAME, chart_name,
 * chart_version}` | `git_repository`). The API answers `{repository: {chart_name, chart_version,
 * repository: {id, name, url}}}` | `{git: {git_repository}}` (HelmResponse); the request shape
 * (`helm_repository` with the repository's id, `git_repository`) is read too, defensively. The
 * repository becomes its name: the embedded one, else the lookup's, else an id that stays visible.
 */
export function helmSource(source: unknown, lookup: Pick<LiveLookup, 'helmRepositories'>): { helm_repository?: Record<string, unknown>; git_repository?: ApiRecord } {
  const { chart, git } = helmSourceParts(source);
  if (chart) {
    const ref = chart.repository;
    const name =
      ref && typeof ref === 'object'
        ? typeof ref.name === 'string' ? ref.name : nameOf(lookup.helmRepositories, ref.id)
        : typeof ref === 'string' ? lookup.helmRepositories.get(ref) ?? ref : undefined;
    return {
      helm_repository: compact({ repository: name, chart_name: chart.chart_name, chart_version: chart.chart_version === undefined || chart.chart_version === null ? undefined : String(chart.chart_version) }),
    };
  }
  return git ? { git_repository: git } : {};
}

/**
 * Which source a helm record has, in either shape (the API's answer or the request's): its chart
 * (`{chart_name, chart_version, repository}`, the repository embedded or an id), else its git
 * repository. The one reading of the shapes, for the attrs (helmSource) and a PUT's base (the
 * helm descriptor's recordToRequest).
 */
export function helmSourceParts(source: unknown): { chart?: ApiRecord; git?: ApiRecord } {
  const s = (source ?? {}) as ApiRecord;
  const chart = s.repository && typeof s.repository === 'object' ? s.repository : s.helm_repository;
  if (chart && typeof chart === 'object') return { chart };
  const git = s.git && typeof s.git === 'object' ? s.git.git_repository : s.git_repository;
  return git && typeof git === 'object' ? { git } : {};
}

/** Helm key/values: the API's [[k, v]] list, or {key, value} objects from some responses. */
export function pairs(list: unknown[]): string[][] {
  const rec: Record<string, string> = {};
  for (const p of list) {
    if (Array.isArray(p)) rec[String(p[0])] = String(p[1]);
    else if (p && typeof p === 'object') rec[String((p as ApiRecord).key)] = String((p as ApiRecord).value);
  }
  return keyValuePairs(rec);
}

const hashIndex = new WeakMap<Map<string, LiveServiceRef>, Map<string, LiveServiceRef[]>>();

/** The lookup's services by the hash of their built-in keys, built once per lookup. */
export function servicesByHash(lookup: LiveLookup): Map<string, LiveServiceRef[]> {
  let index = hashIndex.get(lookup.services);
  if (!index) {
    index = new Map();
    for (const [id, ref] of lookup.services) {
      const h = builtInHash(id);
      const list = index.get(h);
      if (list) list.push(ref);
      else index.set(h, [ref]);
    }
    hashIndex.set(lookup.services, index);
  }
  return index;
}

function groupNames(list: unknown, map: Map<string, string>): string[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return sortedSet(list.map((g: ApiRecord) => (typeof g.name === 'string' ? g.name : nameOf(map, g.id))));
}

/**
 * A service record's attrs (a service kind's descriptor's fromRecord): the fields every service
 * has, mapped here once, then the kind's own, by `own` (its ServiceMappings.fromRecord), which
 * answers what the service last deployed.
 */
export function serviceFromRecord(r: ApiRecord, lookup: LiveLookup, own: (r: ApiRecord, a: Record<string, unknown>, lookup: LiveLookup) => LiveResource['deployed']): RecordAttrs {
  // Its description may carry driftless's marker: the protect mark, a terraform service's fingerprints.
  const marker = splitFingerprintMarker(r.description);
  const a: Record<string, unknown> = {
    name: r.name,
    description: desc(marker.description),
  };
  if (r.icon_uri !== undefined && r.icon_uri !== null) a.icon_uri = r.icon_uri;
  const ag = groupNames(r.annotations_groups, lookup.annotationsGroups);
  if (ag) a.annotations_groups = ag;
  const lg = groupNames(r.labels_groups, lookup.labelsGroups);
  if (lg) a.labels_groups = lg;
  const deployed = own(r, a, lookup);
  return deployed ? { attrs: a, fingerprints: marker.fingerprints, deployed } : { attrs: a, fingerprints: marker.fingerprints };
}
