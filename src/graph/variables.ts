/**
 * Variables and secrets at project, environment and service scope. Aliases and overrides refer to
 * a key declared at a higher scope (an alias may also point to its own scope, or to a built-in
 * `QOVERY_*` variable, or by name to a built-in of a service of its environment: `alias: {service,
 * builtin}`); they are linked after the whole manifest is walked, so that declaration order in the
 * files does not matter.
 */
import { error } from '../diag/diagnostic.js';
import type { BuiltInAliasSpec, VariableSpec } from '../manifest/types.js';
import { sourceOf } from '../manifest/types.js';
import type { Address, DesiredResource, ServiceKind } from '../model/resource.js';
import { addressOf, isServiceKind } from '../model/resource.js';
import { builtInOfKind, builtInsOfKind } from '../model/builtins.js';
import { kindDescriptor, variableScopeOf } from '../model/kinds/index.js';
import { checkDescription, secret, type GraphBuilder, type PendingVariable } from './builder.js';
import { withArticle } from '../render/words.js';

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Built-in variables are provided by the platform; aliases and overrides may target them. */
const BUILT_IN_PREFIX = 'QOVERY_';

export function addVariables(b: GraphBuilder, specs: VariableSpec[] | undefined, scope: DesiredResource): void {
  // A `variables:` list, even empty, makes the scope own its variables (one made by hand is drift).
  if (specs !== undefined && !(scope.owns ?? []).includes('variable')) scope.owns = [...(scope.owns ?? []), 'variable'];
  for (const v of specs ?? []) {
    const address = addressOf('variable', v.key, scope.address);
    // Its attrs: the kind's descriptor (src/model/kinds/variable.ts).
    const { attrs, sensitiveFields } = kindDescriptor('variable').attrsFromManifest!(v, {});
    // Most variables have no description: no closure made for them.
    if (v.description !== undefined) checkDescription(b, v.description, sensitiveFields ?? [], address, () => sourceOf(v, 'description'));
    const res = b.add({
      address,
      kind: 'variable',
      name: v.key,
      parent: scope.address,
      attrs,
      sensitiveFields,
    }, v, v);
    const type = attrs.variable_type;
    if (res && (type === 'ALIAS' || type === 'OVERRIDE')) b.pendingVariables.push({ spec: v, resource: res, scope });
  }
}

/** Links every alias and override to the variable it refers to (attrs and dependsOn). */
export function resolveVariables(b: GraphBuilder): void {
  let services: ServicesByEnvironment | undefined;
  for (const p of b.pendingVariables) {
    const alias = p.spec.alias;
    if (alias !== undefined && typeof alias === 'object') {
      resolveBuiltInAlias(b, p, alias, (services ??= servicesByEnvironment(b)));
      continue;
    }
    const isAlias = alias !== undefined;
    const targetKey = isAlias ? alias : p.spec.key;
    const chain = scopeChain(b, p.scope);
    // An override always points above its own scope; an alias may point to a sibling key.
    const candidates = isAlias ? chain : chain.slice(1);
    let found: { scope: DesiredResource; variable: DesiredResource } | undefined;
    let aliasOfAlias: DesiredResource | undefined;
    for (const s of candidates) {
      const v = b.resources.get(addressOf('variable', targetKey, s.address));
      if (!v || v === p.resource) continue;
      // An alias or an override points to the declaration itself, never to an override of it (the
      // API refuses an override of an override); the API has no alias of an alias.
      if (v.attrs.variable_type === 'OVERRIDE') continue;
      if (isAlias && v.attrs.variable_type === 'ALIAS') {
        aliasOfAlias ??= v;
        continue;
      }
      found = { scope: s, variable: v };
      break;
    }
    const attrs = p.resource.attrs;
    let targetScope: string | undefined;
    if (found) {
      targetScope = variableScopeOf(found.scope.kind);
      p.resource.dependsOn.push(found.variable.address);
      const targetIsSecret = found.variable.attrs.is_secret === true;
      if (!isAlias && p.spec.secret === undefined && targetIsSecret) {
        attrs.is_secret = true;
        if (typeof attrs.value === 'string') attrs.value = secret(attrs.value);
        p.resource.sensitiveFields = ['value'];
      }
      // The API makes an alias of a secret a secret (it is created under `/secret/{id}/alias`):
      // its secrecy is its target's, whether or not the manifest repeats it with `secret: true`.
      if (isAlias && p.spec.secret === undefined) attrs.is_secret = targetIsSecret;
      if (isAlias && p.spec.secret !== undefined && p.spec.secret !== targetIsSecret) {
        b.diagnostics.push(
          error('ref.alias-secret', `variable ${p.spec.key}: \`secret: ${String(p.spec.secret)}\` on an alias of ${targetIsSecret ? 'a secret' : 'a plain variable'}`, {
            detail: `An alias is a secret exactly when the variable it points to is (${found.variable.address}): remove \`secret\` from ${p.spec.key}.`,
            address: p.resource.address,
            range: sourceOf(p.spec, 'secret'),
          }),
        );
        continue;
      }
    } else if (aliasOfAlias) {
      b.diagnostics.push(
        error('ref.alias-of-alias', `variable ${p.spec.key}: "${targetKey}" is itself an alias`, {
          detail: `The API has no alias of an alias: point ${p.spec.key} at the variable ${aliasOfAlias.address} refers to (${String(aliasOfAlias.attrs.aliased_key ?? '?')}).`,
          address: p.resource.address,
          range: sourceOf(p.spec, 'alias'),
        }),
      );
      continue;
    } else if (targetKey.startsWith(BUILT_IN_PREFIX)) {
      targetScope = 'BUILT_IN';
      // Whether a built-in is a secret (a database's password is) is only known live: an alias of
      // one leaves its secrecy uncompared unless the manifest says it.
      if (isAlias && p.spec.secret === undefined) delete attrs.is_secret;
    } else {
      b.diagnostics.push(
        error(
          'ref.unresolved',
          isAlias
            ? `variable ${p.spec.key}: alias of "${targetKey}", which no enclosing scope declares`
            : `variable ${p.spec.key}: override of a key that no higher scope declares`,
          {
            detail: `${isAlias ? 'An alias' : 'An override'} must refer to a variable declared ${isAlias ? 'at the same or a higher' : 'at a higher'} scope (${candidates.map((c) => c.address).join(', ') || 'none'}), or to a built-in ${BUILT_IN_PREFIX}* variable.`,
            address: p.resource.address,
            range: sourceOf(p.spec, isAlias ? 'alias' : 'override'),
          },
        ),
      );
      continue;
    }
    if (isAlias) {
      attrs.aliased_key = targetKey;
      attrs.aliased_scope = targetScope;
    } else {
      attrs.overridden_scope = targetScope;
    }
  }
  b.pendingVariables.length = 0;
}

