/**
 * applyPlan(plan, deps) -> ApplyResult: turns a plan into API calls in graph order, deploys the
 * services the plan marks (stage by stage), and reports exactly what happened.
 *
 * - Refuses before any request when the plan is not applyable: a change blocked by a guard, a
 *   database delete without allowDataLoss, a replacement of an environment or of a deployed service
 *   without allowReplace, more deletions than maxDestroy.
 * - Its summary counts what really happened: `destroy` is every live object that is gone (deleted
 *   by its own request, by the delete half of a replacement whose create then failed, or with its
 *   parent), never fewer than were deleted.
 * - One step per change (services of an environment are deleted by one batched step), in
 *   dependency order: parents first, deletions children first; up to `parallelism` at once. A
 *   failed step skips what depends on it; independent steps go on.
 * - Deploy steps: per environment, one per stage, each after the previous stage and after every
 *   configuration step its services see (their own subtree, their environment's and project's
 *   variables, their moves into the stage) and nothing else: the first stage deploys while later
 *   stages are still configured, and the executor writes first what the deployments wait for.
 */
import type { Address, DesiredGraph, LiveState } from '../model/resource.js';
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Plan } from '../plan/types.js';
import type { ApiPort } from '../live/api-port.js';
import { errorMessage, isAuthRefusal, isRateLimitWaitRefusal } from '../live/api-port.js';
import { executeSteps, DEFAULT_PARALLELISM, type Step } from './executor.js';
import { DEFAULT_POLL_INTERVAL_MS, type Timing } from './deploy.js';
import type { ApplyEvent, ApplyEventSink, ApplySummary } from './events.js';

export type { ApplySummary } from './events.js';
import { IdRegistry } from './refs.js';
import { emptySummary, summarizeApply, type StepReport } from './summary.js';
import { planSteps, type PlannedStep } from './steps.js';
import { AbortedError, StepRunner } from './step-runners.js';

export { refusals } from './refusals.js';
import { refusals } from './refusals.js';
import { tokenRefusals } from './permissions.js';
import { unconfirmedDeletes } from './confirm-deletes.js';
import type { WriteContext } from './writers.js';
import type { ImportSupport } from './variable-import.js';

export const DEFAULT_TIMEOUT_MS = 30 * 60 * 1000;
/** A deployment's weight in scheduling, against 1 for a write: minutes against a fraction of a second. */
export const DEPLOY_WEIGHT = 1000;

export interface ApplyDeps {
  api: ApiPort;
  /** The live state the plan was computed from: ids and records for update bodies. */
  live: LiveState;
  /** The desired graph the plan was computed from: secret values and deploy pins. */
  desired: DesiredGraph;
  /** Key of the secret fingerprints (the same the plan used). */
  fingerprintKey: string;
  onEvent?: ApplyEventSink;
  timing?: Timing;
  /** Wall clock, for backup names. */
  clock?: () => Date;
  /** SIGINT: no new step starts, running ones finish, deploy waits stop. */
  signal?: AbortSignal;
  /**
   * Probe the token's Write and Deploy scopes before the first write (permissions.ts). On unless
   * false: only tests of other behaviour, which count every request, turn it off.
   */
  probeToken?: boolean;
  /**
   * The live state came, even in part, from the refresh cache: every delete target is confirmed by
   * a live read of its list before the first write (confirm-deletes.ts).
   */
  confirmDeletes?: boolean;
}

export interface ApplyOptions {
  parallelism?: number;
  /** How long to wait for deployments (and asynchronous deletes) in total. */
  timeoutMs?: number;
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Log lines shown for a failed deployment. */
  logLines?: number;
  allowDataLoss?: boolean;
  allowReplace?: boolean;
  maxDestroy?: number;
  /**
   * `apply --no-deploy`: write the configuration, deploy nothing. The deploys the plan marks are
   * listed in `ApplyResult.pending_deploys` and stay pending: the platform keeps the services
   * NEVER_DEPLOYED or OUT_OF_DATE, which the next plan deploys (src/plan/deploy.ts).
   */
  noDeploy?: boolean;
}

/** A deploy `apply --no-deploy` did not make: the service and why the plan marked it. */
export interface PendingDeploy {
  address: Address;
  reasons: string[];
}

export type { StepReport } from './summary.js';

export interface ApplyResult {
  status: 'applied' | 'failed' | 'interrupted' | 'refused';
  steps: StepReport[];
  summary: ApplySummary;
  backups: Array<{ address: Address; name: string; id: string }>;
  /** Why the plan was refused (status `refused`), or warnings. */
  diagnostics: Diagnostic[];
  /** HTTP requests the apply made (the plan's reads are counted in the plan). */
  requestCount: number;
  /** Why no further step was started, when a step's failure stopped the run (e.g. the --max-wait cap). */
  stoppedBy?: string;
  /** `noDeploy`: the deploys the plan marked, not made (in plan order). Absent otherwise. */
  pending_deploys?: PendingDeploy[];
}

/** The deploys a plan marks (blocked changes make none). */
export function plannedDeploys(plan: Plan): PendingDeploy[] {
  return plan.changes.filter((c) => c.deploy && c.status === 'planned').map((c) => ({ address: c.address, reasons: [...c.deploy!.reasons] }));
}

/** The plan without its deploys: the configuration steps only. */
export function withoutDeploys(plan: Plan): Plan {
  return {
    ...plan,
    changes: plan.changes.map((c) => {
      if (!c.deploy) return c;
      const { deploy: _held, ...rest } = c;
      return rest;
    }),
    deploy_order: [],
    summary: { ...plan.summary, deploy: 0 },
  };
}

