/**
 * Rolling verification of the refresh cache: each warm run re-reads a few of the lists it would
 * answer from the cache (`--verify-requests N`, in rotation over the sorted request keys) and
 * compares them with the cache. The audit log is trusted only as far as it is checked: a change
 * it did not record (an event lost, or later than the overlap window) is found within
 * ceil(lists / N) warm runs, said ("the audit log did not explain a change to ADDRESS"), and
 * repaired by a full read.
 *
 * Pure: the refresh's port (src/live/refresh.ts) reads a chosen list live instead of from the
 * cache, and asks here whether, and where, the two differ. A chosen list the run does not need
 * (its object is gone, as the log said) costs nothing.
 */
import type { Query } from './api-port.js';
import { listResults, type ApiRecord } from './read.js';
import { NEVER_CACHED_ORG_LISTS, shapeOf, type Staleness } from './touched.js';

export { DEFAULT_VERIFY_REQUESTS } from './verify-default.js';

/** The warm runs within which every cached list has been re-read once: ceil(lists / N). */
export function fullRotationRuns(lists: number, perRun: number): number {
  return perRun <= 0 ? Infinity : Math.max(1, Math.ceil(lists / perRun));
}

/** Whether a cached answer is one the rotation checks: it is answered from the cache at all. */
function verifiable(key: string, staleness: Staleness): boolean {
  const s = shapeOf(key);
  if (s.kind === 'organization' || s.kind === 'other') return false;
  if (s.kind === 'org-list' && NEVER_CACHED_ORG_LISTS.has(s.list)) return false;
  return !staleness.isStale(key);
}

/**
 * The next `count` keys of the rotation: the cached keys the run would answer from the cache,
 * sorted, starting after `after` (the last key the previous run verified) and wrapping around.
 */
export function keysToVerify(keys: readonly string[], staleness: Staleness, after: string | undefined, count: number): string[] {
  if (count <= 0) return [];
  const candidates = keys.filter((k) => verifiable(k, staleness)).sort();
  if (candidates.length <= count) return candidates;
  const start = after === undefined ? 0 : candidates.findIndex((k) => k > after);
  const from = start < 0 ? 0 : start;
  return Array.from({ length: count }, (_, i) => candidates[(from + i) % candidates.length]!);
}

/**
 * The address of what changed when the live answer of `key` (as the cache keeps answers) differs
 * from the cached one; undefined when they are equal.
 */
export function differenceOf(key: string, live: unknown, cached: Readonly<Record<string, unknown>>): string | undefined {
  if (canonical(live) === canonical(cached[key])) return undefined;
  return changedAddress(key, cached[key], live, cached);
}

/** What a verification read answered 404 for: the object whose list it is, gone with no event. */
export function goneAddress(key: string, cached: Readonly<Record<string, unknown>>): string {
  const s = shapeOf(key);
  const id = s.kind === 'environments' ? s.project : s.kind === 'env-list' ? s.env : s.kind === 'variables' ? s.parent : undefined;
  return id === undefined ? key : namesOf(cached).scope(id);
}

/** JSON with every object's keys sorted: two answers that differ only in key order are equal. */
export function canonical(value: unknown): string {
  const seen: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    // Answers are shallow; past this depth a value is compared as it is written.
    if (depth > 64 || v === null || typeof v !== 'object') {
      seen.push(JSON.stringify(v) ?? 'undefined');
      return;
    }
    if (Array.isArray(v)) {
      seen.push('[');
      for (const x of v) (walk(x, depth + 1), seen.push(','));
      seen.push(']');
      return;
    }
    seen.push('{');
    for (const k of Object.keys(v).sort()) (seen.push(JSON.stringify(k), ':'), walk((v as Record<string, unknown>)[k], depth + 1), seen.push(','));
    seen.push('}');
  };
  walk(value, 0);
  return seen.join('');
}

/**
 * The address of what changed, as plan shows addresses (`project.shop/environment.prod/application.api`,
 * `.../variable.KEY`), from the names the cache holds; the record that differs when the list is
 * one of records with ids.
 */
