/**
 * `ignore_changes:` field paths: what a user may write on each kind of object, and what each path
 * means in the desired attrs (src/graph/attrs.ts) and deploy pins.
 *
 * A path is written as the manifest spells the field (`tag`, `git_repository.branch`,
 * `schedule.cron.timezone`), through nested objects only. A list (`ports`, `storage`, `arguments`,
 * `events`) or a map of user-chosen keys (`tf_vars`, `annotations`, `values_override.set`) is one
 * field: it is ignored whole, never item by item (items have no stable name the path could use).
 * Children that are objects of their own (`variables`, `environments`, `services`,
 * `deployment_stages`) are not fields: each carries its own `ignore_changes`. Neither is an
 * object's identity (`name`, a variable's `key`, a webhook's `target_url`) nor a driftless setting
 * (`prune`, `deploy`, `type`).
 *
 * Shared by src/manifest (which refuses unknown paths, offline) and src/graph (which maps them onto
 * attrs): one table, so that a path validate accepts is always one the plan knows.
 */
import type { ResourceKind } from './resource.js';
import { kindDescriptor } from './kinds/index.js';

export type { DeployPin } from './resource.js';

import type { IgnoreTable } from './ignore-table.js';
export type { IgnoreTable, IgnoreTarget } from './ignore-table.js';

/** The paths of every kind that has any, from the kinds' descriptors (src/model/kinds). */
export function ignoreTableOf(kind: ResourceKind): IgnoreTable {
  return kindDescriptor(kind).ignorePaths ?? {};
}

/** Attrs that name an object: never ignored, even by `ignore_changes: all`. */
export const IDENTITY_ATTRS: ReadonlySet<string> = new Set(['name', 'key', 'target_url']);

/** The paths `ignore_changes` accepts on an object of this kind (empty: the kind has none). */
export function ignorablePaths(kind: ResourceKind): string[] {
  return Object.keys(ignoreTableOf(kind));
}
