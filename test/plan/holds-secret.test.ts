/**
 * holdsSecret is secretsIn's allocation-free first look (most fields hold no secret): it must
 * find a secret exactly where secretsIn finds one, and nowhere else.
 */
import { describe, expect, it } from 'vitest';
import { SecretValue, UnreadSecret } from '../../src/model/secret.js';
import { holdsSecret, secretsIn } from '../../src/plan/compare.js';

/** Where secretsIn's walk looks: a secret itself, array items, own enumerable members of other objects. */
function reference(v: unknown): boolean {
  if (v instanceof SecretValue) return true;
  if (Array.isArray(v)) return v.some(reference);
  if (typeof v === 'object' && v !== null) return Object.entries(v).some(([, x]) => reference(x));
  return false;
}

describe('holdsSecret', () => {
  it('finds a secret at the top, in an array, in a keyed list and deep in objects', () => {
    expect(holdsSecret(new SecretValue('s'))).toBe(true);
    expect(holdsSecret(new UnreadSecret('${env:X}'))).toBe(true);
    expect(holdsSecret([1, 'a', new SecretValue('s')])).toBe(true);
    expect(holdsSecret([{ key: 'DB', value: new SecretValue('s') }])).toBe(true);
    expect(holdsSecret({ a: { b: { c: [null, { d: new SecretValue('s') }] } } })).toBe(true);
  });

  it('finds none in scalars, empty values, inherited members or non-enumerable ones', () => {
    for (const v of [undefined, null, 0, '', 'secret', true, [], {}, [[]], { a: [{}] }]) expect(holdsSecret(v)).toBe(false);
    const inherited = Object.create({ s: new SecretValue('s') }) as object;
    expect(holdsSecret(inherited)).toBe(false);
    expect(secretsIn('f', inherited)).toEqual([]);
    const hidden = Object.defineProperty({}, 's', { value: new SecretValue('s'), enumerable: false });
    expect(holdsSecret(hidden)).toBe(false);
    expect(secretsIn('f', hidden)).toEqual([]);
  });

  it('agrees with a walk of every item and member on generated values, and secretsIn with it', () => {
    let seed = 11;
    const rand = (n: number) => (((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 8) % n);
    const gen = (depth: number): unknown => {
      const r = rand(depth > 3 ? 4 : 8);
      if (r === 0) return rand(20) === 0 ? new SecretValue('v') : 'x';
      if (r === 1) return rand(3);
      if (r === 2) return null;
      if (r === 3) return rand(30) === 0 ? new UnreadSecret() : undefined;
      if (r < 6) return Array.from({ length: rand(4) }, () => gen(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = rand(4); i > 0; i--) o[rand(2) ? 'key' : `k${rand(5)}`] = gen(depth + 1);
      return o;
    };
    let found = 0;
    for (let i = 0; i < 5000; i++) {
      const v = gen(0);
      const expected = reference(v);
      if (expected) found++;
      expect(holdsSecret(v)).toBe(expected);
      expect(secretsIn('field', v).length > 0).toBe(expected);
    }
    // Both answers were asked for many times.
    expect(found).toBeGreaterThan(50);
    expect(found).toBeLessThan(4800);
  });
});
