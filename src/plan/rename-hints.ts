/**
 * A rename written without its `moved` entry: the plan creates an object while a live object of the
 * same kind in the same scope, with the same configuration but another name, is deleted (prune) or
 * left unmanaged next to it. Both would run side by side, or the old one's id, variables and
 * history would be lost: the plan warns and shows the exact entry to add. Pure.
 *
 * Only one-to-one pairs are reported (one create matching one live object and the reverse), so a
 * manifest that owns few fields does not get a guess for every undeclared object. An object with
 * children (a project, an environment, a service with variables) is the same only when its content
 * is: every child it declares has a live counterpart of the same kind and name with the same
 * configuration (recursively), and the live object has no more children of the kinds it declares
 * (a project or an environment whose live content was not read is not offered at all).
 * Without that, two preview environments on one cluster in one mode (a 9-service one and a
 * 6-service one) would pass for a rename of each other on their attributes alone.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { warning } from '../diag/diagnostic.js';
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState } from '../model/resource.js';
import { diffAttrs } from './compare.js';
import type { ResourceChange } from './types.js';

/** The fields that name an object: a rename changes them and nothing else. */
const NAME_FIELDS: ReadonlySet<string> = new Set(['name', 'key']);

export function renameHints(graph: DesiredGraph, live: LiveState, changes: readonly ResourceChange[], liveOf: ReadonlyMap<Address, Address>, key: string | undefined): Diagnostic[] {
  // Each hint pairs an object created with a live one: a plan that creates nothing has none.
  if (!changes.some(isPlannedCreate)) return [];
  // Live objects no desired object is matched to: deleted (prune), unmanaged, or out of the
  // manifest's scope (an undeclared project under `scope: kinds`).
  const claimed = new Set(liveOf.values());
  const deleted = new Set(changes.filter((c) => c.actions[0] === 'delete' && c.actions.length === 1 && c.status === 'planned').map((c) => c.address));
  const goneByScope = new Map<string, LiveResource[]>();
  for (const l of live.resources.values()) {
    // The platform's own objects are never renamed by anyone: built-in variables, the DEFAULT stage.
    if (claimed.has(l.address) || platformOwned(l)) continue;
    const k = `${l.kind}\u0000${l.parent ?? ''}`;
    const list = goneByScope.get(k);
    if (list) list.push(l);
    else goneByScope.set(k, [l]);
  }
  if (goneByScope.size === 0) return [];
  const content = contentIndex(graph, live);
  const pairs: Array<{ create: ResourceChange; old: LiveResource }> = [];
  for (const c of changes) {
    if (!isPlannedCreate(c)) continue;
    // A secret whose value was not read (plan --no-secret-values) cannot be said to be the same.
    if (c.secrets_not_compared && c.secrets_not_compared.length > 0) continue;
    const d = graph.resources.get(c.address);
    if (!d) continue;
    const parent = d.parent === undefined ? '' : liveOf.get(d.parent);
    if (parent === undefined) continue;
    for (const old of goneByScope.get(`${d.kind}\u0000${parent}`) ?? []) if (sameButName(d, old, key) && sameContent(d, old.address, content, key)) pairs.push({ create: c, old });
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

/** A plain creation (not a replacement), not blocked. */
function isPlannedCreate(c: ResourceChange): boolean {
  return c.actions[0] === 'create' && c.actions.length === 1 && c.status === 'planned';
}

interface ContentIndex {
  desiredChildren: Map<Address, DesiredResource[]>;
  liveChildren: Map<Address, LiveResource[]>;
}

function contentIndex(graph: DesiredGraph, live: LiveState): ContentIndex {
  const desiredChildren = new Map<Address, DesiredResource[]>();
  for (const d of graph.resources.values()) if (d.parent !== undefined) push(desiredChildren, d.parent, d);
  const liveChildren = new Map<Address, LiveResource[]>();
  for (const l of live.resources.values()) if (l.parent !== undefined && !platformOwned(l)) push(liveChildren, l.parent, l);
  return { desiredChildren, liveChildren };
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** The platform's own objects, never declared nor renamed: built-in variables, the DEFAULT stage. */
function platformOwned(l: LiveResource): boolean {
  return l.attrs.variable_type === 'BUILT_IN' || (l.kind === 'deployment_stage' && l.name.toUpperCase() === 'DEFAULT');
}

/**
 * Kinds whose own attributes say little (an environment: its mode and cluster, shared by every
 * preview): the same only when their content is known and the same.
 */
const CONTAINER_KINDS: ReadonlySet<string> = new Set(['project', 'environment']);

/**
 * The content of `desired` is the content of the live object (see above). The live children of an
 * object the manifest does not declare are often not read (src/live/read.ts reads what the manifest
 * declares): a project or an environment whose content is not known is not the same; a service
 * whose variables are not known is judged on its own configuration.
 */
function sameContent(desired: DesiredResource, liveAddress: Address, index: ContentIndex, key: string | undefined): boolean {
  const mine = index.desiredChildren.get(desired.address) ?? [];
  const theirs = index.liveChildren.get(liveAddress) ?? [];
  if (CONTAINER_KINDS.has(desired.kind)) {
    if (mine.length === 0 || theirs.length === 0) return false;
  } else if (mine.length === 0 || theirs.length === 0) return true;
  const byIdentity = new Map(theirs.map((l) => [`${l.kind}\u0000${l.name.toLowerCase()}`, l]));
  const kinds = new Set(mine.map((d) => d.kind));
  if (theirs.filter((l) => kinds.has(l.kind)).length !== mine.length) return false;
  return mine.every((d) => {
    const l = byIdentity.get(`${d.kind}\u0000${d.name.toLowerCase()}`);
    return l !== undefined && diffAttrs(d, l, key).fields.length === 0 && sameContent(d, l.address, index, key);
  });
}

function sameButName(d: Parameters<typeof diffAttrs>[0], l: LiveResource, key: string | undefined): boolean {
  const diff = diffAttrs(d, l, key);
  return diff.fields.every((f) => NAME_FIELDS.has(f.field));
}
