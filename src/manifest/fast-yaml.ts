/**
 * The fast parse of a manifest file: plain values without source positions, or "declined".
 *
 * Why: the YAML library's document parse (parse-yaml.ts) builds a node with a source range for every
 * value, which was most of the time of loading a large manifest (issue 21); a run without a
 * diagnostic never looks at most of those positions. js-yaml builds plain values about ten times
 * faster. The positions are then built only when something first asks for one (lazy-positions.ts),
 * by the positioned parse of that one file.
 *
 * The fast parse must give exactly the values the positioned parse gives (the `yaml` package's YAML
 * 1.2 core schema, parse-yaml.ts's merge keys, aliases and limits), or decline. It declines whenever
 * the two could differ, judged on the text before parsing and on what js-yaml saw:
 * - anything that makes the positioned parse report (a syntax error, a duplicate key, a bad merge,
 *   a limit: js-yaml throws, or the text is near a limit) -- the positioned parse reports it;
 * - tags (`!`), directives, document markers (`---`, `...`), explicit (`?`) or collection keys,
 *   aliases used as keys, integer-like keys (a JS object orders them first, not in source order),
 *   tabs, carriage returns, control characters and byte order marks, lines over 1024 characters
 *   (the positioned parse's limit on an implicit key), flow collections over several lines;
 * - an anchored value that contains an alias (the two libraries resolve such a self-reference
 *   differently), or aliases whose expansion could reach the parse limits.
 * Plain scalars are typed by core-scalars.ts, a copy of the `yaml` package's core-schema tags (the
 * same tests, in the same order, with the same resolve expressions; test/manifest/core-scalars.test.ts
 * compares them), so a typing difference (YAML 1.1 booleans, `1_000`, `-.5`, `0o17`, `.inf`) cannot
 * arise, and a file the fast parse accepts loads none of the package.
 * test/manifest/fast-yaml.property.test.ts checks over generated manifests that an accepted file
 * gives the positioned parse's values, deep-equal.
 */
import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml';
import { coreScalarTagOf, type CoreScalarTag } from './core-scalars.js';
import { scanFlowCollections } from './flow-scan.js';
import { findExcessiveBlockNesting, type ParseLimits } from './parse-yaml.js';

export { CORE_SCALAR_FIRST_CHARS } from './core-scalars.js';

/** What the fast parse built: the value, and every mapping and sequence in build order (parse-yaml.ts's order). */
export interface FastParsed {
  value: unknown;
  objects: object[];
}

/** js-yaml constructs the scalar it has just resolved: the tag `resolve` found, for `construct`. */
let resolvedData: string | undefined;
let resolvedTag: CoreScalarTag | undefined;

/** A plain scalar that is not a string: typed exactly as the positioned parse types it. */
const plainScalar = new Type('tag:driftless,2026:plain', {
  kind: 'scalar',
  resolve: (data: unknown) => {
    if (typeof data !== 'string') return false;
    resolvedData = data;
    resolvedTag = coreScalarTagOf(data);
    return resolvedTag !== undefined;
  },
  construct: (data: string) => (resolvedData === data ? resolvedTag : coreScalarTagOf(data))!.resolve(data),
});

/** Strings, sequences and mappings, plus the core schema's plain scalars: no merge type, no tags. */
const SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: [plainScalar] });

const MERGE_KEY = '<<';
/** Characters whose handling differs between the libraries or that the positioned parse reports on. */
const UNSUPPORTED_CHARS = /[\x00-\x09\x0B-\x1F\x7F-\x9F\uFEFF\u2028\u2029\uFFFE\uFFFF]/;
/**
 * A tag, a directive, a reserved indicator, an explicit key, a document marker, a collection as a
 * key, a `#` right after a quoted value or a collection (an error for the positioned parse, a comment
 * for js-yaml), an empty entry of a list in a list (`- -`: js-yaml takes the next entry into the
 * inner list). One pattern each, tried only when the text holds a character the pattern needs:
 * their alternation in one expression was 25 ms of a 2 MB text, tried at every position
 * (test/manifest/fast-yaml-guards.test.ts compares the two).
 */
