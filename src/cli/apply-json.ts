/**
 * apply's own lines of the `--json` stream, beside the progress events of apply-view.ts: its
 * diagnostics, the planned changes, and the plan's summary (same envelope as the events).
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Plan } from '../plan/types.js';
import { stepActionOf } from '../apply/steps.js';
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

/** One `planned_change` line per change apply makes (a deploy included), then the plan's summary. */
export function plannedChangeLines(plan: Plan): string {
  let out = '';
  for (const c of plan.changes) {
    const action = stepActionOf(c) ?? (c.deploy ? 'deploy' : undefined);
    if (!action) continue;
    const renamed = c.previous_address !== undefined ? ` (renamed from ${c.previous_address})` : '';
    out += jsonLine(`${c.address}: plan to ${action}${renamed}`, {
      type: 'planned_change',
      address: c.address,
      ...(c.previous_address !== undefined ? { previous_address: c.previous_address } : {}),
      action,
      deploy: c.deploy !== undefined,
    });
  }
  return out + jsonLine('Plan summary', { type: 'change_summary', operation: 'plan', ...plan.summary });
}
