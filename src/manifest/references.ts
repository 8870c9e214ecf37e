/**
 * Reference checks: every name that refers to something resolves, else an error at the place where
 * the name is written. Pure over the Manifest; what lives outside it (clusters, container
 * registries) is checked only against lists the caller supplies (from the API, or a fixture), so
 * `validate` works offline and `plan` can check more.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { error } from './codes.js';
import { addressOf, unescapeName } from '../model/resource.js';
import { fieldSourceOf } from './source-map.js';
import { knownList, nearest, nearestTypo, uniqueNames } from './suggest.js';
import type { BuiltInAliasSpec, EnvironmentSpec, Manifest, ProjectSpec, ServiceSpec, VariableSpec } from './types.js';
import { builtInsOfKind } from '../model/builtins.js';
import { sourceOf } from './types.js';
import { serviceMappings, type CloneSource } from '../model/kinds/index.js';

export interface ReferenceContext {
  /** Cluster names of the organization. Omitted: cluster names are not checked. */
  clusters?: readonly string[];
  /** Container registry names of the organization. Omitted: not checked. */
  registries?: readonly string[];
  /** Helm repository names of the organization. Omitted: not checked. */
  helmRepositories?: readonly string[];
  /** The maxima of each cluster, by cluster name. Omitted (or a cluster left out): not checked. */
  clusterLimits?: Readonly<Record<string, ClusterLimits>>;
}

/** What a cluster allows a service (seed: `maximum_cpu` millicores, `maximum_memory` MB). */
export interface ClusterLimits {
  maximum_cpu?: number;
  maximum_memory?: number;
}

/** Built-in variables (QOVERY_*) exist on the platform only; aliases of them cannot be checked here. */
const isBuiltIn = (key: string) => key.startsWith('QOVERY_');

const lower = (s: string) => s.toLowerCase();
const findByName = <T extends { name: string }>(items: readonly T[] | undefined, name: string): T | undefined =>
  items?.find((i) => typeof i.name === 'string' && lower(i.name) === lower(name));

/** The last name of a driftless address (`project.shop/environment.staging` -> `staging`). */
function lastName(address: unknown): string | undefined {
  if (typeof address !== 'string') return undefined;
  const last = address.slice(address.lastIndexOf('/') + 1);
  const dot = last.indexOf('.');
  return dot > 0 ? unescapeName(last.slice(dot + 1)) : undefined;
}

/**
 * Reports a name that resolves to nothing, with the nearest known name and the known ones
 * (deduplicated). A name a `moved` entry renames, to a name that is known here, is a reference
 * left at the old name: it says so, rather than suggesting whatever name looks closest.
 */
function reporter(out: Diagnostic[], moved: Manifest['moved'] = []): Unresolved {
  return (what, name, candidates, range, address, where, ifRemoved) => {
    const renamedTo = (moved ?? [])
      .filter((e) => lower(lastName(e.from) ?? '') === lower(name))
      .map((e) => ({ to: lastName(e.to), at: sourceOf(e) }))
      .find((r) => r.to !== undefined && candidates.some((c) => lower(c) === lower(r.to!)));
    // A built-in's name is of a fixed vocabulary, never a removed object: the nearest one helps
    // (`DATABASE_URL` -> `DATABASE_URL_INTERNAL`). Any other name gets only a misspelling's.
    const guess = (what === 'built-in' ? nearest : nearestTypo)(name, uniqueNames(candidates));
    const allowed = candidates.length ? `Known: ${knownList(candidates)}.` : `None is declared${where ? ` ${where}` : ''}.`;
    const hint = renamedTo
      ? `\`${name}\` is renamed to \`${renamedTo.to}\` by the \`moved\` entry${renamedTo.at ? ` at ${renamedTo.at.file}:${renamedTo.at.start.line}:${renamedTo.at.start.col}` : ''}: refer to it by its new name. `
      : guess
        ? `Did you mean \`${guess}\`? `
        : ifRemoved
          ? `${ifRemoved} `
          : '';
    out.push(
      error('ref.unresolved', `${what} \`${name}\` does not exist${where ? ` ${where}` : ''}`, {
        detail: `${hint}${allowed}`,
        range,
        address,
      }),
    );
  };
}

