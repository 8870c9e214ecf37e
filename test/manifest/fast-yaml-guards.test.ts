/**
 * Two of the fast parse's guards (src/manifest/fast-yaml.ts) were rewritten for speed (issue 21):
 * the unsupported-syntax pattern, split into one pattern per alternative tried only when the text
 * holds a character it needs, and the unbalanced-brackets scan, jumping from bracket to bracket.
 * The fast parse declines a text on their answer, so each must answer as the code it replaced,
 * kept here as the reference, on every text: the examples, their random edits, and generated
 * YAML-like texts rich in the characters the guards look at (fixed seeds).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasUnbalancedLine, hasUnsupportedSyntax, withoutComments } from '../../src/manifest/fast-yaml.js';

/** The pattern as it was: one alternation. */
const REFERENCE_SYNTAX = /^%|(?:^|[\s[{,:])[!@`]|(?:^|[\s[{,])\?(?:\s|$)|^(?:---|\.\.\.)(?:\s|$)|[\]}][ \t]*:(?:\s|$)|["'\]}]#|^[ \t]*-[ \t]+(?:-[ \t]+)*-[ \t]*$/m;

/** The scan as it was: every character. */
function referenceUnbalanced(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x0a && depth !== 0) return true;
  }
  return depth !== 0;
}

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = ['examples/minimal/driftless.yaml', 'examples/realistic/organization.yaml', 'examples/realistic/alerts.yaml', 'examples/realistic/shop.yaml'].map((f) => readFileSync(resolve(ROOT, f), 'utf8'));

/** The characters the guards look at, and some others, in runs. */
const PIECES = ['\n', ' ', '  ', '\t', '-', '- ', '- - ', '--- ', '---', '...', '.', '%', '!', '@', '`', '?', '? ', ':', ': ', ',', '[', ']', '{', '}', '"', "'", '#', ' #', 'a', 'key', 'x: 1', '\n  ', '\n- '];
const yamlish = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((p) => p.join(''));
const anyText = fc.string({ unit: 'binary', maxLength: 60 });

/** A random edit of an example: a piece inserted, a span deleted or replaced. */
const edited = fc
  .tuple(fc.constantFrom(...EXAMPLES), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 30 }), fc.constantFrom(...PIECES, '')), { minLength: 1, maxLength: 4 }))
  .map(([text, edits]) => edits.reduce((t, [at, len, piece]) => {
    const i = at % (t.length + 1);
    return t.slice(0, i) + piece + t.slice(i + len);
  }, text));

function expectSameAnswers(text: string): void {
  const uncommented = withoutComments(text);
  expect(hasUnsupportedSyntax(uncommented), JSON.stringify(text)).toBe(REFERENCE_SYNTAX.test(uncommented));
  expect(hasUnbalancedLine(text), JSON.stringify(text)).toBe(referenceUnbalanced(text));
}

describe("the fast parse's rewritten guards answer as the code they replaced", () => {
  it('on the examples', () => {
    for (const text of EXAMPLES) expectSameAnswers(text);
  });

  it('on generated texts and random edits of the examples (fixed seeds)', () => {
    const seen = { syntax: [0, 0], unbalanced: [0, 0] };
    for (const [arb, seed, runs] of [[yamlish, 1, 20_000], [anyText, 2, 5_000], [edited, 3, 3_000]] as const) {
      for (const text of fc.sample(arb as fc.Arbitrary<string>, { numRuns: runs, seed })) {
        expectSameAnswers(text);
        seen.syntax[REFERENCE_SYNTAX.test(withoutComments(text)) ? 1 : 0]!++;
        seen.unbalanced[referenceUnbalanced(text) ? 1 : 0]!++;
      }
    }
    // Both answers were met often: the comparison covered both sides of each guard.
    for (const [yes, no] of [seen.syntax, seen.unbalanced].map(([n, y]) => [y!, n!])) {
      expect(yes).toBeGreaterThan(1000);
      expect(no).toBeGreaterThan(1000);
    }
  });

  it('on each alternative of the pattern alone, at the start, middle and end of a line', () => {
    for (const hit of ['%YAML', '!tag', ' @x', ':`x', ',!x', '? x', '[? x', '---', '--- x', '...', '] :', '}: x', '"a"#', "'a'#", ']#', '- -', '  - - -', '-\t-']) {
      for (const text of [hit, `a\n${hit}\nb`, `a\n${hit}`, `x ${hit}`, `${hit} x`]) expectSameAnswers(text);
    }
  });
});
