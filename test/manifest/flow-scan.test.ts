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
});
