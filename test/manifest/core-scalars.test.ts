/**
 * The fast parse types plain scalars with src/manifest/core-scalars.ts, a copy of the `yaml`
 * package's YAML 1.2 core-schema tags, so that a file it accepts loads none of the package. The
 * positioned parse types them with the package itself: if the two ever typed a spelling differently
 * (`1_000`, `0O17`, `-0`, `.Inf`, a 20-digit integer), a manifest would mean one thing to `validate`
 * and another to a run that took the positioned parse. Compared here over every spelling of up to
 * three characters from an alphabet of every character class the tags look at, every spelling of
 * up to five from the numeric ones, every combination of sign, body and suffix from lists of
 * near-misses, and strings generated with a fixed seed; the same answer means the same type and
 * the same value (Object.is: -0 and NaN count), or both a string.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, Schema, isScalar } from 'yaml';
import { CORE_SCALAR_TAGS, coreScalarValue } from '../../src/manifest/core-scalars.js';
import { fastParseYaml } from '../../src/manifest/fast-yaml.js';
import { DEFAULT_PARSE_LIMITS, parseYamlFile } from '../../src/manifest/parse-yaml.js';

/** The package's core tags as its document parse tries them on a plain scalar (compose-scalar.js). */
const YAML_TAGS = new Schema({}).tags.filter((t) => t.default === true && t.test !== undefined);

/** The package's typing of plain scalar `s`: the first tag whose test matches, resolved with the parse's options. */
function yamlTyping(s: string): unknown {
  const tag = YAML_TAGS.find((t) => t.test!.test(s));
  if (tag === undefined) return s;
  const r = (tag.resolve as (s: string, onError: (m: string) => void, options: unknown) => unknown)(s, (m) => {
    throw new Error(m);
  }, { intAsBigInt: false });
  return isScalar(r) ? r.value : r;
}

/** Ours, with a string for "not a core scalar" as the package has it. */
function localTyping(s: string): unknown {
  const v = coreScalarValue(s);
  return v === undefined ? s : v;
}

/** What a value is, so that -0, NaN, and a number against the same digits as a string all differ. */
function describeValue(v: unknown): string {
  if (typeof v === 'number') return Object.is(v, -0) ? 'number:-0' : `number:${String(v)}`;
  return `${v === null ? 'null' : typeof v}:${String(v)}`;
}

function expectSameTyping(spellings: Iterable<string>): number {
  let n = 0;
  const differ: string[] = [];
  for (const s of spellings) {
    n++;
    const ours = describeValue(localTyping(s));
    const theirs = describeValue(yamlTyping(s));
    if (ours !== theirs && differ.length < 20) differ.push(`${JSON.stringify(s)}: ${ours} against yaml's ${theirs}`);
  }
  expect(differ).toEqual([]);
  return n;
}

/** Every string of length 0..maxLength over `alphabet`. */
function* allStrings(alphabet: readonly string[], maxLength: number): Generator<string> {
  let level = [''];
  yield '';
  for (let len = 1; len <= maxLength; len++) {
    const next: string[] = [];
    for (const prefix of level) for (const c of alphabet) next.push(prefix + c);
    yield* next;
    level = next;
  }
}

/** Every upper/lower-case variant of `word`. */
function caseVariants(word: string): string[] {
  let out = [''];
  for (const c of word) out = out.flatMap((p) => (c.toLowerCase() === c.toUpperCase() ? [p + c] : [p + c.toLowerCase(), p + c.toUpperCase()]));
  return out;
}

/** Digits, both cases of the letters of every tag (hex digits, exponent, prefixes, words), signs, `.`, `_`, blanks, and a few others. */
const WIDE_ALPHABET = [...'0123456789', ...'aAbBcCdDeEfFgGiInNlLoOrRsStTuUxX', ...'.+-_~ :#\t\n', '\u00a0', '\uff11', '\u0663', '\u00e9'];
const NUMERIC_ALPHABET = [...'0178', ...'aAeEfFxXo', ...'.+-_ '];

const SIGNS = ['', '+', '-', '--', '+-', ' ', '~'];
const WORDS = ['null', 'true', 'false', '.inf', '.nan', 'inf', 'nan', 'infinity', 'nul', 'ull', 'yes', 'no', 'on', 'off', 'y', 'n', '~'].flatMap(caseVariants);
const NUMBERS = [
  '0', '00', '000', '007', '08', '09', '1', '12', '0123', '1_000', '1,000', '1__0', '_1', '1_', '12345678901234567890', '9007199254740991', '9007199254740992',
  '9007199254740993', '18446744073709551616', '1'.repeat(400), '0'.repeat(30) + '1',
  '0o', '0o0', '0o17', '0o8', '0O17', '0o_17', '0o1_7', '0o' + '7'.repeat(40), 'o17', '00o17', '0o-1',
  '0x', '0x0', '0x1F', '0x1f', '0X1F', '0xg', '0x_1', '0x1_F', '0x' + 'f'.repeat(20), '0x' + 'F'.repeat(300), 'x1F', '0b101', '0B1',
  '.', '..', '.5', '5.', '1.5', '1.50', '01.5', '1.5.', '1..5', '1.5_0', '.0', '0.', '0.0', '00.00', '1' + '0'.repeat(400) + '.0', '0.' + '0'.repeat(400) + '1',
  '1e', 'e5', '1e5', '1E5', '1e+5', '1e-5', '1e+-5', '1.e5', '.5e5', '1.5e5', '1.5E-05', '1e5.0', '1e_5', '1_0e5', 'e', 'E', '.e5', '1e309', '1e-400', '4.9e-324',
  '2.5e-324', '1.7976931348623157e308', '1.7976931348623159e308', '123456789012345678901234567890e0',
];
const SUFFIXES = ['', ' ', '  ', '\t', '\n', '#', ' #', ':', '.', 'e', 'e1', '_', 'x', '0', '\u00a0'];

