/**
 * The audit events of operations: the trigger when a request starts one (with the requester's
 * identity) and each service's outcome when it ends (with the same identity: the outcome is the
 * requester's deploy succeeding or failing). Configuration writes are recorded by
 * audit/recorder.ts; the engine runs `quietly`, so its own writes (statuses, the deployed
 * commit, a deleted service's removal) are not mistaken for them.
 */
import type { EmulatorContext } from '../context.js';
import type { Identity } from '../audit/identity.js';
import { auditLog } from '../audit/log.js';
import { targetOfEnvironment, targetOfService } from '../audit/targets.js';
import type { ApiRecord } from '../state.js';
import type { OpService, Operation } from './engine.js';
import { isErrorState, type Action } from './timeline.js';

const OUTCOME: Record<Action, { ok: string; failed: string }> = {
  DEPLOY: { ok: 'DEPLOYED', failed: 'DEPLOY_FAILED' },
  STOP: { ok: 'STOPPED', failed: 'STOP_FAILED' },
  RESTART: { ok: 'RESTARTED', failed: 'RESTART_FAILED' },
  DELETE: { ok: 'DELETED', failed: 'DELETE_FAILED' },
};

/** Terraform deploys that are not a plan-and-apply have events of their own in the reference. */
const TERRAFORM_EVENTS: Record<string, { trigger: string; ok: string; failed: string }> = {
  TERRAFORM_PLAN_ONLY: { trigger: 'TRIGGER_DEPLOY_DRY_RUN', ok: 'DEPLOYED_DRY_RUN', failed: 'DEPLOYED_DRY_RUN_FAILED' },
  TERRAFORM_FORCE_UNLOCK_STATE: { trigger: 'TRIGGER_TERRAFORM_FORCE_UNLOCK', ok: 'TERRAFORM_FORCE_UNLOCK_SUCCEEDED', failed: 'TERRAFORM_FORCE_UNLOCK_FAILED' },
  TERRAFORM_MIGRATE_STATE: { trigger: 'TRIGGER_TERRAFORM_MIGRATE_STATE', ok: 'TERRAFORM_MIGRATE_STATE_SUCCEEDED', failed: 'TERRAFORM_MIGRATE_STATE_FAILED' },
};

export interface OperationIdentity {
  triggered_by: string;
  origin: Identity['origin'];
  user_agent: string | null;
}

/**
 * A request started `op`. One event per request: on the environment for a batch (the services
 * are in the change), on the service otherwise. Deleting services is a configuration write: a
 * `DELETE` of each service, whether one (`DELETE /<kind>/{id}`) or several
 * (`POST /environment/{id}/service/delete`) were asked for -- a TRIGGER_DELETE of the environment
 * would read as the environment's deletion, and a reader of the log (drift, the refresh) would
 * have to infer which services went. The other actions are `TRIGGER_<ACTION>`
 * (`TRIGGER_REDEPLOY` for a redeploy of the running versions; a terraform plan, force-unlock or
 * state migration has the reference's TRIGGER_DEPLOY_DRY_RUN, TRIGGER_TERRAFORM_FORCE_UNLOCK,
 * TRIGGER_TERRAFORM_MIGRATE_STATE).
 */
export function recordTrigger(ctx: EmulatorContext, op: Operation, how: { staged: boolean; redeploy: boolean }, who: OperationIdentity): void {
  const trigger = how.redeploy ? 'TRIGGER_REDEPLOY' : `TRIGGER_${op.action}`;
  const services = Object.values(op.services).map((s) => ({ id: s.service_id, name: s.name, service_type: s.service_type, ...(s.version ? { version: s.version } : {}) }));
  if (how.staged && op.action !== 'DELETE') {
    const target = targetOfEnvironment(ctx.state, op.environment_id);
    auditLog(ctx).append({ event_type: trigger, ...target, change: JSON.stringify({ execution_id: op.execution_id, services }), ...who, original_change: null });
    return;
  }
  for (const s of Object.values(op.services)) {
    const target = targetOfService(ctx.state, s.service_id);
    if (!target) continue;
    const event_type = op.action === 'DELETE' ? 'DELETE' : op.action === 'DEPLOY' ? (TERRAFORM_EVENTS[s.sub_action]?.trigger ?? trigger) : trigger;
    auditLog(ctx).append({ event_type, ...target, change: JSON.stringify({ execution_id: op.execution_id, ...(s.version ? { version: s.version } : {}) }), ...who, original_change: null });
  }
}

/** A service of `op` reached a terminal state (`svc`: its record, taken before a delete removed it). */
export function recordOutcome(ctx: EmulatorContext, op: Operation, s: OpService, state: string, svc: ApiRecord | undefined): void {
  const target = targetOfService(ctx.state, s.service_id, svc);
  if (!target) return;
  const outcome = (op.action === 'DEPLOY' && TERRAFORM_EVENTS[s.sub_action]) || OUTCOME[op.action];
  const event_type = isErrorState(state) || state === 'CANCELED' ? outcome.failed : outcome.ok;
  auditLog(ctx).append({
    event_type,
    ...target,
    change: JSON.stringify({ execution_id: op.execution_id, status: state, ...(s.version ? { version: s.version } : {}) }),
    triggered_by: op.triggered_by,
    origin: op.origin === 'CONSOLE' ? 'CONSOLE' : 'API',
    user_agent: op.user_agent ?? null,
    original_change: null,
  });
}
