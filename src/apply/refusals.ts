/**
 * Why apply must refuse a plan before sending a single request: a change blocked by the data-loss
 * guard, a database deletion or replacement without --allow-data-loss, an error diagnostic, or
 * more deletions than --max-destroy allows.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { stepActionOf } from './steps.js';

export interface RefusalOptions {
  allowDataLoss?: boolean;
  maxDestroy?: number;
}

function isDatabaseLoss(c: ResourceChange): boolean {
  const a = stepActionOf(c);
  return c.kind === 'database' && (a === 'delete' || a === 'replace');
}

/** Empty: go ahead. */
export function refusals(plan: Plan, opts: RefusalOptions): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const c of plan.changes) {
    if (c.status === 'blocked') {
      out.push(
        error('apply.blocked', `${c.address}: ${c.actions.join(' and ')} is blocked${c.reasons.length ? `: ${c.reasons.join('; ')}` : ''}`, {
          address: c.address,
          detail: 'Deleting or replacing a database destroys its data. Run plan and apply again with --allow-data-loss to allow it (a backup is taken first).',
        }),
      );
    } else if (isDatabaseLoss(c) && !opts.allowDataLoss) {
      out.push(
        error('apply.data-loss', `${c.address}: the plan ${stepActionOf(c) === 'replace' ? 'replaces' : 'deletes'} a database and --allow-data-loss was not given`, {
          address: c.address,
          detail: 'Run apply again with --allow-data-loss to allow it (a backup is taken first), or change the manifest.',
        }),
      );
    }
  }
  for (const d of plan.diagnostics) if (d.severity === 'error') out.push(d);
  if (!plan.applyable && out.length === 0) out.push(error('apply.not-applyable', 'The plan is marked as not applyable.', { detail: 'Run plan again and fix the problems it reports.' }));
  if (opts.maxDestroy !== undefined) {
    const destroy = plan.changes.filter((c) => {
      const a = stepActionOf(c);
      return a === 'delete' || a === 'replace';
    });
    if (destroy.length > opts.maxDestroy) {
      out.push(
        error('apply.max-destroy', `The plan destroys ${destroy.length} resource(s), more than --max-destroy ${opts.maxDestroy} allows.`, {
          detail: `It would destroy: ${destroy.slice(0, 20).map((c) => c.address).join(', ')}${destroy.length > 20 ? ', ...' : ''}. Raise --max-destroy if this is intended.`,
        }),
      );
    }
  }
  return out;
}
