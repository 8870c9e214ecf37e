/**
 * One YAML file -> plain JS value with source ranges attached (see source-map.ts), or diagnostics.
 *
 * The file's text is hostile until proven otherwise: binary content, nesting deep enough to exhaust
 * the parser, alias bombs and oversized files must end in a diagnostic, never in an exception, a hang
 * or an out-of-memory crash. Checks that the YAML library cannot survive (flow nesting thousands deep
 * crashes V8 inside its regexp engine) run on the raw text before the library sees it.
 */
import type { Alias, Document, Node } from 'yaml';
import type { LineIndex } from './line-counter.js';
import { yamlLib } from './yaml-lib.js';
import { hasErrors, type Diagnostic, type SourceRange } from '../diag/diagnostic.js';
import { error, warning } from './codes.js';
import { attachFieldSource, attachSource, fieldSourceOf, keySourceOf } from './source-map.js';
import { describeYamlError } from './yaml-errors.js';
import { scanFlowCollections } from './flow-scan.js';

/** The YAML 1.1 merge key, supported because people use it to share service settings. */
const MERGE_KEY = '<<';

export interface ParseLimits {
  /** Deepest nesting of mappings and sequences accepted (a manifest needs about 12). */
  maxDepth: number;
  /** How many alias (`*name`) expansions a file may contain. */
  maxAliases: number;
  /** Upper bound on the number of values built from one file, aliases included. */
  maxNodes: number;
  /**
   * How much source text (bytes) the aliases of a file may expand to in total, beyond the file
   * itself: the larger of this and the file's own length. A 1 MB anchor aliased 98 times would
   * make a 99 MB manifest (and plan) out of a 1 MB file.
   */
  maxAliasExpansionBytes: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxDepth: 64, maxAliases: 100, maxNodes: 500_000, maxAliasExpansionBytes: 1024 * 1024 };

export interface ParsedFile {
  file: string;
  /** The top-level value (undefined when the file could not be parsed or is empty). */
  value: unknown;
  diagnostics: Diagnostic[];
  /** The file's line index: the `yaml` package's LineCounter, or line-counter.ts's for a fast-parsed file. */
  lineCounter: LineIndex;
}

/** Positions of a file: offset -> 1-based line/col. */
export function positionOf(lineCounter: LineIndex, offset: number): { line: number; col: number } {
  const p = lineCounter.linePos(offset);
  return p.line === 0 ? { line: 1, col: offset + 1 } : p;
}

/** Whether text looks binary: a NUL byte or a significant share of replacement characters. */
export function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/**
 * The deepest flow-collection nesting (`[`/`{`) of the text, or the offset where it first exceeds
 * `limit`. Quoted scalars and comments are skipped; the scan is approximate on purpose (it only has
 * to catch pathological input before the parser does), and linear in the text length.
 */
export function findExcessiveFlowNesting(text: string, limit: number): number | undefined {
  return scanFlowCollections(text, { maxDepth: limit, tabStartsComment: true, stopAtLineBreakInFlow: false }).tooDeepAt;
}

/**
 * The offset of the first line whose block nesting (indentation levels, plus the `- ` indicators
 * that open a list item on the line) exceeds `limit`, or undefined. The YAML library recurses once
 * per level and runs out of stack near 900 levels ("Maximum call stack size exceeded"), so a
 * pathological file is refused before it is parsed. Approximate on purpose (block scalars count as
 * one level), and linear in the text length.
 */
export function findExcessiveBlockNesting(text: string, limit: number): number | undefined {
  const indents: number[] = [];
  let lineStart = 0;
  while (lineStart < text.length) {
    let nl = text.indexOf('\n', lineStart);
    if (nl < 0) nl = text.length;
    let i = lineStart;
    while (i < nl && text[i] === ' ') i++;
    const c = text[i];
    if (i < nl && c !== '#' && c !== '\r') {
      const indent = i - lineStart;
      while (indents.length > 0 && indents[indents.length - 1]! > indent) indents.pop();
      if (indents.length === 0 || indents[indents.length - 1]! < indent) indents.push(indent);
      // `- - - x`: each indicator opens one more level on the same line.
      let dashes = 0;
      let j = i;
      while (j + 1 < nl && text[j] === '-' && (text[j + 1] === ' ' || text[j + 1] === '\t')) {
        dashes++;
        j += 2;
        while (j < nl && text[j] === ' ') j++;
      }
      if (indents.length + dashes > limit) return i;
    }
    lineStart = nl + 1;
  }
  return undefined;
}

