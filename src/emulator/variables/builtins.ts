/**
 * BUILT_IN variables: the read-only variables the platform injects, like the real service's
 * `QOVERY_APPLICATION_Z<ID>_HOST_INTERNAL` (api-notes §6; PRIOR-ART "Built-ins are exposed
 * read-only ... so users can wire in DB hosts").
 *
 * They live at the environment level (every service of an environment sees every sibling's host),
 * scope BUILT_IN, and carry `service_id` / `service_name` / `service_type` of the service they
 * describe. They are materialised as ordinary variable records so that aliases can point at them
 * and so that they have stable ids; `syncBuiltIns` keeps them in step with the services.
 */
import { createHash } from 'node:crypto';
import type { ApiRecord, EmulatorState } from '../state.js';
import { projectIdOfEnvironment } from './scopes.js';
import { servicesIndex } from './services-by-environment.js';
import type { VariableIndex } from './variable-index.js';

export interface BuiltInSpec {
  key: string;
  value: string;
  is_secret: boolean;
  /** The service this variable describes (absent for environment-wide ones). */
  service?: ApiRecord;
}

/**
 * `Z` + the first 8 hex digits of the id, upper-cased: how the real platform names services.
 * The product's reading of these keys (src/model/builtin-keys.ts builtInHash) is the same rule written
 * again on purpose: the emulator imports nothing of the product, so that a wrong rule in the
 * product shows as a disagreement with the platform the emulator plays, not as two sides agreeing.
 */
export function shortId(id: string): string {
  return `Z${id.replace(/-/g, '').slice(0, 8).toUpperCase()}`;
}

const DB_PORTS: Record<string, number> = { POSTGRESQL: 5432, MYSQL: 3306, MONGODB: 27017, REDIS: 6379 };

export function builtInsOfEnvironment(env: ApiRecord, clusterName: string | undefined): BuiltInSpec[] {
  const specs: BuiltInSpec[] = [
    { key: 'QOVERY_ENVIRONMENT_ID', value: env.id, is_secret: false },
    { key: 'QOVERY_PROJECT_ID', value: String(projectIdOfEnvironment(env) ?? ''), is_secret: false },
    { key: 'QOVERY_KUBERNETES_NAMESPACE_NAME', value: `${shortId(env.id).toLowerCase()}-${shortId(String(projectIdOfEnvironment(env) ?? env.id)).toLowerCase()}`, is_secret: false },
  ];
  if (env.cluster_id) specs.push({ key: 'QOVERY_CLUSTER_ID', value: String(env.cluster_id), is_secret: false });
  if (clusterName) specs.push({ key: 'QOVERY_CLUSTER_NAME', value: clusterName, is_secret: false });
  return specs;
}

export function builtInsOfService(svc: ApiRecord): BuiltInSpec[] {
  const z = shortId(svc.id);
  const host = `${z.toLowerCase()}-${String(svc.name ?? 'service').toLowerCase().replace(/[^a-z0-9-]/g, '-')}`;
  if (svc.service_type === 'DATABASE') {
    const type = String(svc.type ?? 'POSTGRESQL').toUpperCase();
    const prefix = `QOVERY_${type}_${z}`;
    const port = Number(svc.port ?? DB_PORTS[type] ?? 5432);
    const login = 'superuser';
    const password = derivedPassword(svc.id);
    const dbName = type === 'REDIS' ? '0' : 'postgres';
    const scheme = type === 'MONGODB' ? 'mongodb' : type === 'MYSQL' ? 'mysql' : type === 'REDIS' ? 'redis' : 'postgresql';
    return [
      { key: `${prefix}_HOST_INTERNAL`, value: host, is_secret: false, service: svc },
      { key: `${prefix}_PORT`, value: String(port), is_secret: false, service: svc },
      { key: `${prefix}_LOGIN`, value: login, is_secret: false, service: svc },
      { key: `${prefix}_DEFAULT_DATABASE_NAME`, value: dbName, is_secret: false, service: svc },
      { key: `${prefix}_PASSWORD`, value: password, is_secret: true, service: svc },
      { key: `${prefix}_DATABASE_URL_INTERNAL`, value: `${scheme}://${login}:${password}@${host}:${port}/${dbName}`, is_secret: true, service: svc },
    ];
  }
  const kind = String(svc.service_type ?? 'APPLICATION').toUpperCase();
  return [
    { key: `QOVERY_${kind}_${z}_HOST_INTERNAL`, value: host, is_secret: false, service: svc },
    { key: `QOVERY_${kind}_${z}_NAME`, value: String(svc.name ?? ''), is_secret: false, service: svc },
  ];
}

