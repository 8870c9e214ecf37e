import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestingBeyond, parseBoundedJson } from '../../src/live/bounded-json.js';

describe('parseBoundedJson', () => {
  it('parses JSON nested up to the limit, and refuses one level more with where', () => {
    const at = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(parseBoundedJson(at(MAX_JSON_DEPTH))).toHaveProperty('value');
    expect(parseBoundedJson(at(MAX_JSON_DEPTH + 1))).toEqual({ problem: `nested deeper than ${MAX_JSON_DEPTH} levels (at character ${MAX_JSON_DEPTH + 1})` });
    expect(parseBoundedJson('{"a":{"b":[1]}}', 3)).toEqual({ value: { a: { b: [1] } } });
    expect(parseBoundedJson('{"a":{"b":[1]}}', 2)).toEqual({ problem: 'nested deeper than 2 levels (at character 11)' });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestingBeyond('["[[[[", "\\"[[[["]', 1)).toBeUndefined();
    expect(nestingBeyond('[{"k":"\\\\"}, [[]]]', 2)).toBe(14);
  });

  it('a 200,000-deep array is refused without a stack overflow; invalid JSON is "not JSON"', () => {
    expect(parseBoundedJson(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`)).toMatchObject({ problem: expect.stringContaining('nested deeper than') });
    expect(parseBoundedJson('{"a":')).toEqual({ problem: 'not JSON' });
  });
});
