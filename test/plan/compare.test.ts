/** The comparison primitives of the plan (src/plan/compare.ts), with expected values written out. */
import { describe, expect, it } from 'vitest';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import { SecretValue } from '../../src/model/secret.js';
import { deepEqual, diffAttrs, project, sanitize, secretsIn } from '../../src/plan/compare.js';
import { fingerprint } from '../../src/plan/fingerprint.js';

describe('deepEqual', () => {
  it('compares structure, not identity, and tells arrays, objects, null and primitives apart', () => {
    expect(deepEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(deepEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(deepEqual([1, 2, 3], [1, 2])).toBe(false);
    expect(deepEqual([1, 2], [1, 3])).toBe(false);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual({}, [])).toBe(false);
    expect(deepEqual({ 0: 'a' }, ['a'])).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
    expect(deepEqual({}, null)).toBe(false);
    expect(deepEqual(1, '1')).toBe(false);
    expect(deepEqual('a', { a: 1 })).toBe(false);
    expect(deepEqual({ a: 1 }, 'a')).toBe(false);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepEqual({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
  });
});

describe('project', () => {
  it('keeps only what the desired value owns, recursively, array items on the desired items', () => {
    expect(project({ a: 1, b: 2, c: { d: 3, e: 4 } }, { a: 0, c: { d: 0 } })).toEqual({ a: 1, c: { d: 3 } });
    expect(project({ a: undefined, b: 2 }, { a: 1, b: 1 })).toEqual({ b: 2 });
    expect(project([{ x: 1, id: 'i1' }, { x: 2, id: 'i2' }, { x: 3, id: 'i3' }], [{ x: 0 }, { x: 0, id: '' }])).toEqual([{ x: 1 }, { x: 2, id: 'i2' }, { x: 3, id: 'i3' }]);
    expect(project([{ x: 1, y: 2 }], [])).toEqual([{ x: 1, y: 2 }]);
    expect(project('live', { a: 1 })).toBe('live');
    expect(project({ a: 1 }, 'desired')).toEqual({ a: 1 });
  });
});

describe('secrets inside a value', () => {
  const s1 = new SecretValue('one');
  const s2 = new SecretValue('two');

  it('are named by field, by list item key, without a trailing value', () => {
    expect(secretsIn('value', s1).map((s) => s.field)).toEqual(['value']);
    const tf = { tf_var_file_paths: [], tf_vars: [{ key: 'DB', value: s1, secret: true }, { key: 'region', value: 'eu', secret: false }, { key: 'TOKEN', value: s2, secret: true }] };
    expect(secretsIn('terraform_variables_source', tf).map((s) => s.field)).toEqual(['tf_vars.DB', 'tf_vars.TOKEN']);
    expect(secretsIn('x', [s1, { value: s2 }]).map((s) => s.field)).toEqual(['0', '1']);
    expect(secretsIn('x', { a: { value: s1 } }).map((s) => s.field)).toEqual(['a']);
    expect(secretsIn('x', { value: s1 }).map((s) => s.field)).toEqual(['value']);
    expect(secretsIn('x', { a: 'plain' })).toEqual([]);
  });

  it('are replaced by placeholders with their fingerprints; a value without secrets is returned as it is', () => {
    const plain = { a: [1, 2] };
    expect(sanitize(plain, {}, 'x')).toBe(plain);
    expect(sanitize({ list: [{ key: 'DB', value: s1 }], n: 1 }, { 'list.DB': 'FP1' }, 'f')).toEqual({ list: [{ key: 'DB', value: { sensitive: true, fingerprint: 'FP1' } }], n: 1 });
    expect(sanitize(s2, {}, 'value')).toEqual({ sensitive: true, fingerprint: '' });
  });
});

describe('diffAttrs', () => {
  const KEY = 'k';
  const desired = (attrs: Record<string, unknown>, immutableFields?: string[]): DesiredResource => ({ address: 'x', kind: 'environment', name: 'x', attrs, dependsOn: [], ...(immutableFields ? { immutableFields } : {}) });
  const live = (attrs: Record<string, unknown>, fingerprints?: Record<string, string>): LiveResource => ({ address: 'x', kind: 'environment', name: 'x', id: 'i', attrs, record: {}, version: 'v', ...(fingerprints ? { fingerprints } : {}) });

  it('a plain field: before (projected) and after; absent live has no before; immutable forces replace', () => {
    const d = desired({ cluster: 'b', mode: 'STAGING', tags: { a: 1 } }, ['cluster']);
    expect(diffAttrs(d, live({ cluster: 'a', tags: { a: 1, extra: 2 } }), KEY).fields).toEqual([
      { field: 'cluster', before: 'a', after: 'b', forces_replace: true },
      { field: 'mode', after: 'STAGING' },
    ]);
    expect(diffAttrs(d, live({ cluster: 'b', mode: 'STAGING', tags: { a: 1 } }), KEY).fields).toEqual([]);
  });

  it('a secret: unchanged when its fingerprint matches, changed when not, unknown without one; the rest compared without it', () => {
    const attrs = { value: new SecretValue('s3cret'), other: 1 };
    const fp = fingerprint('s3cret', KEY);
    const d = desired({ secret: attrs.value, cfg: { token: new SecretValue('t'), url: 'u' } }, ['secret']);
    const fps = { secret: fp, token: fingerprint('t', KEY) }; // a nested secret is named by its path below the attr
    expect(diffAttrs(d, live({ cfg: { url: 'u' } }, fps), KEY)).toEqual({ fields: [], fingerprints: fps });
    expect(diffAttrs(d, live({ cfg: { url: 'changed' } }, fps), KEY).fields).toEqual([{ field: 'cfg', sensitive: true }]);
    expect(diffAttrs(d, live({ cfg: { url: 'u' } }, { ...fps, secret: 'other' }), KEY).fields).toEqual([{ field: 'secret', sensitive: true, forces_replace: true }]);
    expect(diffAttrs(d, live({ cfg: { url: 'u' } }, { token: fps.token }), KEY).fields).toEqual([{ field: 'secret', sensitive: true, before_unknown: true, forces_replace: true }]);
    // Its fingerprint dropped because the record was written again since driftless wrote it: said so.
    const edited = { ...live({ cfg: { url: 'u' } }, { token: fps.token }), distrustedFingerprints: ['secret'] };
    expect(diffAttrs(d, edited, KEY).fields).toEqual([{ field: 'secret', sensitive: true, before_unknown: true, before_edited: true, forces_replace: true }]);
  });
});
