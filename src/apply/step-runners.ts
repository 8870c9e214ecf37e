/**
 * What each planned step of an apply does (src/apply/steps.ts plans them; the executor orders
 * them): the writes, the service batch deletes, the variable imports, the moves into stages and
 * the deploys. applyPlan (./apply.ts) builds one StepRunner per apply and hands its `run` to the
 * executor.
 *
 * A runner records what it did and nothing more: an event per step as it starts and ends (the
 * sink), a StepReport per step (summarizeApply turns them into the result's reports and counts),
 * the live objects it destroyed and the backups it took. It keeps no counters.
 */
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState, ServiceKind } from '../model/resource.js';
import { routes } from '../api/routes.js';
import { afterCreation } from '../graph/ignore.js';
import { isServiceKind } from '../model/resource.js';
import { holdsData } from '../model/kinds/index.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { errorMessage, isAmbiguousFailure, type ApiPort } from '../live/api-port.js';
import { listResults } from '../live/read.js';
import { hasBeenDeployed } from '../plan/guards.js';
import { DeployFailedError, DEFAULT_MAX_POLL_INTERVAL_MS, deployStage, type DeployNotes, type DeployTarget } from './deploy.js';
import type { ApplyEvent, ApplyEventSink, StepRef } from './events.js';
import type { StepReport } from './summary.js';
import { changesWithSteps, parentOf, serviceKindOfAddress, stepActionOf, stepRefOf, type ChangeAction, type PlannedStep } from './steps.js';
import { backupDatabase, checkReferences, createResource, deleteResource, deleteServices, moveIntoStage, StepError, updateResource, type WriteContext } from './writers.js';
import { importVariables, type ImportSupport } from './variable-import.js';

/** Thrown when the run was interrupted (SIGINT) while a step waited. */
export class AbortedError extends Error {
  constructor() {
    super('interrupted');
    this.name = 'AbortedError';
  }
}

/** What a runner is given of applyPlan's dependencies (ApplyDeps). */
export interface RunnerDeps {
  api: ApiPort;
  live: LiveState;
  desired: DesiredGraph;
  onEvent?: ApplyEventSink;
  signal?: AbortSignal;
}

/** What a runner reads of applyPlan's options (ApplyOptions). */
export interface RunnerOptions {
  maxPollIntervalMs?: number;
  logLines?: number;
}

export class StepRunner {
  /** What the steps report as they end; summarizeApply makes the result's reports and counts of them. */
  readonly reports: StepReport[] = [];
  /** Live objects this apply deleted (the old half of a replacement included), for the summary. */
  readonly destroyed = new Set<Address>();
  readonly backups: Array<{ address: Address; name: string; id: string }> = [];

  private readonly byAddress: Map<Address, ResourceChange>;
  /**
   * Databases deleted with a parent (undeclared in a deleted environment or project, or declared in
   * a replaced one) send no delete of their own: each is backed up before the delete of every
   * ancestor it goes with is sent, as a database deleted on its own is.
   */
  private readonly goingWith: Map<Address, ResourceChange[]>;
  private readonly backedUp = new Set<Address>();
  private readonly deployMarks: Map<Address, NonNullable<ResourceChange['deploy']>>;
  private liveById: Map<string, LiveResource> | undefined;

  constructor(
    private readonly plan: Plan,
    private readonly deps: RunnerDeps,
    private readonly opts: RunnerOptions,
    private readonly ctx: WriteContext & ImportSupport,
    private readonly clock: () => Date,
  ) {
    this.byAddress = changesWithSteps(plan);
    this.goingWith = databasesGoingWithParents(plan.changes);
    this.deployMarks = new Map(plan.changes.filter((c) => c.deploy).map((c) => [c.address, c.deploy!]));
  }

