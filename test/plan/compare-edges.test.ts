/** Edge cases of the plan's value comparison (src/plan/compare.ts) that decide between "in sync" and "changed". */
import { describe, expect, it } from 'vitest';
import { SecretValue } from '../../src/model/secret.js';
import { deepEqual, project, secretsIn } from '../../src/plan/compare.js';

describe('deepEqual edges', () => {
  it('tells a scalar from an object, and null from an object', () => {
    expect(deepEqual(1, {})).toBe(false);
    expect(deepEqual({}, 1)).toBe(false);
    expect(deepEqual('ab', { 0: 'a', 1: 'b' })).toBe(false);
    expect(deepEqual(1, { a: 1 })).toBe(false);
    expect(deepEqual({ a: 1 }, 1)).toBe(false);
    expect(deepEqual('x', ['x'])).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
    expect(deepEqual({}, null)).toBe(false);
  });

  it('compares arrays element by element, not as objects', () => {
    expect(deepEqual([1, 2], [1, 3])).toBe(false);
    expect(deepEqual([1, { a: [2] }], [1, { a: [2] }])).toBe(true);
    expect(deepEqual([undefined], [undefined])).toBe(true);
    // An array with extra properties is still compared on its elements only.
    const withProp = Object.assign([1], { extra: true });
    expect(deepEqual(withProp, [1])).toBe(true);
  });
});

describe('project edges', () => {
  it('keeps a key the live side has only when its value is defined', () => {
    expect(project({ a: 1, b: undefined, c: 3 }, { a: 0, b: 0, d: 0 })).toEqual({ a: 1 });
    expect('b' in (project({ a: 1, b: undefined }, { a: 0, b: 0 }) as object)).toBe(false);
  });

  it('projects every live element on the last desired element when the live list is longer', () => {
    expect(project([{ a: 1, x: 1 }, { a: 2, x: 2 }, { a: 3, x: 3 }], [{ a: 0 }, { x: 0 }])).toEqual([{ a: 1 }, { x: 2 }, { x: 3 }]);
  });

  it('leaves a live list alone when the desired list is empty or not a list', () => {
    expect(project([{ a: 1, x: 1 }], [])).toEqual([{ a: 1, x: 1 }]);
    expect(project([{ a: 1, x: 1 }], { a: 0 })).toEqual([{ a: 1, x: 1 }]);
    expect(project({ a: 1 }, [{ a: 0 }])).toEqual({ a: 1 });
  });
});

describe('secretsIn edges', () => {
  it('keeps a trailing "value" segment when it is the only one below the field', () => {
    const s = new SecretValue('v');
    expect(secretsIn('cfg', { value: s }).map((x) => x.field)).toEqual(['value']);
    expect(secretsIn('cfg', { auth: { value: s } }).map((x) => x.field)).toEqual(['auth']);
  });
});
