/**
 * `protect:` of a manifest object, as a DesiredResource carries it (with where it is written, for
 * the plan's error), and the room its live mark takes in the description (the API allows 255
 * characters: a description that leaves none is an error before any request).
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import type { Protectable } from '../manifest/types.js';
import { lazySource } from './builder.js';
import type { DesiredResource } from '../model/resource.js';
import { DESCRIPTION_MAX_LENGTH, fingerprintMarker, markerLength } from '../plan/fingerprint.js';
import { canCarryMark, PROTECT_MARK_FIELD, PROTECT_MARK_VALUE } from '../plan/protect-mark.js';

export function protectOf(spec: Protectable | undefined): DesiredResource['protect'] | undefined {
  if (spec === undefined || typeof spec.protect !== 'boolean') return undefined;
  // Where it is written, read when the plan reports it (lazySource: positions may be built lazily).
  const mark: NonNullable<DesiredResource['protect']> = { value: spec.protect };
  lazySource(mark, spec, 'protect');
  return mark;
}

/** An error when the description leaves no room for the protect mark (and the secrets' marker). */
export function protectMarkRoom(d: DesiredResource): Diagnostic[] {
  const description = d.attrs.description;
  if (d.protect?.value !== true || !canCarryMark(d.kind) || typeof description !== 'string') return [];
  const secrets = d.sensitiveFields ?? [];
  // The secrets' marker with the protect entry added (fingerprints are 16 characters each).
  const withMark = secrets.length === 0 ? fingerprintMarker({ [PROTECT_MARK_FIELD]: PROTECT_MARK_VALUE }).length + 1 : markerLength(secrets) + `,${PROTECT_MARK_FIELD}=${PROTECT_MARK_VALUE}`.length;
  const room = DESCRIPTION_MAX_LENGTH - withMark;
  if (description.length <= room) return [];
  return [
    error('graph.description-too-long', `description is ${description.length} characters; with \`protect: true\` at most ${room} are allowed here`, {
      detail: `The API limits descriptions to ${DESCRIPTION_MAX_LENGTH} characters, and driftless records the protect mark on the live ${d.kind} at the end of its description (${withMark} characters).`,
      address: d.address,
      range: d.source,
    }),
  ];
}