export function checkReferences(m: Manifest, ctx: ReferenceContext = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  const unresolved = reporter(out, m.moved);
  /** The lower-cased candidates of each list, built once per list (not once per service or stage that names some). */
  const knownSets = new Map<readonly string[], Set<string>>();
  const checkList = (holder: object, field: string, names: readonly string[] | undefined, candidates: readonly string[], what: string, address: () => string, where?: string, ifRemoved?: (name: string) => string) => {
    if (!names || names.length === 0) return;
    let known = knownSets.get(candidates);
    if (!known) knownSets.set(candidates, (known = new Set(candidates.map(lower))));
    names.forEach((n, i) => {
      if (typeof n !== 'string') return;
      if (!known.has(lower(n))) unresolved(what, n, candidates, fieldSourceOf(names, String(i)) ?? fieldSourceOf(holder, field), address(), where, ifRemoved?.(n));
    });
  };

  const annotationGroups = (m.annotation_groups ?? []).map((g) => g.name);
  const labelGroups = (m.label_groups ?? []).map((g) => g.name);
  const receivers = (m.alert_receivers ?? []).map((r) => r.name);

  for (const rule of m.alert_rules ?? []) {
    const address = addressOf('alert_rule', rule.name);
    checkList(rule, 'receivers', rule.receivers, receivers, 'alert receiver', () => address, 'under `alert_receivers`');
    const t = rule.target as { cluster?: string; project?: string; environment?: string; service?: string };
    if (typeof t.cluster !== 'string' && typeof t.project === 'string' && typeof t.environment === 'string' && typeof t.service === 'string') {
      const p = findByName(m.projects, t.project);
      if (!p) unresolved('project', t.project, (m.projects ?? []).map((x) => x.name), fieldSourceOf(t, 'project'), address, 'in the manifest');
      else {
        const e = findByName(p.environments, t.environment);
        if (!e) unresolved('environment', t.environment, (p.environments ?? []).map((x) => x.name), fieldSourceOf(t, 'environment'), address, `in project \`${p.name}\``);
        else if (!findByName(e.services, t.service))
          unresolved('service', t.service, (e.services ?? []).map((x) => x.name), fieldSourceOf(t, 'service'), address, `in environment \`${e.name}\``,
            `If \`${t.service}\` was removed from the manifest, alert rule \`${rule.name}\` watches a service that is gone: remove the rule with it (or give it another target, if another service is what it should watch).`);
      }
    }
  }

  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    checkVariableRefs(p.variables, [], () => pa, 'project', unresolved, out);
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      checkVariableRefs(e.variables, [{ scope: 'project', vars: p.variables }], () => ea, 'environment', unresolved, out, { environment: e, address: ea });
      const serviceNames = (e.services ?? []).map((s) => s.name);
      for (const st of e.deployment_stages ?? []) {
        checkList(st, 'services', st.services, serviceNames, 'service', () => addressOf('deployment_stage', st.name, ea), `in environment \`${e.name}\``, (n) => `If \`${n}\` was removed from the manifest, remove it from stage \`${st.name}\` too.`);
      }
      // The scopes above a service's variables: the same for every service of the environment.
      const aboveServices = [{ scope: 'environment', vars: e.variables }, { scope: 'project', vars: p.variables }];
      const envOfServices = { environment: e, address: ea };
      for (const s of e.services ?? []) {
        // Built when a problem is reported: most services have none.
        let sa: string | undefined;
        const serviceAddress = () => (sa ??= addressOf(s.type, s.name, ea));
        checkList(s, 'annotation_groups', s.annotation_groups, annotationGroups, 'annotation group', serviceAddress, 'under `annotation_groups`');
        checkList(s, 'label_groups', s.label_groups, labelGroups, 'label group', serviceAddress, 'under `label_groups`');
        if ('variables' in s) {
          checkVariableRefs(s.variables, aboveServices, serviceAddress, 'service', unresolved, out, envOfServices);
        }
        const clone = serviceMappings(s.type).cloneSource?.(s);
        if (clone) checkCloneSource(m, p, e, s, clone, serviceAddress(), unresolved, out);
      }
    }
  }
  out.push(...checkOrganizationReferences(m, ctx));
  return out;
}