const UNSUPPORTED_SYNTAX: ReadonlyArray<{ needs?: RegExp | string; pattern: RegExp }> = [
  { needs: '%', pattern: /^%/m },
  { needs: /[!@`]/, pattern: /(?:^|[\s[{,:])[!@`]/m },
  { needs: '?', pattern: /(?:^|[\s[{,])\?(?:\s|$)/m },
  { needs: /---|\.\.\./, pattern: /^(?:---|\.\.\.)(?:\s|$)/m },
  { pattern: /[\]}][ \t]*:(?:\s|$)/m },
  { needs: '#', pattern: /["'\]}]#/m },
  { pattern: /^[ \t]*-[ \t]+(?:-[ \t]+)*-[ \t]*$/m },
];

/** Whether the text (its comments cut off) has any of UNSUPPORTED_SYNTAX. */
export function hasUnsupportedSyntax(uncommented: string): boolean {
  for (const { needs, pattern } of UNSUPPORTED_SYNTAX) {
    if (needs !== undefined && (typeof needs === 'string' ? !uncommented.includes(needs) : !needs.test(uncommented))) continue;
    if (pattern.test(uncommented)) return true;
  }
  return false;
}
/** An array index as a key: a JS object lists it first, so build order would not be source order. */
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/** The fast parse of `text`, or undefined when it declines (the positioned parse decides). */
export function fastParseYaml(text: string, limits: ParseLimits): FastParsed | undefined {
  if (UNSUPPORTED_CHARS.test(text) || hasUnsupportedSyntax(withoutComments(text))) return undefined;
  if (findExcessiveBlockNesting(text, limits.maxDepth) !== undefined) return undefined;
  if (hasLongLine(text) || hasDeepOrMultilineFlow(text, limits.maxDepth)) return undefined;
  // An anchor name with a colon (`&name: value`): the positioned parse reports it.
  if (/&[^\s[\]{},]*:/.test(text)) return undefined;
  // An anchor before a key on its line (`&a key: v`, `k: &a x:`): js-yaml may read a mapping where
  // the positioned parse reports an implicit key it does not allow.
  if (/&[^\s[\]{},]+[ \t][^\n]*:(?:[ \t]|$)/m.test(text)) return undefined;
  // An anchor right before a flow indicator (`&a{...}`, `&a$[x]`), or an alias right before an opening
  // one: js-yaml ends the name there and reads on; the positioned parse reports that an anchor must be
  // separated from the next token by white space (found by the property test's random edits).
  if (/&[^\s[\]{},]+[[\]{},]|\*[^\s[\]{},]+[[{]/.test(text)) return undefined;
  const aliases = countAliasCandidates(text);
  if (aliases === undefined || aliases > limits.maxAliases) return undefined;

  // The source span of each anchored value (an upper bound: from where js-yaml opened the node to
  // where it closed it), and whether one holds an alias.
  let maxAnchoredSpan = 0;
  let aliasInAnchor = false;
  const opened: number[] = [];
  /** The anchored collections: js-yaml gives the same object at the anchor and at each alias. */
  const anchored = new Set<unknown>();
  const listener = (event: 'open' | 'close', state: { position: number; anchor: string | null; result: unknown }) => {
    if (event === 'open') {
      opened.push(state.position);
      return;
    }
    const from = opened.pop() ?? 0;
    if (state.anchor === null) return;
    if (state.result !== null && typeof state.result === 'object') anchored.add(state.result);
    maxAnchoredSpan = Math.max(maxAnchoredSpan, state.position - from);
    const star = text.indexOf('*', from);
    if (star >= 0 && star < state.position) aliasInAnchor = true;
  };

  let loaded: unknown;
  try {
    let warned = false;
    // Without a `&` the text has no anchor, and the listener (two calls per node) would note nothing.
    const anchors = text.includes('&');
    loaded = load(text, { schema: SCHEMA, ...(anchors ? { listener } : {}), onWarning: () => (warned = true), maxDepth: limits.maxDepth + 2 });
    if (warned) return undefined;
  } catch {
    return undefined;
  }
  if (aliasInAnchor) return undefined;
  if (aliases > 0 && aliases * maxAnchoredSpan > Math.max(limits.maxAliasExpansionBytes, text.length)) return undefined;

  const objects: object[] = [];
  let nodes = 0;
  let deepest = 0;
  let declined = false;
  // parse-yaml.ts's build, on js-yaml's values: a fresh copy at each alias (js-yaml shares the
  // anchored object), merge keys applied after the mapping's own keys. A collection that is not
  // anchored, nor inside an anchored one, is reached once: it is kept and changed in place rather
  // than copied (a copy of every object of a large file was most of the parse's garbage).
  const build = (v: unknown, depth: number, copy: boolean): unknown => {
    nodes++;
    if (depth > deepest) deepest = depth;
    if (v === null || typeof v !== 'object') return v;
    const fresh = copy || anchored.has(v);
    if (Array.isArray(v)) {
      const arr: unknown[] = fresh ? [] : v;
      objects.push(arr);
      for (let i = 0; i < v.length; i++) {
        const x = build(v[i], depth + 1, fresh);
        if (fresh) arr.push(x);
        else if (x !== v[i]) arr[i] = x;
      }
      return arr;
    }
    const src = v as Record<string, unknown>;
    const obj: Record<string, unknown> = fresh ? {} : src;
    objects.push(obj);
    let merges: unknown[] | undefined;
    for (const key of Object.keys(src)) {
      // An empty key and `null` both come out of js-yaml as "null"; the positioned parse refuses the first.
      if (INDEX_KEY.test(key) || key === 'null') declined = true;
      const raw = src[key];
      const value = build(raw, depth + 1, fresh);
      if (key === MERGE_KEY) (merges ??= []).push(value);
      else if (!fresh && value === raw) continue;
      else if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
      else obj[key] = value;
    }
    if (merges === undefined) return obj;
    // Kept in place, the mapping still holds its merge key: its own keys stay in order without it.
    if (!fresh) delete obj[MERGE_KEY];
    for (const m of merges) {
      for (const from of Array.isArray(m) ? m : [m]) {
        if (from === null || typeof from !== 'object' || Array.isArray(from)) {
          declined = true;
          continue;
        }
        for (const k of Object.keys(from)) {
          if (Object.prototype.hasOwnProperty.call(obj, k)) continue;
          Object.defineProperty(obj, k, { value: (from as Record<string, unknown>)[k], enumerable: true, writable: true, configurable: true });
        }
      }
    }
    return obj;
  };
  const value = build(loaded, 0, false);
  // An alias adds a level where it is written, and each is one more value built.
  if (declined || deepest + 1 > limits.maxDepth || nodes + aliases > limits.maxNodes) return undefined;
  return { value, objects };
}

/**
 * The text with each line cut at its comment (a `#` at the line's start or after a space), so that
 * the prose of comments (`run \`driftless plan\`!`) does not look like a tag or an indicator. A `#`
 * inside quotes cuts too early: what it hides is a tag after a quoted value on the same line, which
 * js-yaml refuses unless it is `!!str`, `!!seq` or `!!map`, read alike by both libraries.
 */
export function withoutComments(text: string): string {
  return text.replace(/(^|[ \t])#[^\n]*/gm, '$1');
}

function hasLongLine(text: string): boolean {
  let start = 0;
  while (start < text.length) {
    let nl = text.indexOf('\n', start);
    if (nl < 0) nl = text.length;
    if (nl - start > 1024) return true;
    start = nl + 1;
  }
  return false;
}

/**
 * How many `*name` the text could hold (every `*` followed by a name character: an over-count, so
 * that the true number of aliases is at most this), or undefined when one could be a mapping key or
 * its name has a colon.
 */
function countAliasCandidates(text: string): number | undefined {
  let n = 0;
  for (let i = text.indexOf('*'); i >= 0; i = text.indexOf('*', i + 1)) {
    let j = i + 1;
    while (j < text.length && !/[\s[\]{},]/.test(text[j]!)) j++;
    if (j === i + 1) continue;
    n++;
    if (text.slice(i + 1, j).includes(':')) return undefined;
    while (text[j] === ' ') j++;
    if (text[j] === ':') return undefined;
  }
  return n;
}

/**
 * Whether a flow collection (`[...]`, `{...}`) is nested deeper than the positioned parse allows
 * (parse-yaml.ts's findExcessiveFlowNesting, the same scan) or may go on over a line break
 * (indentation rules inside them differ between the libraries): twice, once skipping quotes and
 * comments (flow-scan.ts), once counting every bracket (a quote the first scan misreads cannot hide
 * one from both). The text has no tab here, so where a `#` after a tab starts a comment is moot.
 */
function hasDeepOrMultilineFlow(text: string, maxDepth: number): boolean {
  const scan = scanFlowCollections(text, { maxDepth, tabStartsComment: false, stopAtLineBreakInFlow: true });
  return scan.tooDeepAt !== undefined || scan.lineBreakInFlowAt !== undefined || scan.depth > 0 || hasUnbalancedLine(text);
}

/**
 * Whether a line break falls where the brackets so far do not balance (as many `[` and `{` as `]`
 * and `}`), or the text ends so: brackets counted wherever they are, quotes and comments included. Jumps from
 * bracket to bracket (a 2 MB manifest holds some 60,000 of them) rather than looking at each of its
 * two million characters.
 */
export function hasUnbalancedLine(text: string): boolean {
  const bracket = /[[\]{}]/g;
  let depth = 0;
  let openedAt = 0;
  for (let m = bracket.exec(text); m !== null; m = bracket.exec(text)) {
    const c = text.charCodeAt(m.index);
    const before = depth;
    depth += c === 0x5b || c === 0x7b ? 1 : -1;
    if (before === 0) openedAt = m.index;
    else if (depth === 0) {
      // Closed again: a line break between the bracket that unbalanced the count and this one.
      const nl = text.indexOf('\n', openedAt);
      if (nl >= 0 && nl < m.index) return true;
    }
  }
  return depth !== 0;
}
