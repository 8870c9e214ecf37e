/**
 * `--target ADDRESS...` (as Terraform's -target): narrows a desired graph to the targeted subtrees
 * and what they depend on, and the live state to the same part of the organization, so that the
 * read, the plan and the apply touch nothing else. It narrows what is read and planned, never how a
 * plan is computed: computePlan receives an ordinary (smaller) graph and live state.
 *
 * What is kept of the desired graph:
 * - each targeted resource and everything below it (its subtree), with its prune and ownership as
 *   declared: inside a target, pruning works as in a full plan;
 * - the ancestors of those (a service needs its environment and project) and everything they
 *   depend on (`dependsOn`, transitively, with their ancestors), planned as usual but with their
 *   prune and ownership removed, so that no sibling of a target is read, listed or deleted;
 * - nothing at organization level is pruned, and the scope is `declared` (no undeclared
 *   organization-level object is the business of a targeted plan).
 *
 * What is kept of the live state: objects at the kept addresses or under a target, and the
 * organization-level objects others are referred to by name through (clusters, registries, helm
 * repositories, groups, receivers: apply resolves names with them). Everything else read (a
 * project variable that came with a service's unified variable list, a sibling environment in a
 * project's environment list) is dropped before the plan, so it is never listed nor deleted.
 *
 * Pure.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState, ResourceKind } from '../model/resource.js';
import { addressOf, canonicalAddress, matchKey, RESOURCE_KINDS } from '../model/resource.js';
import { kindsNamedByOthers } from '../model/kinds/index.js';
import type { Manifest } from '../manifest/types.js';
import { knownList, nearest } from '../manifest/suggest.js';

/** The part of the organization a targeted run is about. */
export interface TargetScope {
  /** The targets as desired addresses (spelled as the manifest spells them), in the order given. */
  targets: Address[];
  /** matchKey of every kept desired address (targets' subtrees, ancestors, dependencies). */
  kept: ReadonlySet<string>;
  /** matchKey of each target: a live object at or under one of these is in the targets. */
  targetKeys: readonly string[];
}


const KNOWN_KINDS: ReadonlySet<string> = new Set<ResourceKind>(RESOURCE_KINDS);

/**
 * Whether a command-line word is written as an address (its first segment `kind.name`, or
 * `organization`) rather than as a manifest path: `--target A B` is greedy, so a path typed after
 * the targets (`plan --target project.shop infra/`) is handed back to the paths.
 */
export function looksLikeAddress(word: string): boolean {
  const first = word.split('/')[0]!;
  const dot = first.indexOf('.');
  if (dot < 0) return first === 'organization';
  return KNOWN_KINDS.has(first.slice(0, dot));
}

/**
 * Resolves `--target` addresses against the desired graph: each must name a resource of the
 * manifest (names of case-insensitive kinds in any case, as everywhere). An unknown one is an
 * error naming the nearest address of the manifest. Works offline: `validate --target` makes the
 * same check with the same message.
 */
export function resolveTargets(graph: DesiredGraph, words: readonly string[]): { targets: Address[]; diagnostics: Diagnostic[] } {
  const byKey = new Map<string, Address>();
  for (const a of graph.resources.keys()) byKey.set(matchKey(a), a);
  const targets: Address[] = [];
  const diagnostics: Diagnostic[] = [];
  if (words.length === 0) {
    diagnostics.push(error('target.none', '--target was given manifest paths only, no address', { detail: 'Give the addresses of what to plan, as plan prints them, e.g. `--target project.shop/environment.staging`.' }));
  }
  for (const raw of words) {
    // A webhook may be written as plan shows it (its URL's `/` as they are): nothing follows it.
    const word = raw.trim().startsWith('webhook.') ? canonicalAddress(raw.trim()) : raw.trim().replace(/\/+$/, '');
    const hit = word === '' ? undefined : byKey.get(matchKey(word));
    if (hit !== undefined) {
      if (!targets.includes(hit)) targets.push(hit);
      continue;
    }
    diagnostics.push(unknownTarget(graph, word));
  }
  return { targets, diagnostics };
}

