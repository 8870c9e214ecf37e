/**
 * What each audited write is, in the audit log's words: which collections of the state are
 * configuration, the target (and sub-target) a record of each belongs to, and the rules that keep
 * one request's events to the writes a person made, not their consequences:
 *
 * - a record whose parent was created or deleted by the same request is part of that parent's
 *   event (an environment's DEFAULT stage, the services of a deleted environment, a deleted
 *   service's variables);
 * - BUILT_IN variables follow the services and are never an event;
 * - a stage whose only change is its membership (or, when a stage was created or deleted, its
 *   order), in a request that created or deleted a service or a stage, is that service's or stage's
 *   consequence (moving a service or a stage is an UPDATE);
 * - a written secret value (`secretValues`, webhook and receiver secrets) is named in its owner's
 *   change (`secrets_written`), an UPDATE of the owner when its record did not change too; the
 *   value never appears;
 * - several records of one target, sub-target and kind of change in one request are one event.
 *
 * Pure: a function of the state after the request and the records as they were before it.
 */
import type { ApiRecord, AuditEvent, EmulatorState } from '../state.js';
import { environmentIdOfService, projectIdOfEnvironment } from '../variables/scopes.js';

export type ChangeFields = Omit<AuditEvent, 'id' | 'timestamp' | 'origin' | 'triggered_by' | 'user_agent' | 'original_change'>;

export interface RecordChange {
  /** State collection (`organization` for the organization record). */
  collection: string;
  key: string;
  before: ApiRecord | undefined;
  after: ApiRecord | undefined;
}

/** Collections whose writes are configuration changes (the others are status, history, logs...). */
export const AUDITED_COLLECTIONS = [
  'projects', 'environments', 'services', 'deploymentStages', 'variables', 'advancedSettings',
  'annotationsGroups', 'labelsGroups', 'alertReceivers', 'alertRules', 'webhooks', 'helmRepositories',
  'clusters', 'containerRegistries', 'secretValues', 'webhookSecrets', 'alertReceiverSecrets',
] as const;

/** Organization-level objects that the reference lists as sub-targets of ORGANIZATION. */
const ORGANIZATION_PARTS: Record<string, string> = {
  annotationsGroups: 'ANNOTATIONS_GROUP',
  labelsGroups: 'LABELS_GROUP',
  alertReceivers: 'ALERT_RECEIVER',
  alertRules: 'ALERT_RULE',
};

/** Top-level targets of their own. */
const OWN_TARGETS: Record<string, string> = {
  projects: 'PROJECT',
  environments: 'ENVIRONMENT',
  webhooks: 'WEBHOOK',
  helmRepositories: 'HELM_REPOSITORY',
  clusters: 'CLUSTER',
  containerRegistries: 'CONTAINER_REGISTRY',
};

/** Fields that say when, not what: a change of only these is still an UPDATE, but they are not listed. */
const BOOKKEEPING = new Set(['id', 'created_at', 'updated_at']);

interface Target {
  target_type: string;
  target_id: string | null;
  target_name?: string;
  project_id: string | null;
  project_name?: string;
  environment_id: string | null;
  environment_name?: string;
}

/** The record of `id` in `collection`, now or (deleted by this request) before. */
type Lookup = (collection: string, id: string | undefined) => ApiRecord | undefined;

function placeOfProject(look: Lookup, projectId: string | undefined): Pick<Target, 'project_id' | 'project_name'> {
  const p = look('projects', projectId);
  return { project_id: projectId ?? null, ...(p?.name !== undefined ? { project_name: String(p.name) } : {}) };
}

function placeOfEnvironment(look: Lookup, envId: string | undefined): Omit<Target, 'target_type' | 'target_id' | 'target_name'> {
  const env = look('environments', envId);
  return {
    ...placeOfProject(look, env ? projectIdOfEnvironment(env) : undefined),
    environment_id: envId ?? null,
    ...(env?.name !== undefined ? { environment_name: String(env.name) } : {}),
  };
}

const named = (r: ApiRecord | undefined) => (r?.name !== undefined && r.name !== null ? { target_name: String(r.name) } : {});

function projectTarget(look: Lookup, id: string): Target {
  return { target_type: 'PROJECT', target_id: id, ...named(look('projects', id)), ...placeOfProject(look, id), environment_id: null };
}

function environmentTarget(look: Lookup, id: string): Target {
  return { target_type: 'ENVIRONMENT', target_id: id, ...named(look('environments', id)), ...placeOfEnvironment(look, id) };
}

function serviceTarget(look: Lookup, id: string): Target | undefined {
  const svc = look('services', id);
  if (!svc) return undefined;
  return { target_type: String(svc.service_type), target_id: id, ...named(svc), ...placeOfEnvironment(look, environmentIdOfService(svc)) };
}