export const realTiming: Timing = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError());
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export { AbortedError } from './step-runners.js';

export async function applyPlan(fullPlan: Plan, deps: ApplyDeps, opts: ApplyOptions = {}): Promise<ApplyResult> {
  const pending = opts.noDeploy === true ? plannedDeploys(fullPlan) : undefined;
  // Without its deploys, the plan needs no Deploy scope and no step waits on a deployment.
  const plan = pending ? withoutDeploys(fullPlan) : fullPlan;
  const held = pending ? { pending_deploys: pending } : {};
  const requestsBefore = deps.api.requestCount;
  const refused = await refusalsBeforeWriting(plan, deps, opts);
  if (refused.length > 0) {
    return { status: 'refused', steps: [], summary: emptySummary(), backups: [], diagnostics: refused, requestCount: deps.api.requestCount - requestsBefore, ...held };
  }
  const emit = (e: ApplyEvent) => deps.onEvent?.(e);
  const runner = new StepRunner(plan, deps, opts, writeContext(plan, deps, opts), deps.clock ?? (() => new Date()));
  const planned = planSteps(plan);
  const exec = await executePlanned(planned, runner, deps, opts);

  const { steps: stepReports, summary, skipped } = summarizeApply(plan, planned, {
    reports: runner.reports,
    destroyed: runner.destroyed,
    skipped: exec.skipped,
    notStarted: exec.notStarted,
    failed: exec.failed.map((f) => ({ id: f.id, error: errorMessage(f.error) })),
  });
  for (const r of skipped) emit({ type: 'apply_skipped', address: r.address, action: r.action, ...(r.protect_mark !== undefined ? { protect_mark: r.protect_mark } : {}), because: r.because! });
  const requestCount = deps.api.requestCount - requestsBefore;
  for (const p of pending ?? []) emit({ type: 'deploy_pending', address: p.address, action: 'deploy', reasons: p.reasons });
  emit({ type: 'change_summary', ...summary, requests: requestCount, ...(pending ? { pending_deploy: pending.length } : {}) });
  const status: ApplyResult['status'] = exec.interrupted ? 'interrupted' : summary.failed + summary.skipped + summary.not_started > 0 ? 'failed' : 'applied';
  return { status, steps: stepReports, summary, backups: runner.backups, diagnostics: [], requestCount, ...(exec.stoppedBy !== undefined ? { stoppedBy: exec.stoppedBy } : {}), ...held };
}

/** What every write of this apply shares: the API, the ids known so far, the deadline. */
function writeContext(plan: Plan, deps: ApplyDeps, opts: ApplyOptions): WriteContext & ImportSupport {
  const timing = deps.timing ?? realTiming;
  const refs = new IdRegistry(plan.organization_id, deps.live, plan.live_objects);
  // Objects renamed (`moved`), or inside a renamed parent, are known to the live state by their
  // old address: requests for them use that record's id and fields.
  for (const c of plan.changes) if (c.previous_address !== undefined) refs.alias(c.address, c.previous_address);
  return {
    variableImport: true,
    api: deps.api,
    refs,
    organizationId: plan.organization_id,
    fingerprintKey: deps.fingerprintKey,
    timing,
    deadline: timing.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    pollIntervalMs: opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
  };
}

/**
 * Runs the planned steps through the executor. A deployment is waited on, not worked: it holds
 * none of the `parallelism` places, and it weighs far more than a write, so what it waits for is
 * written first (critical path first). A refused token (401) or permission (403) refuses every
 * further request too: start no more. So does a rate-limit wait beyond --max-wait: the next
 * request would wait as long (`stoppedBy` says why).
 */
async function executePlanned(planned: readonly PlannedStep[], runner: StepRunner, deps: ApplyDeps, opts: ApplyOptions) {
  let refusedToken = false;
  let stoppedBy: string | undefined;
  const steps: Step[] = planned.map((p) => ({
    id: p.id,
    dependsOn: p.dependsOn,
    run: async () => {
      try {
        await runner.run(p);
      } catch (e) {
        if (isAuthRefusal(e)) refusedToken = true;
        if (isRateLimitWaitRefusal(e)) stoppedBy ??= errorMessage(e);
        throw e;
      }
    },
    ...(p.type === 'deploy' ? { background: true, weight: DEPLOY_WEIGHT } : {}),
  }));
  const exec = await executeSteps(steps, {
    parallelism: opts.parallelism ?? DEFAULT_PARALLELISM,
    halted: () => refusedToken || stoppedBy !== undefined,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  return { ...exec, stoppedBy };
}

/**
 * Why the plan must not be applied, checked before the first write (nothing when it may be): the
 * plan's own refusals (no request), then whether the token can write and deploy what it needs, then
 * (the live state coming, even in part, from the refresh cache) whether every delete target is
 * confirmed by a live read: never delete on the cache's word alone.
 */
async function refusalsBeforeWriting(plan: Plan, deps: ApplyDeps, opts: ApplyOptions): Promise<Diagnostic[]> {
  const refused = refusals(plan, opts);
  if (refused.length > 0) return refused;
  const denied = deps.probeToken === false ? [] : await tokenRefusals(plan, deps.api);
  if (denied.length > 0) return denied;
  return deps.confirmDeletes === true ? await unconfirmedDeletes(plan, deps.live, deps.api, opts.parallelism) : [];
}
