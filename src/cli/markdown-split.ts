/**
 * `--split-dir DIR` of `plan` and `drift` (with `--format markdown`): the markdown written as
 * `DIR/part-1.md` ... `DIR/part-N.md`, each under GitHub's comment limit, for a workflow that posts
 * one comment per part. The parts are rendered by the pure renderers; this module only declares
 * the option, checks it against `--format`, and writes the files.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Options } from 'yargs';
import type { CliIO } from './io.js';
import { BlockTooLarge } from '../render/markdown-parts.js';

export const SPLIT_DIR_OPTION: Options = {
  type: 'string',
  describe: 'With --format markdown: also write the markdown as DIR/part-1.md ... part-N.md, each under GitHub\'s comment limit (65,536 characters), for one comment per part',
};

/**
 * The check a command's builder runs: `--split-dir` only means something for markdown. Thrown
 * errors become usage errors (src/cli/command-line.ts) before the command runs.
 */
export function checkSplitDir(args: Record<string, unknown>): true {
  if (args.splitDir === undefined) return true;
  const format = args.json === true ? 'json' : (args.format ?? 'human');
  if (format !== 'markdown') throw new Error(`--split-dir writes markdown parts: it needs --format markdown, got ${args.json === true ? '--json' : `--format ${String(format)}`}`);
  return true;
}

/** What a run writes, and so the only files a later run removes: `part-` digits `.md`, nothing else
 * (a user's `part-time-notes.md` beside them is not ours). */
const PART_FILE = /^part-[0-9]+\.md$/;

/** A symlink met where the parts go: refused, never followed (it could point anywhere). */
class SymlinkRefused extends Error {}

/** lstat that says "absent" instead of throwing ENOENT. */
function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * The first symlink on the way to `target` (itself included), checked from the working directory
 * down: a repository may hold a link (`out -> ~/.ssh`) that `--split-dir out/parts` would go
 * through. Above the working directory the layout is the machine's (`/tmp` or `/var` are links on
 * some systems): a DIR outside it has its last component checked only.
 */
function symlinkOnTheWay(cwd: string, target: string): string | undefined {
  const base = target.startsWith(cwd + sep) ? cwd : dirname(target);
  let at = base;
  for (const part of relative(base, target).split(sep).filter((x) => x !== '')) {
    at = join(at, part);
    const st = lstatOrNull(at);
    if (!st) return undefined;
    if (st.isSymbolicLink()) return at;
  }
  return undefined;
}

/**
 * Writes one part without following a symlink: O_NOFOLLOW makes the open fail (ELOOP) when the
 * name is a symlink, so there is no window between a check and the write.
 */
function writePartFile(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new SymlinkRefused(path);
    throw e;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `parts` as DIR/part-1.md ... part-N.md (DIR created if missing) and removes every other
 * `part-N.md` in DIR: what a previous, longer run left there must not pass for part of this one.
 * Nothing else is removed. A symlink as DIR or as a part file is refused with an error naming it
 * (a comment-posting job must not be made to overwrite what a link points to).
 * With no parts, only the removal happens. Returns false after telling the
 * user on stderr when the directory cannot be written.
 */
export function writeMarkdownParts(dir: string, parts: readonly string[], io: CliIO): boolean {
  const target = resolve(io.cwd, dir);
  try {
    const link = symlinkOnTheWay(resolve(io.cwd), target);
    if (link !== undefined) throw new SymlinkRefused(link);
    mkdirSync(target, { recursive: true });
    const written = new Set<string>();
    parts.forEach((text, i) => {
      const name = `part-${i + 1}.md`;
      writePartFile(join(target, name), text);
      written.add(name);
    });
    for (const entry of readdirSync(target, { withFileTypes: true })) {
      if (PART_FILE.test(entry.name) && !written.has(entry.name) && (entry.isFile() || entry.isSymbolicLink())) rmSync(join(target, entry.name), { force: true });
    }
    return true;
  } catch (e) {
    if (e instanceof SymlinkRefused) {
      // Named as the user wrote DIR: a part file under it, or DIR (or a directory on the way) itself.
      const at = e.message;
      const shown = at.startsWith(target + sep) ? join(dir, at.slice(target.length + 1)) : at === target ? dir : isAbsolute(dir) ? at : relative(io.cwd, at);
      io.stderr.write(`driftless: cannot write the markdown parts to ${dir}: ${shown} is a symbolic link (driftless never writes through one; point --split-dir at a real directory)\n`);
      return false;
    }
    io.stderr.write(`driftless: cannot write the markdown parts to ${dir}: ${(e as NodeJS.ErrnoException).code ?? 'error'}\n`);
    return false;
  }
}

/**
 * Renders the parts and writes them (see writeMarkdownParts), then says on stderr where they are.
 * `what` names the document ("plan", "drift report"). False when the parts could not be made or
 * written (told on stderr in one line).
 */
export function splitMarkdown(dir: string, render: () => string[], what: string, io: CliIO): boolean {
  let parts: string[];
  try {
    parts = render();
  } catch (e) {
    // The renderers keep every block under the limit; a block that still does not fit is said
    // in one line, never as a stack trace, and no part of it is written.
    if (!(e instanceof BlockTooLarge)) throw e;
    io.stderr.write(`driftless: cannot split the ${what} into markdown parts: ${e.message}\n`);
    writeMarkdownParts(dir, [], io);
    return false;
  }
  if (!writeMarkdownParts(dir, parts, io)) return false;
  io.stderr.write(`Wrote the ${what} in ${parts.length} markdown part${parts.length === 1 ? '' : 's'}: ${dir}/part-1.md${parts.length > 1 ? ` ... part-${parts.length}.md` : ''}\n`);
  return true;
}

/**
 * The parts for a run that failed: its failure markdown as the one part, so the comments show the
 * failure; a failure too long for a comment (thousands of diagnostics) keeps its heading and
 * callout and sends the reader to the job log, which has every diagnostic.
 */
export function failureParts(failure: string, limit = 60_000): string[] {
  if (failure.length <= limit) return [failure];
  const head = failure.split('\n- ')[0]!.trimEnd();
  return [`${head}\n\nThe diagnostics are too long for a comment: the job log (stderr) has every one of them.\n`];
}
