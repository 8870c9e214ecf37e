/**
 * summarizeApply(plan, steps, outcomes) -> the step reports and the summary of an apply. Pure: what
 * the steps recorded while they ran (their reports, the objects they deleted) and the executor's
 * verdict (skipped, not started, failed) in; the reports in plan order and the counts out.
 *
 * The rules it keeps, so that the summary counts what really happened:
 * - every step target has exactly one report: one the step wrote itself, else `skipped` (a
 *   dependency failed), `not_started` (interrupted, or halted) or `failed` (it threw before
 *   reporting anything: a bug or an unexpected error still shows);
 * - an object deleted with its parent (no request of its own) shares its parent's fate;
 * - `destroy` is every live object that is gone: deleted by its own request, by the delete half of
 *   a replacement whose create then failed, or with a deleted parent, whatever became of the rest.
 */
import type { Address } from '../model/resource.js';
import type { Plan } from '../plan/types.js';
import type { ApplySummary, StepAction } from './events.js';
import type { StepFailure, StepSkip } from './executor.js';
import { changesWithSteps, targetsOf, type PlannedStep } from './steps.js';

export type StepStatus = 'applied' | 'failed' | 'skipped' | 'not_started';

export interface StepReport {
  address: Address;
  action: StepAction;
  /** With the `no-op` action only: the protect mark recorded (true) or cleared (false). */
  protect_mark?: boolean;
  status: StepStatus;
  error?: string;
  hint?: string;
  /** For skipped steps: the failed step's address. */
  because?: Address;
  logs?: string[];
  /** For applied steps: what else the user should know (e.g. another deployment started since). */
  note?: string;
}

/** What the steps recorded while they ran, and what the executor says of the others. */
export interface StepOutcomes {
  /** The reports the steps wrote (applied or failed), at most one per action and address. */
  reports: readonly StepReport[];
  /** Objects deleted by a request of this apply (the old half of a replacement included). */
  destroyed: ReadonlySet<Address>;
  skipped: readonly StepSkip[];
  notStarted: readonly string[];
  failed: ReadonlyArray<Pick<StepFailure, 'id'> & { error: string }>;
}

export interface ApplyBookkeeping {
  /** One report per step target, in plan order, deploys last. */
  steps: StepReport[];
  summary: ApplySummary;
  /** The reports of the skipped targets (apply emits an event for each). */
  skipped: StepReport[];
}

export function emptySummary(): ApplySummary {
  return { add: 0, change: 0, destroy: 0, deploy: 0, failed: 0, skipped: 0, not_started: 0 };
}

/** One report per action and address: a service changed and deployed has two. */
const keyOf = (t: { action: StepAction; address: Address }) => `${t.action} ${t.address}`;

export function summarizeApply(plan: Plan, planned: readonly PlannedStep[], outcomes: StepOutcomes): ApplyBookkeeping {
  const reports = new Map<string, StepReport>();
  const report = (r: StepReport) => reports.set(keyOf(r), r);
  for (const r of outcomes.reports) report(r);
  const stepById = new Map(planned.map((p) => [p.id, p]));
  const targets = (id: string) => {
    const st = stepById.get(id);
    return st ? targetsOf(st) : [];
  };
  const primary = (stepId: string) => targets(stepId)[0]?.address ?? stepId;

  const skipped: StepReport[] = [];
  for (const s of outcomes.skipped) {
    for (const t of targets(s.id)) {
      const r: StepReport = { ...t, status: 'skipped', because: primary(s.because) };
      skipped.push(r);
      report(r);
    }
  }
  for (const id of outcomes.notStarted) {
    for (const t of targets(id)) report({ ...t, status: 'not_started' });
  }

  // Objects deleted with their parent (no request of their own) share their parent's fate.
  const byAddress = changesWithSteps(plan);
  const viaParentOf = new Map(plan.changes.filter((c) => c.via_parent !== undefined).map((c) => [c.address, c.via_parent!]));
  for (const c of plan.changes) {
    if (c.status !== 'planned' || c.via_parent === undefined || c.actions[0] !== 'delete') continue;
    let root: Address | undefined = c.via_parent;
    while (root !== undefined && !byAddress.has(root)) root = viaParentOf.get(root);
    const parentReport = root === undefined ? undefined : (reports.get(keyOf({ action: 'delete', address: root })) ?? reports.get(keyOf({ action: 'replace', address: root })));
    if (parentReport?.status === 'applied') report({ address: c.address, action: 'delete', status: 'applied' });
  }

  // What went with a deleted parent is gone too, whatever became of the rest of the apply: the
  // undeclared children of a deleted or replaced object, and the declared children of a replaced
  // one (their old objects; their re-creation counts as an add only when it happened).
  const destroyed = new Set(outcomes.destroyed);
  const changeAt = new Map(plan.changes.map((c) => [c.address, c]));
  const gone = (address: Address): boolean => {
    if (destroyed.has(address)) return true;
    const c = changeAt.get(address);
    if (!c || c.status !== 'planned' || c.actions[0] !== 'delete') return false;
    const parent = c.parent === undefined ? undefined : changeAt.get(c.parent);
    const replacedWithParent = c.actions[1] === 'create' && parent !== undefined && parent.actions[0] === 'delete' && parent.actions[1] === 'create';
    const with_ = c.via_parent ?? (replacedWithParent ? c.parent : undefined);
    return with_ !== undefined && gone(with_);
  };
  for (const c of plan.changes) if (gone(c.address)) destroyed.add(c.address);

  // A step that threw before reporting anything (a bug or an unexpected error) still shows.
  for (const f of outcomes.failed) {
    for (const t of targets(f.id)) {
      if (!reports.has(keyOf(t))) report({ ...t, status: 'failed', error: f.error });
    }
  }

  // Reports in plan order, deploys last.
  const order = new Map<string, number>();
  let n = 0;
  for (const p of planned) for (const t of targetsOf(p)) order.set(keyOf(t), n++);
  const steps = [...reports.values()].sort((a, b) => (order.get(keyOf(a)) ?? 0) - (order.get(keyOf(b)) ?? 0));

  return { steps, summary: countSummary(steps, destroyed.size), skipped };
}

/**
 * The counts of the summary: `destroy` as given, the rest from the reports. A `no-op` (a protect
 * mark recorded on an otherwise unchanged object) is not a change: counted only if it fails.
 */
function countSummary(steps: readonly StepReport[], destroy: number): ApplySummary {
  const summary = emptySummary();
  summary.destroy = destroy;
  for (const r of steps) {
    if (r.status === 'applied') {
      if (r.action === 'create' || r.action === 'replace') summary.add++;
      else if (r.action === 'update') summary.change++;
      else if (r.action === 'deploy') summary.deploy++;
    } else if (r.status === 'failed') summary.failed++;
    else if (r.status === 'skipped') summary.skipped++;
    else summary.not_started++;
  }
  return summary;
}
