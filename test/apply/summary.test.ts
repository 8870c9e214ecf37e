/**
 * summarizeApply (src/apply/summary.ts): the step reports and the summary of an apply, as a pure
 * function of what the steps recorded and of the executor's verdict. The counts are what users
 * read at the end of an apply (and the `change_summary` event): they must say what happened.
 */
import { describe, expect, it } from 'vitest';
import { planSteps } from '../../src/apply/steps.js';
import { summarizeApply, type StepOutcomes, type StepReport } from '../../src/apply/summary.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';

function change(address: string, actions: ResourceChange['actions'], extra: Partial<ResourceChange> = {}): ResourceChange {
  const kind = address.slice(address.lastIndexOf('/') + 1).split('.')[0] as ResourceChange['kind'];
  const i = address.lastIndexOf('/');
  const parent = i > 0 ? address.slice(0, i) : undefined;
  return { address, kind, name: address.slice(address.lastIndexOf('.') + 1), ...(parent ? { parent } : {}), actions, status: 'planned', reasons: [], fields: [], depends_on: parent ? [parent] : [], ...extra };
}

function plan(changes: ResourceChange[]): Plan {
  return {
    format_version: '1.0',
    organization_id: 'org',
    changes,
    summary: { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 },
    deploy_order: [],
    live_objects: {},
    request_count: 0,
    options: { allow_data_loss: false },
    applyable: true,
    diagnostics: [],
  };
}

const outcomes = (o: Partial<StepOutcomes>): StepOutcomes => ({ reports: [], destroyed: new Set(), skipped: [], notStarted: [], failed: [], ...o });
const applied = (address: string, action: StepReport['action']): StepReport => ({ address, action, status: 'applied' });
const idOf = (steps: ReturnType<typeof planSteps>, address: string) => steps.find((s) => s.type === 'change' && s.change.address === address)!.id;

describe('summarizeApply', () => {
  const P = 'project.p';
  const A = `${P}/environment.a`;
  const B = `${P}/environment.b`;
  const Q = 'project.q';

  it('counts adds, changes and failures; a step skipped after a failure names it; reports come in plan order', () => {
    const p = plan([change(P, ['create']), change(A, ['create']), change(Q, ['update'])]);
    const steps = planSteps(p);
    const r = summarizeApply(p, steps, outcomes({
      // Reported in completion order, not plan order.
      reports: [applied(Q, 'update'), { address: P, action: 'create', status: 'failed', error: 'boom' }],
      skipped: [{ id: idOf(steps, A), because: idOf(steps, P) }],
    }));
    expect(r.steps.map((s) => [s.address, s.status])).toEqual([[P, 'failed'], [A, 'skipped'], [Q, 'applied']]);
    expect(r.skipped).toEqual([{ address: A, action: 'create', status: 'skipped', because: P }]);
    expect(r.summary).toEqual({ add: 0, change: 1, destroy: 0, deploy: 0, failed: 1, skipped: 1, not_started: 0 });
  });

  it('an interrupted run counts what did not start; a step that threw before reporting still shows as failed', () => {
    const p = plan([change(P, ['update']), change(Q, ['update'])]);
    const steps = planSteps(p);
    const r = summarizeApply(p, steps, outcomes({ notStarted: [idOf(steps, Q)], failed: [{ id: idOf(steps, P), error: 'unexpected' }] }));
    expect(r.steps).toEqual([{ address: P, action: 'update', status: 'failed', error: 'unexpected' }, { address: Q, action: 'update', status: 'not_started' }]);
    expect(r.summary).toEqual({ add: 0, change: 0, destroy: 0, deploy: 0, failed: 1, skipped: 0, not_started: 1 });
  });

  it('what goes with a deleted parent is destroyed with it, and only when the parent delete was applied', () => {
    const children = (env: string) => [change(`${env}/application.x`, ['delete'], { via_parent: env }), change(`${env}/variable.V`, ['delete'], { via_parent: env })];
    const p = plan([change(A, ['delete']), ...children(A), change(B, ['delete']), ...children(B)]);
    const steps = planSteps(p);
    const r = summarizeApply(p, steps, outcomes({
      reports: [applied(A, 'delete'), { address: B, action: 'delete', status: 'failed', error: 'conflict' }],
      destroyed: new Set([A]),
    }));
    expect(r.steps.filter((s) => s.status === 'applied').map((s) => s.address).sort()).toEqual([A, `${A}/application.x`, `${A}/variable.V`]);
    expect(r.summary.destroy).toBe(3);
    expect(r.summary.failed).toBe(1);
  });

  it('a replacement whose create failed counts its destroy, not an add', () => {
    const p = plan([change(A, ['delete', 'create']), change(`${A}/application.x`, ['delete', 'create'])]);
    const steps = planSteps(p);
    const r = summarizeApply(p, steps, outcomes({
      reports: [{ address: A, action: 'replace', status: 'failed', error: 'name taken' }],
      destroyed: new Set([A]),
      skipped: [{ id: idOf(steps, `${A}/application.x`), because: idOf(steps, A) }],
    }));
    // The declared child of a replaced environment went with the old environment.
    expect(r.summary).toEqual({ add: 0, change: 0, destroy: 2, deploy: 0, failed: 1, skipped: 1, not_started: 0 });
  });

  it('is pure: the same outcomes give the same bookkeeping, and the inputs are left as they were', () => {
    const p = plan([change(A, ['delete']), change(`${A}/variable.V`, ['delete'], { via_parent: A })]);
    const steps = planSteps(p);
    const destroyed = new Set([A]);
    const o = outcomes({ reports: [applied(A, 'delete')], destroyed });
    const first = summarizeApply(p, steps, o);
    expect(summarizeApply(p, steps, o)).toEqual(first);
    expect([...destroyed]).toEqual([A]);
    expect(o.reports).toHaveLength(1);
  });
});
