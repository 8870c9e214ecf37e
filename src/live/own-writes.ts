/**
 * What an apply's own writes make stale in the refresh cache it leaves.
 *
 * The cache an apply writes is the state it read, before its writes: the next run learns of them
 * from the audit log. A log that shows events late (`serve --audit-delay`, or a real log behind)
 * would let that run plan the apply's changes all over again, from a cache that no event has yet
 * made stale. So the apply itself marks stale what it wrote to, as the log's events would, only
 * coarser (it knows addresses, not the API's events): every list of an environment it changed or
 * deployed in (its services, statuses, stages, and the variable lists of the environment and its
 * services); for a project-level change (the project, its variables), everything under the
 * project; for an organization-level one (a group, a registry, a receiver...), the organization's
 * lists and every service and status list. A list marked stale is read again, once, by the next
 * run that needs it (src/live/cache-union.ts STALE): a bounded cost, paid once after an apply.
 * Pure.
 */
import type { AuditEvent } from './audit-log.js';
import { unionOfResponses } from './cache-union.js';
import { stalenessOf, topologyOf } from './touched.js';
import { isActionable, type Plan } from '../plan/types.js';

/** The addresses an apply of `plan` may write to or deploy: every change that is not a no-op, every mark, every deploy. */
export function writtenAddresses(plan: Pick<Plan, 'changes' | 'deploy_order'>): string[] {
  const out = new Set<string>();
  for (const c of plan.changes) {
    // Blocked changes are not made; a planned one may have been, even by an apply cut short.
    if (c.status !== 'planned' || !isActionable(c)) continue;
    out.add(c.address);
    if (c.previous_address) out.add(c.previous_address);
  }
  for (const g of plan.deploy_order ?? []) for (const st of g.stages) for (const s of st.services) out.add(s);
  return [...out];
}

/** `project.shop/environment.prod/application.api/variable.K` -> its project's and environment's addresses. */
function scopesOf(address: string): { project?: string; environment?: string } {
  const parts = address.split('/');
  if (!parts[0]?.startsWith('project.')) return {};
  const env = parts[1]?.startsWith('environment.') ? `${parts[0]}/${parts[1]}` : undefined;
  return { project: parts[0], ...(env !== undefined ? { environment: env } : {}) };
}

/** Whether a change at this project-level address reaches every service of the project (the project itself, its variables). */
function reachesWholeProject(address: string): boolean {
  const parts = address.split('/');
  return parts.length === 1 || (parts.length === 2 && !parts[1]!.startsWith('environment.'));
}

/**
 * The events the log would show for writes to `addresses`, coarsened to what stalenessOf
 * (./touched.ts) makes of them: `idOf` gives the live id of a project or environment address (an
 * object created by the apply has no lists in the cache; its parent's lists are what changed).
 */
export function ownWriteEvents(addresses: readonly string[], idOf: (address: string) => string | undefined): AuditEvent[] {
  const events: AuditEvent[] = [];
  const at = '1970-01-01T00:00:00Z';
  const ev = (e: Omit<AuditEvent, 'id' | 'timestamp'>) => events.push({ id: `own-write-${events.length}`, timestamp: at, ...e });
  let organizationLevel = false;
  for (const address of addresses) {
    const { project, environment } = scopesOf(address);
    if (project === undefined) {
      organizationLevel = true;
      continue;
    }
    const projectId = idOf(project);
    // The project's record and list (project records count their environments).
    ev({ event_type: 'UPDATE', target_type: 'PROJECT', ...(projectId ? { target_id: projectId, project_id: projectId } : {}) });
    const envId = environment !== undefined ? idOf(environment) : undefined;
    if (envId !== undefined && projectId !== undefined) {
      ev({ event_type: 'UPDATE', target_type: 'ENVIRONMENT', target_id: envId, project_id: projectId, environment_id: envId });
      // Every variable list of the environment (its own, its services'): what a variable, an alias
      // or a deleted service's built-ins change there.
      ev({ event_type: 'UPDATE', target_type: 'ENVIRONMENT', sub_target_type: 'VARIABLE', target_id: envId, project_id: projectId, environment_id: envId });
      ev({ event_type: 'UPDATE', target_type: 'ENVIRONMENT', sub_target_type: 'DEPLOYMENT_STAGE', target_id: envId, project_id: projectId, environment_id: envId });
    }
    if (projectId !== undefined && (environment === undefined ? reachesWholeProject(address) : envId === undefined)) {
      // A project variable reaches every service of the project; a project or environment created
      // or deleted changes the project's lists.
      ev({ event_type: 'UPDATE', target_type: 'PROJECT', sub_target_type: 'VARIABLE', target_id: projectId, project_id: projectId });
    }
    // Groups and helm repositories count the services that use them.
    ev({ event_type: 'CREATE', target_type: 'ORGANIZATION', sub_target_type: 'LABELS_GROUP' });
    ev({ event_type: 'CREATE', target_type: 'HELM_REPOSITORY' });
  }
  if (organizationLevel) {
    for (const sub of ['LABELS_GROUP', 'ANNOTATIONS_GROUP', 'ALERT_RECEIVER', 'ALERT_RULE']) ev({ event_type: 'UPDATE', target_type: 'ORGANIZATION', sub_target_type: sub });
    for (const t of ['CONTAINER_REGISTRY', 'HELM_REPOSITORY', 'WEBHOOK']) ev({ event_type: 'UPDATE', target_type: t });
  }
  return events;
}

/**
 * The cached answers after an apply of `plan`: what its writes may have changed marked STALE (read
 * again by the next run that needs it), the rest as they were.
 */
export function responsesAfterOwnWrites(responses: Readonly<Record<string, unknown>>, plan: Pick<Plan, 'changes' | 'deploy_order'>, idOf: (address: string) => string | undefined): Record<string, unknown> {
  const addresses = writtenAddresses(plan);
  if (addresses.length === 0) return { ...responses };
  const staleness = stalenessOf(ownWriteEvents(addresses, idOf), topologyOf(responses));
  // Every event above is one stalenessOf places; should one not be, everything is read again.
  return unionOfResponses(responses, 'reason' in staleness ? { isStale: () => true } : staleness, {});
}