  /** Runs one planned step; a failure is reported (event and report) and thrown to the executor. */
  run(p: PlannedStep): Promise<void> {
    switch (p.type) {
      case 'change':
        return this.runChangeStep(p.change, p.action);
      case 'delete-services':
        return this.runServiceDeletes(p.environment, p.changes);
      case 'import-variables':
        return this.runVariableImport(p.service, p.changes);
      case 'stage-member':
        return this.runStageMove(p.stage, p.member);
      case 'deploy':
        return this.runDeployStage(p.environment, p.stage, p.services);
    }
  }

  private emit(e: ApplyEvent): void {
    this.deps.onEvent?.(e);
  }

  private report(r: StepReport): void {
    this.reports.push(r);
  }

  private elapsed(since: number): number {
    return Math.max(0, Math.round((this.ctx.timing.now() - since) / 1000));
  }

  private async runServiceDeletes(env: Address, list: ResourceChange[]): Promise<void> {
    const started = this.ctx.timing.now();
    for (const c of list) this.emit({ type: 'apply_start', address: c.address, action: 'delete' });
    try {
      for (const c of list) if (holdsData(c.kind)) await this.takeBackup(c);
      await deleteServices(env, list.map((c) => ({ address: c.address, kind: c.kind as ServiceKind, id: c.id ?? this.ctx.refs.id(c.address) })), this.ctx, false);
    } catch (e) {
      for (const c of list) this.fail({ address: c.address, action: 'delete' }, e, started);
      throw e;
    }
    for (const c of list) {
      this.destroyed.add(c.address);
      this.emit({ type: 'apply_complete', address: c.address, action: 'delete', ...(c.id ? { id: c.id } : {}), elapsed_seconds: this.elapsed(started) });
      this.report({ address: c.address, action: 'delete', status: 'applied' });
    }
  }

  private async runChangeStep(c: ResourceChange, action: ChangeAction): Promise<void> {
    // Shown as the plan shows it (a mark-only update is a `no-op` with `protect_mark`).
    const ref = stepRefOf(c, action);
    const started = this.ctx.timing.now();
    this.emit({ type: 'apply_start', ...ref });
    try {
      const id = await this.runChange(c, action);
      this.emit({ type: 'apply_complete', ...ref, ...(id ? { id } : {}), elapsed_seconds: this.elapsed(started) });
      this.report({ ...ref, status: 'applied' });
    } catch (e) {
      this.fail(ref, e, started);
      throw e;
    }
  }

  /** The plain variables a service gains, with one import request (see variable-import.ts). */
  private async runVariableImport(service: Address, list: ResourceChange[]): Promise<void> {
    const started = this.ctx.timing.now();
    for (const c of list) this.emit({ type: 'apply_start', address: c.address, action: 'create' });
    const items = list.map((change) => ({ change, desired: this.desiredOf(change) }));
    const outcomes = await importVariables(service, items, this.ctx, async ({ change, desired }) => {
      await createResource(change, desired, this.ctx);
    });
    let firstError: unknown;
    for (const o of outcomes) {
      if (o.error === undefined) {
        this.emit({ type: 'apply_complete', address: o.address, action: 'create', elapsed_seconds: this.elapsed(started) });
        this.report({ address: o.address, action: 'create', status: 'applied' });
      } else {
        this.fail({ address: o.address, action: 'create' }, o.error, started);
        firstError ??= o.error;
      }
    }
    if (firstError !== undefined) throw firstError;
  }

  /** One service moved into its stage: a failure shows on the stage's change. */
  private async runStageMove(stage: ResourceChange, member: string): Promise<void> {
    const started = this.ctx.timing.now();
    try {
      await moveIntoStage(stage, member, this.ctx);
    } catch (e) {
      this.fail(stepRefOf(stage, stepActionOf(stage)!), e, started);
      throw e;
    }
  }

