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
import type { Address, DesiredGraph, LiveResource, LiveState, ServiceKind } from '../model/resource.js';
import { routes } from '../api/routes.js';
import { afterCreation } from '../graph/ignore.js';
import { isServiceKind } from '../model/resource.js';
import { holdsData } from '../model/kinds/index.js';
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import type { ApiPort } from '../live/api-port.js';
import { errorMessage, isAmbiguousFailure, isAuthRefusal, isRateLimitWaitRefusal } from '../live/api-port.js';
import { executeSteps, DEFAULT_PARALLELISM, type Step } from './executor.js';
import { DeployFailedError, DEFAULT_MAX_POLL_INTERVAL_MS, DEFAULT_POLL_INTERVAL_MS, deployStage, type DeployNotes, type DeployTarget, type Timing } from './deploy.js';
import type { ApplyEvent, ApplyEventSink, ApplySummary, StepRef } from './events.js';

export type { ApplySummary } from './events.js';
import { IdRegistry } from './refs.js';
import { emptySummary, summarizeApply, type StepReport } from './summary.js';
import { changesWithSteps, parentOf, planSteps, serviceKindOfAddress, stepActionOf, stepRefOf, type ChangeAction } from './steps.js';

export { refusals } from './refusals.js';
import { refusals } from './refusals.js';
import { tokenRefusals } from './permissions.js';
import { unconfirmedDeletes } from './confirm-deletes.js';
import { backupDatabase, checkReferences, createResource, deleteResource, deleteServices, moveIntoStage, StepError, updateResource, type WriteContext } from './writers.js';
import { importVariables, type ImportSupport } from './variable-import.js';
import { listResults } from '../live/read.js';
import { hasBeenDeployed } from '../plan/guards.js';

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

