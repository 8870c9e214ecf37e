/**
 * Starting an operation: the checks (busy service 409, billing restriction 402), the grouping of a
 * batch into deployment stages, the failure decision (`--fail-deploy GLOB`), then the record in
 * `state.operations` that the engine drives.
 */
import picomatch from 'picomatch';
import type { EmulatorContext } from '../context.js';
import { ApiError, conflict } from '../errors.js';
import type { ApiRecord } from '../state.js';
import { environmentIdOfService } from '../variables/scopes.js';
import { type OpService, type OpStage, type Operation, busyServices, drive } from './engine.js';
import { operationEffects, statusOf } from './effects.js';
import { type Action, phasesFor } from './timeline.js';
import { type OperationIdentity, recordTrigger } from './audit.js';
import { currentIdentity } from '../audit/recorder.js';
import { UNKNOWN_IDENTITY } from '../audit/identity.js';

export interface ServiceRequest {
  service: ApiRecord;
  version?: { git_commit_id?: string; image_tag?: string; chart_version?: string };
  sub_action?: string;
}

export interface OperationRequest {
  action: Action;
  environmentId: string;
  services: ServiceRequest[];
  /** Group the services by deployment stage (batch requests); otherwise one group. */
  staged: boolean;
  /** Who asked (audit log); default: the request being handled, if any. */
  triggeredBy?: string;
  /** A redeploy of the running versions (the audit log's TRIGGER_REDEPLOY). */
  redeploy?: boolean;
}

/** Deployments are refused with this status when the organization's billing forbids them. */
export const BILLING_REFUSAL_STATUS = 402;

/**
 * Seed 2.7: NO_CREDIT_CARD blocks deployments on managed clusters only (demo clusters are allowed);
 * any other non-null value blocks every deployment.
 */
export function checkBilling(ctx: EmulatorContext, req: OperationRequest): void {
  if (req.action !== 'DEPLOY' && req.action !== 'RESTART') return;
  const restriction = ctx.state.organization.billing_deployment_restriction;
  if (restriction === null || restriction === undefined || restriction === '') return;
  const env = ctx.state.environments[req.environmentId];
  const cluster = env?.cluster_id ? ctx.state.clusters[env.cluster_id] : undefined;
  if (restriction === 'NO_CREDIT_CARD' && cluster?.is_demo === true) return;
  const why =
    restriction === 'NO_CREDIT_CARD'
      ? `the organization has no credit card (billing_deployment_restriction NO_CREDIT_CARD): deployments on managed clusters such as '${cluster?.name ?? env?.cluster_id ?? 'unknown'}' are blocked; add a payment method or use a demo cluster`
      : `the organization's billing restriction '${String(restriction)}' blocks all deployments; resolve it in the organization's billing settings`;
  throw new ApiError(BILLING_REFUSAL_STATUS, `deployment refused: ${why}`);
}

export function checkNotBusy(ctx: EmulatorContext, services: ApiRecord[]): void {
  const busy = busyServices(ctx.state.operations);
  for (const svc of services) {
    const op = busy.get(svc.id);
    if (op) {
      const state = statusOf(ctx, svc.id).state;
      throw conflict(`${String(svc.service_type).toLowerCase()} '${svc.name}' (${svc.id}) is busy: a ${op.action} operation is in progress (state ${state}); wait until it ends`);
    }
  }
}

/** Stage groups in deployment order; services in no stage go first. Stop and delete run in reverse. */
export function groupByStage(ctx: EmulatorContext, environmentId: string, serviceIds: string[], reverse: boolean): OpStage[] {
  const wanted = new Set(serviceIds);
  const stages = Object.values(ctx.state.deploymentStages)
    .filter((st) => st.environment?.id === environmentId)
    .sort((a, b) => Number(a.deployment_order ?? 0) - Number(b.deployment_order ?? 0));
  const placed = new Set<string>();
  const groups: OpStage[] = [];
  for (const st of stages) {
    const ids = ((st.services ?? []) as ApiRecord[]).map((m) => String(m.service_id)).filter((id) => wanted.has(id) && !placed.has(id));
    ids.forEach((id) => placed.add(id));
    if (ids.length) groups.push({ name: String(st.name), service_ids: ids });
  }
  const loose = serviceIds.filter((id) => !placed.has(id));
  if (loose.length) groups.unshift({ name: 'DEFAULT', service_ids: loose });
  return reverse ? groups.reverse() : groups;
}

function failMatcher(ctx: EmulatorContext): (name: string) => boolean {
  const glob = ctx.options.failDeployGlob;
  if (!glob) return () => false;
  const m = picomatch(glob, { nocase: false, dot: true });
  return (name) => m(name);
}

/** Validates and starts an operation; returns it (as stored) once its first transitions are done. */
export function startOperation(ctx: EmulatorContext, req: OperationRequest): Operation {
  for (const r of req.services) {
    if (environmentIdOfService(r.service) !== req.environmentId) {
      throw new ApiError(400, `service '${r.service.id}' does not belong to environment '${req.environmentId}'`);
    }
  }
  checkNotBusy(ctx, req.services.map((r) => r.service));
  checkBilling(ctx, req);
  const fails = failMatcher(ctx);
  const now = ctx.clock.now().getTime();
  const current = currentIdentity();
  const who: OperationIdentity = {
    triggered_by: req.triggeredBy ?? current?.identity.triggered_by ?? UNKNOWN_IDENTITY.triggered_by,
    origin: current?.identity.origin ?? 'API',
    user_agent: current?.userAgent ?? null,
  };
  const duration = req.action === 'DEPLOY' ? ctx.options.deployDurationMs : Math.round(ctx.options.deployDurationMs / 2);
  const services: Record<string, OpService> = {};
  for (const r of req.services) {
    const fail = req.action === 'DEPLOY' && fails(String(r.service.name));
    services[r.service.id] = {
      service_id: r.service.id,
      service_type: String(r.service.service_type),
      name: String(r.service.name),
      phases: phasesFor(req.action, r.service, duration, fail),
      phase: -1,
      phase_started_at: now,
      sub_action: r.sub_action ?? 'NONE',
      ...(r.version && Object.keys(r.version).length ? { version: r.version } : {}),
    };
  }
  const ids = req.services.map((r) => r.service.id);
  const stages = req.staged
    ? groupByStage(ctx, req.environmentId, ids, req.action === 'STOP' || req.action === 'DELETE')
    : [{ name: 'DEFAULT', service_ids: ids }];
  const op: Operation = {
    id: ctx.newId(),
    created_at: new Date(now).toISOString(),
    action: req.action,
    environment_id: req.environmentId,
    execution_id: `${req.environmentId}-${ctx.newId().slice(0, 8)}`,
    deployment_request_id: ctx.newId(),
    triggered_by: who.triggered_by,
    origin: who.origin,
    user_agent: who.user_agent,
    started_at: now,
    stages,
    stage: 0,
    services,
  };
  ctx.state.operations[op.id] = op;
  recordTrigger(ctx, op, { staged: req.staged, redeploy: req.redeploy === true }, who);
  const fx = operationEffects(ctx);
  // Services of later stages are queued now; they start when their stage does.
  for (const st of stages.slice(1)) for (const id of st.service_ids) fx.onQueued(op, services[id], now);
  drive(ctx, op.id, fx, now);
  return op;
}