  private fail(ref: StepRef, e: unknown, started: number, logs?: string[]): void {
    const hint = e instanceof StepError ? e.hint : isAmbiguousFailure(e) ? 'The outcome is unknown; run apply again: it looks objects up by name before creating them, so nothing is duplicated.' : undefined;
    const msg = e instanceof AbortedError ? 'interrupted' : errorMessage(e);
    this.emit({ type: 'apply_errored', ...ref, error: msg, elapsed_seconds: this.elapsed(started), ...(hint ? { hint } : {}), ...(logs?.length ? { logs } : {}) });
    this.report({ ...ref, status: 'failed', error: msg, ...(hint ? { hint } : {}), ...(logs?.length ? { logs } : {}) });
  }

  private async takeBackup(c: ResourceChange): Promise<void> {
    // A database never deployed holds no data, and the API refuses to back it up.
    const l = [...this.deps.live.resources.values()].find((r) => r.id === c.id);
    if (l !== undefined && !hasBeenDeployed(l)) return;
    const b = await backupDatabase(c.address, c.id ?? this.ctx.refs.id(c.address), this.ctx, this.clock());
    this.backups.push({ address: c.address, ...b });
    this.emit({ type: 'backup_created', address: c.address, backup_name: b.name, backup_id: b.id });
  }

  private async backUpWhatGoesWith(parent: ResourceChange): Promise<void> {
    for (const db of this.goingWith.get(parent.address) ?? []) {
      if (this.backedUp.has(db.address)) continue;
      await this.takeBackup(db);
      this.backedUp.add(db.address);
    }
  }

  private liveOf(c: ResourceChange): LiveResource | undefined {
    this.liveById ??= new Map([...this.deps.live.resources.values()].map((l) => [l.id, l]));
    return c.id === undefined ? undefined : this.liveById.get(c.id);
  }

  private desiredOf(c: ResourceChange): DesiredResource {
    const d = this.deps.desired.resources.get(c.address);
    if (!d) throw new StepError(`${c.address} is in the plan but not in the manifest; run plan again`);
    return d;
  }

  private async runChange(c: ResourceChange, action: ChangeAction): Promise<string | undefined> {
    const ctx = this.ctx;
    switch (action) {
      case 'create':
        return (await createResource(c, this.desiredOf(c), ctx)).id;
      case 'update':
        // Fields under `ignore_changes` are written at creation only: an update writes them as they are live.
        return (await updateResource(c, afterCreation(this.desiredOf(c), this.liveOf(c)?.attrs ?? {}), ctx))?.id ?? c.id;
      case 'delete':
        await this.backUpWhatGoesWith(c);
        await deleteResource(c, ctx);
        this.destroyed.add(c.address);
        return c.id;
      case 'replace': {
        const d = this.desiredOf(c);
        // Replaced with its parent: the old object went with the parent's delete.
        const parentChange = c.parent === undefined ? undefined : this.byAddress.get(c.parent);
        if (parentChange && stepActionOf(parentChange) === 'replace') return (await createResource(c, d, ctx)).id;
        // Every name the new object refers to must resolve before the old one is deleted.
        checkReferences(d, ctx);
        if (isServiceKind(c.kind)) {
          // A service of another kind under the same name (plan/kind-change.ts) is deleted as what it is.
          const oldKind = c.replaces !== undefined && isServiceKind(c.replaces.kind) ? c.replaces.kind : c.kind;
          if (holdsData(oldKind)) await this.takeBackup(c);
          // Waits until it is gone: the API refuses a second service with its name meanwhile.
          // (Under its own address, which names resolve to until it is forgotten.)
          await deleteServices(parentOf(c.address), [{ address: c.replaces?.address ?? c.address, kind: oldKind, id: c.id ?? ctx.refs.id(c.address) }], ctx, true);
        } else if (c.kind === 'environment') {
          await this.backUpWhatGoesWith(c);
          await deleteResource(c, ctx);
          // Counted before the wait: deleted even if waiting for it to be gone fails.
          this.destroyed.add(c.address);
          await this.waitEnvironmentGone(c);
        } else {
          await deleteResource(c, ctx);
        }
        // Gone from here on, whether or not the create below succeeds (under its live address when
        // it was of another kind: what went with it is counted through that address).
        this.destroyed.add(c.replaces?.address ?? c.address);
        return (await createResource(c, d, ctx)).id;
      }
    }
  }

