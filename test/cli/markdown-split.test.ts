/**
 * The writing side of `--split-dir`: part files written in order, every other `part-*.md` of the
 * directory removed (and nothing else), and a document that cannot be split reported in one line
 * with no part left behind.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { splitMarkdown } from '../../src/cli/markdown-split.js';
import { packMarkdown, textBlock } from '../../src/render/markdown-parts.js';
import type { CliIO } from '../../src/cli/io.js';

let dir: string;
let stderr = '';
const io = (): CliIO => ({ stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) }, env: {}, cwd: dir });

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  stderr = '';
});

describe('splitMarkdown', () => {
  it('writes part-1.md ... part-N.md and removes the parts of a longer, earlier run, nothing else', () => {
    dir = mkdtempSync(join(tmpdir(), 'driftless-split-'));
    mkdirSync(join(dir, 'out'));
    for (const f of ['part-1.md', 'part-3.md', 'part-12.md', 'part-old.md', 'README.md', 'part-3.txt']) writeFileSync(join(dir, 'out', f), 'old');
    mkdirSync(join(dir, 'out', 'part-9.md'));
    expect(splitMarkdown('out', () => ['one\n', 'two\n'], 'plan', io())).toBe(true);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['README.md', 'part-1.md', 'part-2.md', 'part-3.txt', 'part-9.md']);
    expect(readFileSync(join(dir, 'out', 'part-2.md'), 'utf8')).toBe('two\n');
    expect(stderr).toBe('Wrote the plan in 2 markdown parts: out/part-1.md ... part-2.md\n');
  });

  it('a document that cannot be split is one line on stderr, and no part is left', () => {
    dir = mkdtempSync(join(tmpdir(), 'driftless-split-'));
    const ok = splitMarkdown('new/dir', () => packMarkdown({ heading: () => '### t', head: 'h', blocks: [textBlock('x'.repeat(5_000))] }, 1_000), 'plan', io());
    expect(ok).toBe(false);
    expect(stderr).toMatch(/^driftless: cannot split the plan into markdown parts: a block of 5000 characters does not fit in a part of 1000\n$/);
    expect(readdirSync(join(dir, 'new/dir'))).toEqual([]);
  });

  it('a directory that cannot be written is one line on stderr', () => {
    dir = mkdtempSync(join(tmpdir(), 'driftless-split-'));
    writeFileSync(join(dir, 'file'), 'x');
    expect(splitMarkdown('file', () => ['one\n'], 'drift report', io())).toBe(false);
    expect(stderr).toMatch(/^driftless: cannot write the markdown parts to file: E[A-Z]+\n$/);
  });
});