/**
 * The checks of the manifest against what lives in the organization outside it (clusters,
 * container registries, helm repositories: objects driftless cannot create): every name resolves,
 * and cpu and memory fit the maximum of the environment's cluster. ONE implementation for
 * `validate --remote` (names from fetchReferenceNames) and `plan`/`apply` (the same names from the
 * live read, referenceContextOfLive), so the two always agree. A list the context omits is not
 * checked.
 */
export function checkOrganizationReferences(m: Manifest, ctx: ReferenceContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const unresolved = reporter(out);
  const clusterCheck = (holder: object, field: string, name: string, address?: string) => {
    if (!ctx.clusters || typeof name !== 'string') return;
    if (!ctx.clusters.some((c) => lower(c) === lower(name))) unresolved('cluster', name, ctx.clusters, fieldSourceOf(holder, field), address, 'in the organization');
  };
  for (const c of m.clusters ?? []) clusterCheck(c, 'name', c.name, addressOf('cluster', c.name));
  for (const rule of m.alert_rules ?? []) {
    const t = rule.target as { cluster?: string };
    if (typeof t.cluster === 'string') clusterCheck(t, 'cluster', t.cluster, addressOf('alert_rule', rule.name));
  }
  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      clusterCheck(e, 'cluster', e.cluster, ea);
      const limits = clusterLimitsOf(ctx, e.cluster);
      // Without lists of names or cluster limits (an offline validate) there is nothing to check a service against.
      if (!ctx.registries && !ctx.helmRepositories && !limits) continue;
      for (const s of e.services ?? []) {
        const sa = addressOf(s.type, s.name, ea);
        checkNamedObjects(s, ctx, sa, unresolved);
        if (limits) out.push(...checkClusterLimits(s, sa, e.cluster, limits));
      }
    }
  }
  return out;
}

/** The maxima of the cluster an environment names (case-insensitive, as names resolve), if known. */
function clusterLimitsOf(ctx: ReferenceContext, cluster: unknown): ClusterLimits | undefined {
  if (!ctx.clusterLimits || typeof cluster !== 'string') return undefined;
  const exact = ctx.clusterLimits[cluster];
  if (exact) return exact;
  const key = Object.keys(ctx.clusterLimits).find((k) => lower(k) === lower(cluster));
  return key === undefined ? undefined : ctx.clusterLimits[key];
}

/**
 * cpu (millicores) and memory (MB) of a service against the maximum_cpu / maximum_memory of its
 * cluster, as the API checks them on create and update (a managed database is sized by its
 * instance type: its cpu and memory are not sent).
 */
function checkClusterLimits(s: ServiceSpec, address: string, cluster: string, limits: ClusterLimits): Diagnostic[] {
  const fields: Array<{ holder: object; field: string; label: string; value: unknown; max: number | undefined; unit: string; maxName: string }> = [];
  const add = (holder: object | undefined, field: string, label: string, value: unknown, kind: 'cpu' | 'memory') => {
    if (holder) fields.push({ holder, field, label, value, max: kind === 'cpu' ? limits.maximum_cpu : limits.maximum_memory, unit: kind === 'cpu' ? 'millicores' : 'MB', maxName: kind === 'cpu' ? 'maximum_cpu' : 'maximum_memory' });
  };
  for (const l of serviceMappings(s.type).limited?.(s as never) ?? []) add(l.holder, l.field, l.label, l.value, l.resource);
  const out: Diagnostic[] = [];
  for (const f of fields) {
    if (typeof f.value !== 'number' || f.max === undefined || f.value <= f.max) continue;
    out.push(
      error('limit.cluster-maximum', `${s.type} \`${s.name}\`: ${f.label} ${f.value} ${f.unit} is above the ${f.maxName} ${f.max} of cluster \`${cluster}\``, {
        detail: `The API refuses a ${f.label} above ${f.max} ${f.unit} on this cluster. Lower it to ${f.max} or less, or run the environment on a larger cluster.`,
        range: fieldSourceOf(f.holder, f.field),
        address,
      }),
    );
  }
  return out;
}