/** Environment address -> lower-cased service name -> the service. */
type ServicesByEnvironment = Map<Address, Map<string, DesiredResource>>;

function servicesByEnvironment(b: GraphBuilder): ServicesByEnvironment {
  const out: ServicesByEnvironment = new Map();
  for (const r of b.resources.values()) {
    if (!isServiceKind(r.kind) || r.parent === undefined) continue;
    let m = out.get(r.parent);
    if (!m) out.set(r.parent, (m = new Map()));
    m.set(r.name.toLowerCase(), r);
  }
  return out;
}

/**
 * `alias: {service, builtin}`: an alias of a built-in of a service of the alias's environment.
 * Its key (`QOVERY_<KIND>_Z<HASH>_<SUFFIX>`) is known only once the service exists, so the graph
 * keeps the names (`aliased_service`, `aliased_builtin`), which live aliases are normalised to
 * (src/live/normalize.ts), and the alias depends on the service: apply creates it after.
 * (src/manifest/references.ts reports an unknown service or built-in at its place; these errors
 * are for a manifest that did not go through it.)
 */
function resolveBuiltInAlias(b: GraphBuilder, p: PendingVariable, alias: BuiltInAliasSpec, services: ServicesByEnvironment): void {
  // Only a service's variables: the API makes an alias at a lower scope than the built-in (the environment's).
  const env = isServiceKind(p.scope.kind) ? scopeChain(b, p.scope).find((s) => s.kind === 'environment') : undefined;
  const target = env === undefined ? undefined : services.get(env.address)?.get(String(alias.service).toLowerCase());
  const builtIn = target === undefined ? undefined : builtInOfKind(target.kind as ServiceKind, alias.builtin);
  if (!target || !builtIn) {
    b.diagnostics.push(
      error(env ? 'ref.unresolved' : 'ref.builtin-alias-scope', !env
        ? `variable ${p.spec.key}: an alias of a service's built-in is declared in a service's variables`
        : `variable ${p.spec.key}: alias of ${target ? `built-in ${alias.builtin}, which ${target.kind} ${target.name} does not have` : `a built-in of service ${alias.service}, which ${env.address} does not declare`}`, {
        detail: target ? `${capitalized(withArticle(target.kind))} has ${builtInsOfKind(target.kind as ServiceKind).map((x) => x.suffix).join(', ')}.` : undefined,
        address: p.resource.address,
        range: sourceOf(p.spec, 'alias'),
      }),
    );
    return;
  }
  const attrs = p.resource.attrs;
  if (p.spec.secret !== undefined && p.spec.secret !== builtIn.secret) {
    b.diagnostics.push(
      error('ref.alias-secret', `variable ${p.spec.key}: \`secret: ${String(p.spec.secret)}\` on an alias of ${builtIn.secret ? 'a secret' : 'a plain variable'}`, {
        detail: `An alias is a secret exactly when the variable it points to is (${alias.builtin} of ${target.address} ${builtIn.secret ? 'is' : 'is not'}): remove \`secret\` from ${p.spec.key}.`,
        address: p.resource.address,
        range: sourceOf(p.spec, 'secret'),
      }),
    );
    return;
  }
  attrs.is_secret = builtIn.secret;
  attrs.aliased_scope = 'BUILT_IN';
  attrs.aliased_service = target.name;
  attrs.aliased_builtin = builtIn.suffix;
  p.resource.dependsOn.push(target.address);
}

/** The scope itself, then its enclosing scopes that hold variables (service -> environment -> project). */
function scopeChain(b: GraphBuilder, scope: DesiredResource): DesiredResource[] {
  const chain: DesiredResource[] = [];
  let cur: DesiredResource | undefined = scope;
  while (cur) {
    if (variableScopeOf(cur.kind)) chain.push(cur);
    cur = cur.parent ? b.resources.get(cur.parent) : undefined;
  }
  return chain;
}

