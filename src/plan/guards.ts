/**
 * The plan's safety guards: a change that destroys data (a database deleted or replaced) or
 * replaces something that runs (an environment, a deployed service) is done only when the user
 * gave the flag of its guard (`--allow-data-loss`, `--allow-replace`); without it the change is
 * `blocked`: shown with the reason and the flag, never counted as done, and apply refuses the plan.
 * Pure: computePlan says which guards a change trips, these functions decide what that means.
 */
import type { LiveResource } from '../model/resource.js';
import type { Guard, GuardRequirement, ResourceChange } from './types.js';
import { GUARD_FLAGS } from './types.js';

/** Which guards the user lifted, by option name. */
export type GuardFlags = Record<Guard, boolean>;

/** Records the guards a change trips, and blocks it when a flag is missing (one reason per guard). */
export function guardChange(c: ResourceChange, requires: readonly GuardRequirement[], flags: GuardFlags): void {
  const own = onePerGuard(requires);
  if (own.length === 0) return;
  c.requires = own;
  const missing = own.filter((r) => !flags[r.guard]);
  if (missing.length === 0) return;
  c.status = 'blocked';
  for (const r of missing) c.reasons.push(`${r.reason}: re-run with ${GUARD_FLAGS[r.guard]} to permit it`);
}

/** What is deleted with its parent falls under the parent's guards (named after the parent). */
export function inheritedRequirements(parentRequires: readonly GuardRequirement[], parent: string): GuardRequirement[] {
  return parentRequires.map((r) => ({ guard: r.guard, reason: r.reason.startsWith('goes with ') ? r.reason : `goes with ${parent}, which ${r.reason}` }));
}

/**
 * Whether a live service has ever been deployed: its status says anything but NEVER_DEPLOYED, or
 * carries a deployment date. No status at all (it could not be read) counts as deployed: the guard
 * errs on the side of what may be running.
 */
export function hasBeenDeployed(l: LiveResource): boolean {
  const st = l.status;
  if (st === undefined) return true;
  return st.last_deployment_date !== undefined || (st.service_deployment_status !== undefined && st.service_deployment_status !== 'NEVER_DEPLOYED');
}

/** One requirement per guard, in the order of GUARD_FLAGS (data loss first), so output is stable. */
function onePerGuard(requires: readonly GuardRequirement[]): GuardRequirement[] {
  const order = Object.keys(GUARD_FLAGS);
  const out: GuardRequirement[] = [];
  for (const r of requires) if (!out.some((x) => x.guard === r.guard)) out.push(r);
  return out.sort((a, b) => order.indexOf(a.guard) - order.indexOf(b.guard));
}

/**
 * Why a blocked change is blocked and the flags that would allow it, as the plan records them
 * (`plan.options` says which flags the plan was made with). A plan made before guards were
 * recorded blocked only database data loss.
 */
export function blockingOf(c: ResourceChange, options: { allow_data_loss?: boolean; allow_replace?: boolean }): { reasons: string[]; flags: string[] } | undefined {
  if (c.status !== 'blocked') return undefined;
  // Protected (./protect.ts): no flag allows it.
  if (c.protection) return { reasons: [c.protection.reason], flags: [] };
  const missing = (c.requires ?? []).filter((r) => options[r.guard] !== true);
  if (missing.length === 0) return { reasons: c.reasons.length > 0 ? [...c.reasons] : ['destroys the data of a database'], flags: [GUARD_FLAGS.allow_data_loss] };
  return { reasons: missing.map((r) => r.reason), flags: missing.map((r) => GUARD_FLAGS[r.guard]) };
}

/**
 * What apply refuses a plan with blocked changes "without": the flags that would allow them, and
 * "whatever the flags" for protected ones (`without --allow-replace`, `whatever the flags`,
 * `without --allow-data-loss (and whatever the flags, for 1 protected change)`).
 */
export function refusedWithout(changes: readonly ResourceChange[], options: { allow_data_loss?: boolean; allow_replace?: boolean }): string {
  const flags = blockingFlags(changes, options);
  const protectedCount = changes.filter((c) => c.status === 'blocked' && c.protection).length;
  if (protectedCount === 0) return `without ${flags.join(' and ')}`;
  if (flags.length === 0) return 'whatever the flags (protected)';
  return `without ${flags.join(' and ')} (and whatever the flags, for ${protectedCount} protected change${protectedCount === 1 ? '' : 's'})`;
}

/** The distinct flags that would allow every blocked change of a plan, in a stable order. */
export function blockingFlags(changes: readonly ResourceChange[], options: { allow_data_loss?: boolean; allow_replace?: boolean }): string[] {
  const flags = new Set<string>();
  for (const c of changes) for (const f of blockingOf(c, options)?.flags ?? []) flags.add(f);
  return Object.values(GUARD_FLAGS).filter((f) => flags.has(f));
}

/**
 * The blocked changes that are blocked on their own account, each with how many blocked changes
 * only follow it (what goes with a blocked replacement: its services, variables, stages), so that
 * one cause is reported once.
 */
export function blockedRoots(changes: readonly ResourceChange[], options: { allow_data_loss?: boolean; allow_replace?: boolean }): Array<{ change: ResourceChange; following: number }> {
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const rootOf = (c: ResourceChange): ResourceChange => {
    let cur = c;
    for (;;) {
      const parentAddress = cur.via_parent ?? cur.parent;
      const parent = parentAddress === undefined ? undefined : byAddress.get(parentAddress);
      // Blocked only by its parent's guards (a database that goes with its environment and whose
      // data loss is not allowed either has a cause of its own).
      const missing = (cur.requires ?? []).filter((r) => options[r.guard] !== true);
      const onlyInherited = missing.length > 0 && missing.every((r) => r.reason.startsWith('goes with '));
      if (!parent || parent.status !== 'blocked' || !onlyInherited) return cur;
      cur = parent;
    }
  };
  const out = new Map<string, { change: ResourceChange; following: number }>();
  for (const c of changes) {
    if (c.status !== 'blocked') continue;
    const root = rootOf(c);
    const entry = out.get(root.address) ?? { change: root, following: 0 };
    if (root !== c) entry.following++;
    out.set(root.address, entry);
  }
  return [...out.values()];
}