class TooComplex extends Error {}

/**
 * Runs the YAML library with `process.env` replaced by a plain object holding only the two
 * variables the library reads (its debug switches), restored before returning.
 *
 * Why: the library's parser reads `process.env.LOG_TOKENS` once per token. Node answers each read
 * with getenv(), a linear scan of the whole environment, and a CI job that plans an exported
 * organization has one variable per secret (2,000 for 1,000 services): 300,000 tokens times 2,000
 * variables was most of the parse (2.2 s of a 1 MB file, 0.9 s with the plain object). The parse
 * is synchronous: nothing else runs while the environment is swapped.
 */
function withPlainProcessEnv<T>(parse: () => T): T {
  const real = process.env;
  const plain: NodeJS.ProcessEnv = {};
  for (const name of ['LOG_TOKENS', 'LOG_STREAM']) if (real[name] !== undefined) plain[name] = real[name];
  process.env = plain;
  try {
    return parse();
  } finally {
    process.env = real;
  }
}

/**
 * `built`, when given, receives every mapping and sequence object in the order they are built
 * (depth first, in source order, an alias's copy where the alias is): the fast parse
 * (fast-yaml.ts) builds its objects in the same order, so that the two can be paired when the
 * positions of a fast-parsed file are first asked for (lazy-positions.ts).
 */
export function parseYamlFile(text: string, file: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS, built?: object[]): ParsedFile {
  return parsePositioned(text, file, limits, built);
}

/**
 * The same parse, run by lazy-positions.ts when the positions of a file the fast parse read are
 * first asked for (an export of its own: a count of the loader's parses does not count it).
 */
export function reparseForPositions(text: string, file: string, limits: ParseLimits, built: object[]): ParsedFile {
  return parsePositioned(text, file, limits, built);
}