function organizationTarget(state: EmulatorState): Target {
  return { target_type: 'ORGANIZATION', target_id: state.organization.id, ...named(state.organization), project_id: null, environment_id: null };
}

/** The target a variable belongs to: its project, environment or service. */
function parentTarget(look: Lookup, parentId: string | undefined): Target | undefined {
  if (!parentId) return undefined;
  if (look('projects', parentId)) return projectTarget(look, parentId);
  if (look('environments', parentId)) return environmentTarget(look, parentId);
  return serviceTarget(look, parentId);
}

/** The event target of a service (for operations, ops/audit.ts). */
export function targetOfService(state: EmulatorState, serviceId: string, fallback?: ApiRecord): Target | undefined {
  const look: Lookup = (c, id) => (id === undefined ? undefined : ((state as any)[c]?.[id] as ApiRecord | undefined) ?? (c === 'services' && id === serviceId ? fallback : undefined));
  return serviceTarget(look, serviceId);
}

/** The event target of an environment (for operations). */
export function targetOfEnvironment(state: EmulatorState, environmentId: string): Target {
  const look: Lookup = (c, id) => (id === undefined ? undefined : ((state as any)[c]?.[id] as ApiRecord | undefined));
  return environmentTarget(look, environmentId);
}

/** A record as the change shows it: bookkeeping out, a secret variable's value never in. */
function visible(collection: string, r: ApiRecord | undefined): Record<string, unknown> | undefined {
  if (!r || typeof r !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (BOOKKEEPING.has(k)) continue;
    if (collection === 'variables' && k === 'value' && (r.is_secret === true || r.is_secret === undefined)) continue;
    out[k] = v;
  }
  return out;
}

/** The fields that differ, before and after. */
function diff(collection: string, before: ApiRecord, after: ApiRecord): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const b = visible(collection, before) ?? {};
  const a = visible(collection, after) ?? {};
  const out = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (JSON.stringify(b[k]) !== JSON.stringify(a[k])) {
      if (k in b) out.before[k] = b[k];
      if (k in a) out.after[k] = a[k];
    }
  }
  return out;
}

interface Pending {
  event_type: string;
  target: Target;
  sub_target_type: string | null;
  records: Record<string, unknown>[];
}

