/**
 * The `services` field of a deployment stage is compared only on the services the manifest places
 * in a stage (the others stay wherever the platform put them). What the plan SHOWS for it must
 * still be the stage's real membership: `before` is the whole live list, `after` the manifest's
 * list plus the live members it leaves alone (they stay there). The decision (which services move)
 * is unchanged; only the display of the field is completed.
 */
import type { Address, LiveState } from '../model/resource.js';
import type { ResourceChange } from './types.js';

const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** `replaced`: `environment address NUL lower-cased name` of the services the plan replaces. */
export function stageBeforeLists(changes: ResourceChange[], live: LiveState, liveOf: Map<Address, Address>, replaced: ReadonlySet<string> = new Set()): void {
  for (const c of changes) {
    if (c.kind !== 'deployment_stage' || c.status === 'unmanaged') continue;
    const f = c.fields.find((x) => x.field === 'services');
    const l = live.resources.get(liveOf.get(c.address) ?? c.address);
    if (!f || !l) continue;
    const all = names(l.attrs.services);
    // Owned members keep the manifest's spelling (apply compares them with the desired list).
    const ownedNames = names(f.before);
    const owned = new Set(ownedNames.map((n) => n.toLowerCase()));
    // A member this plan replaces is not left alone: it goes, and its successor is not a member yet.
    const goes = (n: string) => c.parent !== undefined && replaced.has(`${c.parent}\u0000${n.toLowerCase()}`);
    const leftAlone = all.filter((n) => !owned.has(n.toLowerCase()) && !goes(n));
    f.before = [...ownedNames, ...leftAlone].sort();
    const after = names(f.after);
    const inAfter = new Set(after.map((n) => n.toLowerCase()));
    f.after = [...after, ...leftAlone.filter((n) => !inAfter.has(n.toLowerCase()))].sort();
  }
}
