/**
 * Reading files from disk for the loader: manifest files (size, type, binary and UTF-8 checks) and
 * the files `${file:PATH}` references point at (confined to the manifest root).
 */
import { lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from './codes.js';
import { isInside, type ManifestFile } from './discover.js';
import { looksBinary } from './parse-yaml.js';
import type { FileReadResult } from './resolve.js';

export function readManifestFile(file: ManifestFile, limits: { maxFileBytes: number }): { text: string } | { diagnostic: Diagnostic } {
  const at = { file: file.display, start: { line: 1, col: 1 } };
  // The real path, checked by discovery to be inside the manifest directory (discover.ts).
  const source = file.realPath ?? file.path;
  let size: number;
  try {
    const st = statSync(source);
    // A symlink to a FIFO or a device would block or never end: only regular files are read.
    if (!st.isFile()) return { diagnostic: error('manifest.not-a-file', `${file.display} is not a regular file`, { range: at }) };
    size = st.size;
  } catch {
    return { diagnostic: error('manifest.unreadable', `cannot read ${file.display}`, { detail: 'It may be a broken symbolic link.', range: at }) };
  }
  if (size > limits.maxFileBytes) {
    return {
      diagnostic: error('manifest.too-large', `the file is ${formatBytes(size)}, larger than the ${formatBytes(limits.maxFileBytes)} a manifest file may be`, {
        detail: 'Split the manifest into several files of a directory.',
        range: at,
      }),
    };
  }
  let buf: Buffer;
  try {
    buf = readFileSync(source);
  } catch {
    return { diagnostic: error('manifest.unreadable', `cannot read ${file.display}`, { range: at }) };
  }
  if (looksBinary(buf)) return { diagnostic: error('manifest.binary', 'this is a binary file, not YAML', { detail: 'A manifest file is UTF-8 text.', range: at }) };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return { diagnostic: error('manifest.encoding', 'the file is not valid UTF-8', { detail: 'Save it as UTF-8.', range: at }) };
  }
  return { text: text.replace(/^\uFEFF/, '') };
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}

/**
 * Reads a `${file:PATH}` reference. PATH is relative to the manifest file and must stay inside the
 * file's root (the directory given on the command line, or the file's own directory): no absolute
 * path, no `..` escape, no symlink that leads out.
 */
export function readReferencedFile(ref: string, from: ManifestFile, limits: { maxReferencedFileBytes: number }): FileReadResult {
  if (path.isAbsolute(ref) || /^[A-Za-z]:[\\/]/.test(ref) || ref.startsWith('~') || ref.startsWith('\\')) {
    return { ok: false, reason: 'absolute paths are not allowed (write a path relative to the manifest file)' };
  }
  if (ref.includes('\0')) return { ok: false, reason: 'the path contains a NUL character' };
  const target = path.resolve(path.dirname(from.path), ref);
  if (!isInside(from.root, target)) return { ok: false, reason: 'the path leads outside the manifest directory' };
  let real: string;
  let realRoot: string;
  try {
    lstatSync(target);
    real = realpathSync(target);
    realRoot = realpathSync(from.root);
  } catch {
    return { ok: false, reason: 'no such file' };
  }
  if (!isInside(realRoot, real)) return { ok: false, reason: 'it is a symbolic link that leads outside the manifest directory' };
  let st;
  try {
    st = statSync(real);
  } catch {
    return { ok: false, reason: 'no such file' };
  }
  if (!st.isFile()) return { ok: false, reason: 'it is not a regular file' };
  if (st.size > limits.maxReferencedFileBytes) return { ok: false, reason: `it is larger than ${formatBytes(limits.maxReferencedFileBytes)}` };
  try {
    const buf = readFileSync(real);
    if (looksBinary(buf)) return { ok: false, reason: 'it is a binary file (values are text)' };
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(buf) };
  } catch {
    return { ok: false, reason: 'it is not readable UTF-8 text' };
  }
}

