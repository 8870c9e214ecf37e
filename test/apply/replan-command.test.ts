/**
 * What a refused saved plan tells the user to run: the command that makes that plan again. A
 * `preview up --out` plan is made by `preview up` (a plain `plan` has no preview and would not
 * make it), a partial plan keeps its targets; `--set` values are not repeated.
 */
import { describe, expect, it } from 'vitest';
import { replanCommand } from '../../src/apply/saved-plan.js';
import type { Plan } from '../../src/plan/types.js';

const plan = (extra: Partial<Plan>): Plan => ({ options: { allow_data_loss: false }, ...extra }) as Plan;

describe('replanCommand', () => {
  it('a whole-manifest plan: plan --out FILE', () => {
    expect(replanCommand(plan({}), 'change.plan')).toBe('`driftless plan --out change.plan`');
  });

  it('a partial plan keeps its targets, after --out (--target takes every word after it)', () => {
    expect(replanCommand(plan({ targets: ['project.shop/environment.staging', 'project.shop/environment.qa 1'] }), 'p.plan')).toBe(
      "`driftless plan --out p.plan --target project.shop/environment.staging 'project.shop/environment.qa 1'`",
    );
  });

  it('a preview plan: preview up with its project and number, the --set fields without their values', () => {
    const p = plan({ options: { allow_data_loss: true, preview: { project: 'shop', number: 43, set: [{ text: 'api.git_commit_id=abc1234', path: 'api.git_commit_id', value: 'abc1234' }] } } });
    const text = replanCommand(p, 'my plan.json');
    expect(text).toBe("`driftless preview up --project shop --number 43 --out 'my plan.json'` (with the same --set api.git_commit_id=...)");
    expect(text).not.toContain('abc1234');
    expect(replanCommand(plan({ options: { allow_data_loss: false, preview: { project: 'shop', number: 7 } } }), 'x.plan')).toBe('`driftless preview up --project shop --number 7 --out x.plan`');
  });
});