export function eventsOfChanges(state: EmulatorState, changes: RecordChange[]): ChangeFields[] {
  const byKey = new Map(changes.map((c) => [`${c.collection}\u0000${c.key}`, c]));
  const changed = (collection: string, key: string) => byKey.get(`${collection}\u0000${key}`);
  // Records deleted by this request are still looked up (for names and places) as they were.
  const look: Lookup = (c, id) => {
    if (id === undefined) return undefined;
    const now = (state as any)[c]?.[id] as ApiRecord | undefined;
    return now ?? changed(c, id)?.before;
  };
  const bornOrGone = new Set(changes.filter((c) => !c.before !== !c.after).map((c) => c.key));
  const bornOrGoneIn = (collection: string) => changes.some((c) => c.collection === collection && !c.before !== !c.after);
  // What a created or deleted service or stage does to the other stages of its environment.
  const stageConsequences = new Set([
    ...(bornOrGoneIn('services') || bornOrGoneIn('deploymentStages') ? ['services'] : []),
    ...(bornOrGoneIn('deploymentStages') ? ['deployment_order'] : []),
  ]);

  // Write-only secrets written by this request, by owner record: its change says so (not the value).
  const secretsOf = new Map<string, string[]>();
  for (const ch of changes) {
    if (!SECRET_COLLECTIONS.has(ch.collection)) continue;
    const owner = secretOwner(ch.collection, ch.key);
    if (!owner) continue;
    const k = `${owner.collection}\u0000${owner.id}`;
    secretsOf.set(k, [...(secretsOf.get(k) ?? []), owner.field ?? 'value']);
  }

  const pending = new Map<string, Pending>();
  const add = (event_type: string, target: Target | undefined, sub: string | null, record: Record<string, unknown>) => {
    if (!target) return;
    const k = `${event_type}\u0000${target.target_type}\u0000${target.target_id}\u0000${sub}`;
    const p = pending.get(k);
    if (p) p.records.push(record);
    else pending.set(k, { event_type, target, sub_target_type: sub, records: [record] });
  };

  for (const ch of changes) {
    const { collection, key, before, after } = ch;
    if (!before && !after) continue;
    const kind = !before ? 'CREATE' : !after ? 'DELETE' : 'UPDATE';
    const rec = (after ?? before) as ApiRecord;
    const secrets = secretsOf.get(`${collection}\u0000${key}`);
    const what = (name?: unknown): Record<string, unknown> => ({
      id: rec.id ?? key,
      ...(name !== undefined && name !== null ? { name } : {}),
      ...(kind === 'CREATE' ? { after: visible(collection, after) } : kind === 'DELETE' ? { before: visible(collection, before) } : diff(collection, before!, after!)),
      ...(secrets && kind !== 'DELETE' ? { secrets_written: secrets } : {}),
    });
    switch (collection) {
      case 'organization':
        add('UPDATE', organizationTarget(state), null, what(rec.name));
        break;
      case 'projects':
        add(kind, projectTarget(look, key), null, what(rec.name));
        break;
      case 'environments':
        if (bornOrGone.has(String(projectIdOfEnvironment(rec)))) break;
        add(kind, environmentTarget(look, key), null, what(rec.name));
        break;
      case 'services':
        if (bornOrGone.has(String(environmentIdOfService(rec)))) break;
        add(kind, serviceTarget(look, key), null, what(rec.name));
        break;
      case 'deploymentStages': {
        const envId = String(rec.environment?.id);
        if (bornOrGone.has(envId)) break;
        if (kind === 'UPDATE') {
          const d = diff(collection, before!, after!);
          const fields = new Set([...Object.keys(d.before), ...Object.keys(d.after)]);
          if (fields.size > 0 && [...fields].every((f) => stageConsequences.has(f))) break;
        }
        add(kind, environmentTarget(look, envId), 'DEPLOYMENT_STAGE', what(rec.name));
        break;
      }
      case 'variables': {
        if (rec.variable_type === 'BUILT_IN' || rec.scope === 'BUILT_IN') break;
        const parent = String(rec.parent_id);
        if (bornOrGone.has(parent)) break;
        add(kind, parentTarget(look, parent), rec.is_secret ? 'SECRET' : 'VARIABLE', what(rec.key));
        break;
      }
      case 'advancedSettings': {
        if (bornOrGone.has(key)) break;
        const d = before && after ? diff(collection, before, after) : { after: visible(collection, after), before: visible(collection, before) };
        add('UPDATE', serviceTarget(look, key), 'ADVANCED_SETTINGS', { id: key, ...d });
        break;
      }
      case 'secretValues':
      case 'webhookSecrets':
      case 'alertReceiverSecrets': {
        const owner = secretOwner(collection, key);
        if (!owner || changed(owner.collection, owner.id) || bornOrGone.has(owner.id)) break;
        const target = targetOfOwner(state, look, owner.collection, owner.id);
        const record = look(owner.collection, owner.id);
        const sub = owner.collection === 'variables' ? (record?.is_secret ? 'SECRET' : 'VARIABLE') : owner.sub ?? 'SECRET';
        add('UPDATE', target, sub, { id: owner.id, ...(record ? { name: record.key ?? record.name } : {}), secrets_written: [owner.field ?? 'value'] });
        break;
      }
      default: {
        const part = ORGANIZATION_PARTS[collection];
        if (part) add(kind, organizationTarget(state), part, what(rec.name));
        else if (OWN_TARGETS[collection]) add(kind, { target_type: OWN_TARGETS[collection], target_id: key, ...named(rec), project_id: null, environment_id: null }, null, what(rec.name ?? rec.target_url));
      }
    }
  }
  return [...pending.values()].map((p) => ({
    event_type: p.event_type,
    ...p.target,
    ...(p.sub_target_type ? { sub_target_type: p.sub_target_type } : {}),
    change: JSON.stringify(p.records.length === 1 ? p.records[0] : { records: p.records }),
  }));
}

const SECRET_COLLECTIONS = new Set(['secretValues', 'webhookSecrets', 'alertReceiverSecrets']);

interface Owner {
  collection: string;
  id: string;
  sub?: string;
  field?: string;
}

/** Which record a write-only secret belongs to (see state.ts: secretValues' keys). */
function secretOwner(collection: string, key: string): Owner | undefined {
  if (collection === 'webhookSecrets') return { collection: 'webhooks', id: key, field: 'target_secret' };
  if (collection === 'alertReceiverSecrets') return { collection: 'alertReceivers', id: key, sub: 'ALERT_RECEIVER', field: 'webhook_url/auth_password' };
  const tf = /^tfvar:([^:]+):(.*)$/.exec(key);
  if (tf) return { collection: 'services', id: tf[1], sub: 'SECRET', field: `tf_vars.${tf[2]}` };
  const helm = /^helmrepo:([^:]+):(.*)$/.exec(key);
  if (helm) return { collection: 'helmRepositories', id: helm[1], sub: 'SECRET', field: `config.${helm[2]}` };
  return { collection: 'variables', id: key };
}

function targetOfOwner(state: EmulatorState, look: Lookup, collection: string, id: string): Target | undefined {
  switch (collection) {
    case 'variables':
      return parentTarget(look, look('variables', id)?.parent_id);
    case 'services':
      return serviceTarget(look, id);
    case 'alertReceivers':
      return organizationTarget(state);
    default: {
      const r = look(collection, id);
      return { target_type: OWN_TARGETS[collection], target_id: id, ...named(r), project_id: null, environment_id: null };
    }
  }
}
