/**
 * The state sequences of asynchronous operations (seed 2.1, 2.9, 3; api-notes §4, §10), as pure
 * data: which states a service goes through for an action, for how long, and what each state
 * means for `status_details`.
 *
 *   DEPLOY   DEPLOYMENT_QUEUED -> BUILDING (built from git only) -> DEPLOYING -> DEPLOYED
 *            failures end in BUILD_ERROR (git builds) or DEPLOYMENT_ERROR
 *   STOP     STOP_QUEUED -> STOPPING -> STOPPED
 *   RESTART  RESTART_QUEUED -> RESTARTING -> RESTARTED
 *   DELETE   DELETE_QUEUED -> DELETING -> DELETED (then the service is gone)
 */
import type { ApiRecord } from '../state.js';

export type Action = 'DEPLOY' | 'STOP' | 'RESTART' | 'DELETE';

export interface Phase {
  state: string;
  /** How long the service stays in this state; 0 for the terminal state. */
  ms: number;
}

/** Terminal states: the operation is over for the service. */
export const TERMINAL_STATES = new Set([
  'DEPLOYED', 'BUILD_ERROR', 'DEPLOYMENT_ERROR', 'STOPPED', 'STOP_ERROR', 'RESTARTED', 'RESTART_ERROR',
  'DELETED', 'DELETE_ERROR', 'CANCELED', 'READY',
]);

export function isErrorState(state: string): boolean {
  return state.endsWith('_ERROR');
}

/** Services whose deployment starts with a build from a git repository. */
export function isBuiltFromGit(svc: ApiRecord): boolean {
  if (svc.service_type === 'APPLICATION') return true;
  if (svc.service_type === 'JOB') return Boolean(svc.source?.docker);
  return false;
}

/**
 * The phases of `action` for `svc`. `totalMs` is the whole duration of a deployment
 * (`--deploy-duration`); stop, restart and delete take half of it.
 */
export function phasesFor(action: Action, svc: ApiRecord, totalMs: number, fail: boolean): Phase[] {
  const t = Math.max(0, totalMs);
  const part = (f: number) => Math.round(t * f);
  switch (action) {
    case 'DEPLOY':
      if (isBuiltFromGit(svc)) {
        return fail
          ? [{ state: 'DEPLOYMENT_QUEUED', ms: part(0.1) }, { state: 'BUILDING', ms: part(0.4) }, { state: 'BUILD_ERROR', ms: 0 }]
          : [{ state: 'DEPLOYMENT_QUEUED', ms: part(0.1) }, { state: 'BUILDING', ms: part(0.4) }, { state: 'DEPLOYING', ms: part(0.5) }, { state: 'DEPLOYED', ms: 0 }];
      }
      return [{ state: 'DEPLOYMENT_QUEUED', ms: part(0.2) }, { state: 'DEPLOYING', ms: part(0.8) }, { state: fail ? 'DEPLOYMENT_ERROR' : 'DEPLOYED', ms: 0 }];
    case 'STOP':
      return [{ state: 'STOP_QUEUED', ms: part(0.1) }, { state: 'STOPPING', ms: part(0.4) }, { state: 'STOPPED', ms: 0 }];
    case 'RESTART':
      return [{ state: 'RESTART_QUEUED', ms: part(0.1) }, { state: 'RESTARTING', ms: part(0.4) }, { state: 'RESTARTED', ms: 0 }];
    case 'DELETE':
      return [{ state: 'DELETE_QUEUED', ms: part(0.1) }, { state: 'DELETING', ms: part(0.4) }, { state: 'DELETED', ms: 0 }];
  }
}

/** `status_details.status` for a state reached by an action (api-notes §10). */
export function detailStatus(state: string): 'QUEUED' | 'ONGOING' | 'SUCCESS' | 'ERROR' | 'CANCELED' {
  if (state === 'CANCELED') return 'CANCELED';
  if (isErrorState(state)) return 'ERROR';
  if (state.endsWith('QUEUED')) return 'QUEUED';
  if (TERMINAL_STATES.has(state)) return 'SUCCESS';
  return 'ONGOING';
}

/** Terraform deploy `action` -> `status_details.sub_action`. */
export function terraformSubAction(action: string | null | undefined): string {
  switch (action) {
    case 'PLAN':
      return 'TERRAFORM_PLAN_ONLY';
    case 'FORCE_UNLOCK':
      return 'TERRAFORM_FORCE_UNLOCK_STATE';
    case 'MIGRATE_STATE':
      return 'TERRAFORM_MIGRATE_STATE';
    default:
      return 'TERRAFORM_PLAN_AND_APPLY';
  }
}

/** ISO 8601 duration of a number of milliseconds, e.g. `PT1M3S`. */
export function isoDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${s}S` : ''}`;
}
