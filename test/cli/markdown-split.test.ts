/**
 * The writing side of `--split-dir`: part files written in order, every other `part-N.md` of the
 * directory removed (and nothing else, not even `part-time-notes.md`), symlinks refused, never followed, and a document that cannot be split reported in one line
 * with no part left behind.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
    for (const f of ['part-1.md', 'part-3.md', 'part-12.md', 'part-old.md', 'part-time-notes.md', 'part-1.md.bak', 'README.md', 'part-3.txt']) writeFileSync(join(dir, 'out', f), 'old');
    mkdirSync(join(dir, 'out', 'part-9.md'));
    expect(splitMarkdown('out', () => ['one\n', 'two\n'], 'plan', io())).toBe(true);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['README.md', 'part-1.md', 'part-1.md.bak', 'part-2.md', 'part-3.txt', 'part-9.md', 'part-old.md', 'part-time-notes.md']);
    expect(readFileSync(join(dir, 'out', 'part-time-notes.md'), 'utf8')).toBe('old');
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

  it('never writes through a symlinked part file: an error naming it, and the file it points to is untouched', () => {
    dir = mkdtempSync(join(tmpdir(), 'driftless-split-'));
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'precious.txt'), 'keep me');
    symlinkSync(join(dir, 'precious.txt'), join(dir, 'out', 'part-1.md'));
    expect(splitMarkdown('out', () => ['one\n'], 'plan', io())).toBe(false);
    expect(readFileSync(join(dir, 'precious.txt'), 'utf8')).toBe('keep me');
    expect(stderr).toBe('driftless: cannot write the markdown parts to out: out/part-1.md is a symbolic link (driftless never writes through one; point --split-dir at a real directory)\n');
  });

  it('never writes into a symlinked directory: an error naming it, nothing written or removed there', () => {
    dir = mkdtempSync(join(tmpdir(), 'driftless-split-'));
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'elsewhere', 'part-2.md'), 'not ours');
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'out'));
    expect(splitMarkdown('out', () => ['one\n'], 'plan', io())).toBe(false);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual(['part-2.md']);
    expect(stderr).toBe('driftless: cannot write the markdown parts to out: out is a symbolic link (driftless never writes through one; point --split-dir at a real directory)\n');
  });

  it('never goes through a symlinked directory on the way to DIR (under the working directory): an error naming it', () => {
    dir = mkdtempSync(join(tmpdir(), 'driftless-split-'));
    mkdirSync(join(dir, 'elsewhere', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'elsewhere', 'sub', 'part-2.md'), 'not ours');
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'out'));
    expect(splitMarkdown('out/sub', () => ['one\n'], 'plan', io())).toBe(false);
    expect(splitMarkdown(join(dir, 'out', 'new'), () => ['one\n'], 'plan', io())).toBe(false);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual(['sub']);
    expect(readdirSync(join(dir, 'elsewhere', 'sub'))).toEqual(['part-2.md']);
    expect(stderr).toBe(
      'driftless: cannot write the markdown parts to out/sub: out is a symbolic link (driftless never writes through one; point --split-dir at a real directory)\n' +
        `driftless: cannot write the markdown parts to ${join(dir, 'out', 'new')}: ${join(dir, 'out')} is a symbolic link (driftless never writes through one; point --split-dir at a real directory)\n`,
    );
  });

  it('a stale symlinked part of an earlier run is removed as a link, its target kept', () => {
    dir = mkdtempSync(join(tmpdir(), 'driftless-split-'));
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'precious.txt'), 'keep me');
    symlinkSync(join(dir, 'precious.txt'), join(dir, 'out', 'part-3.md'));
    expect(splitMarkdown('out', () => ['one\n'], 'plan', io())).toBe(true);
    expect(readdirSync(join(dir, 'out'))).toEqual(['part-1.md']);
    expect(lstatSync(join(dir, 'precious.txt')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'precious.txt'), 'utf8')).toBe('keep me');
  });
});
