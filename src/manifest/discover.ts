/**
 * Which files make up a manifest: each path is a manifest file or a directory whose `*.yaml` /
 * `*.yml` files (not recursive, hidden files skipped, sorted by name so that merging is
 * deterministic) are the manifest.
 * The directory given (or the file's directory) is the file's root: `${file:...}` never reads
 * outside it.
 *
 * Confinement, by the same rules as `${file:...}` (read-files.ts): a manifest file is read through
 * its real path, which must stay inside the real path of its root and end in `.yaml` / `.yml`. A
 * symbolic link that leads elsewhere (`evil.yaml -> /etc/passwd`, a credentials file) is refused with
 * an error naming the link, and the file it points at is never opened, so no excerpt of it can
 * ever be shown.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from './codes.js';

export interface ManifestFile {
  /** Absolute path. */
  path: string;
  /**
   * Absolute real path (symbolic links resolved, checked to be inside the root): what is read.
   * Absent for files built in memory (tests); `path` is read then.
   */
  realPath?: string;
  /** Absolute path of the directory `${file:}` references are confined to. */
  root: string;
  /** Path as shown to the user (relative to cwd when inside it). */
  display: string;
}

const MANIFEST_NAME = /\.ya?ml$/i;

export function displayPath(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  const shown = rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
  return shown.split(path.sep).join('/');
}

/** Whether `target` is `root` or below it (both absolute, already resolved). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Where a manifest file really is, or why it may not be read. A broken link or a missing file
 * yields `{ real: undefined }` (the reader reports it as unreadable); a link whose target leaves the
 * root, or names a file that is not YAML, is refused without opening the target.
 */
export function confineManifestFile(abs: string, root: string, display: string, rootDisplay: string): { real?: string; refusal?: Diagnostic } {
  let isLink = false;
  try {
    isLink = lstatSync(abs).isSymbolicLink();
  } catch {
    return {};
  }
  let real: string;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    real = realpathSync(abs);
  } catch {
    return {};
  }
  if (!isInside(realRoot, real)) {
    return {
      refusal: error('manifest.outside-directory', `${display} is a symbolic link that leads outside the manifest directory`, {
        detail: `A manifest file, like a \`\${file:...}\` reference, must stay inside ${rootDisplay}; the file it points at was not read. Remove the link, or copy the manifest file into the directory.`,
        // The link itself, for annotations; no excerpt can be made of a file that is not read.
        range: { file: display, start: { line: 1, col: 1 } },
      }),
    };
  }
  if (isLink && !MANIFEST_NAME.test(real)) {
    return {
      refusal: error('manifest.not-a-manifest', `${display} is a symbolic link to a file that is not a *.yaml or *.yml file`, {
        detail: 'Only YAML files are read as the manifest; the file it points at was not read.',
        range: { file: display, start: { line: 1, col: 1 } },
      }),
    };
  }
  return { real };
}

export function discoverManifestFiles(paths: readonly string[], cwd: string): { files: ManifestFile[]; diagnostics: Diagnostic[] } {
  const files: ManifestFile[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const add = (abs: string, root: string) => {
    if (seen.has(abs)) return;
    seen.add(abs);
    const display = displayPath(abs, cwd);
    const confined = confineManifestFile(abs, root, display, displayPath(root, cwd));
    if (confined.refusal) {
      diagnostics.push(confined.refusal);
      return;
    }
    files.push({ path: abs, ...(confined.real ? { realPath: confined.real } : {}), root, display });
  };
  for (const given of paths.length > 0 ? paths : ['.']) {
    const abs = path.resolve(cwd, given);
    let st;
    try {
      st = statSync(abs);
    } catch {
      diagnostics.push(error('manifest.not-found', `no such file or directory: ${displayPath(abs, cwd)}`, { detail: 'Give a manifest file or a directory of *.yaml / *.yml files.' }));
      continue;
    }
    if (st.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(abs, { withFileTypes: true })
          .filter((d) => (d.isFile() || d.isSymbolicLink()) && MANIFEST_NAME.test(d.name) && !d.name.startsWith('.'))
          .map((d) => d.name)
          .sort();
      } catch {
        diagnostics.push(error('manifest.unreadable', `cannot read directory ${displayPath(abs, cwd)}`));
        continue;
      }
      if (names.length === 0) {
        diagnostics.push(error('manifest.empty-directory', `no *.yaml or *.yml file in ${displayPath(abs, cwd)}`, { detail: 'A manifest directory holds one or more YAML files.' }));
        continue;
      }
      for (const n of names) add(path.join(abs, n), abs);
    } else if (st.isFile()) {
      if (!MANIFEST_NAME.test(abs)) {
        // `driftless validate /etc/passwd` would show its lines in the excerpts of its errors.
        diagnostics.push(error('manifest.not-a-manifest', `${displayPath(abs, cwd)} is not a *.yaml or *.yml file`, { detail: 'A manifest is YAML files named *.yaml or *.yml; other files are not read.' }));
        continue;
      }
      add(abs, path.dirname(abs));
    } else {
      diagnostics.push(error('manifest.not-a-file', `${displayPath(abs, cwd)} is neither a file nor a directory`));
    }
  }
  return { files, diagnostics };
}
