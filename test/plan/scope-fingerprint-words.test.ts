/**
 * Exact words and edge cases of two small helpers the plan output relies on: the out-of-scope line
 * (src/plan/scope.ts) and the fingerprint marker in descriptions (src/plan/fingerprint.ts).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprint, fingerprintMarker, resolveFingerprintKey, splitFingerprintMarker, withFingerprintMarker } from '../../src/plan/fingerprint.js';
import { outOfScopeLine } from '../../src/plan/scope.js';

describe('outOfScopeLine', () => {
  it('names every ownable kind, singular and plural, in a fixed order', () => {
    const counts = { webhook: 2, alert_rule: 1, alert_receiver: 2, labels_group: 1, annotations_group: 2, project: 1 };
    expect(outOfScopeLine({ scope: 'kinds', counts })).toBe(
      '1 project, 2 annotation groups, 1 label group, 2 alert receivers, 1 alert rule and 2 webhooks outside this manifest are not managed by it (scope: kinds, the default).',
    );
    const plural = { webhook: 1, alert_rule: 2, alert_receiver: 1, labels_group: 2, annotations_group: 1, project: 2 };
    expect(outOfScopeLine({ scope: 'declared', counts: plural })).toBe(
      '2 projects, 1 annotation group, 2 label groups, 1 alert receiver, 2 alert rules and 1 webhook outside this manifest are not managed by it (scope: declared).',
    );
    expect(outOfScopeLine({ scope: 'kinds', counts: { labels_group: 1 } })).toBe('1 label group outside this manifest is not managed by it (scope: kinds, the default).');
    expect(outOfScopeLine({ scope: 'kinds', counts: { project: 0 } })).toBeUndefined();
    expect(outOfScopeLine(undefined)).toBeUndefined();
  });
});

describe('fingerprint marker', () => {
  const hmac = (v: string, k: string) => createHmac('sha256', k).update(Buffer.from(v, 'utf8')).digest('base64url').slice(0, 16);

  it('fingerprints the UTF-8 bytes of a value', () => {
    expect(fingerprint('pässwörd', 'k')).toBe(hmac('pässwörd', 'k'));
  });

  it('lists the fields sorted, whatever the order given', () => {
    expect(fingerprintMarker({ value: 'B', auth_password: 'A' })).toBe('[driftless:v1 auth_password=A,value=B]');
  });

  it('adds the marker after a description, alone when there is none, and nothing when there are no secrets', () => {
    expect(withFingerprintMarker('Payment key', { value: 'abc' })).toBe('Payment key [driftless:v1 value=abc]');
    expect(withFingerprintMarker('', { value: 'abc' })).toBe('[driftless:v1 value=abc]');
    expect(withFingerprintMarker(undefined, { value: 'abc' })).toBe('[driftless:v1 value=abc]');
    expect(withFingerprintMarker('Payment key [driftless:v1 value=old]', {})).toBe('Payment key');
    expect(withFingerprintMarker(null, {})).toBe('');
  });

  it('reads no description and no fingerprints from an empty or missing description', () => {
    for (const d of ['', undefined, null]) expect(splitFingerprintMarker(d)).toEqual({ description: null, fingerprints: {} });
    expect(splitFingerprintMarker('[driftless:v1 value=abc]')).toEqual({ description: null, fingerprints: { value: 'abc' } });
  });

  it('warns, in words, when the key falls back to the organization id', () => {
    const r = resolveFingerprintKey({}, 'org-1');
    expect(r.source).toBe('fallback');
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.summary])).toEqual([
      ['warning', 'secret.fingerprint-key-fallback', 'DRIFTLESS_FINGERPRINT_KEY is not set: secret fingerprints use a key derived from the organization id'],
    ]);
  });
});