/** A deterministic fake password, so that restarts and clones do not change it. */
function derivedPassword(id: string): string {
  return createHash('sha256').update(`driftless-emulator-db:${id}`).digest('base64url').slice(0, 24);
}

/** The services of an environment, from the index (O(services of that environment)). */
export function servicesOfEnvironment(state: EmulatorState, environmentId: string): ApiRecord[] {
  return servicesIndex(state).of(environmentId);
}

export interface BuiltInDeps {
  state: EmulatorState;
  index: VariableIndex;
  nowIso(): string;
  newId(): string;
}

const synced = new WeakMap<EmulatorState, Set<string>>();

/** Syncs the environment's built-ins unless that was done since its services last changed. */
export function ensureBuiltIns(deps: BuiltInDeps, environmentId: string): void {
  let done = synced.get(deps.state);
  if (!done) synced.set(deps.state, (done = new Set()));
  if (done.has(environmentId)) return;
  syncBuiltIns(deps, environmentId);
  done.add(environmentId);
}

/** Forgets that the environment is in sync (it was deleted). */
export function forgetSynced(state: EmulatorState, environmentId: string): void {
  synced.get(state)?.delete(environmentId);
}

/**
 * Makes the environment's BUILT_IN records match its services: creates missing ones, updates
 * changed values (a renamed service), removes those of services that are gone. Returns whether
 * anything changed (the caller then commits).
 */
export function syncBuiltIns(deps: BuiltInDeps, environmentId: string): boolean {
  const { state, index } = deps;
  const env = state.environments[environmentId];
  if (!env) return false;
  const cluster = env.cluster_id ? state.clusters[env.cluster_id] : undefined;
  const wanted = [...builtInsOfEnvironment(env, cluster?.name), ...servicesOfEnvironment(state, environmentId).flatMap(builtInsOfService)];
  const existing = new Map<string, ApiRecord>();
  for (const v of index.ofParent(environmentId)) if (v.variable_type === 'BUILT_IN') existing.set(v.key, v);
  let changed = false;
  const now = deps.nowIso();
  for (const spec of wanted) {
    const prev = existing.get(spec.key);
    existing.delete(spec.key);
    const storedValue = spec.is_secret ? null : spec.value;
    if (prev && prev.value === storedValue && prev.service_name === (spec.service?.name ?? prev.service_name)) {
      if (!spec.is_secret || state.secretValues[prev.id] === spec.value) continue;
    }
    changed = true;
    const record: ApiRecord = {
      id: prev?.id ?? deps.newId(),
      created_at: prev?.created_at ?? now,
      updated_at: now,
      key: spec.key,
      value: storedValue,
      mount_path: null,
      scope: 'BUILT_IN',
      variable_type: 'BUILT_IN',
      is_secret: spec.is_secret,
      description: null,
      enable_interpolation_in_file: false,
      secret_manager_access_id: null,
      owned_by: 'QOVERY',
      parent_id: environmentId,
      ...(spec.service
        ? { service_id: spec.service.id, service_name: spec.service.name, service_type: spec.service.service_type }
        : {}),
    };
    index.put(record, spec.is_secret ? spec.value : undefined);
  }
  for (const stale of existing.values()) {
    removeWithDependents(index, stale.id);
    changed = true;
  }
  return changed;
}

/** Deletes a variable and, first, every alias and override that points at it. */
export function removeWithDependents(index: VariableIndex, id: string): string[] {
  const removed: string[] = [];
  for (const dep of index.dependentsOf(id)) removed.push(...removeWithDependents(index, dep.id));
  index.remove(id);
  removed.push(id);
  return removed;
}