function unknownTarget(graph: DesiredGraph, word: string): Diagnostic {
  const all = [...graph.resources.keys()];
  const hint = word === '' ? undefined : nearest(word, all);
  // Where a wrong segment is, the addresses one level under the right part are the useful list.
  const segs = word.split('/');
  let prefix = '';
  for (let i = 0; i < segs.length; i++) {
    const candidate = segs.slice(0, i + 1).join('/');
    if (!all.some((a) => matchKey(a) === matchKey(candidate))) break;
    prefix = candidate;
  }
  const depth = prefix === '' ? 1 : prefix.split('/').length + 1;
  const under = all.filter((a) => a.split('/').length === depth && (prefix === '' || matchKey(a).startsWith(matchKey(prefix) + '/')));
  const shown = word === '' ? '""' : JSON.stringify(word.length > 200 ? `${word.slice(0, 200)}…` : word);
  const kindProblem = word !== '' && !looksLikeAddress(word) ? ' (an address is `kind.name` segments joined by `/`, as plan prints them)' : '';
  return error('target.unknown', `--target ${shown} is not an address of the manifest${kindProblem}`, {
    detail: `${hint ? `Did you mean \`${hint}\`? ` : ''}${prefix ? `Known under ${prefix}` : 'Known at the top'}: ${knownList(under, { max: 12 })}.`,
  });
}

function isUnder(key: string, targetKey: string): boolean {
  return key === targetKey || key.startsWith(targetKey + '/');
}

/** The ancestors of an address, from the top down (`project.a/environment.b` -> [`project.a`]). */
function ancestorsOf(address: Address): Address[] {
  const segs = address.split('/');
  const out: Address[] = [];
  for (let i = 1; i < segs.length; i++) out.push(segs.slice(0, i).join('/'));
  return out;
}

/**
 * The desired graph of a targeted run: the targets' subtrees as declared, and their ancestors and
 * dependencies without prune nor ownership (see the module comment). `targets` come from
 * resolveTargets (addresses of the graph).
 */
export function narrowGraph(graph: DesiredGraph, targets: readonly Address[]): { graph: DesiredGraph; scope: TargetScope } {
  const targetKeys = targets.map(matchKey);
  const inTargets = (a: Address) => targetKeys.some((t) => isUnder(matchKey(a), t));
  const keep = new Set<Address>();
  const queue: Address[] = [];
  const visit = (a: Address) => {
    if (keep.has(a) || !graph.resources.has(a)) return;
    keep.add(a);
    queue.push(a);
  };
  for (const a of graph.resources.keys()) if (inTargets(a)) visit(a);
  while (queue.length > 0) {
    const a = queue.pop()!;
    const r = graph.resources.get(a)!;
    for (const anc of ancestorsOf(a)) visit(anc);
    for (const dep of r.dependsOn) visit(dep);
    if (r.cloneFrom) visit(r.cloneFrom);
  }
  const resources = new Map<Address, DesiredResource>();
  for (const a of graph.order) {
    if (!keep.has(a)) continue;
    const r = graph.resources.get(a)!;
    if (inTargets(a)) resources.set(a, r);
    else {
      // Kept only because a target needs it: planned, but owning none of its undeclared children.
      const { prune: _prune, owns: _owns, ...rest } = r;
      resources.set(a, rest);
    }
  }
  const narrowed: DesiredGraph = { resources, order: graph.order.filter((a) => keep.has(a)), scope: 'declared' };
  return { graph: narrowed, scope: { targets: [...targets], kept: new Set([...keep].map(matchKey)), targetKeys } };
}

/** resolveTargets, then narrowGraph: the graph of a targeted run, or the diagnostics of its addresses. */
export function targetGraph(graph: DesiredGraph, words: readonly string[]): { graph?: DesiredGraph; scope?: TargetScope; diagnostics: Diagnostic[] } {
  const resolved = resolveTargets(graph, words);
  if (resolved.diagnostics.some((d) => d.severity === 'error')) return { diagnostics: resolved.diagnostics };
  return { ...narrowGraph(graph, resolved.targets), diagnostics: resolved.diagnostics };
}

/**
 * The live state of a targeted run: what the narrowed graph keeps or the targets hold, and the
 * organization-level objects referred to by name. Everything else that came with the reads is
 * dropped, so a plan of the targets never lists nor deletes it.
 */
export function narrowLive(live: LiveState, scope: TargetScope): LiveState {
  const resources = new Map<Address, LiveResource>();
  for (const [a, l] of live.resources) {
    const key = matchKey(a);
    // Organization-level objects others name are kept: names resolve through them.
    const keepIt = scope.kept.has(key) || scope.targetKeys.some((t) => isUnder(key, t)) || (l.parent === undefined && kindsNamedByOthers().has(l.kind));
    if (keepIt) resources.set(a, l);
  }
  return { ...live, resources };
}

/** Whether an address (a diagnostic's, a change's) belongs to the part a targeted run is about. */
export function inTargetScope(scope: TargetScope, address: Address): boolean {
  const key = matchKey(address);
  return scope.kept.has(key) || scope.targetKeys.some((t) => isUnder(key, t));
}

/**
 * The manifest the plan-time checks of a targeted run look at: its projects, environments and
 * services cut down to the kept ones, so that no listing (instance types, a terraform repository)
 * is read for a service outside the targets. Objects are copied with their property descriptors:
 * the hidden source ranges stay, so diagnostics still point at file:line:col.
 */
export function narrowManifest(manifest: Manifest, scope: TargetScope): Manifest {
  const kept = (a: Address) => scope.kept.has(matchKey(a));
  const withField = <T extends object>(obj: T, field: string, value: unknown): T => {
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(obj)) as T;
    (copy as Record<string, unknown>)[field] = value;
    return copy;
  };
  const projects = (manifest.projects ?? [])
    .filter((p) => kept(addressOf('project', p.name)))
    .map((p) => {
      const pa = addressOf('project', p.name);
      const envs = (p.environments ?? [])
        .filter((e) => kept(addressOf('environment', e.name, pa)))
        .map((e) => {
          const ea = addressOf('environment', e.name, pa);
          return withField(e, 'services', (e.services ?? []).filter((s) => kept(addressOf(s.type, s.name, ea))));
        });
      return withField(p, 'environments', envs);
    });
  let out = withField(manifest, 'projects', projects);
  for (const [field, kind] of [['clusters', 'cluster'], ['alert_rules', 'alert_rule']] as const) {
    const list = manifest[field] as Array<{ name: string }> | undefined;
    if (list) out = withField(out, field, list.filter((x) => kept(addressOf(kind, x.name))));
  }
  return out;
}


/**
 * The graph a targeted run READS (the plan still sees only the narrowed graph): the narrowed graph
 * plus, for every project-level secret variable it keeps, the environments the whole manifest
 * declares in that project, as bare environments (no services, prune nor ownership).
 *
 * Why: the API never returns a secret's value, so a console edit of one shows only as its record
 * updated after the last deployment of the services that see it (src/live/stale-secrets.ts). Those
 * services' deployment dates come with their environments' service lists and statuses; a targeted
 * read without them would trust the stale fingerprint and plan "no changes" for a secret the whole
 * plan updates. An environment-level or service-level secret keeps its own environment as an
 * ancestor already. narrowLive drops what this adds, so nothing of it is planned or listed.
 */
export function readGraphOf(full: DesiredGraph, narrowed: DesiredGraph): DesiredGraph {
  const projects = new Set<Address>();
  for (const r of narrowed.resources.values()) {
    if (r.kind !== 'variable' || r.attrs.is_secret !== true || r.parent === undefined) continue;
    if (full.resources.get(r.parent)?.kind === 'project') projects.add(r.parent);
  }
  if (projects.size === 0) return narrowed;
  const resources = new Map(narrowed.resources);
  const added: Address[] = [];
  for (const r of full.resources.values()) {
    if (r.kind !== 'environment' || r.parent === undefined || !projects.has(r.parent) || resources.has(r.address)) continue;
    const { prune: _prune, owns: _owns, ...bare } = r;
    resources.set(r.address, bare);
    added.push(r.address);
  }
  if (added.length === 0) return narrowed;
  return { ...narrowed, resources, order: full.order.filter((a) => resources.has(a)) };
}
