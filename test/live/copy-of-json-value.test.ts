/**
 * copyOfJsonValue: the reader's copy of a cached answer read from a file, made from the parsed
 * answer instead of parsing its bytes again. It must be what parsing the same text again gives:
 * equal values, own keys in the same order, `__proto__` an ordinary key, -0 kept, nothing shared.
 */
import { describe, expect, it } from 'vitest';
import { copyOfJsonValue } from '../../src/live/cache-bytes.js';

/** Every object and array inside a value. */
function containers(v: unknown, out: object[] = []): object[] {
  if (typeof v === 'object' && v !== null) {
    out.push(v);
    for (const x of Object.values(v)) containers(x, out);
  }
  return out;
}

describe('copyOfJsonValue', () => {
  it('gives what parsing the text again gives, sharing no object with the original', () => {
    const texts = [
      '{"results":[{"id":"a","name":"api","ports":[{"internal_port":80}],"n":null,"ok":true}]}',
      '{"__proto__":{"polluted":1},"b":1,"2":"two","a":[-0,1e308,0.1]}',
      '[[[[]]],{},"",0,{"10":1,"9":2,"x":{"__proto__":[]}}]',
      '"just text"',
      '12',
      'null',
    ];
    for (const text of texts) {
      const held = JSON.parse(text) as unknown;
      const copy = copyOfJsonValue(held);
      const again = JSON.parse(text) as unknown;
      expect(copy).toStrictEqual(again);
      // Same key order at every level, and __proto__ an own key, not a prototype.
      expect(JSON.stringify(copy)).toBe(JSON.stringify(again));
      const mine = containers(copy);
      for (const c of mine) expect(Object.getPrototypeOf(c)).toBe(Array.isArray(c) ? Array.prototype : Object.prototype);
      // Nothing shared with the held answer.
      const theirs = new Set(containers(held));
      for (const c of mine) expect(theirs.has(c)).toBe(false);
    }
    const z = copyOfJsonValue(JSON.parse('{"z":-0}') as { z: number });
    expect(Object.is(z.z, -0)).toBe(true);
    const p = copyOfJsonValue(JSON.parse('{"__proto__":{"polluted":1}}') as Record<string, unknown>);
    expect(Object.keys(p)).toEqual(['__proto__']);
    expect((p as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('a copy changed does not change the original', () => {
    const held = JSON.parse('{"results":[{"id":"a","tags":["x"]}]}') as { results: Array<{ id: string; tags: string[] }> };
    const copy = copyOfJsonValue(held);
    copy.results[0]!.id = 'b';
    copy.results[0]!.tags.push('y');
    copy.results.pop();
    expect(held).toEqual({ results: [{ id: 'a', tags: ['x'] }] });
  });
});