  /** An environment is deleted asynchronously; its name is free only once it left the list. */
  private async waitEnvironmentGone(c: ResourceChange): Promise<void> {
    const ctx = this.ctx;
    const projectId = ctx.refs.id(parentOf(c.address));
    let interval = ctx.pollIntervalMs;
    for (;;) {
      const envs = listResults(await this.deps.api.get(routes.environments(projectId)));
      if (!envs.some((e) => e.id === c.id)) return;
      if (ctx.timing.now() >= ctx.deadline) throw new StepError(`${c.address}: timed out waiting for the old environment to be deleted`);
      await ctx.timing.sleep(interval, this.deps.signal);
      interval = Math.min(interval * 2, 10_000);
    }
  }

  private async runDeployStage(env: Address, stageName: string | null, services: Address[]): Promise<void> {
    const ctx = this.ctx;
    const started = ctx.timing.now();
    const targets: DeployTarget[] = services.map((address) => {
      const mark = this.deployMarks.get(address);
      return {
        address,
        id: ctx.refs.id(address),
        kind: serviceKindOfAddress(address),
        ...(mark?.git_commit_id !== undefined ? { git_commit_id: mark.git_commit_id } : {}),
        ...(mark?.image_tag !== undefined ? { image_tag: mark.image_tag } : {}),
      };
    });
    for (const t of targets) this.emit({ type: 'apply_start', address: t.address, action: 'deploy' });
    let notes: DeployNotes;
    try {
      notes = await deployStage(
        { environmentId: ctx.refs.id(env), environmentAddress: env, stageName: stageName ?? '(default)', services: targets },
        { api: this.deps.api, timing: ctx.timing, onEvent: (e) => this.emit(e) },
        {
          deadline: ctx.deadline,
          startedAt: started,
          pollIntervalMs: ctx.pollIntervalMs,
          maxPollIntervalMs: this.opts.maxPollIntervalMs ?? DEFAULT_MAX_POLL_INTERVAL_MS,
          logLines: this.opts.logLines ?? 20,
          ...(this.deps.signal ? { signal: this.deps.signal } : {}),
        },
      );
    } catch (e) {
      const failed = new Set<Address>();
      if (e instanceof DeployFailedError) {
        for (const f of e.failures) {
          failed.add(f.address);
          this.fail({ address: f.address, action: 'deploy' }, new StepError(f.reason, e.hint), started, f.logs);
        }
      } else {
        for (const t of targets) {
          failed.add(t.address);
          this.fail({ address: t.address, action: 'deploy' }, e instanceof AbortedError ? new StepError('interrupted while waiting; the deployment goes on in the platform', 'Run plan to see where it ended.') : e, started);
        }
      }
      const failedNotes = e instanceof DeployFailedError ? e.notes : undefined;
      for (const t of targets) if (!failed.has(t.address)) this.deployed(t.address, started, failedNotes?.get(t.address));
      throw e;
    }
    for (const t of targets) this.deployed(t.address, started, notes.get(t.address));
  }

  private deployed(address: Address, started: number, note?: string): void {
    this.emit({ type: 'apply_complete', address, action: 'deploy', elapsed_seconds: this.elapsed(started), ...(note ? { detail: note } : {}) });
    this.report({ address, action: 'deploy', status: 'applied', ...(note ? { note } : {}) });
  }
}

/**
 * Parent address -> the database changes that go with its delete or replacement, for every
 * ancestor on the way up (`via_parent`, or the parent of a database replaced with its parent).
 */
export function databasesGoingWithParents(changes: readonly ResourceChange[]): Map<Address, ResourceChange[]> {
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
