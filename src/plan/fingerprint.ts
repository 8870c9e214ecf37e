/**
 * Keyed fingerprints of secret and write-only values.
 *
 * The API never returns a secret value (variables, receiver webhook_url / auth_password, webhook
 * target_secret, sensitive terraform variables), and driftless keeps no state file. To know whether
 * a secret changed, the writer stores a keyed fingerprint of the value it wrote *with the record*:
 * a short marker appended to the record's `description`:
 *
 *     "Primary database password [driftless:v1 value=Xy3...16 chars]"
 *
 * The live normaliser strips the marker back out (users never see it, and it never diffs) and
 * hands the fingerprints to computePlan, which compares them with the fingerprints of the desired
 * values. A secret whose value changed shows as changed; an unchanged one shows nothing; a live
 * secret without a marker (not written by driftless, or its description edited by hand) shows once
 * as "to be written, value unknown".
 *
 * Fingerprint = first 16 characters of base64url(HMAC-SHA256(key, value)) (96 bits: collisions are
 * out of reach, and a short marker leaves room under the API's 255-character description limit).
 *
 * The key: `DRIFTLESS_FINGERPRINT_KEY` (any string; 32+ random characters recommended, kept in the
 * CI's secret store). NOTE: limits:
 * - Without it, the fallback key is derived from the organization id. Plans stay stable across
 *   machines, but the organization id is not a secret: anyone who can read the descriptions can test
 *   guesses of a low-entropy secret offline. That is why the fallback produces a warning.
 * - Changing the key makes every secret show as changed once (and be rewritten by the next apply).
 * - A secret edited out of band with the description left intact is not detected (the marker still
 *   matches the manifest). Equal values under one key have equal fingerprints.
 * - The user's own description must leave room for the marker (buildGraph checks the length).
 */
import { createHmac } from 'node:crypto';
import type { Diagnostic } from '../diag/diagnostic.js';
import { error, warning } from '../diag/diagnostic.js';

export const FINGERPRINT_KEY_ENV = 'DRIFTLESS_FINGERPRINT_KEY';
export const DESCRIPTION_MAX_LENGTH = 255;
const FINGERPRINT_LENGTH = 16;
const MARKER_PREFIX = '[driftless:v1 ';
/** ` [driftless:v1 a=...,b=...]` at the very end of a description. */
const MARKER_RE = / ?\[driftless:v1 ([A-Za-z0-9_.:-]+=[A-Za-z0-9_-]+(?:,[A-Za-z0-9_.:-]+=[A-Za-z0-9_-]+)*)\]$/;

export function fingerprint(value: string, key: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url').slice(0, FINGERPRINT_LENGTH);
}

/** The marker for these fingerprints, sorted by field so that it is deterministic. */
export function fingerprintMarker(fps: Record<string, string>): string {
  const body = Object.keys(fps)
    .sort()
    .map((f) => `${f}=${fps[f]}`)
    .join(',');
  return `${MARKER_PREFIX}${body}]`;
}

/** Length the marker takes for these sensitive fields (with its separating space). */
export function markerLength(fields: readonly string[]): number {
  if (fields.length === 0) return 0;
  const fps: Record<string, string> = {};
  for (const f of fields) fps[f] = 'x'.repeat(FINGERPRINT_LENGTH);
  return fingerprintMarker(fps).length + 1;
}

/**
 * The description to send: the user's description (or none) followed by the marker. Any marker
 * already present is replaced, never duplicated.
 */
export function withFingerprintMarker(description: string | null | undefined, fps: Record<string, string>): string {
  const clean = splitFingerprintMarker(description).description ?? '';
  if (Object.keys(fps).length === 0) return clean;
  const marker = fingerprintMarker(fps);
  return clean === '' ? marker : `${clean} ${marker}`;
}

/** Splits a live description into the user's part (null when empty) and the recorded fingerprints. */
export function splitFingerprintMarker(description: string | null | undefined): {
  description: string | null;
  fingerprints: Record<string, string>;
} {
  if (description === null || description === undefined || description === '') {
    return { description: null, fingerprints: {} };
  }
  // The marker ends the description and starts with its prefix: most descriptions (no secret)
  // are told from one without running the expression over them.
  const m = description.endsWith(']') && description.includes(MARKER_PREFIX) ? MARKER_RE.exec(description) : null;
  if (!m) return { description, fingerprints: {} };
  const fingerprints: Record<string, string> = {};
  for (const pair of m[1]!.split(',')) {
    const eq = pair.indexOf('=');
    fingerprints[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const rest = description.slice(0, m.index);
  return { description: rest === '' ? null : rest, fingerprints };
}

/**
 * The fingerprint key from the environment, or the documented fallback (with a warning).
 * Set but empty is an error, never a key: an empty HMAC key would make every fingerprint (and
 * every plan file seal) computable by anyone, and it is the usual sign of a CI secret that was not
 * configured. The key itself never goes into a diagnostic.
 */
export function resolveFingerprintKey(
  env: Record<string, string | undefined>,
  organizationId: string,
): { key?: string; source: 'env' | 'fallback'; diagnostics: Diagnostic[] } {
  const problem = fingerprintKeyProblem(env);
  if (problem) return { source: 'env', diagnostics: [problem] };
  const fromEnv = env[FINGERPRINT_KEY_ENV];
  if (fromEnv !== undefined) return { key: fromEnv, source: 'env', diagnostics: [] };
  return {
    key: fallbackFingerprintKey(organizationId),
    source: 'fallback',
    diagnostics: [
      warning('secret.fingerprint-key-fallback', `${FINGERPRINT_KEY_ENV} is not set: secret fingerprints use a key derived from the organization id`, {
        detail: `Anyone who can read the organization's variable descriptions could test guesses of a secret offline, and could re-seal an edited plan file. Set ${FINGERPRINT_KEY_ENV} to a long random string kept in your CI secrets (changing it later makes every secret show as changed once).`,
      }),
    ],
  };
}

/** An error when the key is set but empty (or blank): checked before any API request. */
export function fingerprintKeyProblem(env: Record<string, string | undefined>): Diagnostic | undefined {
  const fromEnv = env[FINGERPRINT_KEY_ENV];
  if (fromEnv === undefined || fromEnv.trim() !== '') return undefined;
  return error('secret.fingerprint-key-empty', `${FINGERPRINT_KEY_ENV} is set but empty`, {
    detail: `An empty key is no key: set ${FINGERPRINT_KEY_ENV} to a long random string kept in your CI secrets (e.g. \`openssl rand -hex 32\`), or unset it to use the key derived from the organization id (with a warning).`,
  });
}

/** The documented fallback key (not a secret: derived from the organization id). */
export function fallbackFingerprintKey(organizationId: string): string {
  return `driftless-fallback-fingerprint-key:${organizationId}`;
}
