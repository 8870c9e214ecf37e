/**
 * Progress events of an apply. Core code emits them through an injected `onEvent`; the CLI turns
 * them into a live terminal view, one line per state change, or one JSON object per line
 * (`--json`, modelled on Terraform's machine-readable UI).
 *
 * Events never carry secret values: errors are API messages (which never echo secrets) and
 * addresses are names.
 */
import type { Address } from '../model/resource.js';

/**
 * What a step does to a resource. `replace` is delete-then-create as one user-visible action.
 * `no-op` is the step that only records or clears driftless's protect mark on an otherwise
 * unchanged object: the plan JSON's `["no-op"]` with `protect_mark`, not a change (never counted).
 */
export type StepAction = 'create' | 'update' | 'delete' | 'replace' | 'deploy' | 'backup' | 'no-op';

export interface StepRef {
  address: Address;
  action: StepAction;
  /** With `no-op` only: the mark recorded (true) or cleared (false). */
  protect_mark?: boolean;
}

/** What an apply did, step by step counted (the result's `summary` and the `change_summary` event). */
export interface ApplySummary {
  add: number;
  change: number;
  destroy: number;
  deploy: number;
  failed: number;
  skipped: number;
  not_started: number;
}

export type ApplyEvent =
  | ({ type: 'apply_start' } & StepRef)
  /** A deployment moved to a new state (one event per service per state change). */
  | ({ type: 'apply_progress'; state: string; elapsed_seconds: number } & StepRef)
  | ({ type: 'apply_complete'; id?: string; elapsed_seconds: number; detail?: string } & StepRef)
  | ({ type: 'apply_errored'; error: string; elapsed_seconds: number; hint?: string; logs?: string[] } & StepRef)
  /** `apply --no-deploy`: a deploy the plan marks, not made; it stays pending (the next plan shows it). */
  | ({ type: 'deploy_pending'; reasons: string[] } & StepRef)
  /** Not run because a step it depends on failed. */
  | ({ type: 'apply_skipped'; because: Address } & StepRef)
  /** A backup was taken before a database is destroyed or replaced. */
  | { type: 'backup_created'; address: Address; backup_name: string; backup_id: string }
  /** The client is pacing itself to stay under the API's rate limit. */
  | { type: 'rate_limited'; wait_seconds: number }
  | ({
      type: 'change_summary';
      /** HTTP requests the apply made (writes, deploys, polls), after the plan's reads. */
      requests: number;
      /** `apply --no-deploy`: how many deploys were left pending (one `deploy_pending` event each). */
      pending_deploy?: number;
    } & ApplySummary);

export type ApplyEventSink = (e: ApplyEvent) => void;
