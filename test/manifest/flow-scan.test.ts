import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanFlowCollections } from '../../src/manifest/flow-scan.js';
import { findExcessiveFlowNesting } from '../../src/manifest/parse-yaml.js';

const deep = { maxDepth: 2, tabStartsComment: true, stopAtLineBreakInFlow: false };
const multiline = { maxDepth: Infinity, tabStartsComment: false, stopAtLineBreakInFlow: true };

describe('the flow-collection scan shared by the positioned and the fast parse', () => {
  it('finds the bracket that goes deeper than the limit, skipping quotes and comments', () => {
    expect(scanFlowCollections('a: [[[x]]]\n', deep).tooDeepAt).toBe(5);
    expect(scanFlowCollections('a: "[[[" # [[[\nb: [[x]]\n', deep).tooDeepAt).toBeUndefined();
    expect(findExcessiveFlowNesting('a: [[[x]]]\n', 2)).toBe(5);
  });

  it('reads a # after a tab as a comment only when told to', () => {
    const text = 'a: x\t# [[[\n';
    expect(scanFlowCollections(text, deep).tooDeepAt).toBeUndefined();
    expect(scanFlowCollections(text, { ...deep, tabStartsComment: false }).tooDeepAt).toBe(9);
  });

  it('stops at a line break inside a flow collection, also inside a quoted scalar there', () => {
    expect(scanFlowCollections('a: [x,\n  y]\n', multiline).lineBreakInFlowAt).toBe(6);
    expect(scanFlowCollections('a: ["x\n  y"]\n', multiline).lineBreakInFlowAt).toBe(6);
    expect(scanFlowCollections('a: [x, y] # [\nb: "\n"\n', multiline)).toEqual({ depth: 0 });
    expect(scanFlowCollections('a: [x, y\n', { ...multiline, stopAtLineBreakInFlow: false }).depth).toBe(1);
  });

  it('reads every text as the character-by-character scan it replaced', () => {
    /** The scan as the two copies wrote it, on one-character strings. */
    const reference = (text: string, o: { maxDepth: number; tabStartsComment: boolean; stopAtLineBreakInFlow: boolean }) => {
      let depth = 0;
      let quote: string | undefined;
      let prev = '\n';
      for (let i = 0; i < text.length; i++) {
        const c = text[i]!;
        if (quote) {
          if (c === '\\' && quote === '"') i++;
          else if (c === quote) quote = undefined;
          else if (c === '\n' && depth > 0 && o.stopAtLineBreakInFlow) return { lineBreakInFlowAt: i, depth };
          prev = c;
          continue;
        }
        if (c === '#' && (prev === ' ' || prev === '\n' || (prev === '\t' && o.tabStartsComment))) {
          const nl = text.indexOf('\n', i);
          if (nl < 0) break;
          i = nl - 1;
          prev = ' ';
          continue;
        }
        if (c === '\n' && depth > 0 && o.stopAtLineBreakInFlow) return { lineBreakInFlowAt: i, depth };
        if ((c === '"' || c === "'") && /[\s[{,:]/.test(prev)) quote = c;
        else if (c === '[' || c === '{') {
          if (++depth > o.maxDepth) return { tooDeepAt: i, depth };
        } else if ((c === ']' || c === '}') && depth > 0) depth--;
        prev = c;
      }
      return { depth };
    };
    const chars = fc.constantFrom('[', ']', '{', '}', '"', "'", '\\', '#', ' ', '\t', '\n', ',', ':', 'a', '\u00a0', '\u3000', '\u00e9');
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 60 }), fc.integer({ min: 0, max: 4 }), fc.boolean(), fc.boolean(), (cs, maxDepth, tabStartsComment, stopAtLineBreakInFlow) => {
        const text = cs.join('');
        const o = { maxDepth, tabStartsComment, stopAtLineBreakInFlow };
        expect(scanFlowCollections(text, o)).toEqual(reference(text, o));
      }),
      { numRuns: 3000 },
    );
  });
});

