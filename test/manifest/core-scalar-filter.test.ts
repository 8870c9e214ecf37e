/**
 * The fast parse rules out a plain scalar as a non-string by its first character
 * (src/manifest/fast-yaml.ts, CORE_SCALAR_FIRST_CHARS) before trying the `yaml` package's core
 * schema tags: no tag may match a scalar that starts with any other character, or the two parses
 * would type it differently.
 */
import { describe, expect, it } from 'vitest';
import { Schema } from 'yaml';
import { CORE_SCALAR_FIRST_CHARS, fastParseYaml } from '../../src/manifest/fast-yaml.js';
import { DEFAULT_PARSE_LIMITS } from '../../src/manifest/parse-yaml.js';

const CORE_TESTS = new Schema({}).tags.filter((t) => t.default === true && t.test !== undefined).map((t) => t.test!);

describe('the first-character filter of plain scalars', () => {
  it('is written for the core tags of the installed `yaml`', () => {
    // Each test is anchored and starts with one of the filter's characters (or matches the empty scalar).
    expect(CORE_TESTS.map((t) => t.source)).toEqual([
      '^(?:~|[Nn]ull|NULL)?$',
      '^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$',
      '^0o[0-7]+$',
      '^[-+]?[0-9]+$',
      '^0x[0-9a-fA-F]+$',
      '^(?:[-+]?\\.(?:inf|Inf|INF)|\\.nan|\\.NaN|\\.NAN)$',
      '^[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)[eE][-+]?[0-9]+$',
      '^[-+]?(?:\\.[0-9]+|[0-9]+\\.[0-9]*)$',
    ]);
  });

  it('lets no core tag match a scalar that starts with another character', () => {
    const rests = ['', 'ull', 'ULL', 'rue', 'alse', '1', '0', '.5', '5e3', 'inf', '.inf', 'nan', 'x1f', 'o17'];
    const others = [...Array.from({ length: 0x250 }, (_, c) => String.fromCharCode(c)), '\u2028', '\uff10', '\u0661'].filter((ch) => !CORE_SCALAR_FIRST_CHARS.includes(ch));
    for (const ch of others) for (const rest of rests) expect(CORE_TESTS.some((t) => t.test(ch + rest)), JSON.stringify(ch + rest)).toBe(false);
  });

  it('types the scalars it lets through as the core schema does', () => {
    const parsed = fastParseYaml('a: [~, null, True, FALSE, 0o17, -12, 0x1F, .inf, -.Inf, .NaN, 1e3, +.5, 2., tru, nul, .x, "1"]\n', DEFAULT_PARSE_LIMITS);
    expect(parsed?.value).toEqual({ a: [null, null, true, false, 15, -12, 31, Infinity, -Infinity, NaN, 1000, 0.5, 2, 'tru', 'nul', '.x', '1'] });
  });
});
