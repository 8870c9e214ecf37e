/**
 * Why apply must refuse a plan before sending a single request: a change blocked by a guard (a
 * database deletion or replacement without --allow-data-loss, the replacement of an environment or
 * of a deployed service without --allow-replace), a guarded change whose flag this apply was not
 * given, an error diagnostic, or more deletions than --max-destroy allows.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import type { Guard, Plan, Protection, ResourceChange } from '../plan/types.js';
import { GUARD_FLAGS } from '../plan/types.js';
import { holdsData } from '../model/kinds/index.js';
import { stepActionOf } from './steps.js';
import { blockedRoots } from '../plan/guards.js';
import { plural, withArticle } from '../render/words.js';

export interface RefusalOptions {
  allowDataLoss?: boolean;
  allowReplace?: boolean;
  maxDestroy?: number;
}

/** What each guard's flag allows, for the refusal's advice. */
const ALLOWS: Record<Guard, string> = {
  allow_data_loss: 'deleting or replacing a database destroys its data (a backup is taken first)',
  allow_replace: 'replacing an environment or a deployed service deletes it, with what runs there, before creating it again',
};

/** What lifts a protection (no flag does). */
const PROTECTED_ADVICE: Record<Protection['by'], string> = {
  manifest: 'No flag allows it. Set `protect: false` on it (or remove the change that deletes or replaces it) and plan again.',
  live: 'No flag allows it: its live record carries the protect mark. Declare it with `protect: false` and apply (that clears the mark), then delete it.',
  moved: 'A `moved` entry only renames: fix the entry (its `to` must be declared, once) or remove it.',
};

function isDataLoss(c: ResourceChange): boolean {
  const a = stepActionOf(c);
  return holdsData(c.kind) && (a === 'delete' || a === 'replace');
}

/** The guards of a change that this apply's own flags do not lift (what holds data: always the data-loss guard). */
function unlifted(c: ResourceChange, opts: RefusalOptions): Guard[] {
  const given: Record<Guard, boolean> = { allow_data_loss: opts.allowDataLoss === true, allow_replace: opts.allowReplace === true };
  const guards = new Set<Guard>((c.requires ?? []).map((r) => r.guard));
  if (holdsData(c.kind) && c.actions[0] === 'delete') guards.add('allow_data_loss');
  return [...guards].filter((g) => !given[g]);
}

function advice(guards: Guard[]): string {
  const flags = guards.map((g) => GUARD_FLAGS[g]).join(' and ');
  return `Run plan and apply again with ${flags} to allow it: ${guards.map((g) => ALLOWS[g]).join('; ')}. Or change the manifest.`;
}

/** Empty: go ahead. */
export function refusals(plan: Plan, opts: RefusalOptions): Diagnostic[] {
  const out: Diagnostic[] = [];
  // One refusal per cause: what only goes with a blocked replacement is counted in its refusal.
  const roots = new Map(blockedRoots(plan.changes, plan.options).map((r) => [r.change.address, r.following]));
  const byAddress = new Map(plan.changes.map((c) => [c.address, c]));
  for (const c of plan.changes) {
    if (c.status === 'blocked') {
      const following = roots.get(c.address);
      if (following === undefined) continue;
      const guards = unlifted(c, opts);
      const needed: Guard[] = guards.length > 0 ? guards : (c.requires ?? []).map((r) => r.guard);
      const withIt = following > 0 ? ` (with ${following} object${following === 1 ? '' : 's'} that go${following === 1 ? 'es' : ''} with it)` : '';
      if (c.protection) {
        out.push(error('apply.protected', `${c.address}${withIt}: ${c.actions.join(' and ')} is blocked: ${c.protection.reason}`, { address: c.address, detail: PROTECTED_ADVICE[c.protection.by] }));
        continue;
      }
      out.push(
        error('apply.blocked', `${c.address}${withIt}: ${c.actions.join(' and ')} is blocked${c.reasons.length ? `: ${c.reasons.join('; ')}` : ''}`, {
          address: c.address,
          detail: advice(needed.length > 0 ? needed : ['allow_data_loss']),
        }),
      );
      continue;
    }
    if (stepActionOf(c) === undefined && c.via_parent === undefined) continue;
    const guards = unlifted(c, opts);
    if (guards.length === 0) continue;
    // What only goes with a refused parent is refused with it (one error per cause).
    const parent = byAddress.get(c.via_parent ?? c.parent ?? '');
    const inheritedOnly = (c.requires ?? []).filter((r) => guards.includes(r.guard)).every((r) => r.reason.startsWith('goes with ')) && (c.requires ?? []).some((r) => guards.includes(r.guard));
    if (parent && inheritedOnly && unlifted(parent, opts).length > 0) continue;
    if (isDataLoss(c) && guards.length === 1 && guards[0] === 'allow_data_loss') {
      out.push(
        error('apply.data-loss', `${c.address}: the plan ${stepActionOf(c) === 'replace' ? 'replaces' : 'deletes'} ${withArticle(c.kind)} and --allow-data-loss was not given`, {
          address: c.address,
          detail: 'Run apply again with --allow-data-loss to allow it (a backup is taken first), or change the manifest.',
        }),
      );
    } else {
      out.push(
        error('apply.guarded', `${c.address}: the plan ${c.actions[1] === 'create' ? 'replaces' : 'deletes'} it and ${guards.map((g) => GUARD_FLAGS[g]).join(' and ')} was not given`, {
          address: c.address,
          detail: advice(guards),
        }),
      );
    }
  }
  for (const d of plan.diagnostics) if (d.severity === 'error') out.push(d);
  if (plan.options.no_secret_values === true) out.push(noSecretValuesRefusal());
  if (!plan.applyable && out.length === 0) out.push(error('apply.not-applyable', 'The plan is marked as not applyable.', { detail: 'Run plan again and fix the problems it reports.' }));
  if (opts.maxDestroy !== undefined) {
    // What goes with a deleted parent disappears too: it counts, though it has no request of its own.
    const destroy = plan.changes.filter((c) => c.status === 'planned' && c.actions[0] === 'delete');
    if (destroy.length > opts.maxDestroy) {
      out.push(
        error('apply.max-destroy', `The plan destroys ${plural(destroy.length, 'resource')}, more than --max-destroy ${opts.maxDestroy} allows.`, {
          detail: `It would destroy: ${destroy.slice(0, 20).map((c) => c.address).join(', ')}${destroy.length > 20 ? ', ...' : ''}. Raise --max-destroy if this is intended.`,
        }),
      );
    }
  }
  return out;
}

/** Why a plan made with `--no-secret-values` is never applied (a saved one is refused by apply before any request). */
export function noSecretValuesRefusal(file?: string): Diagnostic {
  return error('apply.no-secret-values', `${file ?? 'the plan'} was planned with --no-secret-values: re-plan with the secrets`, {
    detail: 'Its secrets were not read, so it cannot write them. Run `driftless plan --out FILE` (or `driftless apply`) where the secret values are set. Nothing was changed.',
  });
}
