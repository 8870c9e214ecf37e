/**
 * The protect mark as it is recorded on a live object: one more entry, `protect=true`, in the
 * driftless marker that already carries secret fingerprints at the end of a description
 * (./fingerprint.ts), e.g. `Orders API [driftless:v1 protect=true]`. The live normaliser takes it
 * out of the description (users never see it, it never diffs) and sets `LiveResource.protected`.
 *
 * Only kinds whose API record has a free-text description can carry it: projects and services
 * (application, container, database, job, helm, terraform). An environment has no such field
 * (seed 2.13, EnvironmentEditRequest: name and mode only): its `protect` holds only while the
 * manifest declares it.
 */
import type { ResourceKind } from '../model/resource.js';
import { isServiceKind } from '../model/resource.js';

/** The marker entry: a name no secret field takes (those are API field names, `tf_vars.KEY`). */
export const PROTECT_MARK_FIELD = 'protect';
export const PROTECT_MARK_VALUE = 'true';

/** Kinds `protect:` may be written on. */
export function isProtectableKind(kind: ResourceKind): boolean {
  return kind === 'project' || kind === 'environment' || isServiceKind(kind);
}

/** Kinds whose live record can carry the mark (a description field). */
export function canCarryMark(kind: ResourceKind): boolean {
  return kind === 'project' || isServiceKind(kind);
}

/** The marker entries of a live description split into the protect mark and the secret fingerprints. */
export function splitProtectMark(entries: Record<string, string>): { marked: boolean; fingerprints: Record<string, string> } {
  if (!(PROTECT_MARK_FIELD in entries)) return { marked: false, fingerprints: entries };
  const { [PROTECT_MARK_FIELD]: mark, ...fingerprints } = entries;
  return { marked: mark === PROTECT_MARK_VALUE, fingerprints };
}

/** The marker entries to write: the fingerprints, with the protect mark when `marked`. */
export function withProtectMark(fingerprints: Record<string, string>, marked: boolean): Record<string, string> {
  const { [PROTECT_MARK_FIELD]: _dropped, ...rest } = fingerprints;
  return marked ? { ...rest, [PROTECT_MARK_FIELD]: PROTECT_MARK_VALUE } : rest;
}
