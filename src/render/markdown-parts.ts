/**
 * Markdown documents built from blocks, so that they can be cut only BETWEEN blocks: a whole
 * document for stdout, or numbered parts each under a size limit (GitHub refuses a comment or an
 * issue body over 65,536 characters). Nothing is ever cut inside a fence, a `<details>` or a
 * table, so every part is well-formed on its own, and every block is in exactly one part.
 *
 * A block is one of:
 * - `text`: atomic (a resource's `<details>`, a diagram, a paragraph); never split;
 * - `group`: a list of items inside an opening and a closing (a table's header, a `<details>`
 *   holding a list): split between items when it does not fit, each piece re-opened and closed,
 *   so a table continued in the next part has its header again.
 *
 * Blocks are separated by a blank line; no block ends with one. Pure functions.
 */

export type MarkdownBlock =
  | { kind: 'text'; text: string }
  | {
      kind: 'group';
      /** The opening lines for a piece of `count` items; `continued` for every piece after the first. */
      open: (count: number, continued: boolean) => string;
      items: string[];
      /** The closing lines ('' for a table: the blank line that follows ends it). */
      close: string;
    };

export interface MarkdownDocument {
  /** Lines before the heading, in the first part only (a marker a workflow finds the document by). */
  preamble?: string;
  /** The heading; `part` is set when the document is split (`part 2 of 5`). */
  heading: (part?: { index: number; count: number }) => string;
  /** The summary: right under the heading of the first part. */
  head: string;
  blocks: MarkdownBlock[];
}

export function textBlock(text: string): MarkdownBlock {
  return { kind: 'text', text };
}

function groupText(open: string, items: readonly string[], close: string): string {
  return [open, ...items, ...(close ? [close] : [])].join('\n');
}

function blockText(b: MarkdownBlock): string {
  return b.kind === 'text' ? b.text : groupText(b.open(b.items.length, false), b.items, b.close);
}

/** The whole document in one piece (what stdout gets). */
export function joinMarkdown(doc: MarkdownDocument): string {
  const pieces = [...(doc.preamble ? [doc.preamble] : []), doc.heading(), doc.head, ...doc.blocks.filter((b) => b.kind === 'text' || b.items.length > 0).map(blockText)];
  return pieces.filter((p) => p !== '').join('\n\n') + '\n';
}

/** Where the size of a piece is checked: a block larger than this cannot go into any part. */
export class BlockTooLarge extends Error {}

/**
 * The document cut into parts of at most `limit` characters each (heading, `part i of N`, and the
 * final newline included), in block order, each part as full as the order allows. The first part
 * holds the preamble, the heading and the head; every later part its own heading.
 */
export function packMarkdown(doc: MarkdownDocument, limit: number): string[] {
  return packMarkdownPlaced(doc, limit).parts;
}

/** packMarkdown, and for each block the index of the part it went into (its first piece's). */
export function packMarkdownPlaced(doc: MarkdownDocument, limit: number): { parts: string[]; partOf: number[] } {
  const partOf: number[] = [];
  // The heading's length is reserved with the widest part numbers it can hold, so that the real
  // numbers, known only once everything is packed, never make a part longer than measured.
  const widest = doc.heading({ index: 99_999, count: 99_999 }).length;
  // A part is its heading, then each piece followed by a blank line, then a final newline.
  const capacity = limit - widest - 1;
  const parts: string[][] = [];
  let current: string[] = [];
  const first = [...(doc.preamble ? [doc.preamble] : []), doc.head].filter((p) => p !== '');
  const firstSize = first.reduce((n, p) => n + p.length + 2, 0);
  if (firstSize > capacity) throw new BlockTooLarge(`the summary of ${firstSize} characters does not fit in a part of ${limit}`);
  current.push(...first);
  let used = firstSize;
  const fits = (size: number) => used + size + 2 <= capacity;
  const add = (piece: string) => {
    current.push(piece);
    used += piece.length + 2;
  };
  const nextPart = () => {
    parts.push(current);
    current = [];
    used = 0;
  };
  for (const b of doc.blocks) {
    if (b.kind === 'text') {
      if (!fits(b.text.length) && current.length > 0) nextPart();
      if (!fits(b.text.length)) throw new BlockTooLarge(`a block of ${b.text.length} characters does not fit in a part of ${limit}`);
      partOf.push(parts.length);
      add(b.text);
      continue;
    }
    if (b.items.length === 0) {
      partOf.push(parts.length);
      continue;
    }
    let at = 0;
    while (at < b.items.length) {
      const continued = at > 0;
      // As many items as fit after the opening, at least one (in a part of its own if need be).
      const sizeOf = (n: number) => groupText(b.open(n, continued), b.items.slice(at, at + n), b.close).length;
      if (!fits(sizeOf(1)) && current.length > 0) nextPart();
      if (!fits(sizeOf(1))) throw new BlockTooLarge(`an item of ${sizeOf(1)} characters does not fit in a part of ${limit}`);
      if (at === 0) partOf.push(parts.length);
      let n = 1;
      // The opening may name the count (its width changes), so each candidate is measured whole;
      // items are added one at a time from the running length to stay linear.
      let running = sizeOf(1);
      while (at + n < b.items.length) {
        const grown = running + b.items[at + n]!.length + 1 + (b.open(n + 1, continued).length - b.open(n, continued).length);
        if (!fits(grown)) break;
        running = grown;
        n++;
      }
      add(groupText(b.open(n, continued), b.items.slice(at, at + n), b.close));
      at += n;
      if (at < b.items.length) nextPart();
    }
  }
  if (current.length > 0 || parts.length === 0) parts.push(current);
  const count = parts.length;
  const texts = parts.map((pieces, i) => {
    const heading = doc.heading({ index: i + 1, count });
    const all = i === 0 && doc.preamble ? [pieces[0]!, heading, ...pieces.slice(1)] : [heading, ...pieces];
    return all.join('\n\n') + '\n';
  });
  return { parts: texts, partOf };
}