/**
 * `alias: {service, builtin}`: the service is declared in the alias's environment, and has that
 * built-in. A service removed from the manifest while an alias still names it is said here (the
 * plan would delete it, and the platform the alias with it).
 */
function checkBuiltInAlias(
  v: VariableSpec,
  alias: BuiltInAliasSpec,
  address: string,
  env: { environment: EnvironmentSpec; address: string } | undefined,
  unresolved: Unresolved,
  out: Diagnostic[],
): void {
  if (!env) {
    out.push(
      error('ref.builtin-alias-scope', `variable \`${v.key}\`: an alias of a service's built-in is declared in a service's \`variables\`, not in a project's or an environment's`, {
        detail: "Built-ins are variables of the environment, and the API creates an alias only at a lower scope than the variable it points to: declare the alias in the variables of the service that reads it (in an environment or a template).",
        range: fieldSourceOf(v, 'alias'),
        address,
      }),
    );
    return;
  }
  const e = env.environment;
  if (typeof alias.service !== 'string' || typeof alias.builtin !== 'string') {
    // An override of a template's alias may say only one of the two; the merged alias must say both.
    const missing = typeof alias.service !== 'string' ? 'service' : 'builtin';
    out.push(
      error('schema.missing-key', `variable \`${v.key}\`: the alias names no ${missing === 'service' ? 'service' : 'built-in'} (\`${missing}\`)`, {
        detail: 'An alias of a built-in says both: `alias: {service: pg, builtin: DATABASE_URL_INTERNAL}`.',
        range: fieldSourceOf(v, 'alias'),
        address,
      }),
    );
    return;
  }
  const services = e.services ?? [];
  const target = findByName(services, alias.service);
  if (!target) {
    unresolved('service', alias.service, services.map((x) => x.name), fieldSourceOf(alias, 'service') ?? fieldSourceOf(v, 'alias'), address, `in environment \`${e.name}\``,
      `If \`${alias.service}\` was removed from the manifest, deleting it would delete ${address} with it (the alias of its ${alias.builtin}): remove the alias too, or keep the service.`);
    return;
  }
  const names = builtInsOfKind(target.type).map((b) => b.suffix);
  if (!names.includes(alias.builtin)) {
    unresolved(`built-in`, alias.builtin, names, fieldSourceOf(alias, 'builtin') ?? fieldSourceOf(v, 'alias'), address, `for ${target.type} \`${target.name}\``);
  }
}

/** `ifRemoved`: what to do when the name is that of an object removed from the manifest (said when no typo fits). */
type Unresolved = (what: string, name: string, candidates: readonly string[], range: SourceRange | undefined, address?: string, where?: string, ifRemoved?: string) => void;

/** Whether checkVariableRefs has anything to look at in `v`: an alias, or an override of a higher scope's variable. */
function refersToAnother(v: VariableSpec, higherScopes: number): boolean {
  if (v.alias !== null && typeof v.alias === 'object') return true;
  if (typeof v.alias === 'string' && !isBuiltIn(v.alias)) return true;
  return v.override === true && typeof v.key === 'string' && !isBuiltIn(v.key) && higherScopes > 0;
}

