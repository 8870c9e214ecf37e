/**
 * Reads markdown back with a CommonMark/GFM parser (markdown-it, tables included) and says what is
 * not well-formed: a fence that runs to the end of the document (never closed), a `<details>` not
 * closed (or closed before it opened), a table row outside any table (a table cut from its
 * header). Used by the tests of the markdown parts (unit and end to end).
 */
import MarkdownIt from 'markdown-it';

const parser = new MarkdownIt({ html: true, linkify: true });
type Token = ReturnType<MarkdownIt['parse']>[number];

export function parseMarkdown(md: string): Token[] {
  return parser.parse(md, {});
}

/** Every problem with the structure of `md`, one sentence each; [] when it is well-formed. */
export function markdownProblems(md: string): string[] {
  const problems: string[] = [];
  const tokens = parseMarkdown(md);
  const lines = md.split('\n');
  const fenced: Array<[number, number]> = [];
  for (const t of tokens) {
    if (t.type !== 'fence' || !t.map) continue;
    fenced.push([t.map[0], t.map[1]]);
    // A closed fence's last line is a closing fence of the same character, at least as long.
    const last = lines[t.map[1] - 1] ?? '';
    const char = t.markup[0] === '~' ? '~' : '`';
    const closing = new RegExp(`^ {0,3}\\${char}{${t.markup.length},}\\s*$`);
    if (t.map[1] - 1 <= t.map[0] || !closing.test(last)) problems.push(`the ${t.markup}${t.info} fence opened at line ${t.map[0] + 1} is never closed`);
  }
  // <details> opened and closed in order, in the HTML the parser saw (not inside code).
  let depth = 0;
  for (const t of tokens.flatMap((x) => [x, ...(x.children ?? [])])) {
    if (t.type !== 'html_block' && t.type !== 'html_inline') continue;
    for (const m of t.content.matchAll(/<(\/?)details\b/gi)) {
      depth += m[1] ? -1 : 1;
      if (depth < 0) problems.push(`a </details> closes nothing (line ${(t.map?.[0] ?? 0) + 1})`);
      depth = Math.max(depth, 0);
    }
  }
  if (depth > 0) problems.push(`${depth} <details> never closed`);
  // A line that looks like a table row is inside a table, unless it is code.
  const tables = tokens.filter((t) => t.type === 'table_open' && t.map).map((t) => t.map!);
  const codeBlocks = tokens.filter((t) => t.type === 'code_block' && t.map).map((t) => t.map!);
  lines.forEach((line, i) => {
    if (!/^\|.*\|\s*$/.test(line)) return;
    const inside = (ranges: Array<[number, number]>) => ranges.some(([a, b]) => i >= a && i < b);
    if (!inside(tables) && !inside(fenced) && !inside(codeBlocks)) problems.push(`line ${i + 1} is a table row outside any table: ${line.slice(0, 60)}`);
  });
  return problems;
}

/**
 * The texts shown in code: `<code>…</code>` (html_inline around text, entities decoded) and code
 * spans, in inline content. Where the markdown renderers put addresses.
 */
export function codeTexts(md: string): string[] {
  const out: string[] = [];
  for (const t of parseMarkdown(md)) {
    if (t.type !== 'inline') continue;
    const kids = t.children ?? [];
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i]!;
      if (k.type === 'code_inline') out.push(k.content);
      if (k.type === 'html_inline' && k.content === '<code>') {
        let text = '';
        for (i++; i < kids.length && !(kids[i]!.type === 'html_inline' && kids[i]!.content === '</code>'); i++) text += kids[i]!.content;
        out.push(text);
      }
    }
  }
  return out;
}

/** The text of each table cell (entities decoded). */
export function tableCells(md: string): string[] {
  const out: string[] = [];
  const tokens = parseMarkdown(md);
  let inCell = false;
  for (const t of tokens) {
    if (t.type === 'td_open' || t.type === 'th_open') inCell = true;
    else if (t.type === 'td_close' || t.type === 'th_close') inCell = false;
    else if (inCell && t.type === 'inline') out.push((t.children ?? []).map((c) => c.content).join(''));
  }
  return out;
}
