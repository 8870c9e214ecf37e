/**
 * What one apply may destroy: the limits its own command line sets. A saved plan file records the
 * options it was planned with, but never adds to them: `apply FILE` plans again with these limits,
 * checks the saved plan against them, and executes under them. (A file whose options were edited
 * is refused by its seal anyway; this is what makes the seal a check, not the authority.)
 *
 * A new limit is one field here and one line in `authorityOf` (as `--allow-replace` was): runPlan,
 * the saved-plan check and applyPlan all take the same object.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Plan } from '../plan/types.js';
import { refusals } from './refusals.js';

export interface ApplyAuthority {
  /** `--allow-data-loss`: databases may be deleted or replaced (after a backup). */
  allowDataLoss: boolean;
  /** `--allow-replace`: environments and deployed services may be replaced (deleted, then created). */
  allowReplace: boolean;
  /** `--max-destroy N`: at most N deletions. */
  maxDestroy?: number;
}

export interface AuthorityArgs {
  allowDataLoss?: boolean;
  allowReplace?: boolean;
  maxDestroy?: number;
}

/** The authority of an apply, from its parsed command line only. */
export function authorityOf(args: AuthorityArgs): ApplyAuthority {
  return {
    allowDataLoss: args.allowDataLoss === true,
    allowReplace: args.allowReplace === true,
    ...(args.maxDestroy !== undefined ? { maxDestroy: args.maxDestroy } : {}),
  };
}

/**
 * Why a saved plan asks for more than this apply allows (empty: it does not). Checked on the file
 * as read, before the plan is made again: a blocked change, a database loss without
 * `--allow-data-loss`, more deletions than `--max-destroy`, each named.
 */
export function savedPlanExceeds(saved: Plan, authority: ApplyAuthority, file: string): Diagnostic[] {
  return refusals(saved, authority).map((d) => ({
    ...d,
    detail: `${d.detail ? `${d.detail}\n` : ''}${
      d.code === 'apply.blocked'
        ? `The saved plan ${file} blocks this change: make it again with the flag (\`driftless plan --out ${file}\`), review it, and apply the new file with the same flag.`
        : `A saved plan (${file}) never grants what the command line of \`driftless apply\` does not: give the flag to this apply.`
    } Nothing was changed.`,
  }));
}
