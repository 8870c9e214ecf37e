import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DESCRIPTION_MAX_LENGTH,
  fingerprint,
  markerLength,
  resolveFingerprintKey,
  splitFingerprintMarker,
  withFingerprintMarker,
} from '../../src/plan/fingerprint.js';

describe('fingerprints', () => {
  it('are keyed, stable and short', () => {
    expect(fingerprint('v', 'k')).toBe(fingerprint('v', 'k'));
    expect(fingerprint('v', 'k')).not.toBe(fingerprint('v', 'other'));
    expect(fingerprint('v', 'k')).not.toBe(fingerprint('w', 'k'));
    expect(fingerprint('v', 'k')).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('round-trip through a description, which users never see changed', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 200 }), { nil: null }), fc.string(), (userDescription, value) => {
        const fps = { value: fingerprint(value, 'key') };
        const stored = withFingerprintMarker(userDescription, fps);
        const back = splitFingerprintMarker(stored);
        expect(back.fingerprints).toEqual(fps);
        expect(back.description).toBe(userDescription === '' ? null : userDescription);
      }),
    );
  });

  it('replace an existing marker instead of stacking them', () => {
    const once = withFingerprintMarker('db password', { value: 'a'.repeat(16) });
    const twice = withFingerprintMarker(once, { value: 'b'.repeat(16) });
    expect(twice).toBe(`db password [driftless:v1 value=${'b'.repeat(16)}]`);
  });

  it('keep several fields in one marker, and fit the limit the graph reserves', () => {
    const fps = { webhook_url: fingerprint('u', 'k'), auth_password: fingerprint('p', 'k') };
    const d = withFingerprintMarker('x'.repeat(DESCRIPTION_MAX_LENGTH - markerLength(Object.keys(fps))), fps);
    expect(d.length).toBe(DESCRIPTION_MAX_LENGTH);
    expect(splitFingerprintMarker(d).fingerprints).toEqual(fps);
  });

  it('leave a description without a marker as it is', () => {
    expect(splitFingerprintMarker('has [brackets] at the end [x]')).toEqual({ description: 'has [brackets] at the end [x]', fingerprints: {} });
    expect(splitFingerprintMarker(null)).toEqual({ description: null, fingerprints: {} });
  });
});

describe('resolveFingerprintKey', () => {
  it('uses DRIFTLESS_FINGERPRINT_KEY when set', () => {
    expect(resolveFingerprintKey({ DRIFTLESS_FINGERPRINT_KEY: 'my-key' }, 'org')).toEqual({ key: 'my-key', source: 'env', diagnostics: [] });
  });

  it('refuses a set but empty (or blank) key instead of taking it as a key', () => {
    for (const empty of ['', '   ']) {
      const r = resolveFingerprintKey({ DRIFTLESS_FINGERPRINT_KEY: empty }, 'org-42');
      expect(r.key).toBeUndefined();
      expect(r.diagnostics.map((d) => [d.severity, d.code])).toEqual([['error', 'secret.fingerprint-key-empty']]);
    }
  });

  it('falls back to a key derived from the organization, with a warning that never shows the key', () => {
    const r = resolveFingerprintKey({}, 'org-42');
    expect(r.source).toBe('fallback');
    expect(r.key).toContain('org-42');
    expect(resolveFingerprintKey({}, 'org-42').key).toBe(r.key);
    expect(r.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'secret.fingerprint-key-fallback']]);
    expect(JSON.stringify(r.diagnostics)).not.toContain(r.key);
  });
});
