/**
 * The building blocks of the `ignore_changes` tables the kinds' descriptors hold (src/model/kinds):
 * a leaf module (no imports but types), so that a descriptor can use them when it is loaded.
 * What a path means: src/model/ignore-paths.ts.
 */
import type { DeployPin } from './resource.js';

export interface IgnoreTarget {
  /** Attr paths (dot-separated) the manifest path sets. */
  attrs: string[];
  /** Deploy pins it sets. */
  pins?: DeployPin[];
}

export type IgnoreTable = Record<string, IgnoreTarget>;
type Table = IgnoreTable;

export const same = (...paths: string[]): Table => Object.fromEntries(paths.map((p) => [p, { attrs: [p] }]));
export const renamed = (from: string, to: string, pins?: DeployPin[]): Table => ({ [from]: pins ? { attrs: [to], pins } : { attrs: [to] } });
export const pinOnly = (pin: DeployPin): Table => ({ [pin]: { attrs: [], pins: [pin] } });

/** A git repository object written at `from` and kept at `to` in the attrs, with its sub-fields. */
export function git(from: string, to: string): Table {
  const out: Table = { [from]: { attrs: [to] } };
  for (const f of ['url', 'branch', 'root_path', 'provider']) out[`${from}.${f}`] = { attrs: [`${to}.${f}`] };
  return out;
}

export const serviceCommon: Table = {
  ...same('description', 'icon_uri'),
  ...renamed('annotation_groups', 'annotations_groups'),
  ...renamed('label_groups', 'labels_groups'),
};

export const compute: Table = same(
  'cpu',
  'memory',
  'min_running_instances',
  'max_running_instances',
  'ports',
  'healthchecks',
  'healthchecks.readiness_probe',
  'healthchecks.liveness_probe',
  'storage',
  'arguments',
  'entrypoint',
  'auto_deploy',
);

/** The paths of a job's lifecycle hooks (`schedule.on_start` and its arguments and entrypoint...). */
export function hooks(names: readonly string[]): Table {
  return same(...names.flatMap((name) => [`schedule.${name}`, `schedule.${name}.arguments`, `schedule.${name}.entrypoint`]));
}

