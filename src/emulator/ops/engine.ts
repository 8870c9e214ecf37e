/**
 * The asynchronous operation engine: deploy, stop, restart and delete of one service or of a batch,
 * stage by stage.
 *
 * An operation is a record in `state.operations` (so it survives a restart with --data) holding,
 * for every service, the phases still to go and when the current phase started. `advance(op, now)`
 * moves every service as far as the clock allows, with each transition stamped at the time it was
 * due (not when a timer happened to fire), then the engine schedules one timer for the next due
 * transition. A batch runs its stages in order: stage k+1 starts when every service of stage k is
 * terminal; after a failed deployment the remaining stages are CANCELED.
 *
 * Side effects of transitions — status records, deployment history, log lines, deployment events
 * (webhooks), removal of deleted services — go through `OperationEffects`, so this file is only
 * about time and order.
 */
import type { EmulatorContext } from '../context.js';
import { quietly } from '../audit/recorder.js';
import type { ApiRecord } from '../state.js';
import { type Action, type Phase, TERMINAL_STATES, isErrorState } from './timeline.js';

export interface OpService {
  service_id: string;
  service_type: string;
  name: string;
  phases: Phase[];
  /** Index of the current phase; -1 while the service waits for its stage. */
  phase: number;
  /** Epoch ms at which the current phase began. */
  phase_started_at: number;
  /** Epoch ms at which the service's own work began (its stage started). */
  started_at?: number;
  sub_action: string;
  /** The git commit, image tag or chart version being deployed, when the request named one. */
  version?: { git_commit_id?: string; image_tag?: string; chart_version?: string };
  /** The configuration changed while this deployment ran: it ends OUT_OF_DATE, not UP_TO_DATE. */
  changed_during?: boolean;
}

export interface OpStage {
  name: string;
  service_ids: string[];
  started_at?: number;
  finished_at?: number;
}

export interface Operation extends ApiRecord {
  action: Action;
  environment_id: string;
  execution_id: string;
  deployment_request_id: string;
  triggered_by: string;
  /** Where the trigger came from (audit log origin); absent in operations stored before: API. */
  origin?: 'API' | 'CONSOLE';
  user_agent?: string | null;
  started_at: number;
  stages: OpStage[];
  stage: number;
  services: Record<string, OpService>;
}

export interface OperationEffects {
  /** The service entered `op.phases[phase]` at `at` (epoch ms). */
  onPhase(op: Operation, svc: OpService, at: number): void;
  /** The service never ran: an earlier stage failed. */
  onCanceled(op: Operation, svc: OpService, at: number): void;
  /** Every service is terminal; the operation is about to be removed from the state. */
  onFinished(op: Operation, at: number): void;
}

export function currentState(svc: OpService): string {
  return svc.phases[Math.max(0, svc.phase)].state;
}

export function isServiceDone(svc: OpService): boolean {
  return svc.phase >= svc.phases.length - 1 || svc.phase === -2;
}

/**
 * Moves the operation as far as `now` allows. Returns the epoch ms of the next due transition, or
 * undefined when the operation is finished.
 */
export function advance(op: Operation, now: number, fx: OperationEffects): number | undefined {
  while (op.stage < op.stages.length) {
    const stage = op.stages[op.stage];
    if (stage.started_at === undefined) {
      const start = op.stage === 0 ? op.started_at : (op.stages[op.stage - 1].finished_at ?? op.started_at);
      stage.started_at = start;
      for (const id of stage.service_ids) {
        const s = op.services[id];
        s.phase = 0;
        s.phase_started_at = start;
        s.started_at = start;
        fx.onPhase(op, s, start);
      }
    }
    let next: number | undefined;
    for (const id of stage.service_ids) {
      const s = op.services[id];
      while (!isServiceDone(s)) {
        const due = s.phase_started_at + s.phases[s.phase].ms;
        if (due > now) {
          next = next === undefined ? due : Math.min(next, due);
          break;
        }
        s.phase += 1;
        s.phase_started_at = due;
        fx.onPhase(op, s, due);
      }
    }
    if (next !== undefined) return next;
    stage.finished_at = Math.max(stage.started_at, ...stage.service_ids.map((id) => op.services[id].phase_started_at));
    op.stage += 1;
    const failed = stage.service_ids.some((id) => isErrorState(currentState(op.services[id])));
    if (failed && op.action === 'DEPLOY') {
      for (const later of op.stages.slice(op.stage)) {
        for (const id of later.service_ids) {
          op.services[id].phase = -2;
          fx.onCanceled(op, op.services[id], stage.finished_at);
        }
      }
      op.stage = op.stages.length;
    }
  }
  const end = Math.max(op.started_at, ...op.stages.map((s) => s.finished_at ?? op.started_at));
  fx.onFinished(op, end);
  return undefined;
}

/** Ids of services that an unfinished operation holds. */
export function busyServices(operations: Record<string, ApiRecord>): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const id in operations) {
    const op = operations[id] as Operation;
    for (const sid in op.services) if (!isServiceDone(op.services[sid])) out.set(sid, op);
  }
  return out;
}

export function isTerminal(state: string): boolean {
  return TERMINAL_STATES.has(state);
}

/**
 * Runs an operation in the background: advances it to `now`, persists it, and re-arms a timer until
 * it is finished. Used for new operations (with `now` = their start, so that the answer to the
 * request always shows the first state) and for those resumed after a restart.
 */
export function drive(ctx: EmulatorContext, opId: string, fx: OperationEffects, now: number = ctx.clock.now().getTime()): void {
  // The engine's writes (statuses, the deployed commit, a deleted service's removal) are not
  // configuration writes of the request that happens to run it: ops/audit.ts records operations.
  quietly(() => driveNow(ctx, opId, fx, now));
}

function driveNow(ctx: EmulatorContext, opId: string, fx: OperationEffects, now: number): void {
  const op = ctx.state.operations[opId] as Operation | undefined;
  if (!op) return;
  const copy = structuredClone(op) as Operation;
  let moved = false;
  const counting: OperationEffects = {
    onPhase: (o, s, at) => ((moved = true), fx.onPhase(o, s, at)),
    onCanceled: (o, s, at) => ((moved = true), fx.onCanceled(o, s, at)),
    onFinished: (o, at) => fx.onFinished(o, at),
  };
  const next = advance(copy, now, counting);
  if (next === undefined) {
    delete ctx.state.operations[opId];
  } else {
    // Nothing fell due (a timer fired early, or the clock is held): nothing to write.
    if (moved) ctx.state.operations[opId] = copy;
    ctx.later(Math.max(0, next - ctx.clock.now().getTime()), () => {
      drive(ctx, opId, fx);
      ctx.commit();
    });
  }
}
