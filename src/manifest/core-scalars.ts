/**
 * The YAML 1.2 core schema's typing of a plain scalar, as the `yaml` package (2.x) does it for the
 * positioned parse (parse-yaml.ts): null, booleans, integers (decimal, `0o` octal, `0x` hex) and
 * floats (`.inf`, `.nan`, exponents, fractions). Anything else is a string.
 *
 * Why a copy: the fast parse (fast-yaml.ts) typed its scalars with the package's own core tags, and
 * loading the package for them was 72 CommonJS files in every `validate` that had no diagnostic and
 * so never needed the positioned parse (issue 21). The tests are the package's regular expressions,
 * tried in the package's order (its core schema: null, bool, intOct, int, intHex, floatNaN,
 * floatExp, float; the first that matches wins), and each value is made by the same expression as
 * the package's `resolve` with its default options (`intAsBigInt: false`: integers are `parseInt`
 * numbers, so a large one loses precision and `-0` is -0 exactly as there).
 * test/manifest/core-scalars.test.ts compares this with the installed package's tags over a large
 * enumerated and generated set of spellings, and that the expressions are the package's.
 */

/** One core-schema tag: its test, and how it makes the value of a scalar it matched. */
export interface CoreScalarTag {
  name: 'null' | 'bool' | 'intOct' | 'int' | 'intHex' | 'floatNaN' | 'floatExp' | 'float';
  test: RegExp;
  resolve(s: string): null | boolean | number;
}

/** In the package's order (node_modules/yaml/dist/schema/core/schema.js). */
export const CORE_SCALAR_TAGS: readonly CoreScalarTag[] = [
  { name: 'null', test: /^(?:~|[Nn]ull|NULL)?$/, resolve: () => null },
  { name: 'bool', test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, resolve: (s) => s[0] === 't' || s[0] === 'T' },
  { name: 'intOct', test: /^0o[0-7]+$/, resolve: (s) => parseInt(s.substring(2), 8) },
  { name: 'int', test: /^[-+]?[0-9]+$/, resolve: (s) => parseInt(s, 10) },
  { name: 'intHex', test: /^0x[0-9a-fA-F]+$/, resolve: (s) => parseInt(s.substring(2), 16) },
  {
    name: 'floatNaN',
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    resolve: (s) => (s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY),
  },
  { name: 'floatExp', test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, resolve: (s) => parseFloat(s) },
  { name: 'float', test: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, resolve: (s) => parseFloat(s) },
];

/**
 * The first characters a core-schema scalar that is not a string can start with: `~`, null, true,
 * false (in the cases the tags allow), a sign, a digit, or `.` (`.inf`, `.5`); the empty scalar is
 * null. test/manifest/core-scalar-filter.test.ts checks no tag matches another first character.
 */
export const CORE_SCALAR_FIRST_CHARS = '~NnTtFf+-.0123456789';
const MAY_START_CORE_SCALAR: readonly boolean[] = Array.from({ length: 128 }, (_, c) => CORE_SCALAR_FIRST_CHARS.includes(String.fromCharCode(c)));

/** The core tag that types plain scalar `s`, or undefined when it is a string. */
export function coreScalarTagOf(s: string): CoreScalarTag | undefined {
  // Most plain scalars are names and words: one look at the first character rules them out.
  if (s.length > 0) {
    const c = s.charCodeAt(0);
    if (c >= 128 || !MAY_START_CORE_SCALAR[c]) return undefined;
  }
  for (const tag of CORE_SCALAR_TAGS) if (tag.test.test(s)) return tag;
  return undefined;
}

/** The value of plain scalar `s` under the core schema, or undefined when it is a string. */
export function coreScalarValue(s: string): null | boolean | number | undefined {
  const tag = coreScalarTagOf(s);
  return tag === undefined ? undefined : tag.resolve(s);
}
