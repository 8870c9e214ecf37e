/**
 * The fingerprint marker's exact format, computed here independently: HMAC-SHA256 of the UTF-8
 * value, base64url, first 16 characters; fields sorted; placed after the user's description with
 * one space, or alone.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprint, fingerprintMarker, splitFingerprintMarker, withFingerprintMarker } from '../../src/plan/fingerprint.js';

describe('fingerprint format', () => {
  it('is the first 16 base64url characters of HMAC-SHA256(key, UTF-8 value)', () => {
    const expected = createHmac('sha256', Buffer.from('k€y', 'utf8')).update(Buffer.from('välue ✓', 'utf8')).digest('base64url').slice(0, 16);
    expect(fingerprint('välue ✓', 'k€y')).toBe(expected);
    expect(fingerprint('välue ✓', 'k€y')).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('the marker lists fields sorted, whatever the order they were given in', () => {
    expect(fingerprintMarker({ value: 'BBBB', auth_password: 'AAAA', 'tf_vars.z': 'CCCC' })).toBe('[driftless:v1 auth_password=AAAA,tf_vars.z=CCCC,value=BBBB]');
  });

  it('goes after the description with one space, alone without one, and nothing is added without fields', () => {
    expect(withFingerprintMarker('db password', { value: 'AAAA' })).toBe('db password [driftless:v1 value=AAAA]');
    expect(withFingerprintMarker('', { value: 'AAAA' })).toBe('[driftless:v1 value=AAAA]');
    expect(withFingerprintMarker(null, { value: 'AAAA' })).toBe('[driftless:v1 value=AAAA]');
    expect(withFingerprintMarker('db password [driftless:v1 value=OLD]', {})).toBe('db password');
    expect(withFingerprintMarker('plain', {})).toBe('plain');
    expect(withFingerprintMarker(undefined, {})).toBe('');
  });

  it('an empty or missing description splits into null and no fingerprints', () => {
    for (const d of ['', null, undefined]) expect(splitFingerprintMarker(d)).toEqual({ description: null, fingerprints: {} });
    expect(splitFingerprintMarker('[driftless:v1 value=AAAA]')).toEqual({ description: null, fingerprints: { value: 'AAAA' } });
  });
});
