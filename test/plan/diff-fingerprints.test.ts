/**
 * diffAttrs looks for each field's secrets once and fingerprints them as it goes: its fingerprints
 * are desiredFingerprints' (same fields, same order, unread secrets left out, none without a key),
 * and each secret is compared with the fingerprint the whole record gives its marker name (two
 * fields whose secrets share a marker name: the last one's, as desiredFingerprints keeps it).
 */
import { describe, expect, it } from 'vitest';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import { SecretValue, UnreadSecret } from '../../src/model/secret.js';
import { desiredFingerprints, diffAttrs } from '../../src/plan/compare.js';
import { fingerprint } from '../../src/plan/fingerprint.js';

const KEY = 'k';

function desired(attrs: Record<string, unknown>): DesiredResource {
  return { address: 'x', kind: 'variable', name: 'x', attrs, dependsOn: [] } as DesiredResource;
}

function live(attrs: Record<string, unknown>, fingerprints?: Record<string, string>): LiveResource {
  return { address: 'x', kind: 'variable', name: 'x', id: '1', version: '1', record: {}, attrs, ...(fingerprints ? { fingerprints } : {}) } as LiveResource;
}

const cases: Record<string, Record<string, unknown>> = {
  'no secret': { key: 'A', value: 'plain', description: 'd' },
  'a top-level secret': { key: 'A', value: new SecretValue('s1'), is_secret: true },
  'nested secrets in a keyed list': {
    name: 't',
    terraform_variables_source: { tf_vars: [{ key: 'B', value: new SecretValue('b'), secret: true }, { key: 'A', value: new SecretValue('a'), secret: true }, { key: 'C', value: 'plain', secret: false }] },
    description: 'x',
  },
  'an unread secret beside a read one': { auth_password: new UnreadSecret('${env:P}'), webhook_url: new SecretValue('u') },
  'two fields with one marker name': { value: new SecretValue('first'), extra: { value: new SecretValue('second') } },
};

describe('diffAttrs fingerprints', () => {
  for (const [name, attrs] of Object.entries(cases)) {
    it(`are desiredFingerprints': ${name}`, () => {
      const d = desired(attrs);
      const diff = diffAttrs(d, live({}), KEY);
      const expected = desiredFingerprints(d, KEY);
      expect(diff.fingerprints).toEqual(expected);
      expect(Object.keys(diff.fingerprints)).toEqual(Object.keys(expected));
      expect(diffAttrs(d, live({}), undefined).fingerprints).toEqual({});
    });
  }

  it('compare each secret with the fingerprint the record gives its marker name', () => {
    const d = desired(cases['two fields with one marker name']!);
    // The marker name `value` is the second field's secret's: the live record recorded that one.
    const recorded = { value: fingerprint('second', KEY) };
    const diff = diffAttrs(d, live({ extra: {} }, recorded), KEY);
    expect(diff.fields).toEqual([]);
    const stale = diffAttrs(d, live({ extra: {} }, { value: fingerprint('first', KEY) }), KEY);
    expect(stale.fields.map((f) => f.field)).toEqual(['value', 'extra']);
  });
});
