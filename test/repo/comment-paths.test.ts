/**
 * Every file of the repository a comment or a guide names exists (issue 22: comments pointed at
 * `src/graph/normalize.ts` and `test/export/defaults.test.ts`, which did not): a reader who follows
 * a comment lands on the code it speaks of.
 *
 * What is checked: the comments of src/, test/ and scripts/ (lines that are comments, and the
 * `// ...` tail of a line), and the prose of README.md and docs/*.md and of the READMEs under src/
 * (fenced code blocks left out: they show files a reader would write). A path counts when its
 * first directory is one of the repository (`src/`, `docs/`, ...), one beside the file or above it
 * (`apply/bodies.ts` in src/, `ops/audit.ts` in src/emulator/), or when it starts with `./` or
 * `../` in a comment; `x.js` is the `x.ts` it is compiled from. Names such as `DIR/part-1.md` or
 * `infra/app.yaml` are examples, not paths of the repository, and are not checked. Links of the
 * guides are checked by test/cli/doc-links.test.ts.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SKIPPED_DIRS = new Set(['node_modules', 'fixtures', 'golden', 'dist']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : filesUnder(p);
    return [p];
  });
}

/** A path-like word: directories then a file name with a known extension. */
const TOKEN = /(?<![\w./$=-])((?:\.\.?\/)*(?:[\w-]+\/)+[\w.-]+\.(?:ts|js|mjs|md|json|ya?ml|sh))\b/g;

/** The text of `file` a reader takes as prose: comments of code, markdown outside code blocks. */
export function proseOf(file: string, text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (file.endsWith('.md')) {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      else if (!fenced) out.push({ line: i + 1, text: line });
      return;
    }
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) out.push({ line: i + 1, text: line });
    else if (line.includes('// ')) out.push({ line: i + 1, text: line.slice(line.indexOf('// ')) });
  });
  return out;
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
const exists = (p: string) => existsSync(p) || (p.endsWith('.js') && existsSync(p.slice(0, -3) + '.ts'));

/** The paths named in `file` that do not exist, as `file:line: path`. */
export function missingPaths(file: string, text: string): string[] {
  const dir = path.dirname(file);
  // The file's own directory and its ancestors up to the root: where a short path may start.
  const bases: string[] = [];
  for (let d = dir; d.startsWith(ROOT); d = path.dirname(d)) {
    bases.push(d);
    if (d === ROOT) break;
  }
  const out: string[] = [];
  for (const { line, text: prose } of proseOf(file, text)) {
    for (const m of prose.matchAll(TOKEN)) {
      const token = m[1]!;
      // The design documents beside the repository are never named (test/repo/outside-reads.test.ts).
      if (/(^|\/)shared\//.test(token)) continue;
      let candidates: string[];
      if (token.startsWith('.')) {
        if (file.endsWith('.md')) continue;
        candidates = [path.resolve(dir, token)];
      } else {
        const first = token.split('/')[0]!;
        candidates = bases.filter((b) => isDir(path.join(b, first))).map((b) => path.join(b, token));
        if (candidates.length === 0) continue;
      }
      if (!candidates.some(exists)) out.push(`${path.relative(ROOT, file)}:${line}: ${token}`);
    }
  }
  return out;
}

describe('paths named in comments and guides', () => {
  it('all exist', () => {
    const files = [
      ...['src', 'test', 'scripts'].flatMap((d) => filesUnder(path.join(ROOT, d))).filter((f) => /\.(?:[mc]?ts|[mc]?js|md)$/.test(f)),
      ...filesUnder(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')),
      path.join(ROOT, 'README.md'),
    ];
    const missing = files.filter((f) => f !== import.meta.filename).flatMap((f) => missingPaths(f, readFileSync(f, 'utf8')));
    expect(missing).toEqual([]);
  });

  it('catches a path that does not exist, in a comment and in a guide, and nothing else', () => {
    const src = path.join(ROOT, 'src', 'model', 'x.ts');
    const code = [
      '/** See src/graph/normalize.ts and apply/bodies.ts and ./resource.ts. */',
      "const s = 'src/nowhere.ts'; // as test/export/defaults.test.ts says",
      'import { x } from "./nowhere.js";',
      '// infra/app.yaml and DIR/part-1.md are examples',
    ].join('\n');
    expect(missingPaths(src, code)).toEqual(['src/model/x.ts:1: src/graph/normalize.ts', 'src/model/x.ts:2: test/export/defaults.test.ts']);
    const guide = path.join(ROOT, 'docs', 'x.md');
    expect(missingPaths(guide, 'Read src/live/touched.ts and src/live/gone.ts.\n```ts\n// src/emulator/ops/deploy.ts\n```\n')).toEqual(['docs/x.md:1: src/live/gone.ts']);
  });
});
