/**
 * Which live objects a manifest owns, beyond the ones it declares: the rule that decides whether an
 * undeclared live object is "unmanaged" (listed by plan, reported by drift, deleted where pruning
 * is on) or out of the manifest's scope (none of its business: not listed, never touched, only
 * counted in one line of the plan).
 *
 * - Inside a project the manifest declares, every undeclared object is in scope: environments,
 *   and in a declared environment its services, stages and variables. That is what drift is for.
 * - At organization level it depends on `scope:` (ManifestScope):
 *   - `organization`: everything is in scope (the manifest owns the organization);
 *   - `kinds` (the default): undeclared projects are out of scope (other teams share the
 *     organization), and an organization-level object (group, receiver, alert rule, webhook) is in
 *     scope when the manifest declares at least one object of its kind;
 *   - `declared`: nothing undeclared at organization level is in scope (`export --project`).
 *   A top-level `prune` of a kind always brings that kind into scope: pruning is the explicit
 *   opt-in to owning it (the loader refuses it together with `declared`).
 *
 * Why projects differ from the other kinds under `kinds`: the project is the unit teams split an
 * organization by, so declaring one project says nothing about the others; declaring one webhook
 * of an organization, on the other hand, is taken as owning its webhooks.
 *
 * Pure.
 */
import type { Address, DesiredGraph, ManifestScope, ResourceKind } from '../model/resource.js';
import { DEFAULT_MANIFEST_SCOPE } from '../model/resource.js';
import { pruneOptIn } from '../graph/prune.js';

/** Organization-level kinds a manifest can own wholly (clusters, registries and the organization are read-only). */
export const OWNABLE_ORGANIZATION_KINDS: readonly ResourceKind[] = ['project', 'annotations_group', 'labels_group', 'alert_receiver', 'alert_rule', 'webhook'];

export function manifestScope(graph: DesiredGraph): ManifestScope {
  return graph.scope ?? DEFAULT_MANIFEST_SCOPE;
}

/**
 * A predicate: is an undeclared live object of this kind, at organization level (no parent), this
 * manifest's business? Objects with a parent are decided by their parent: a declared project or
 * environment owns all of its children.
 */
export function ownsUndeclaredAtTop(graph: DesiredGraph): (kind: ResourceKind) => boolean {
  const scope = manifestScope(graph);
  const pruned = new Set(graph.prune ?? []);
  const declared = new Set<ResourceKind>();
  for (const r of graph.resources.values()) if (r.parent === undefined) declared.add(r.kind);
  return (kind) => {
    if (pruned.has(kind)) return true;
    if (scope === 'organization') return true;
    if (scope === 'declared') return false;
    return kind !== 'project' && declared.has(kind);
  };
}

const NOUNS: Partial<Record<ResourceKind, [string, string]>> = {
  project: ['project', 'projects'],
  annotations_group: ['annotation group', 'annotation groups'],
  labels_group: ['label group', 'label groups'],
  alert_receiver: ['alert receiver', 'alert receivers'],
  alert_rule: ['alert rule', 'alert rules'],
  webhook: ['webhook', 'webhooks'],
};

/**
 * One line for the plan and the drift report: what the manifest leaves out of its scope, e.g.
 * `2 projects and 1 label group outside this manifest are not managed by it (scope: kinds, the
 * default).` Undefined when nothing was left out.
 */
export function outOfScopeLine(out: { scope: ManifestScope; counts: Partial<Record<ResourceKind, number>> } | undefined): string | undefined {
  if (!out) return undefined;
  const parts: string[] = [];
  let total = 0;
  for (const kind of OWNABLE_ORGANIZATION_KINDS) {
    const n = out.counts[kind] ?? 0;
    if (n === 0) continue;
    total += n;
    const [one, many] = NOUNS[kind] ?? [kind, `${kind}s`];
    parts.push(`${n} ${n === 1 ? one : many}`);
  }
  if (total === 0) return undefined;
  const list = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]!}`;
  const why = out.scope === DEFAULT_MANIFEST_SCOPE ? `scope: ${out.scope}, the default` : `scope: ${out.scope}`;
  return `${list} outside this manifest ${total === 1 ? 'is' : 'are'} not managed by it (${why}).`;
}

/**
 * Why an undeclared live object in the manifest's scope is kept, and the opt-in that would let
 * apply delete it (the plan's reason for an `unmanaged` change): the user who removed a variable
 * from Git learns that apply keeps it, and which key, written where, deletes it.
 */
export function keptReason(kind: ResourceKind, parent: Address | undefined): string {
  const optIn = pruneOptIn(kind, parent);
  return optIn ? `not in the manifest; kept: add ${optIn.text} to delete it` : 'not in the manifest (pruning is off for its scope)';
}
