/**
 * Aliases of services' built-in variables and the services they point at (pure helpers of
 * computePlan). The platform deletes the aliases of a service's built-ins with the service, so:
 * - an alias written `{service, builtin}` follows its service: replaced with it (its key changes
 *   with the service's id), after it in apply;
 * - a declared alias that points at a live service this plan deletes, or replaces while the alias
 *   names its hashed key, would be lost and could not be created again: a plan error naming both.
 */
import { error, type Diagnostic } from '../diag/diagnostic.js';
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState } from '../model/resource.js';
import { isServiceKind, matchKey, parseAddress } from '../model/resource.js';
import { builtInHash, parseBuiltInKey } from '../model/builtins.js';
import type { ResourceChange } from './types.js';

/** The service an `alias: {service, builtin}` points at (the graph made it a dependency). */
export function aliasedService(d: DesiredResource): Address | undefined {
  if (d.kind !== 'variable' || typeof d.attrs.aliased_service !== 'string') return undefined;
  return d.dependsOn.find((a) => isServiceKind(parseAddress(a).pop()!.kind));
}

/** The desired address of the environment of a variable (undefined at project scope). */
function environmentOf(address: Address): Address | undefined {
  const segs = address.split('/');
  return segs.length > 2 && segs[1]!.startsWith('environment.') ? segs.slice(0, 2).join('/') : undefined;
}

/**
 * Declared aliases of a hashed built-in key (`alias: QOVERY_POSTGRESQL_Z5E9B62FB_...`) that apply
 * would lose or could not make, one error each at the alias: the live service with that hash is
 * deleted by `changes` (or replaced: the new one gets another key), or, for an alias to create, no
 * service of its environment has that hash (it is gone; the API would answer "no such variable").
 */
export function aliasesOfDeletedServices(graph: DesiredGraph, live: LiveState, liveOf: ReadonlyMap<Address, Address>, changes: readonly ResourceChange[]): Diagnostic[] {
  const going = new Map<string, ResourceChange>();
  for (const c of changes) if (c.actions[0] === 'delete' && c.id !== undefined && isServiceKind(c.replaces?.kind ?? c.kind)) going.set(c.id, c);
  const creating = new Set<Address>();
  for (const c of changes) if (c.kind === 'variable' && c.actions[c.actions.length - 1] === 'create' && c.status !== 'unmanaged') creating.add(c.address);
  let servicesByEnv: Map<string, LiveResource[]> | undefined;
  const out: Diagnostic[] = [];
  for (const d of graph.resources.values()) {
    // `{service, builtin}` names a declared service (validate refuses another): replaced with it (computePlan).
    if (d.kind !== 'variable' || d.attrs.variable_type !== 'ALIAS' || d.attrs.aliased_scope !== 'BUILT_IN' || typeof d.attrs.aliased_service === 'string') continue;
    const key = typeof d.attrs.aliased_key === 'string' ? parseBuiltInKey(d.attrs.aliased_key) : undefined;
    const env = environmentOf(d.address);
    if (!key || env === undefined || (going.size === 0 && !creating.has(d.address))) continue;
    servicesByEnv ??= liveServicesByEnvironment(live);
    const target = servicesByEnv.get(matchKey(liveOf.get(env) ?? env))?.find((s) => builtInHash(s.id) === key.hash);
    const aliasedKey = String(d.attrs.aliased_key);
    if (!target) {
      if (!creating.has(d.address)) continue;
      out.push(
        error('plan.alias-of-deleted-service', `${d.address} aliases ${aliasedKey}, a built-in of a service ${env} does not have (none has the hash ${key.hash})`, {
          detail: `The service it belonged to is gone (deleted, or created again with another id): the API has no such variable to alias. Point the alias at the service by name, \`alias: {service: NAME, builtin: ${key.suffix}}\`, which follows it in every environment.`,
          address: d.address,
          range: d.source,
        }),
      );
      continue;
    }
    const c = going.get(target.id);
    if (!c) continue;
    const replaced = c.actions[1] === 'create';
    out.push(
      error('plan.alias-of-deleted-service', `${d.address} aliases ${aliasedKey}, a built-in of ${target.address}, which this plan ${replaced ? 'replaces' : 'deletes'}`, {
        detail: replaced
          ? `The platform deletes the aliases of a service's built-ins with it, and the new ${target.kind} gets another key. Write the alias as \`alias: {service: ${target.name}, builtin: ${key.suffix}}\`: it is then created again with the new ${target.kind}.`
          : `The platform deletes the aliases of a service's built-ins with it: ${d.address} would be lost, and could not be created again. Keep ${target.address} (declare it, or stop pruning it), or remove the alias from the manifest.`,
        address: d.address,
        range: d.source,
      }),
    );
  }
  return out;
}

function liveServicesByEnvironment(live: LiveState): Map<string, LiveResource[]> {
  const out = new Map<string, LiveResource[]>();
  for (const l of live.resources.values()) {
    if (!isServiceKind(l.kind) || l.parent === undefined) continue;
    const k = matchKey(l.parent);
    const list = out.get(k);
    if (list) list.push(l);
    else out.set(k, [l]);
  }
  return out;
}