function parsePositioned(text: string, file: string, limits: ParseLimits, built: object[] | undefined): ParsedFile {
  const { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } = yamlLib();
  const lineCounter = new LineCounter();
  const diagnostics: Diagnostic[] = [];
  const at = (offset: number, endOffset?: number): SourceRange => ({
    file,
    start: positionOf(lineCounter, offset),
    ...(endOffset !== undefined && endOffset > offset ? { end: positionOf(lineCounter, endOffset) } : {}),
  });

  const deepAt = findExcessiveFlowNesting(text, limits.maxDepth) ?? findExcessiveBlockNesting(text, limits.maxDepth);
  if (deepAt !== undefined) {
    // The parser is not run, so compute line/col directly.
    const before = text.slice(0, deepAt);
    const line = before.split('\n').length;
    const col = deepAt - before.lastIndexOf('\n');
    diagnostics.push(
      error('yaml.too-deep', `values are nested deeper than ${limits.maxDepth} levels here`, {
        detail: `A manifest needs about a dozen levels of nesting; ${limits.maxDepth} is the limit. The file was not parsed.`,
        range: { file, start: { line, col } },
      }),
    );
    return { file, value: undefined, diagnostics, lineCounter };
  }

  let doc: Document.Parsed;
  try {
    // uniqueKeys: false -- the library's check is quadratic in the keys of a mapping (40,000 keys: 10 s);
    // duplicates are found below, with a set per mapping.
    doc = withPlainProcessEnv(() => parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false, strict: true }));
  } catch (e) {
    diagnostics.push(error('yaml.unparseable', 'the YAML parser gave up on this file', { detail: 'The file is too complex or malformed to parse.', range: { file, start: { line: 1, col: 1 } } }));
    return { file, value: undefined, diagnostics, lineCounter };
  }
  if (doc.errors.length > 0) {
    // One mistake, one error: the library reports the consequences of a bad line as errors of their
    // own (13 for one line indented too deep); the first one, in file order, is the mistake.
    const first = doc.errors.reduce((a, b) => (b.pos[0] < a.pos[0] ? b : a));
    const d = describeYamlError(first, text, lineCounter.lineStarts);
    // A key written twice before the syntax error is a mistake of its own, and the part of the
    // document before the error was read as written.
    for (const dup of duplicateKeysBefore(doc, d.start)) {
      diagnostics.push(duplicateKeyError(dup.key, dup.first !== undefined ? positionOf(lineCounter, dup.first).line : undefined, at(dup.range[0], dup.range[1])));
    }
    diagnostics.push(error(d.code as `yaml.${string}`, d.summary, { ...(d.detail ? { detail: d.detail } : {}), range: at(d.start, d.end) }));
    return { file, value: undefined, diagnostics, lineCounter };
  }
  // Parser warnings (an unknown tag such as `!Ref`, whose value silently becomes a plain string).
  for (const w of doc.warnings) {
    diagnostics.push(warning(`yaml.${w.code.toLowerCase().replace(/_/g, '-')}`, firstLine(w.message), { range: at(w.pos[0], w.pos[1]) }));
  }

  /** Built at the first alias: most manifests have none, and the walk is a whole-document one. */
  let aliasTargets: Map<Alias, Node> | undefined;
  let aliases = 0;
  let nodes = 0;
  /** Source bytes copied by alias expansion so far, against the budget. */
  let expanded = 0;
  const expansionBudget = Math.max(limits.maxAliasExpansionBytes, text.length);
  const build = (node: Node | null | undefined, depth: number, fallback: SourceRange): { value: unknown; range: SourceRange } => {
    if (++nodes > limits.maxNodes) throw new TooComplex(`more than ${limits.maxNodes} values`);
    if (depth > limits.maxDepth) {
      diagnostics.push(
        error('yaml.too-deep', `values are nested deeper than ${limits.maxDepth} levels here`, {
          detail: `A manifest needs about a dozen levels of nesting; ${limits.maxDepth} is the limit.`,
          range: fallback,
        }),
      );
      throw new TooComplex('');
    }
    if (node === null || node === undefined) return { value: null, range: fallback };
    const range = node.range ? at(node.range[0], node.range[1]) : fallback;
    if (isAlias(node)) {
      if (++aliases > limits.maxAliases) {
        diagnostics.push(
          error('yaml.too-many-aliases', `more than ${limits.maxAliases} alias references (*name)`, {
            detail: 'Anchors and aliases are allowed, but this many expansions looks like an alias bomb.',
            range,
          }),
        );
        throw new TooComplex('');
      }
      aliasTargets ??= resolveAliases(doc);
      const target = aliasTargets.get(node);
      if (!target) {
        diagnostics.push(error('yaml.unknown-alias', `alias *${node.source} refers to no anchor`, { range }));
        return { value: null, range };
      }
      if (target.range) expanded += target.range[1] - target.range[0];
      if (expanded > expansionBudget) {
        diagnostics.push(
          error('yaml.alias-expansion', `the aliases of this file expand to more than ${formatSize(expansionBudget)} of YAML`, {
            detail: `Each *${node.source} copies the anchored value; together the aliases would multiply the manifest (and every plan made from it). The limit is the larger of the file's own size and ${formatSize(limits.maxAliasExpansionBytes)}: repeat less through aliases, or split the file.`,
            range,
          }),
        );
        throw new TooComplex('');
      }
      // The value is the anchored node's, located where the alias is written.
      return { value: build(target, depth + 1, range).value, range };
    }
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === 'bigint') return { value: Number(v), range };
      if (v instanceof Uint8Array) {
        diagnostics.push(error('yaml.binary-value', 'binary (!!binary) values are not allowed in a manifest', { range }));
        return { value: null, range };
      }
      return { value: v === undefined ? null : v, range };
    }
    if (isMap(node)) {
      const obj: Record<string, unknown> = {};
      built?.push(obj);
      attachSource(obj, range);
      const merges: Array<{ value: unknown; range: SourceRange }> = [];
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const keyRange = keyNode && keyNode.range ? at(keyNode.range[0], keyNode.range[1]) : range;
        if (!isScalar(keyNode) || (keyNode.value !== null && typeof keyNode.value === 'object')) {
          diagnostics.push(error('yaml.complex-key', 'mapping keys must be plain strings', { range: keyRange }));
          continue;
        }
        const key = String(keyNode.value);
        if (key !== MERGE_KEY && Object.prototype.hasOwnProperty.call(obj, key)) {
          diagnostics.push(duplicateKeyError(key, keySourceOf(obj, key)?.start.line, keyRange));
          continue;
        }
        const built = build(pair.value as Node | null, depth + 1, keyRange);
        if (key === MERGE_KEY) {
          merges.push({ value: built.value, range: built.range });
          continue;
        }
        // A key named `__proto__` must stay an ordinary (and invalid) key: defineProperty, not the
        // setter that assignment would call. Every other key is assigned (defineProperty on every
        // key was a tenth of the load time of a large manifest).
        if (key === '__proto__') Object.defineProperty(obj, key, { value: built.value, enumerable: true, writable: true, configurable: true });
        else obj[key] = built.value;
        attachFieldSource(obj, key, built.range, keyRange);
      }
      applyMerges(obj, merges);
      return { value: obj, range };
    }
    if (isSeq(node)) {
      const arr: unknown[] = [];
      built?.push(arr);
      attachSource(arr, range);
      node.items.forEach((item, i) => {
        const built = build(item as Node | null, depth + 1, range);
        arr.push(built.value);
        attachFieldSource(arr, String(i), built.range);
      });
      return { value: arr, range };
    }
    return { value: null, range };
  };

  /**
   * `<<: *defaults` (or `<<: [*a, *b]`): the keys of the merged mappings that the mapping does not set
   * itself, earlier merges first, as YAML 1.1 merge keys do. Their sources stay where they were
   * written, so an error in a merged value points at the anchor.
   */
  const applyMerges = (obj: Record<string, unknown>, merges: Array<{ value: unknown; range: SourceRange }>) => {
    for (const m of merges) {
      const sources = Array.isArray(m.value) ? m.value : [m.value];
      for (const src of sources) {
        if (src === null || typeof src !== 'object' || Array.isArray(src)) {
          diagnostics.push(error('yaml.bad-merge', 'a merge key (<<) takes a mapping or a list of mappings', { detail: 'Write `<<: *anchor` where the anchor names a mapping.', range: m.range }));
          continue;
        }
        for (const k of Object.keys(src)) {
          if (Object.prototype.hasOwnProperty.call(obj, k)) continue;
          Object.defineProperty(obj, k, { value: (src as Record<string, unknown>)[k], enumerable: true, writable: true, configurable: true });
          const from = fieldSourceOf(src, k);
          if (from) attachFieldSource(obj, k, from, keySourceOf(src, k));
        }
      }
    }
  };

  try {
    const top = build(doc.contents as Node | null, 0, { file, start: { line: 1, col: 1 } });
    return { file, value: doc.contents === null ? undefined : top.value, diagnostics: onePerPlace(diagnostics), lineCounter };
  } catch (e) {
    if (!(e instanceof TooComplex) && !(e instanceof RangeError)) throw e;
    if (!hasErrors(diagnostics)) {
      diagnostics.push(error('yaml.too-complex', 'the file holds too many values', { detail: e.message || undefined, range: { file, start: { line: 1, col: 1 } } }));
    }
    return { file, value: undefined, diagnostics, lineCounter };
  }
}

