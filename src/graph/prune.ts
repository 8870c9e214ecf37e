/**
 * The prune opt-ins: which `prune` key deletes which kinds of undeclared live objects, at which
 * level of the manifest (top level, project, environment, service). One table, read both ways:
 * `pruneKinds` turns a manifest's `prune` block into the kinds its scope deletes (buildGraph), and
 * `pruneOptIn` tells a user who keeps seeing an undeclared object which key, written where, would
 * let apply delete it (plan and drift advice). Pure.
 */
import type { PruneSpec } from '../manifest/types.js';
import type { Address, ResourceKind } from '../model/resource.js';
import { SERVICE_KINDS, isServiceKind, parseAddress } from '../model/resource.js';
import { holdsData, holdsVariables } from '../model/kinds/index.js';

export type PruneLevel = 'organization' | 'project' | 'environment' | 'service';
export type PruneKey = Exclude<keyof PruneSpec, symbol>;

/** Each key, where it takes effect, and what it deletes there. In the order kinds are listed. */
export const PRUNE_KEYS: ReadonlyArray<{ key: PruneKey; levels: readonly PruneLevel[]; kinds: readonly ResourceKind[] }> = [
  { key: 'projects', levels: ['organization'], kinds: ['project'] },
  { key: 'annotation_groups', levels: ['organization'], kinds: ['annotations_group'] },
  { key: 'label_groups', levels: ['organization'], kinds: ['labels_group'] },
  { key: 'alert_receivers', levels: ['organization'], kinds: ['alert_receiver'] },
  { key: 'alert_rules', levels: ['organization'], kinds: ['alert_rule'] },
  { key: 'webhooks', levels: ['organization'], kinds: ['webhook'] },
  { key: 'environments', levels: ['project'], kinds: ['environment'] },
  { key: 'services', levels: ['environment'], kinds: SERVICE_KINDS },
  { key: 'deployment_stages', levels: ['environment'], kinds: ['deployment_stage'] },
  // Every scope that holds variables: a database has none (the schema refuses `prune` on one).
  { key: 'variables', levels: ['project', 'environment', 'service'], kinds: ['variable'] },
];

/** The resource kinds a `prune` block deletes when they are live but undeclared, at this level. */
export function pruneKinds(p: PruneSpec | boolean | undefined, level: PruneLevel): ResourceKind[] {
  if (p === undefined || p === false) return [];
  const kinds: ResourceKind[] = [];
  for (const { key, levels, kinds: deleted } of PRUNE_KEYS) {
    if (levels.includes(level) && (p === true || p[key] === true)) kinds.push(...deleted);
  }
  return kinds;
}

/** The level a live parent address stands for (undefined: a kind that holds nothing to prune). */
function levelOf(parent: Address | undefined): PruneLevel | undefined {
  if (parent === undefined) return 'organization';
  const kind = parseAddress(parent).at(-1)?.kind;
  if (kind === 'project' || kind === 'environment') return kind;
  return kind !== undefined && isServiceKind(kind) && holdsVariables(kind) ? 'service' : undefined;
}

export interface PruneOptIn {
  key: PruneKey;
  /** The scope whose `prune` block gets the key; undefined: the top level of the manifest. */
  scope?: Address;
  /** In words, e.g. "`prune: {variables: true}` on project.shop/environment.prod/application.api". */
  text: string;
}

/**
 * Which prune key, written where, makes apply delete an undeclared live object of `kind` under
 * `parent` (its live parent address; undefined at organization level). Undefined for kinds no
 * prune key deletes (clusters, registries, the organization).
 */
export function pruneOptIn(kind: ResourceKind, parent: Address | undefined): PruneOptIn | undefined {
  const level = levelOf(parent);
  if (level === undefined) return undefined;
  const entry = PRUNE_KEYS.find((k) => k.levels.includes(level) && k.kinds.includes(kind));
  if (!entry) return undefined;
  const where = parent === undefined ? 'at the top level of the manifest' : `on ${parent}`;
  // What holds data goes only with the data-loss flag as well (src/plan/compute.ts guardDataLoss).
  const also = holdsData(kind) ? ', and apply with --allow-data-loss' : '';
  return { key: entry.key, ...(parent !== undefined ? { scope: parent } : {}), text: `\`prune: {${entry.key}: true}\` ${where}${also}` };
}
