/**
 * splitFingerprintMarker looks for the marker only in a description that ends with `]` and holds
 * its prefix: the answer must be the expression's own on every description, marked or not.
 */
import { describe, expect, it } from 'vitest';
import { splitFingerprintMarker } from '../../src/plan/fingerprint.js';

const MARKER_RE = / ?\[driftless:v1 ([A-Za-z0-9_.:-]+=[A-Za-z0-9_-]+(?:,[A-Za-z0-9_.:-]+=[A-Za-z0-9_-]+)*)\]$/;

/** The split as the expression alone gives it. */
function reference(description: string): { description: string | null; fingerprints: Record<string, string> } {
  if (description === '') return { description: null, fingerprints: {} };
  const m = MARKER_RE.exec(description);
  if (!m) return { description, fingerprints: {} };
  const fingerprints: Record<string, string> = {};
  for (const pair of m[1]!.split(',')) fingerprints[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
  const rest = description.slice(0, m.index);
  return { description: rest === '' ? null : rest, fingerprints };
}

describe('splitFingerprintMarker', () => {
  it('splits exactly where the marker expression does, on generated descriptions', () => {
    let seed = 3;
    const rand = (n: number) => (((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 8) % n);
    const pieces = ['db', ' ', ']', '[', '[driftless:v1 ', 'value=Xy3abcDEF0123456', ',', 'tf_vars.K=ab_-9', '=', 'x', '[driftless:v2 ', '\n'];
    let marked = 0;
    for (let i = 0; i < 20000; i++) {
      let d = '';
      for (let j = rand(7); j >= 0; j--) d += pieces[rand(pieces.length)];
      if (rand(3) === 0) d += `${rand(2) ? ' ' : ''}[driftless:v1 value=abc${rand(9)}${rand(2) ? ',reference=q_1' : ''}]`;
      const want = reference(d);
      if (Object.keys(want.fingerprints).length > 0) marked++;
      expect(splitFingerprintMarker(d), JSON.stringify(d)).toEqual(want);
    }
    expect(marked).toBeGreaterThan(2000);
    expect(splitFingerprintMarker('Primary [driftless:v1 value=abc]')).toEqual({ description: 'Primary', fingerprints: { value: 'abc' } });
    expect(splitFingerprintMarker('[driftless:v1 value=abc]\n')).toEqual({ description: '[driftless:v1 value=abc]\n', fingerprints: {} });
  });
});
