/**
 * Relative links of markdown pages, and whether they resolve: the file (or directory) exists in the
 * repository, and a `#anchor` names a heading of the target page as GitHub renders it (its slug:
 * lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` for repeated headings).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: true });

type Token = ReturnType<typeof md.parse>[number];

/** GitHub's heading anchor (github-slugger): keep letters, digits, marks, spaces, `-` and `_`. */
export function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown text's headings, in order, repeated ones numbered as GitHub does. */
export function anchorsOf(markdown: string): Set<string> {
  const tokens = md.parse(markdown, {});
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  tokens.forEach((t, i) => {
    if (t.type !== 'heading_open') return;
    const inline = tokens[i + 1]!;
    const text = (inline.children ?? []).map((c) => (c.type === 'text' || c.type === 'code_inline' ? c.content : '')).join('');
    const base = slugOf(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  });
  return anchors;
}

function hrefsOf(tokens: Token[]): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    if (t.type === 'link_open') out.push(t.attrGet('href') ?? '');
    if (t.type === 'image') out.push(t.attrGet('src') ?? '');
    if (t.children) out.push(...hrefsOf(t.children));
  }
  return out;
}

/** What is wrong with the relative links of `markdown`, a page at `file` under `root`. */
export function brokenLinks(root: string, file: string, markdown: string, read: (abs: string) => string = (abs) => readFileSync(abs, 'utf8')): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsAt = (text: string) => anchorCache.get(text) ?? anchorCache.set(text, anchorsOf(text)).get(text)!;
  for (const href of hrefsOf(md.parse(markdown, {}))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // absolute: not ours to check offline
    const [rawPath, anchor] = href.split('#', 2) as [string, string | undefined];
    const target = rawPath === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(rawPath));
    if (!target.startsWith(root + path.sep) && target !== root) {
      problems.push(`${file}: ${href} leads out of the repository`);
      continue;
    }
    if (!existsSync(target)) {
      problems.push(`${file}: ${href}: ${path.relative(root, target)} does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(target).isDirectory() || !target.endsWith('.md')) {
      problems.push(`${file}: ${href}: an anchor into a file that is not markdown`);
      continue;
    }
    const text = rawPath === '' ? markdown : read(target);
    if (!anchorsAt(text).has(anchor)) problems.push(`${file}: ${href}: no heading with anchor #${anchor} in ${path.relative(root, target)}`);
  }
  return problems;
}
