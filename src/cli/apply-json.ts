/**
 * apply's own lines of the `--json` stream, beside the progress events of apply-view.ts: its
 * diagnostics, the planned changes, and the plan's summary (same envelope as the events).
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Plan } from '../plan/types.js';
import type { StepRef } from '../apply/events.js';
import { stepActionOf, stepRefOf } from '../apply/steps.js';
import { escapeJsonText } from '../render/escape.js';

/** One line of the machine-readable stream (same envelope as the progress events). */
function jsonLine(message: string, fields: Record<string, unknown>, level: 'info' | 'warn' | 'error' = 'info'): string {
  return escapeJsonText(JSON.stringify({ '@level': level, '@message': message, '@timestamp': new Date().toISOString(), ...fields })) + '\n';
}

export function diagnosticLine(d: Diagnostic): string {
  return jsonLine(d.summary, { type: 'diagnostic', diagnostic: d }, d.severity === 'error' ? 'error' : 'warn');
}

/** `No changes.`: the plan's summary when there is nothing to apply. */
export function noChangesLine(plan: Plan): string {
  return jsonLine('No changes.', { type: 'change_summary', operation: 'plan', ...plan.summary });
}

/**
 * One `planned_change` line per change apply makes (a deploy included), then the plan's summary.
 * A change that only records or clears the protect mark says so (`no-op` and `protect_mark`, as
 * in the plan JSON): it is not an update, and the summary does not count it.
 */
export function plannedChangeLines(plan: Plan): string {
  let out = '';
  for (const c of plan.changes) {
    const stepAction = stepActionOf(c);
    const ref: StepRef | undefined = stepAction !== undefined ? stepRefOf(c, stepAction) : c.deploy ? { address: c.address, action: 'deploy' } : undefined;
    if (!ref) continue;
    const what = ref.protect_mark === undefined ? ref.action : `${ref.protect_mark ? 'record' : 'clear'} the protect mark`;
    const renamed = c.previous_address !== undefined ? ` (renamed from ${c.previous_address})` : '';
    out += jsonLine(`${c.address}: plan to ${what}${renamed}`, {
      type: 'planned_change',
      address: c.address,
      ...(c.previous_address !== undefined ? { previous_address: c.previous_address } : {}),
      action: ref.action,
      ...(ref.protect_mark !== undefined ? { protect_mark: ref.protect_mark } : {}),
      deploy: c.deploy !== undefined,
    });
  }
  return out + jsonLine('Plan summary', { type: 'change_summary', operation: 'plan', ...plan.summary });
}