describe('core-scalars.ts: the `yaml` package core schema, copied', () => {
  it("has the package's tags: the same tests, in the same order, for the same types", () => {
    const kind = { null: ['null', undefined], bool: ['bool', undefined], intOct: ['int', 'OCT'], int: ['int', undefined], intHex: ['int', 'HEX'], floatNaN: ['float', undefined], floatExp: ['float', 'EXP'], float: ['float', undefined] } as const;
    expect(CORE_SCALAR_TAGS.map((t) => [`tag:yaml.org,2002:${kind[t.name][0]}`, kind[t.name][1], t.test.source, t.test.flags])).toEqual(
      YAML_TAGS.map((t) => [t.tag, t.format, t.test!.source, t.test!.flags]),
    );
  });

  it('types every short spelling as the package does (exhaustive: up to 3 characters of a wide alphabet, up to 5 of a numeric one)', () => {
    expect(expectSameTyping(allStrings(WIDE_ALPHABET, 3))).toBeGreaterThan(70_000);
    expect(expectSameTyping(allStrings(NUMERIC_ALPHABET, 5))).toBeGreaterThan(1_500_000);
  });

  it('types every sign, word or number, and suffix combination as the package does', () => {
    const bodies = [...WORDS, ...NUMBERS];
    const combos = function* () {
      for (const sign of SIGNS) for (const body of bodies) for (const suffix of SUFFIXES) {
        yield sign + body + suffix;
        yield ' ' + sign + body + suffix;
      }
    };
    expect(expectSameTyping(combos())).toBeGreaterThan(30_000);
  });

  it('types generated strings as the package does (fixed seed)', () => {
    const numeric = fc.stringMatching(/^[-+]?(?:0[oxOX])?[0-9a-fA-F_.]{0,12}(?:[eE][-+]?[0-9]{0,4})?$/);
    const anything = fc.string({ unit: 'binary', maxLength: 12 });
    const samples = fc.sample(fc.oneof(numeric, anything, fc.constantFrom(...WORDS)), { numRuns: 50_000, seed: 21 });
    expect(expectSameTyping(samples)).toBe(50_000);
  });

  it("types a plain scalar as the package's document parse does", () => {
    // Through the whole library: each spelling alone as a document, where it is one plain scalar.
    const spellings = [...new Set([...WORDS, ...NUMBERS, ...NUMBERS.flatMap((n) => ['+' + n, '-' + n])])];
    let compared = 0;
    for (const s of spellings) {
      const doc = parseDocument(s);
      if (doc.errors.length > 0 || !isScalar(doc.contents) || doc.contents.type !== 'PLAIN' || doc.contents.source !== s) continue;
      compared++;
      expect(describeValue(localTyping(s)), s).toBe(describeValue(doc.contents.value));
    }
    expect(compared).toBeGreaterThan(spellings.length * 0.9);
  });

  it('gives the fast parse the values the positioned parse gives, for each spelling as a value and in a list', () => {
    const spellings = [...new Set([...WORDS, ...NUMBERS, ...NUMBERS.flatMap((n) => ['+' + n, '-' + n])])].filter((s) => !/[#:\s]/.test(s) && !s.startsWith('~~'));
    const text = spellings.map((s, i) => `k${i}: ${s}\nl${i}: [${s}]\n`).join('');
    const fast = fastParseYaml(text, DEFAULT_PARSE_LIMITS);
    const positioned = parseYamlFile(text, 'f.yaml');
    expect(positioned.diagnostics).toEqual([]);
    expect(fast, 'the fast parse accepts the file').toBeDefined();
    const fastValue = fast!.value as Record<string, unknown>;
    const positionedValue = positioned.value as Record<string, unknown>;
    spellings.forEach((s, i) => {
      expect(describeValue(fastValue[`k${i}`]), s).toBe(describeValue(positionedValue[`k${i}`]));
      expect(describeValue((fastValue[`l${i}`] as unknown[])[0]), `[${s}]`).toBe(describeValue((positionedValue[`l${i}`] as unknown[])[0]));
    });
  });
});
