/**
 * A fast-parsed file's line index (src/manifest/line-counter.ts) stands in for the `yaml` package's
 * LineCounter, which the positioned parse fills: every diagnostic's line and column, and load.ts's
 * line starts, come from one or the other. They must answer alike for every offset of every text.
 */
import { describe, expect, it } from 'vitest';
import { LineCounter } from 'yaml';
import { lineIndexOf } from '../../src/manifest/line-counter.js';
import { positionOf } from '../../src/manifest/parse-yaml.js';

/** The package's LineCounter as the positioned parse has it after parsing `text`. */
function yamlLineCounter(text: string): LineCounter {
  const lc = new LineCounter();
  lc.addNewLine(0);
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lc.addNewLine(i + 1);
  return lc;
}

const TEXTS = ['', 'a', '\n', '\n\n', 'a: 1\n', 'a: 1\nb: 2', 'a:\n  - x\n\n  - y\n', 'x\r\ny\r\n', '# only a comment\n\n\n', 'é: ü\n日本: 語\n'];

describe('line-counter.ts: the line index of a fast-parsed file', () => {
  it("has the package's line starts and positions for every offset of a text", () => {
    for (const text of TEXTS) {
      const ours = lineIndexOf(text);
      const theirs = yamlLineCounter(text);
      expect(ours.lineStarts, JSON.stringify(text)).toEqual(theirs.lineStarts);
      for (let offset = -2; offset <= text.length + 2; offset++) {
        expect(ours.linePos(offset), `${JSON.stringify(text)} at ${offset}`).toEqual(theirs.linePos(offset));
        expect(positionOf(ours, offset)).toEqual(positionOf(theirs, offset));
      }
    }
  });
});
