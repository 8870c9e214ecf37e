/**
 * What goes with a deleted parent (principle 5: "also when it goes with a parent"). Deleting a
 * project or an environment deletes everything in it; the plan lists each of those objects as a
 * delete of its own (`via_parent`), and these pure helpers make them count and guard like objects
 * deleted on their own:
 * - a deleted parent that holds databases is itself guarded by `--allow-data-loss` (and so is
 *   everything that goes with it): one cannot go without the other;
 * - `--max-destroy` counts every object that disappears, what goes with a parent included, and
 *   whether or not a guard blocks it for now.
 * Kept apart from ./guards.ts (which decides what a requirement means) so that the two evolve
 * separately.
 */
import type { Address } from '../model/resource.js';
import { holdsData } from '../model/kinds/index.js';
import type { GuardRequirement, ResourceChange } from './types.js';

/**
 * Deleted parent address -> the databases deleted with it (their addresses relative to it), for
 * every ancestor on a database's `via_parent` chain. Pure; `changes` may be in any order.
 */
export function databasesGoingWith(changes: readonly ResourceChange[]): Map<Address, string[]> {
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const out = new Map<Address, string[]>();
  for (const c of changes) {
    if (!holdsData(c.kind) || c.actions[0] !== 'delete' || c.status === 'unmanaged') continue;
    const seen = new Set<Address>();
    for (let up = c.via_parent; up !== undefined && !seen.has(up); up = byAddress.get(up)?.via_parent) {
      seen.add(up);
      const list = out.get(up) ?? [];
      list.push(relativeTo(c.address, up));
      out.set(up, list);
    }
  }
  for (const list of out.values()) list.sort();
  return out;
}

/** The data-loss guard of a parent deleted with databases in it (none when it holds none). */
export function heldDataLoss(databases: readonly string[] | undefined): GuardRequirement[] {
  if (databases === undefined || databases.length === 0) return [];
  const what = databases.length === 1 ? `the database that goes with it (${databases[0]})` : `the ${databases.length} databases that go with it (${databases.join(', ')})`;
  return [{ guard: 'allow_data_loss', reason: `destroys the data of ${what}` }];
}

/**
 * How many live objects the plan deletes: every delete and replace, including what goes with a
 * deleted or replaced parent (no request of its own, gone all the same) and what a guard blocks
 * for now (a flag away from being deleted). What `--max-destroy` is compared with.
 */
export function destroyCount(changes: readonly ResourceChange[]): number {
  let n = 0;
  for (const c of changes) if (c.actions[0] === 'delete' && c.status !== 'unmanaged') n++;
  return n;
}

/** `project.shop/environment.pr/database.db` relative to `project.shop` -> `environment.pr/database.db`. */
function relativeTo(address: Address, ancestor: Address): string {
  return address.startsWith(`${ancestor}/`) ? address.slice(ancestor.length + 1) : address;
}