function checkVariableRefs(
  vars: VariableSpec[] | undefined,
  higher: ReadonlyArray<{ scope: string; vars: VariableSpec[] | undefined }>,
  /** The address of the scope (built when a problem is reported). */
  parentAddress: () => string,
  scope: string,
  unresolved: Unresolved,
  out: Diagnostic[],
  /** The environment of an environment's or a service's variables (absent for a project's). */
  env?: { environment: EnvironmentSpec; address: string },
): void {
  // Plain values (nearly every variable) refer to nothing: the scopes' key lists are not built for them.
  if (!vars || !vars.some((v) => refersToAnother(v, higher.length))) return;
  const parent = parentAddress();
  const keysOf = (vs: VariableSpec[] | undefined) => (vs ?? []).map((v) => v.key).filter((k): k is string => typeof k === 'string');
  const higherKeys = higher.flatMap((h) => keysOf(h.vars));
  const higherScopes = higher.map((h) => h.scope).join(' or ');
  const allScopes = [scope, ...higher.map((h) => h.scope)];
  const scopeList = allScopes.length > 1 ? `${allScopes.slice(0, -1).join(', ')} or ${allScopes[allScopes.length - 1]}` : scope;
  const higherVars = higher.flatMap((h) => h.vars ?? []);
  // Declarations by key, this scope's first (overrides are not declarations): lookups stay
  // constant-time, so that thousands of aliases are checked in linear time.
  const declarations = new Map<string, VariableSpec[]>();
  for (const x of [...(vars ?? []), ...higherVars]) {
    if (typeof x.key !== 'string' || x.override === true) continue;
    const list = declarations.get(x.key);
    if (list) list.push(x);
    else declarations.set(x.key, [x]);
  }
  const scopeKeys = new Set(keysOf(vars));
  const higherKeySet = new Set(higherKeys);
  /** The nearest declaration of `key` seen from `from`. */
  const declarationOf = (key: string, from: VariableSpec) => declarations.get(key)?.find((x) => x !== from);
  /** Cycles already reported, by their members: one error per cycle, not one per member. */
  const reportedCycles = new Set<string>();
  for (const v of vars ?? []) {
    const address = addressOf('variable', v.key, parent);
    if (v.alias !== null && typeof v.alias === 'object') checkBuiltInAlias(v, v.alias, address, scope === 'service' ? env : undefined, unresolved, out);
    if (typeof v.alias === 'string' && !isBuiltIn(v.alias)) {
      // An alias points at a variable of this scope (another key) or of a higher one.
      const candidates = () => [...keysOf(vars).filter((k) => k !== v.key), ...higherKeys];
      if (v.alias === v.key && !higherKeySet.has(v.key)) {
        const known = candidates();
        out.push(
          error('ref.self', `variable \`${v.key}\` is an alias of itself`, {
            detail: `An alias names another variable, of this scope or a higher one.${known.length ? ` Known: ${knownList(known)}.` : ''}`,
            range: fieldSourceOf(v, 'alias'),
            address,
          }),
        );
      } else if (!((v.alias !== v.key && scopeKeys.has(v.alias)) || higherKeySet.has(v.alias))) {
        unresolved('aliased variable', v.alias, candidates(), fieldSourceOf(v, 'alias'), address, `at ${scopeList} scope`);
      } else {
        const target = declarationOf(v.alias, v);
        if (target?.alias !== undefined) {
          // Follow the chain: it ends at a variable that is not an alias, or comes back (a cycle).
          const chain = [v.key, v.alias];
          const members = new Set<VariableSpec>([v]);
          let at: VariableSpec | undefined = target;
          let cycle = false;
          while (at && typeof at.alias === 'string' && !isBuiltIn(at.alias)) {
            if (members.has(at)) {
              cycle = true;
              break;
            }
            members.add(at);
            chain.push(at.alias);
            at = declarationOf(at.alias, at);
          }
          const repeated = chain[chain.length - 1]!;
          const loop = chain.slice(chain.indexOf(repeated));
          if (cycle && repeated === v.key) {
            const names = uniqueNames(loop);
            const id = [...names].sort().join('\0');
            if (!reportedCycles.has(id)) {
              reportedCycles.add(id);
              out.push(
                error('ref.alias-cycle', `variables ${names.map((n) => `\`${n}\``).join(' and ').replace(/ and (?=.* and )/g, ', ')} alias each other in a cycle: ${loop.join(' -> ')}`, {
                  detail: 'An alias must lead to a variable that holds a value. Give one of them a value, or point it at another variable.',
                  range: fieldSourceOf(v, 'alias'),
                  address,
                }),
              );
            }
          } else if (cycle) {
            out.push(
              error('ref.alias-of-alias', `\`${v.alias}\` is itself an alias: variable \`${v.key}\` cannot alias it`, {
                detail: `\`${v.alias}\` leads into an alias cycle (${loop.join(' -> ')}), and the API has no alias of an alias: point \`${v.key}\` at a variable that holds a value.`,
                range: fieldSourceOf(v, 'alias'),
                address,
              }),
            );
          } else {
            const end = chain[chain.length - 1]!;
            out.push(
              error('ref.alias-of-alias', `\`${v.alias}\` is itself an alias: variable \`${v.key}\` cannot alias it`, {
                detail: `The API has no alias of an alias (${chain.join(' -> ')}); point \`${v.key}\` at \`${end}\` instead.`,
                range: fieldSourceOf(v, 'alias'),
                address,
              }),
            );
          }
        }
      }
    }
    if (v.override === true && typeof v.key === 'string' && !isBuiltIn(v.key) && higher.length > 0) {
      if (!higherKeySet.has(v.key)) {
        unresolved('overridden variable', v.key, higherKeys, fieldSourceOf(v, 'key'), address, `at ${higherScopes} scope`);
      } else if (typeof v.mount_path === 'string') {
        // The API's override takes no mount_path: a file stays where the overridden variable mounts it.
        const declaration = higher.flatMap((h) => h.vars ?? []).find((x) => x.key === v.key && x.override !== true);
        const mount = declaration?.mount_path;
        if (declaration && mount !== v.mount_path) {
          out.push(
            error('ref.override-mount-path', `variable \`${v.key}\` overrides ${typeof mount === 'string' ? `a file mounted at \`${mount}\`` : 'a variable that is not a file'}: an override cannot set another mount_path`, {
              detail: typeof mount === 'string' ? `Remove mount_path, or write \`mount_path: ${mount}\`; to mount the file elsewhere, declare a new variable.` : 'Remove mount_path: an override keeps the type of the variable it overrides; to add a file, declare a new variable.',
              range: fieldSourceOf(v, 'mount_path'),
              address,
            }),
          );
        }
      }
    }
  }
}

