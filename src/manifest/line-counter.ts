/**
 * A file's line index: where each line starts, and the 1-based line and column of an offset.
 *
 * The same structure and answers as the `yaml` package's LineCounter (`lineStarts`, `linePos`),
 * which the positioned parse (parse-yaml.ts) fills as it parses; a fast-parsed file (lazy-positions.ts)
 * builds this one instead, so that a `validate` without a diagnostic loads none of the package
 * (issue 21). Both satisfy `LineIndex`, the type a ParsedFile holds.
 */

export interface LineIndex {
  readonly lineStarts: number[];
  /** 1-based `{ line, col }` of `offset`; `line` is 0 when `offset` is before the first line start. */
  linePos(offset: number): { line: number; col: number };
}

/** The offset of each line's first character: 0, and the offset after each `\n`. */
export function lineIndexOf(text: string): LineIndex {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  return { lineStarts, linePos: (offset) => linePos(lineStarts, offset) };
}

/** The `yaml` package's LineCounter.linePos (a binary search), on a list of line starts. */
function linePos(lineStarts: readonly number[], offset: number): { line: number; col: number } {
  let low = 0;
  let high = lineStarts.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (lineStarts[mid]! < offset) low = mid + 1;
    else high = mid;
  }
  if (lineStarts[low] === offset) return { line: low + 1, col: 1 };
  if (low === 0) return { line: 0, col: offset };
  return { line: low, col: offset - lineStarts[low - 1]! + 1 };
}
