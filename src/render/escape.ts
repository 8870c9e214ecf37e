/**
 * Escaping of user-controlled strings (names, keys, values) for each output format, so that a name
 * cannot move the cursor, rewrite earlier lines, hide text (bidi overrides), inject HTML, links or
 * @-mentions into a pull-request comment, or break out of a Mermaid / DOT label.
 */

/** C0 and C1 controls, DEL, line/paragraph separators and bidi overrides / isolates. */
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function hex(c: string): string {
  const code = c.charCodeAt(0);
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Terminal text: every control character (including newline) shown as a visible escape. */
export function escapeControl(s: string): string {
  return s.replace(CONTROL_RE, hex);
}

/**
 * JSON text with the characters JSON.stringify leaves raw (DEL, C1 controls, U+2028/2029, bidi
 * controls) written as \u escapes: the parsed value is unchanged, the text is safe to print.
 */
export function escapeJsonText(json: string): string {
  return json.replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Markdown / HTML text (tables, summaries, headings, list items): escaped only where a character
 * would change the rendering, so the raw text (what a reviewer reads in an email or a log) stays
 * readable: `api.shop-1/x` and `API_KEY` are left as they are (an underscore between letters is no
 * emphasis in GFM). Control characters are escaped; a character that
 * markdown, HTML or GitHub gives a meaning anywhere (`<`, `&`, `[`, `*`, `_`, backticks, `|`, `@`,
 * `#`, `$`...) is written as a numeric entity, which renders as itself and means nothing, in an
 * HTML block as in a paragraph; and so is a character that has a meaning only where it stands: the
 * `:` of `https://` or of `:emoji:`, the `.` of `www.` or of a name that ends like a domain
 * (`project.shop`: linkify makes a link of it), a list, heading or quote marker at the start of the
 * text.
 */
const MARKDOWN_RE = /(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|[&<>`*[\]\\|~!@#$]|:(?=\/\/|[a-z_+-][\w+-]*:)|(?<=\bwww)\.|(?<=[\w-])\.(?=(?:biz|com|edu|gov|net|org|pro|web|xxx|aero|asia|coop|info|museum|name|shop|[a-z]{2})(?![\w-]))|^[-+= ]|(?<=^\d+)[.)]/gi;

export function escapeMarkdown(s: string): string {
  return escapeControl(s).replace(MARKDOWN_RE, (c) => `&#${c.charCodeAt(0)};`);
}

/** A code fence longer than any backtick run inside `content`, so the content cannot close it. */
export function fenceFor(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * A CommonMark inline code span that shows `s` exactly (controls escaped): delimited by a backtick
 * run longer than any inside, padded with a space where the content would otherwise touch the
 * delimiters or lose a space to CommonMark's stripping. Not for GFM table cells (`|` splits them).
 */
export function inlineCode(s: string): string {
  const text = escapeControl(s);
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || (text.startsWith(' ') && text.endsWith(' ') && text.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A Mermaid label: only plain characters kept, everything else as a Mermaid entity code (#NN;). */
export function escapeMermaid(s: string): string {
  return s.replace(/[^A-Za-z0-9 _./,-]/g, (c) => `#${c.codePointAt(0)};`);
}

/** A Graphviz DOT double-quoted string body. */
export function escapeDot(s: string): string {
  return escapeControl(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}
