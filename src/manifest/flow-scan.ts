/**
 * One scan of the flow collections (`[...]`, `{...}`) of a YAML text, shared by the positioned
 * parse's depth guard (parse-yaml.ts) and the fast parse's "does a flow collection go on over a
 * line break" test (fast-yaml.ts), so that both read quotes and comments the same way.
 *
 * Quoted scalars and comments are skipped; the scan is approximate on purpose (it only has to catch
 * pathological or unusual input before a parser sees it), and linear in the text length.
 */

export interface FlowScanOptions {
  /** Stop at the first `[`/`{` that opens a level deeper than this. */
  maxDepth: number;
  /**
   * Whether a `#` right after a tab starts a comment. The positioned parse's guard says yes (YAML
   * does); the fast parse never sees a tab (it declines any text with one), and its scan said no.
   */
  tabStartsComment: boolean;
  /** Stop at the first line break inside a flow collection (also inside a quoted scalar there). */
  stopAtLineBreakInFlow: boolean;
}

export interface FlowScan {
  /** The offset of the bracket that went deeper than maxDepth. */
  tooDeepAt?: number;
  /** The offset of the first line break inside a flow collection (with stopAtLineBreakInFlow). */
  lineBreakInFlowAt?: number;
  /** The nesting depth where the scan stopped (above zero at the end: a collection left open). */
  depth: number;
}

const QUOTE_MAY_FOLLOW = /[\s[{,:]/;

export function scanFlowCollections(text: string, options: FlowScanOptions): FlowScan {
  const { maxDepth, tabStartsComment, stopAtLineBreakInFlow } = options;
  let depth = 0;
  let quote: '"' | "'" | undefined;
  let prev = '\n';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      else if (c === '\n' && depth > 0 && stopAtLineBreakInFlow) return { lineBreakInFlowAt: i, depth };
      prev = c;
      continue;
    }
    if (c === '#' && (prev === ' ' || prev === '\n' || (prev === '\t' && tabStartsComment))) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      // The line break itself is read next, as any other.
      i = nl - 1;
      prev = ' ';
      continue;
    }
    if (c === '\n' && depth > 0 && stopAtLineBreakInFlow) return { lineBreakInFlowAt: i, depth };
    if ((c === '"' || c === "'") && QUOTE_MAY_FOLLOW.test(prev)) quote = c;
    else if (c === '[' || c === '{') {
      if (++depth > maxDepth) return { tooDeepAt: i, depth };
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
    prev = c;
  }
  return { depth };
}
