/**
 * Which cached list answers an audit event makes stale. Pure: events and the cached answers in,
 * a predicate over request keys out (or the reason an event cannot be placed, and then the refresh
 * gives way to a full read).
 *
 * Conservative by design: a list is re-read whenever an event may have changed it, directly or
 * through the API's cascades (a deleted project variable takes its aliases and overrides below it;
 * a deleted group or a renamed helm repository changes the service records that embed them).
 * Re-reading a list too many costs a request; missing one would give a wrong plan.
 */
import type { AuditEvent } from './audit-log.js';
import { listResults } from './read.js';
import { listRouteOf, ORG_LISTS, type ListRoute } from '../api/routes.js';
import { kindsReferringTo, serviceKindOfApiType } from '../model/kinds/index.js';

/** `GET path?query` as the cache stores it: the query sorted, so one request has one key. */
export function requestKey(path: string, query?: Record<string, string | number | boolean | undefined>): string {
  const q = Object.entries(query ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, String(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return q.length === 0 ? path : `${path}?${new URLSearchParams(q as Array<[string, string]>).toString()}`;
}

/** The list a cached request key reads (and the id of the object whose list it is): the inverse of the route table the readers build paths with. */
export function shapeOf(key: string): ListRoute {
  const [path = '', qs = ''] = key.split('?', 2);
  return listRouteOf(path, qs);
}

/** Who is whose parent, from the cached answers: environment -> project, service -> environment. */
export interface Topology {
  envProject: Map<string, string>;
  serviceEnv: Map<string, string>;
  /** Every project, environment and service id the cached answers hold. */
  ids: Set<string>;
  /**
   * Environments with an operation in progress when they were read: their states move on with no
   * event until the outcome's, so their lists are never taken from the cache.
   */
  busyEnvs: Set<string>;
}

/** A state an operation passes through (DEPLOYMENT_QUEUED, BUILDING, DEPLOYING, STOPPING...), not one it ends in. */
export function isInProgress(state: unknown): boolean {
  return typeof state === 'string' && (state.endsWith('QUEUED') || state.endsWith('ING'));
}

export function topologyOf(responses: Readonly<Record<string, unknown>>): Topology {
  const t: Topology = { envProject: new Map(), serviceEnv: new Map(), ids: new Set(), busyEnvs: new Set() };
  for (const [key, body] of Object.entries(responses)) {
    const s = shapeOf(key);
    if (s.kind === 'environments') {
      t.ids.add(s.project);
      for (const e of listResults(body)) (t.envProject.set(e.id, s.project), t.ids.add(e.id));
    } else if (s.kind === 'env-list' && s.list === 'services') {
      t.ids.add(s.env);
      for (const svc of listResults(body)) (t.serviceEnv.set(svc.id, s.env), t.ids.add(svc.id));
    } else if (s.kind === 'env-list' && s.list === 'statuses' && body && typeof body === 'object') {
      const all = Object.values(body as Record<string, unknown>).flatMap((v) => (Array.isArray(v) ? v : [v]));
      if (all.some((st) => isInProgress((st as { state?: unknown } | null)?.state))) t.busyEnvs.add(s.env);
    } else if (s.kind === 'org-list' && s.list === ORG_LISTS.projects) {
      for (const p of listResults(body)) t.ids.add(p.id);
    }
  }
  return t;
}

/**
 * Event types that change nothing driftless reads (a shell, an export). Not a terraform plan
 * (TRIGGER_DEPLOY_DRY_RUN and its outcome): it runs as an operation, and the service's status moves.
 */
const READ_ONLY_EVENTS = new Set(['EXPORT', 'SHELL', 'PORT_FORWARD', 'REMOTE_DEBUG', 'MCP', 'DRY_RUN']);

/** Every other event type of the reference's OrganizationEventType: a write, or its outcome. */
const WRITE_EVENTS = new Set([
  'CREATE', 'UPDATE', 'DELETE', 'ACCEPT', 'CLONE', 'DEPLOY_QUEUED', 'STOP_QUEUED', 'RESTART_QUEUED', 'DELETE_QUEUED', 'UNINSTALL_QUEUED', 'MAINTENANCE',
  'TRIGGER_REDEPLOY', 'TRIGGER_CANCEL', 'FORCE_RUN_QUEUED', 'FORCE_RUN_QUEUED_DEPLOY', 'FORCE_RUN_QUEUED_STOP', 'FORCE_RUN_QUEUED_DELETE', 'TRIGGER_DEPLOY',
  'TRIGGER_STOP', 'TRIGGER_RESTART', 'TRIGGER_DELETE', 'TRIGGER_UNINSTALL', 'TRIGGER_TERRAFORM_FORCE_UNLOCK', 'TRIGGER_TERRAFORM_MIGRATE_STATE', 'TRIGGER_FORCE_RUN',
  'TRIGGER_FORCE_RUN_DEPLOY', 'TRIGGER_FORCE_RUN_STOP', 'TRIGGER_FORCE_RUN_DELETE', 'DEPLOYED', 'STOPPED', 'DELETED', 'UNINSTALLED', 'RESTARTED',
  'FORCE_RUN_SUCCEEDED', 'TERRAFORM_FORCE_UNLOCK_SUCCEEDED', 'TERRAFORM_MIGRATE_STATE_SUCCEEDED', 'DEPLOY_FAILED', 'STOP_FAILED', 'DELETE_FAILED',
  'UNINSTALL_FAILED', 'RESTART_FAILED', 'FORCE_RUN_FAILED', 'TERRAFORM_FORCE_UNLOCK_FAILED', 'TERRAFORM_MIGRATE_STATE_FAILED', 'IMPORT', 'LOCK', 'UNLOCK', 'POLICY_FAILED',
  'TRIGGER_DEPLOY_DRY_RUN', 'DEPLOYED_DRY_RUN', 'DEPLOYED_DRY_RUN_FAILED',
]);

/**
 * A service leaving: the request (DELETE) and its end (DELETED: the service is gone only then, and
 * with it its stage membership and the aliases of its built-in variables, which no event names).
 */
const SERVICE_GONE_EVENTS = new Set(['DELETE', 'DELETED']);

/** Service events that may add a service to a group's or a repository's users, or take it away. */
const SERVICE_USERS_EVENTS = new Set(['CREATE', 'CLONE', 'IMPORT', 'DELETE', 'DELETED']);

/** Whether an event's change may name `field` (a change the log does not spell out may name anything). */
function mayChange(e: AuditEvent, field: string): boolean {
  return typeof e.change !== 'string' || !e.change.startsWith('{') || e.change.includes(`"${field}"`);
}

/** Organization sub-targets driftless never reads (members, billing, tokens...). */
const ORG_SUBTARGETS_NOT_READ = new Set(['API_TOKEN', 'MEMBER_ROLE', 'INVITATION', 'CUSTOM_ROLE', 'BILLING_INFO', 'BILLING_USAGE_REPORT', 'CREDIT_CARD', 'CREDIT_CODE', 'PLAN', 'SSO', 'TRANSFER_OWNERSHIP', 'JWT_TOKEN_FORGED', 'POLICY_API_TOKEN', 'GIT_TOKEN', 'GITHUB_APP']);

/** The organization-level list (path tail) each organization sub-target lives in. */
const ORG_SUBTARGET_LISTS: Record<string, string[]> = {
  ALERT_RECEIVER: [ORG_LISTS.alertReceivers, ORG_LISTS.alertRules],
  ALERT_RULE: [ORG_LISTS.alertRules],
  ANNOTATIONS_GROUP: [ORG_LISTS.annotationsGroups],
  LABELS_GROUP: [ORG_LISTS.labelsGroups],
};

/**
 * Lists never answered from the cache: clusters change by themselves (an upgrade ends, its version
 * and status move on) with no audit event to say so.
 */
export const NEVER_CACHED_ORG_LISTS: ReadonlySet<string> = new Set([ORG_LISTS.clusters, ORG_LISTS.clusterStatuses]);

export interface Staleness {
  /** True when the cached answer of this key may no longer be the live one. */
  isStale(key: string): boolean;
}

/** The stale keys, or why an event cannot be placed. */
export function stalenessOf(events: readonly AuditEvent[], topo: Topology): Staleness | { reason: string } {
  const orgLists = new Set<string>();
  const projectEnvs = new Set<string>();
  const envLists = new Map<string, Set<string>>();
  const varParents = new Set<string>();
  const varEnvs = new Set<string>();
  const varProjects = new Set<string>();
  let allServices = false;
  let allStatuses = false;
  let allEnvironments = false;
  const envList = (env: string, ...lists: string[]) => {
    const s = envLists.get(env) ?? new Set<string>();
    for (const l of lists) s.add(l);
    envLists.set(env, s);
  };
  const show = (e: AuditEvent) => `${e.event_type} of ${e.target_type}${e.sub_target_type ? `/${e.sub_target_type}` : ''}${e.target_name ? ` "${e.target_name}"` : ''}`;

  for (const e of events) {
    if (READ_ONLY_EVENTS.has(e.event_type)) continue;
    if (!WRITE_EVENTS.has(e.event_type)) return { reason: `the audit log holds an event driftless does not understand (${show(e)})` };
    const sub = e.sub_target_type ?? undefined;
    const id = e.target_id ?? undefined;
    const t = e.target_type;
    // A service's target type is its kind's API type (its descriptor's).
    const service = serviceKindOfApiType().get(t);
    if (t === 'ORGANIZATION' || t === 'MEMBERS_AND_ROLES') {
      // The organization record itself is re-read on every run.
      if (sub === undefined || ORG_SUBTARGETS_NOT_READ.has(sub) || t === 'MEMBERS_AND_ROLES') continue;
      const lists = ORG_SUBTARGET_LISTS[sub];
      if (!lists) return { reason: `the audit log holds an event driftless does not understand (${show(e)})` };
      for (const l of lists) orgLists.add(l);
      // A deleted group leaves the services that used it; a renamed one may be named in their
      // records; a changed one makes the deployed services that use it out of date (their statuses).
      if ((sub === 'ANNOTATIONS_GROUP' || sub === 'LABELS_GROUP') && e.event_type !== 'CREATE') (allServices = true), (allStatuses = true);
      continue;
    }
    if ((sub === 'VARIABLE' || sub === 'SECRET') && (t === 'PROJECT' || t === 'ENVIRONMENT' || service !== undefined)) {
      // A variable change also makes the services that see it out of date (service_deployment_status
      // in their records and statuses): those lists are stale too.
      if (t === 'PROJECT' && (id ?? e.project_id)) varProjects.add((id ?? e.project_id)!);
      else if (t === 'ENVIRONMENT' && (id ?? e.environment_id)) {
        const env = (id ?? e.environment_id)!;
        varEnvs.add(env);
        envList(env, 'services', 'statuses');
      } else if (service !== undefined && id) {
        // Aliases and overrides made at a service are the service's own variables.
        varParents.add(id);
        const env = e.environment_id ?? topo.serviceEnv.get(id);
        if (!env) return { reason: `the audit log holds an event driftless cannot place (${show(e)}: no environment)` };
        envList(env, 'services', 'statuses');
      } else return { reason: `the audit log holds an event driftless cannot place (${show(e)})` };
      continue;
    }
    if (t === 'ENVIRONMENT' && sub === 'DEPLOYMENT_STAGE') {
      const env = id ?? e.environment_id;
      if (!env) return { reason: `the audit log holds an event driftless cannot place (${show(e)}: no environment)` };
      envList(env, 'deploymentStage');
      continue;
    }
    switch (t) {
      case 'CLUSTER':
        orgLists.add(ORG_LISTS.clusters).add(ORG_LISTS.clusterStatuses);
        // Environment records embed their cluster's name.
        if (e.event_type !== 'CREATE') allEnvironments = true;
        continue;
      case 'CONTAINER_REGISTRY':
        orgLists.add(ORG_LISTS.containerRegistries);
        // Service records embed their registry; a changed one makes its services out of date.
        if (e.event_type !== 'CREATE') (allServices = true), (allStatuses = true);
        continue;
      case 'HELM_REPOSITORY':
        orgLists.add(ORG_LISTS.helmRepositories);
        // Helm service records embed their repository's name; a changed one makes them out of date.
        if (e.event_type !== 'CREATE') (allServices = true), (allStatuses = true);
        continue;
      case 'WEBHOOK':
        orgLists.add(ORG_LISTS.webhooks);
        continue;
      case 'PROJECT': {
        orgLists.add(ORG_LISTS.projects);
        const p = id ?? e.project_id;
        if (p) projectEnvs.add(p);
        if (e.event_type === 'DELETE' && p) varProjects.add(p);
        // Its services go with it: the groups and repositories they used count one user less.
        if (e.event_type === 'DELETE') orgLists.add(ORG_LISTS.labelsGroups).add(ORG_LISTS.helmRepositories);
        continue;
      }
      case 'ENVIRONMENT': {
        const env = id ?? e.environment_id;
        const p = e.project_id ?? (env ? topo.envProject.get(env) : undefined);
        if (!env || !p) return { reason: `the audit log holds an event driftless cannot place (${show(e)}: no project)` };
        projectEnvs.add(p);
        // Project records count their environments.
        orgLists.add(ORG_LISTS.projects);
        envList(env, 'services', 'statuses', 'deploymentStage');
        if (e.event_type === 'DELETE') orgLists.add(ORG_LISTS.labelsGroups).add(ORG_LISTS.helmRepositories);
        continue;
      }
    }
    if (service !== undefined) {
      const env = e.environment_id ?? (id ? topo.serviceEnv.get(id) : undefined);
      if (!env) return { reason: `the audit log holds an event driftless cannot place (${show(e)}: no environment)` };
      envList(env, 'services', 'statuses');
      const gone = SERVICE_GONE_EVENTS.has(e.event_type);
      if (sub === 'DEPLOYMENT_STAGE' || gone || e.event_type === 'CREATE' || e.event_type === 'CLONE') envList(env, 'deploymentStage');
      // A deleted service takes the aliases of its built-in variables with it (a database's too:
      // the aliases are the services' variables, and the log names only the database).
      if (gone && id) (varParents.add(id), varEnvs.add(env));
      // The organization's lists count their users: a labels group its services
      // (associated_items_count), a helm repository its helm services (associated_services_count:
      // the services of the kinds that name one, their descriptors' refersTo).
      if (sub === undefined && (SERVICE_USERS_EVENTS.has(e.event_type) || (e.event_type === 'UPDATE' && mayChange(e, 'labels_groups')))) orgLists.add(ORG_LISTS.labelsGroups);
      if (kindsReferringTo('helm_repository').includes(service) && sub === undefined && (SERVICE_USERS_EVENTS.has(e.event_type) || (e.event_type === 'UPDATE' && mayChange(e, 'source')))) orgLists.add(ORG_LISTS.helmRepositories);
      continue;
    }
    return { reason: `the audit log holds an event driftless does not understand (${show(e)})` };
  }

  // A variable list's parent is a service, an environment or a project.
  const envOf = (id: string): string => topo.serviceEnv.get(id) ?? id;
  const projectOf = (id: string): string => topo.envProject.get(envOf(id)) ?? id;
  return {
    isStale(key) {
      const s = shapeOf(key);
      switch (s.kind) {
        case 'organization':
          return true;
        case 'org-list':
          return orgLists.has(s.list) || NEVER_CACHED_ORG_LISTS.has(s.list);
        case 'environments':
          return allEnvironments || projectEnvs.has(s.project);
        case 'env-list':
          if (topo.busyEnvs.has(s.env) || (envLists.get(s.env)?.has(s.list) ?? false) || (allServices && s.list === 'services') || (allStatuses && s.list === 'statuses')) return true;
          // A project variable reaches every service of the project.
          return s.list !== 'deploymentStage' && varProjects.has(topo.envProject.get(s.env) ?? '');
        case 'variables': {
          return varParents.has(s.parent) || varEnvs.has(envOf(s.parent)) || varProjects.has(projectOf(s.parent));
        }
        default:
          // A request this module does not know: never trusted from the cache.
          return true;
      }
    },
  };
}
