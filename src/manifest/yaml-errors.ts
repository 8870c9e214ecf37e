/**
 * YAML syntax errors in the manifest's terms.
 *
 * The YAML library reports what its grammar expected ("Nested mappings are not allowed in compact
 * mappings", "Implicit keys need to be on a single line"), often at the place where it noticed the
 * problem rather than where it was made (the end of an unclosed quote, the value of the line above
 * a line indented too deep). This module turns the library's first error of a file into one
 * diagnostic that says, in words a manifest author knows (key, value, indentation, quote), what is
 * wrong, where the mistake is, and how to fix it. Pure: the file text and the error in, a
 * description out.
 */

/**
 * A value of the line, repeated in advice only when it is short: a file that does not parse has no
 * known secret positions to hide, and this text reaches annotations and pull-request comments.
 */
function echo(text: string, otherwise: string): string {
  return text.length <= 32 ? text : otherwise;
}
import type { YAMLError } from 'yaml';

export interface DescribedYamlError {
  /** `yaml.` followed by the library's code, dashed: stable across wording changes. */
  code: string;
  summary: string;
  detail?: string;
  /** 0-based offsets of the mistake in the text (end exclusive). */
  start: number;
  end?: number;
}

/** The text of a file with line access, 1-based lines. */
interface Lines {
  text: string;
  starts: readonly number[];
}