export class AbortedError extends Error {
  constructor() {
    super('interrupted');
    this.name = 'AbortedError';
  }
}

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
  const timing = deps.timing ?? realTiming;
  const clock = deps.clock ?? (() => new Date());
  const emit = (e: ApplyEvent) => deps.onEvent?.(e);
  const startedAt = timing.now();
  const elapsed = (since: number) => Math.max(0, Math.round((timing.now() - since) / 1000));
  const refs = new IdRegistry(plan.organization_id, deps.live, plan.live_objects);
  // Objects renamed (`moved`), or inside a renamed parent, are known to the live state by their
  // old address: requests for them use that record's id and fields.
  for (const c of plan.changes) if (c.previous_address !== undefined) refs.alias(c.address, c.previous_address);
  const ctx: WriteContext & ImportSupport = {
    variableImport: true,
    api: deps.api,
    refs,
    organizationId: plan.organization_id,
    fingerprintKey: deps.fingerprintKey,
    timing,
    deadline: startedAt + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    pollIntervalMs: opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
  };
  const backups: ApplyResult['backups'] = [];
  /** What the steps report as they end; summarizeApply makes the result's reports and counts of them. */
  const reports: StepReport[] = [];
  const report = (r: StepReport) => reports.push(r);
  /** Live objects this apply deleted (the old half of a replacement included), for the summary. */
  const destroyed = new Set<Address>();

  const planned = planSteps(plan);
  const byAddress = changesWithSteps(plan);

  const runServiceDeletes = async (env: Address, list: ResourceChange[]): Promise<void> => {
    const started = timing.now();
    for (const c of list) emit({ type: 'apply_start', address: c.address, action: 'delete' });
    try {
      for (const c of list) if (holdsData(c.kind)) await takeBackup(c);
      await deleteServices(env, list.map((c) => ({ address: c.address, kind: c.kind as ServiceKind, id: c.id ?? refs.id(c.address) })), ctx, false);
    } catch (e) {
      for (const c of list) fail({ address: c.address, action: 'delete' }, e, started);
      throw e;
    }
    for (const c of list) {
      destroyed.add(c.address);
      emit({ type: 'apply_complete', address: c.address, action: 'delete', ...(c.id ? { id: c.id } : {}), elapsed_seconds: elapsed(started) });
      report({ address: c.address, action: 'delete', status: 'applied' });
    }
  };

  const runChangeStep = async (c: ResourceChange, action: ChangeAction): Promise<void> => {
    // Shown as the plan shows it (a mark-only update is a `no-op` with `protect_mark`).
    const ref = stepRefOf(c, action);
    const started = timing.now();
    emit({ type: 'apply_start', ...ref });
    try {
      const id = await runChange(c, action);
      emit({ type: 'apply_complete', ...ref, ...(id ? { id } : {}), elapsed_seconds: elapsed(started) });
      report({ ...ref, status: 'applied' });
    } catch (e) {
      fail(ref, e, started);
      throw e;
    }
  };

  /** The plain variables a service gains, with one import request (see variable-import.ts). */
  const runVariableImport = async (service: Address, list: ResourceChange[]): Promise<void> => {
    const started = timing.now();
    for (const c of list) emit({ type: 'apply_start', address: c.address, action: 'create' });
    const items = list.map((change) => ({ change, desired: desiredOf(change) }));
    const outcomes = await importVariables(service, items, ctx, async ({ change, desired }) => {
      await createResource(change, desired, ctx);
    });
    let firstError: unknown;
    for (const o of outcomes) {
      if (o.error === undefined) {
        emit({ type: 'apply_complete', address: o.address, action: 'create', elapsed_seconds: elapsed(started) });
        report({ address: o.address, action: 'create', status: 'applied' });
      } else {
        fail({ address: o.address, action: 'create' }, o.error, started);
        firstError ??= o.error;
      }
    }
    if (firstError !== undefined) throw firstError;
  };

  /** One service moved into its stage: a failure shows on the stage's change. */
  const runStageMove = async (stage: ResourceChange, member: string): Promise<void> => {
    const started = timing.now();
    try {
      await moveIntoStage(stage, member, ctx);
    } catch (e) {
      fail(stepRefOf(stage, stepActionOf(stage)!), e, started);
      throw e;
    }
  };

  const fail = (ref: StepRef, e: unknown, started: number, logs?: string[]) => {
    const hint = e instanceof StepError ? e.hint : isAmbiguousFailure(e) ? 'The outcome is unknown; run apply again: it looks objects up by name before creating them, so nothing is duplicated.' : undefined;
    const msg = e instanceof AbortedError ? 'interrupted' : errorMessage(e);
    emit({ type: 'apply_errored', ...ref, error: msg, elapsed_seconds: elapsed(started), ...(hint ? { hint } : {}), ...(logs?.length ? { logs } : {}) });
    report({ ...ref, status: 'failed', error: msg, ...(hint ? { hint } : {}), ...(logs?.length ? { logs } : {}) });
  };

  const takeBackup = async (c: ResourceChange): Promise<void> => {
    // A database never deployed holds no data, and the API refuses to back it up.
    const l = [...deps.live.resources.values()].find((r) => r.id === c.id);
    if (l !== undefined && !hasBeenDeployed(l)) return;
    const b = await backupDatabase(c.address, c.id ?? refs.id(c.address), ctx, clock());
    backups.push({ address: c.address, ...b });
    emit({ type: 'backup_created', address: c.address, backup_name: b.name, backup_id: b.id });
  };

  /**
   * Databases deleted with a parent (undeclared in a deleted environment or project, or declared in
   * a replaced one) send no delete of their own: each is backed up before the delete of every
   * ancestor it goes with is sent, as a database deleted on its own is.
   */
  const goingWith = databasesGoingWithParents(plan.changes);
  const backedUp = new Set<Address>();
  const backUpWhatGoesWith = async (parent: ResourceChange): Promise<void> => {
    for (const db of goingWith.get(parent.address) ?? []) {
      if (backedUp.has(db.address)) continue;
      await takeBackup(db);
      backedUp.add(db.address);
    }
  };

  let liveById: Map<string, LiveResource> | undefined;
  const liveOf = (c: ResourceChange): LiveResource | undefined => {
    liveById ??= new Map([...deps.live.resources.values()].map((l) => [l.id, l]));
    return c.id === undefined ? undefined : liveById.get(c.id);
  };

  const desiredOf = (c: ResourceChange) => {
    const d = deps.desired.resources.get(c.address);
    if (!d) throw new StepError(`${c.address} is in the plan but not in the manifest; run plan again`);
    return d;
  };

  const runChange = async (c: ResourceChange, action: ChangeAction): Promise<string | undefined> => {
    switch (action) {
      case 'create':
        return (await createResource(c, desiredOf(c), ctx)).id;
      case 'update':
        // Fields under `ignore_changes` are written at creation only: an update writes them as they are live.
        return (await updateResource(c, afterCreation(desiredOf(c), liveOf(c)?.attrs ?? {}), ctx))?.id ?? c.id;
      case 'delete':
        await backUpWhatGoesWith(c);
        await deleteResource(c, ctx);
        destroyed.add(c.address);
        return c.id;
      case 'replace': {
        const d = desiredOf(c);
        // Replaced with its parent: the old object went with the parent's delete.
        const parentChange = c.parent === undefined ? undefined : byAddress.get(c.parent);
        if (parentChange && stepActionOf(parentChange) === 'replace') return (await createResource(c, d, ctx)).id;
        // Every name the new object refers to must resolve before the old one is deleted.
        checkReferences(d, ctx);
        if (isServiceKind(c.kind)) {
          // A service of another kind under the same name (plan/kind-change.ts) is deleted as what it is.
          const oldKind = c.replaces !== undefined && isServiceKind(c.replaces.kind) ? c.replaces.kind : c.kind;
          if (holdsData(oldKind)) await takeBackup(c);
          // Waits until it is gone: the API refuses a second service with its name meanwhile.
          // (Under its own address, which names resolve to until it is forgotten.)
          await deleteServices(parentOf(c.address), [{ address: c.replaces?.address ?? c.address, kind: oldKind, id: c.id ?? refs.id(c.address) }], ctx, true);
        } else if (c.kind === 'environment') {
          await backUpWhatGoesWith(c);
          await deleteResource(c, ctx);
          // Counted before the wait: deleted even if waiting for it to be gone fails.
          destroyed.add(c.address);
          await waitEnvironmentGone(c);
        } else {
          await deleteResource(c, ctx);
        }
        // Gone from here on, whether or not the create below succeeds (under its live address when
        // it was of another kind: what went with it is counted through that address).
        destroyed.add(c.replaces?.address ?? c.address);
        return (await createResource(c, d, ctx)).id;
      }
    }
  };

  /** An environment is deleted asynchronously; its name is free only once it left the list. */
  const waitEnvironmentGone = async (c: ResourceChange): Promise<void> => {
    const projectId = refs.id(parentOf(c.address));
    let interval = ctx.pollIntervalMs;
    for (;;) {
      const envs = listResults(await deps.api.get(routes.environments(projectId)));
      if (!envs.some((e) => e.id === c.id)) return;
      if (timing.now() >= ctx.deadline) throw new StepError(`${c.address}: timed out waiting for the old environment to be deleted`);
      await timing.sleep(interval, deps.signal);
      interval = Math.min(interval * 2, 10_000);
    }
  };

  const deployMarks = new Map(plan.changes.filter((c) => c.deploy).map((c) => [c.address, c.deploy!]));
  const runDeployStage = async (env: Address, stageName: string | null, services: Address[]): Promise<void> => {
    const started = timing.now();
    const targets: DeployTarget[] = services.map((address) => {
      const mark = deployMarks.get(address);
      return {
        address,
        id: refs.id(address),
        kind: serviceKindOfAddress(address),
        ...(mark?.git_commit_id !== undefined ? { git_commit_id: mark.git_commit_id } : {}),
        ...(mark?.image_tag !== undefined ? { image_tag: mark.image_tag } : {}),
      };
    });
    for (const t of targets) emit({ type: 'apply_start', address: t.address, action: 'deploy' });
    let notes: DeployNotes;
    try {
      notes = await deployStage(
        { environmentId: refs.id(env), environmentAddress: env, stageName: stageName ?? '(default)', services: targets },
        { api: deps.api, timing, onEvent: emit },
        {
          deadline: ctx.deadline,
          startedAt: started,
          pollIntervalMs: ctx.pollIntervalMs,
          maxPollIntervalMs: opts.maxPollIntervalMs ?? DEFAULT_MAX_POLL_INTERVAL_MS,
          logLines: opts.logLines ?? 20,
          ...(deps.signal ? { signal: deps.signal } : {}),
        },
      );
    } catch (e) {
      const failed = new Set<Address>();
      if (e instanceof DeployFailedError) {
        for (const f of e.failures) {
          failed.add(f.address);
          fail({ address: f.address, action: 'deploy' }, new StepError(f.reason, e.hint), started, f.logs);
        }
      } else {
        for (const t of targets) {
          failed.add(t.address);
          fail({ address: t.address, action: 'deploy' }, e instanceof AbortedError ? new StepError('interrupted while waiting; the deployment goes on in the platform', 'Run plan to see where it ended.') : e, started);
        }
      }
      const failedNotes = e instanceof DeployFailedError ? e.notes : undefined;
      for (const t of targets) if (!failed.has(t.address)) succeeded(t.address, started, failedNotes?.get(t.address));
      throw e;
    }
    for (const t of targets) succeeded(t.address, started, notes.get(t.address));
  };
  const succeeded = (address: Address, started: number, note?: string) => {
    emit({ type: 'apply_complete', address, action: 'deploy', elapsed_seconds: elapsed(started), ...(note ? { detail: note } : {}) });
    report({ address, action: 'deploy', status: 'applied', ...(note ? { note } : {}) });
  };

  const runStep = (p: (typeof planned)[number]): Promise<void> => {
    switch (p.type) {
      case 'change':
        return runChangeStep(p.change, p.action);
      case 'delete-services':
        return runServiceDeletes(p.environment, p.changes);
      case 'import-variables':
        return runVariableImport(p.service, p.changes);
      case 'stage-member':
        return runStageMove(p.stage, p.member);
      case 'deploy':
        return runDeployStage(p.environment, p.stage, p.services);
    }
  };
  // A deployment is waited on, not worked: it holds none of the `parallelism` places, and it
  // weighs far more than a write, so what it waits for is written first (critical path first).
  // A refused token (401) or permission (403) refuses every further request too: start no more.
  // So does a rate-limit wait beyond --max-wait: the next request would wait as long.
  let refusedToken = false;
  let stoppedBy: string | undefined;
  const steps: Step[] = planned.map((p) => ({
    id: p.id,
    dependsOn: p.dependsOn,
    run: async () => {
      try {
        await runStep(p);
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

  const { steps: stepReports, summary, skipped } = summarizeApply(plan, planned, {
    reports,
    destroyed,
    skipped: exec.skipped,
    notStarted: exec.notStarted,
    failed: exec.failed.map((f) => ({ id: f.id, error: errorMessage(f.error) })),
  });
  for (const r of skipped) emit({ type: 'apply_skipped', address: r.address, action: r.action, ...(r.protect_mark !== undefined ? { protect_mark: r.protect_mark } : {}), because: r.because! });
  const requestCount = deps.api.requestCount - requestsBefore;
  for (const p of pending ?? []) emit({ type: 'deploy_pending', address: p.address, action: 'deploy', reasons: p.reasons });
  emit({ type: 'change_summary', ...summary, requests: requestCount, ...(pending ? { pending_deploy: pending.length } : {}) });
  const status: ApplyResult['status'] = exec.interrupted ? 'interrupted' : summary.failed + summary.skipped + summary.not_started > 0 ? 'failed' : 'applied';
  return { status, steps: stepReports, summary, backups, diagnostics: [], requestCount, ...(stoppedBy !== undefined ? { stoppedBy } : {}), ...held };
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

/**
 * Parent address -> the database changes that go with its delete or replacement, for every
 * ancestor on the way up (`via_parent`, or the parent of a database replaced with its parent).
 */
function databasesGoingWithParents(changes: readonly ResourceChange[]): Map<Address, ResourceChange[]> {
  const at = new Map(changes.map((c) => [c.address, c]));
  const isReplace = (c: ResourceChange | undefined) => c !== undefined && c.actions[0] === 'delete' && c.actions[1] === 'create';
  const upOf = (c: ResourceChange): Address | undefined => {
    if (c.via_parent !== undefined) return c.via_parent;
    const parent = c.parent === undefined ? undefined : at.get(c.parent);
    return isReplace(c) && isReplace(parent) ? c.parent : undefined;
  };
  const out = new Map<Address, ResourceChange[]>();
  for (const c of changes) {
    if (!holdsData(c.kind) || c.status !== 'planned' || c.actions[0] !== 'delete') continue;
    const seen = new Set<Address>();
    for (let up = upOf(c); up !== undefined && !seen.has(up); up = at.get(up) ? upOf(at.get(up)!) : undefined) {
      seen.add(up);
      out.set(up, [...(out.get(up) ?? []), c]);
    }
  }
  return out;
}
