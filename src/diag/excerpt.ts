/**
 * Source excerpts for diagnostics: the offending line with a caret under the offending text.
 *
 * Excerpts are built from the raw file text, where a secret is at worst a `${env:NAME}` reference;
 * a secret written in clear in the file is masked through `redactions` before the line is shown.
 */
import type { SourceRange } from './diagnostic.js';
import { REDACTED } from '../model/secret.js';

/** `file:line:col`, the form editors and terminals turn into links. */
export function formatRange(r: SourceRange): string {
  return `${r.file}:${r.start.line}:${r.start.col}`;
}

/** A span of a file (1-based, end exclusive) whose text must never be shown. */
export interface Redaction {
  start: { line: number; col: number };
  end: { line: number; col: number };
}

/**
 * The line of `range.start` followed by a caret line (`^~~~` under the range when it ends on the
 * same line). `source` is the file text or its lines. Tabs become spaces so that the caret lines up. Returns undefined when the line does not
 * exist (an empty file).
 */
export function makeExcerpt(source: string | readonly string[], range: SourceRange, redactions: readonly Redaction[] = [], maxWidth = 160): string | undefined {
  // Callers with many diagnostics on one file pass its lines, split once.
  const lines = typeof source === 'string' ? source.split('\n') : source;
  const lineNo = range.start.line;
  let line = lines[lineNo - 1];
  if (line === undefined) return undefined;
  line = line.replace(/\r$/, '');
  let startCol = range.start.col;
  let endCol = range.end && range.end.line === lineNo ? range.end.col : startCol + 1;

  // Mask redacted spans that touch this line, shifting the caret to match.
  const onLine = redactions
    .filter((r) => r.start.line <= lineNo && r.end.line >= lineNo)
    .map((r) => ({ from: r.start.line < lineNo ? 1 : r.start.col, to: r.end.line > lineNo ? line!.length + 1 : r.end.col }))
    .sort((a, b) => b.from - a.from);
  for (const r of onLine) {
    if (r.to <= r.from) continue;
    const delta = REDACTED.length - (r.to - r.from);
    line = line.slice(0, r.from - 1) + REDACTED + line.slice(r.to - 1);
    if (startCol >= r.to) startCol += delta;
    else if (startCol > r.from) startCol = r.from;
    if (endCol >= r.to) endCol += delta;
    else if (endCol > r.from) endCol = r.from + REDACTED.length;
  }

  line = line.replace(/\t/g, ' ').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '?');
  if (line.length > maxWidth) {
    // Keep the caret visible in very long lines.
    const from = Math.max(0, Math.min(startCol - 1 - 20, line.length - maxWidth));
    line = (from > 0 ? '…' : '') + line.slice(from, from + maxWidth) + '…';
    const shift = from - (from > 0 ? 1 : 0);
    startCol -= shift;
    endCol -= shift;
  }
  const width = Math.max(1, Math.min(endCol, line.length + 1) - startCol);
  const caret = ' '.repeat(Math.max(0, startCol - 1)) + '^' + '~'.repeat(Math.max(0, width - 1));
  return `${line}\n${caret}`;
}