function lineOf(l: Lines, offset: number): number {
  // Binary search for the last line start <= offset.
  let lo = 0;
  let hi = l.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (l.starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function lineText(l: Lines, line: number): string {
  const from = l.starts[line - 1];
  if (from === undefined) return '';
  const next = l.starts[line];
  return l.text.slice(from, next === undefined ? undefined : next - 1).replace(/\r$/, '');
}

const indentOf = (s: string) => s.length - s.trimStart().length;
const isContent = (s: string) => s.trim() !== '' && !s.trimStart().startsWith('#');

/** The first line at or after `line` that holds YAML content (not blank, not only a comment). */
function contentLineFrom(l: Lines, line: number): number | undefined {
  for (let n = line; n <= l.starts.length; n++) if (isContent(lineText(l, n))) return n;
  return undefined;
}

/** The last content line before `line`. */
function contentLineBefore(l: Lines, line: number): number | undefined {
  for (let n = line - 1; n >= 1; n--) if (isContent(lineText(l, n))) return n;
  return undefined;
}

/** Offset of the first non-space character of a line. */
function firstCharOffset(l: Lines, line: number): number {
  return l.starts[line - 1]! + indentOf(lineText(l, line));
}

/** Where the key of a line starts (after `- ` sequence indicators), 0-based column, and the key. */
function keyOfLine(s: string): { col: number; key?: string } {
  const m = /^(\s*(?:-\s+)*)([^\s#:][^:]*?):(?:\s|$)/.exec(s);
  if (!m) return { col: indentOf(s.replace(/^(\s*)(-\s+)+/, (_, a: string, b: string) => a + ' '.repeat(b.length))) };
  return { col: m[1]!.length, key: m[2]!.trim() };
}

/**
 * Columns (1-based) a line could be indented to, to continue one of the mappings it sits in: the
 * key columns of the enclosing lines above, nearest first.
 */
function enclosingKeyColumns(l: Lines, line: number): number[] {
  const cols: number[] = [];
  let limit = Infinity;
  for (let n = line - 1; n >= 1 && limit > 0; n--) {
    const s = lineText(l, n);
    if (!isContent(s)) continue;
    const indent = indentOf(s);
    if (indent >= limit) continue;
    const k = keyOfLine(s);
    if (k.key !== undefined && !cols.includes(k.col + 1)) cols.push(k.col + 1);
    limit = indent;
  }
  return cols;
}

/** The last `[` / `{` before `offset` that is not closed before it (quotes and comments ignored roughly). */
function unclosedOpener(text: string, offset: number, open: '[' | '{'): number | undefined {
  const close = open === '[' ? ']' : '}';
  let depth = 0;
  for (let i = Math.min(offset, text.length) - 1; i >= 0; i--) {
    const c = text[i];
    if (c === close) depth++;
    else if (c === open) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return undefined;
}

/** The quote that opens a quoted value left unclosed at `offset`: the last unescaped one before it. */
function unclosedQuote(text: string, offset: number, quote: '"' | "'"): number | undefined {
  for (let i = Math.min(offset, text.length) - 1; i >= 0; i--) {
    if (text[i] !== quote) continue;
    if (quote === '"' && text[i - 1] === '\\') continue;
    if (quote === "'" && (text[i - 1] === "'" || text[i + 1] === "'") && i + 1 < offset) {
      // '' is an escaped quote inside a single-quoted value.
      i--;
      continue;
    }
    return i;
  }
  return undefined;
}

const columnList = (cols: number[]) => (cols.length <= 1 ? `column ${cols[0]}` : `column ${cols.slice(0, -1).join(', ')} or ${cols[cols.length - 1]}`);

export function describeYamlError(e: YAMLError, text: string, lineStarts: readonly number[]): DescribedYamlError {
  const l: Lines = { text, starts: lineStarts.length ? lineStarts : [0] };
  const code = `yaml.${e.code.toLowerCase().replace(/_/g, '-')}`;
  const [pos, posEnd] = e.pos;
  const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const errLine = lineOf(l, pos);

  /** A line indented so that it belongs to no mapping above it. */
  const misaligned = (line: number): DescribedYamlError => {
    const cols = enclosingKeyColumns(l, line);
    const here = lineText(l, line);
    return {
      code,
      summary: `this line is indented to column ${indentOf(here) + 1}, where no key above it starts`,
      detail: `The keys of one mapping start in the same column, and a list item's keys line up after its \`- \`. ${
        cols.length ? `Indent this line to ${columnList(cols)}, like the key it belongs with.` : 'Indent it like the key it belongs with.'
      }`,
      start: firstCharOffset(l, line),
      end: l.starts[line - 1]! + here.length,
    };
  };

  /**
   * The library reports a key whose value is on its own line and ALSO on the lines below (`name:
   * prod` followed by a deeper line) at the value. The mistake is on the deeper line.
   */
  const valueThenDeeper = (): DescribedYamlError | undefined => {
    const at = contentLineFrom(l, errLine);
    if (at === undefined) return undefined;
    const here = lineText(l, at);
    const col = pos - l.starts[at - 1]!;
    // `name: a: b` -- a colon and a space inside a plain value.
    if (at === errLine && col >= 0 && /:(\s|$)/.test(here.slice(col).replace(/\s+#.*$/, '').replace(/:\s*$/, ': '))) {
      const value = here.slice(col).replace(/\s+#.*$/, '');
      if (/^[^"'[{].*:\s/.test(value)) {
        return {
          code,
          summary: 'this value contains `: ` (a colon followed by a space), which YAML reads as another key',
          detail: `Quote the value: ${echo(`"${value.replace(/"/g, '\\"')}"`, 'write it in double quotes')}.`,
          start: pos,
          end: l.starts[at - 1]! + here.length,
        };
      }
    }
    const next = contentLineFrom(l, at + 1);
    if (next === undefined) return undefined;
    const nextText = lineText(l, next);
    const owner = keyOfLine(here);
    // A line without `key:` is a key missing its colon (missingColon).
    if (owner.key === undefined || indentOf(nextText) <= owner.col) return undefined;
    const what = `\`${owner.key}\` on line ${at}`;
    return {
      code,
      summary: `this line is indented deeper than the key above it, but ${what} already has its value on the same line`,
      detail: `A key's value is either on the same line or on the lines indented under it, not both. If this line is another key next to \`${owner.key}\`, indent it to column ${owner.col + 1}.`,
      start: firstCharOffset(l, next),
      end: l.starts[next - 1]! + nextText.length,
    };
  };

  /** A line that reads as a key but has no colon (`projects` instead of `projects:`). */
  const missingColon = (): DescribedYamlError | undefined => {
    const at = contentLineFrom(l, errLine);
    if (at === undefined) return undefined;
    const here = lineText(l, at);
    const from = pos >= l.starts[at - 1]! ? pos - l.starts[at - 1]! : indentOf(here);
    const rest = here.slice(from).replace(/\s+#.*$/, '');
    if (/^["']/.test(rest) && !/^(["']).*\1\s*:/.test(rest)) {
      return { code, summary: 'this quoted key is not closed on its line: a key must be written on one line', detail: 'Close the quote before the colon.', start: pos, end: posEnd };
    }
    if (rest.includes(': ') || rest.endsWith(':')) return undefined;
    if (/^-(\s|$)/.test(rest)) {
      return {
        code,
        summary: 'a list item (`- `) cannot follow the keys of a mapping at the same indentation',
        detail: 'Indent the list under the key it belongs to, after `key:` alone on its line.',
        start: l.starts[at - 1]! + from,
        end: l.starts[at - 1]! + from + rest.length,
      };
    }
    const word = rest.replace(/^-\s+/, '').trim();
    // `cpu 250`: the colon between a key and its value is missing.
    const pair = /^([^\s"']+)\s+(.+)$/.exec(word);
    const key = pair ? pair[1]! : word;
    return {
      code,
      summary: `\`${key}\` is written like a key but has no colon after it`,
      detail: `Write ${pair ? echo(`\`${pair[1]}: ${pair[2]}\``, `\`${pair[1]}: …\``) : `\`${word}:\``}: a key is followed by a colon, then its value on the same line or on the lines indented under it.`,
      start: l.starts[at - 1]! + from,
      end: l.starts[at - 1]! + from + rest.length,
    };
  };

  const generic = (): DescribedYamlError => {
    const at = contentLineFrom(l, errLine) ?? errLine;
    const start = at === errLine ? pos : firstCharOffset(l, at);
    return { code, summary: `YAML syntax error: ${message.charAt(0).toLowerCase()}${message.slice(1)}`, start, end: at === errLine ? posEnd : undefined };
  };

  // The first key of the file indented: every later top-level key then looks misplaced, and the
  // library reports the first of them. The mistake is the first line.
  const firstLine = contentLineFrom(l, 1);
  if (firstLine !== undefined && firstLine < errLine && e.code !== 'TAB_AS_INDENT') {
    const firstIndent = indentOf(lineText(l, firstLine));
    const at = contentLineFrom(l, errLine);
    if (firstIndent > 0 && at !== undefined && indentOf(lineText(l, at)) < firstIndent) {
      return {
        code,
        summary: 'the first key of the file is indented',
        detail: 'Top-level keys (`version:`, `projects:`, ...) start at column 1: remove the spaces before this one.',
        start: l.starts[firstLine - 1]!,
        end: firstCharOffset(l, firstLine),
      };
    }
  }

  switch (e.code) {
    case 'TAB_AS_INDENT': {
      const at = contentLineFrom(l, errLine) ?? errLine;
      return { code, summary: 'this line is indented with a tab', detail: 'YAML indentation is made of spaces only: replace the tab with spaces.', start: l.starts[at - 1]!, end: firstCharOffset(l, at) || undefined };
    }
    case 'BAD_INDENT': {
      const flow = /^Flow (sequence|map)/.exec(message);
      if (flow) {
        const open = flow[1] === 'sequence' ? '[' : '{';
        const close = open === '[' ? ']' : '}';
        const opener = unclosedOpener(text, pos, open);
        return {
          code,
          summary: `the ${flow[1] === 'sequence' ? 'list' : 'mapping'} opened with \`${open}\` here is not closed`,
          detail: `Close it with \`${close}\`; when it spans several lines, indent its continuation lines deeper than its key.`,
          start: opener ?? pos,
          end: (opener ?? pos) + 1,
        };
      }
      const at = contentLineFrom(l, errLine) ?? errLine;
      return misaligned(at);
    }
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY': {
      if (/block sequence/.test(message)) {
        // `key: value` followed by a deeper `- item`.
        const at = contentLineFrom(l, errLine) ?? errLine;
        const above = contentLineBefore(l, at);
        const owner = above !== undefined ? keyOfLine(lineText(l, above)) : { col: 0 };
        return {
          code,
          summary: `this list item is indented under ${owner.key !== undefined ? `\`${owner.key}\`, which` : 'a key that'} already has a value on its line`,
          detail: `A key's value is either on the same line or on the lines indented under it, not both.${owner.key !== undefined ? ` To make the list the value of \`${owner.key}\`, write \`${owner.key}:\` alone on its line.` : ''}`,
          start: firstCharOffset(l, at),
          end: l.starts[at - 1]! + lineText(l, at).length,
        };
      }
      return valueThenDeeper() ?? missingColon() ?? generic();
    }
    case 'MISSING_CHAR': {
      const q = /Missing closing (["'])quote/.exec(message);
      if (q) {
        const opener = unclosedQuote(text, pos, q[1] as '"' | "'");
        return {
          code,
          summary: `this quoted value is never closed: the \`${q[1]}\` here has no closing \`${q[1]}\``,
          detail: `Add the closing \`${q[1]}\` at the end of the value.${q[1] === "'" ? " Inside single quotes, write a quote as ''." : ' Inside double quotes, write a quote as \\".'}`,
          start: opener ?? pos,
          end: (opener ?? pos) + 1,
        };
      }
      if (/Sequence item without - indicator/.test(message)) return misaligned(contentLineFrom(l, errLine) ?? errLine);
      if (/need to be followed by map values/.test(message)) return missingColon() ?? generic();
      return generic();
    }
    case 'BAD_SCALAR_START': {
      const ch = text[pos] ?? '';
      const at = lineOf(l, pos);
      const value = lineText(l, at).slice(pos - l.starts[at - 1]!).replace(/\s+#.*$/, '');
      return {
        code,
        summary: `a value cannot start with \`${ch}\` unless it is quoted`,
        detail: `\`${ch}\` is reserved in YAML: write the value in quotes${echo(`, "${value.replace(/"/g, '\\"')}"`, '')}.`,
        start: pos,
        end: l.starts[at - 1]! + lineText(l, at).length,
      };
    }
    case 'BAD_DQ_ESCAPE': {
      const seq = text.slice(pos, pos + 2);
      return {
        code,
        summary: `\`${seq}\` is not an escape sequence in a double-quoted value`,
        detail: 'In double quotes a backslash starts an escape such as \\n, \\t, \\\\ or \\". For text with backslashes (a regular expression, a Windows path), use single quotes.',
        start: pos,
        end: pos + seq.length,
      };
    }
    case 'MULTIPLE_DOCS':
      return {
        code,
        summary: 'this file holds more than one YAML document',
        detail: 'A `---` line starts a new document; a manifest file is one document. Remove the `---`, or put the second document in a file of its own in the manifest directory.',
        start: pos,
        end: pos + 3,
      };
    case 'DUPLICATE_KEY':
      return { code, summary: 'a key is written twice in the same mapping', detail: 'The second would silently replace the first: keep one.', start: pos, end: posEnd };
    case 'UNEXPECTED_TOKEN': {
      if (/Unexpected scalar at node end/.test(message)) {
        const at = lineOf(l, pos);
        const before = lineText(l, at).slice(0, pos - l.starts[at - 1]!);
        if (/["']\s*$/.test(before)) {
          return {
            code,
            summary: 'text follows the closing quote of a quoted value',
            detail: "A quoted value ends at its closing quote: quote the whole value. Inside single quotes, write a quote as ''.",
            start: pos,
            end: posEnd,
          };
        }
        return { code, summary: 'this line cannot continue the list or mapping above it', detail: 'A list (`- item`) and the keys of a mapping cannot be mixed at one indentation: indent it under the key it belongs to.', start: pos, end: posEnd };
      }
      const closer = /token in YAML stream: "([\]}])"/.exec(message);
      if (closer) return { code, summary: `this \`${closer[1]}\` closes nothing`, detail: `Remove it, or add the \`${closer[1] === ']' ? '[' : '{'}\` it is meant to close.`, start: pos, end: posEnd };
      if (/block-seq-ind on same line with key/.test(message)) {
        return { code, summary: 'a list item (`- `) cannot follow a mapping at the same indentation', detail: 'Indent the list under the key it belongs to, after `key:` alone on its line.', start: pos, end: posEnd };
      }
      return generic();
    }
    case 'BLOCK_IN_FLOW':
      return { code, summary: 'a block (an indented list or mapping) cannot appear inside `[...]` or `{...}`', detail: 'Inside brackets and braces, write items on one line separated by commas.', start: pos, end: posEnd };
    case 'RESOURCE_EXHAUSTION':
      return { code, summary: 'the YAML parser ran out of resources on this file', detail: 'The file is nested too deeply or repeats too much through aliases to be a manifest.', start: pos, end: posEnd };
    case 'KEY_OVER_1024_CHARS':
      return { code, summary: 'this key is longer than 1024 characters', detail: 'YAML keys are limited to 1024 characters; a colon may be missing after a shorter key.', start: pos, end: posEnd };
    default:
      return generic();
  }
}
