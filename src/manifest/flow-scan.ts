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
const NL = 0x0a;
const TAB = 0x09;
const SPACE = 0x20;
const HASH = 0x23;
const DQ = 0x22;
const SQ = 0x27;
const BACKSLASH = 0x5c;

/** Whether a quote after the character `code` opens a quoted scalar (QUOTE_MAY_FOLLOW, without a string per character). */
function quoteMayFollow(code: number): boolean {
  if (code === SPACE || code === 0x5b || code === 0x7b || code === 0x2c || code === 0x3a || (code >= TAB && code <= 0x0d)) return true;
  return code >= 0x80 && QUOTE_MAY_FOLLOW.test(String.fromCharCode(code));
}

export function scanFlowCollections(text: string, options: FlowScanOptions): FlowScan {
  const { maxDepth, tabStartsComment, stopAtLineBreakInFlow } = options;
  let depth = 0;
  /** The quote character of the quoted scalar the scan is in, or 0. */
  let quote = 0;
  let prev = NL;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === BACKSLASH && quote === DQ) i++;
      else if (c === quote) quote = 0;
      else if (c === NL && depth > 0 && stopAtLineBreakInFlow) return { lineBreakInFlowAt: i, depth };
      prev = c;
      continue;
    }
    if (c === HASH && (prev === SPACE || prev === NL || (prev === TAB && tabStartsComment))) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      // The line break itself is read next, as any other.
      i = nl - 1;
      prev = SPACE;
      continue;
    }
    if (c === NL && depth > 0 && stopAtLineBreakInFlow) return { lineBreakInFlowAt: i, depth };
    if ((c === DQ || c === SQ) && quoteMayFollow(prev)) quote = c;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return { tooDeepAt: i, depth };
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
    prev = c;
  }
  return { depth };
}