/** The organization objects a service names (its descriptor's `named`), checked against the live lists. */
function checkNamedObjects(s: ServiceSpec, ctx: ReferenceContext, address: string, unresolved: Unresolved): void {
  for (const n of serviceMappings(s.type).named?.(s as never) ?? []) {
    if (typeof n.name !== 'string') continue;
    const name = n.name;
    if (n.kind === 'container_registry') {
      if (ctx.registries && !ctx.registries.some((r) => lower(r) === lower(name))) unresolved('container registry', name, ctx.registries, fieldSourceOf(n.holder, n.field), address, 'in the organization');
    } else if (ctx.helmRepositories && !ctx.helmRepositories.includes(name)) {
      // Exact names, as apply resolves them.
      unresolved('helm repository', name, ctx.helmRepositories, fieldSourceOf(n.holder, n.field), address, 'in the organization');
    }
  }
}

/** The source of a service created as a copy of another (of its kind) exists, and is not itself. */
function checkCloneSource(m: Manifest, p: ProjectSpec, e: EnvironmentSpec, s: ServiceSpec, clone: CloneSource, address: string, unresolved: Unresolved, out: Diagnostic[]): void {
  const from = clone.holder;
  const project = clone.project === undefined ? p : findByName(m.projects, clone.project);
  if (!project) return unresolved('project', clone.project!, (m.projects ?? []).map((x) => x.name), fieldSourceOf(from, 'project'), address, 'in the manifest');
  const env = clone.environment === undefined ? (project === p ? e : undefined) : findByName(project.environments, clone.environment);
  if (!env) {
    if (clone.environment === undefined) return unresolved('environment', e.name, (project.environments ?? []).map((x) => x.name), fieldSourceOf(from, 'project'), address, `in project \`${project.name}\` (give clone_from.environment)`);
    return unresolved('environment', clone.environment, (project.environments ?? []).map((x) => x.name), fieldSourceOf(from, 'environment'), address, `in project \`${project.name}\``);
  }
  const candidates = (env.services ?? []).filter((x) => x.type === s.type);
  const src = findByName(candidates, clone.name);
  if (!src) return unresolved(s.type, clone.name, candidates.map((x) => x.name), fieldSourceOf(clone.holder, clone.field), address, `in environment \`${env.name}\``);
  if (src === s) out.push(error('ref.self', `${s.type} \`${s.name}\` cannot be a clone of itself`, { detail: `clone_from names another ${s.type}.`, range: fieldSourceOf(clone.holder, clone.field), address }));
}