function duplicateKeyError(key: string, firstLine: number | undefined, range: SourceRange): Diagnostic {
  return error('yaml.duplicate-key', `key \`${key}\` is written twice in the same mapping${firstLine !== undefined ? ` (first on line ${firstLine})` : ''}`, {
    detail: 'The second would silently replace the first: keep one.',
    range,
  });
}

/** Keys written twice in a mapping of a document that failed to parse, before offset `limit`. */
function duplicateKeysBefore(doc: Document.Parsed, limit: number): Array<{ key: string; first?: number; range: [number, number] }> {
  const { isScalar, visit } = yamlLib();
  const found: Array<{ key: string; first?: number; range: [number, number] }> = [];
  visit(doc, {
    Map: (_key, map) => {
      const seen = new Map<string, number | undefined>();
      for (const pair of map.items) {
        const k = pair.key;
        if (!isScalar(k) || !k.range || k.range[0] >= limit) continue;
        const name = String(k.value);
        if (name !== MERGE_KEY && seen.has(name)) found.push({ key: name, first: seen.get(name), range: [k.range[0], k.range[1]] });
        else seen.set(name, k.range[0]);
      }
    },
  });
  return found;
}

/**
 * The node each alias of the document refers to: the last node anchored with its name before it,
 * as YAML defines it. One walk of the document; the library's `Alias.resolve` walks the whole
 * document once per alias (100 aliases in a 2 MB file: 100 walks).
 */
function resolveAliases(doc: Document.Parsed): Map<Alias, Node> {
  const { isAlias, isNode, visit } = yamlLib();
  const current = new Map<string, Node>();
  const targets = new Map<Alias, Node>();
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) {
        const t = current.get(node.source);
        if (t) targets.set(node, t);
      } else if (isNode(node) && node.anchor) current.set(node.anchor, node);
    },
  });
  return targets;
}

/** An anchored mapping is built once per alias: a mistake inside it is still one error. */
function onePerPlace(diags: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diags.filter((d) => {
    const k = `${d.code}|${d.summary}|${d.range ? `${d.range.start.line}:${d.range.start.col}` : ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function formatSize(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}
