/**
 * A rename written without its `moved` entry: the plan creates an object while a live object of the
 * same kind in the same scope, with the same configuration but another name, is deleted (prune) or
 * left unmanaged next to it. Both would run side by side, or the old one's id, variables and
 * history would be lost: the plan warns and shows the exact entry to add. Pure.
 *
 * Only one-to-one pairs are reported (one create matching one live object and the reverse), so a
 * manifest that owns few fields does not get a guess for every undeclared object.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { warning } from '../diag/diagnostic.js';
import type { Address, DesiredGraph, LiveResource, LiveState } from '../model/resource.js';
import { diffAttrs } from './compare.js';
import type { ResourceChange } from './types.js';

/** The fields that name an object: a rename changes them and nothing else. */
const NAME_FIELDS: ReadonlySet<string> = new Set(['name', 'key']);

export function renameHints(graph: DesiredGraph, live: LiveState, changes: readonly ResourceChange[], liveOf: ReadonlyMap<Address, Address>, key: string | undefined): Diagnostic[] {
  // Live objects no desired object is matched to: deleted (prune), unmanaged, or out of the
  // manifest's scope (an undeclared project under `scope: kinds`).
  const claimed = new Set(liveOf.values());
  const deleted = new Set(changes.filter((c) => c.actions[0] === 'delete' && c.actions.length === 1 && c.status === 'planned').map((c) => c.address));
  const goneByScope = new Map<string, LiveResource[]>();
  for (const l of live.resources.values()) {
    // The platform's own objects are never renamed by anyone: built-in variables, the DEFAULT stage.
    if (claimed.has(l.address) || l.attrs.variable_type === 'BUILT_IN' || (l.kind === 'deployment_stage' && l.name.toUpperCase() === 'DEFAULT')) continue;
    const k = `${l.kind}\u0000${l.parent ?? ''}`;
    const list = goneByScope.get(k);
    if (list) list.push(l);
    else goneByScope.set(k, [l]);
  }
  if (goneByScope.size === 0) return [];
  const pairs: Array<{ create: ResourceChange; old: LiveResource }> = [];
  for (const c of changes) {
    if (c.actions[0] !== 'create' || c.actions.length !== 1 || c.status !== 'planned') continue;
    // A secret whose value was not read (plan --no-secret-values) cannot be said to be the same.
    if (c.secrets_not_compared && c.secrets_not_compared.length > 0) continue;
    const d = graph.resources.get(c.address);
    if (!d) continue;
    const parent = d.parent === undefined ? '' : liveOf.get(d.parent);
    if (parent === undefined) continue;
    for (const old of goneByScope.get(`${d.kind}\u0000${parent}`) ?? []) if (sameButName(d, old, key)) pairs.push({ create: c, old });
  }
  const count = <T>(pick: (p: (typeof pairs)[number]) => T) => {
    const n = new Map<T, number>();
    for (const p of pairs) n.set(pick(p), (n.get(pick(p)) ?? 0) + 1);
    return n;
  };
  const perCreate = count((p) => p.create);
  const perOld = count((p) => p.old);
  const out: Diagnostic[] = [];
  for (const { create, old } of pairs) {
    if (perCreate.get(create) !== 1 || perOld.get(old) !== 1) continue;
    const isDeleted = deleted.has(old.address);
    out.push(
      warning('plan.looks-like-rename', `${create.address} (created) looks like a rename of ${old.address} (${isDeleted ? 'deleted' : 'not in the manifest'}): the same ${create.kind} configuration under another name`, {
        detail:
          (isDeleted
            ? `The plan deletes the live object and creates a new one: its id${create.kind === 'variable' ? '' : ', its variables and its deployment history'} are lost.`
            : 'The plan creates a second object next to the live one, which keeps running.') +
          ` If it is a rename, add this entry to the manifest's \`moved:\` list, and the plan renames the live object in place: - {from: ${old.address}, to: ${create.address}}`,
        address: create.address,
        range: graph.resources.get(create.address)?.source,
      }),
    );
  }
  return out;
}

function sameButName(d: Parameters<typeof diffAttrs>[0], l: LiveResource, key: string | undefined): boolean {
  const diff = diffAttrs(d, l, key);
  return diff.fields.every((f) => NAME_FIELDS.has(f.field));
}