export function changedAddress(key: string, before: unknown, after: unknown, responses: Readonly<Record<string, unknown>>): string {
  const names = namesOf(responses);
  const s = shapeOf(key);
  const record = changedRecord(before, after);
  const label = (r: ApiRecord | undefined, field: 'name' | 'key') => (r && typeof r[field] === 'string' ? (r[field] as string) : undefined);
  switch (s.kind) {
    case 'org-list': {
      if (s.list === 'project') return label(record, 'name') ? `project.${label(record, 'name')}` : 'the projects';
      const n = label(record, 'name');
      return n ? `${s.list} "${n}"` : `the organization's ${s.list}`;
    }
    case 'environments': {
      const n = label(record, 'name');
      return n ? `${names.scope(s.project)}/environment.${n}` : `the environments of ${names.scope(s.project)}`;
    }
    case 'env-list': {
      if (s.list === 'services' && record) {
        const kind = typeof record.service_type === 'string' ? record.service_type.toLowerCase() : 'service';
        return `${names.scope(s.env)}/${kind}.${label(record, 'name') ?? record.id}`;
      }
      return `${names.scope(s.env)} (${s.list === 'statuses' ? 'deployment statuses' : s.list === 'deploymentStage' ? 'deployment stages' : 'services'})`;
    }
    case 'variables': {
      const k = label(record, 'key');
      // A service's list also shows the variables of its environment and project, each with the
      // scope it is declared at: one changed there is named where plan shows it, not at the service.
      const declaredAt = record?.scope === 'ENVIRONMENT' ? names.envOf(s.parent) : record?.scope === 'PROJECT' ? names.projectOf(s.parent) : undefined;
      return k ? `${declaredAt ?? names.scope(s.parent)}/variable.${k}` : `the variables of ${names.scope(s.parent)}`;
    }
    default:
      return key;
  }
}

/** The first record (by id) added, removed or changed between two list answers. */
function changedRecord(before: unknown, after: unknown): ApiRecord | undefined {
  const a = safeList(before);
  const b = safeList(after);
  const byId = new Map(a.filter((r) => typeof r?.id === 'string').map((r) => [r.id, r] as const));
  for (const r of b) {
    const old = typeof r?.id === 'string' ? byId.get(r.id) : undefined;
    if (!old || canonical(old) !== canonical(r)) return r;
    byId.delete(r.id);
  }
  return byId.values().next().value;
}

function safeList(body: unknown): ApiRecord[] {
  try {
    return listResults(body).filter((r) => r && typeof r === 'object');
  } catch {
    return [];
  }
}

/** Names of projects, environments and services by id, from the cached lists. */
function namesOf(responses: Readonly<Record<string, unknown>>): {
  scope(id: string): string;
  /** The environment of a service (or the environment itself), when the cache names it. */
  envOf(id: string): string | undefined;
  /** The project of a service or environment (or the project itself), when the cache names it. */
  projectOf(id: string): string | undefined;
} {
  const project = new Map<string, string>();
  const env = new Map<string, { name: string; project: string }>();
  const service = new Map<string, { name: string; kind: string; env: string }>();
  for (const [key, body] of Object.entries(responses)) {
    const s = shapeOf(key);
    if (s.kind === 'org-list' && s.list === 'project') for (const p of safeList(body)) project.set(String(p.id), String(p.name));
    if (s.kind === 'environments') for (const e of safeList(body)) env.set(String(e.id), { name: String(e.name), project: s.project });
    if (s.kind === 'env-list' && s.list === 'services') {
      for (const x of safeList(body)) service.set(String(x.id), { name: String(x.name), kind: typeof x.service_type === 'string' ? x.service_type.toLowerCase() : 'service', env: s.env });
    }
  }
  const projectScope = (id: string) => `project.${project.get(id) ?? id}`;
  const envScope = (id: string) => {
    const e = env.get(id);
    return e ? `${projectScope(e.project)}/environment.${e.name}` : undefined;
  };
  const envIdOf = (id: string) => service.get(id)?.env ?? (env.has(id) ? id : undefined);
  return {
    envOf(id) {
      const e = envIdOf(id);
      return e === undefined ? undefined : envScope(e);
    },
    projectOf(id) {
      const e = envIdOf(id);
      const p = e === undefined ? id : env.get(e)?.project;
      return p !== undefined && project.has(p) ? projectScope(p) : undefined;
    },
    scope(id) {
      const svc = service.get(id);
      if (svc) return `${envScope(svc.env) ?? `environment ${svc.env}`}/${svc.kind}.${svc.name}`;
      return envScope(id) ?? (project.has(id) ? projectScope(id) : id);
    },
  };
}
