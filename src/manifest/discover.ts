/**
 * Which files make up a manifest: each path is a manifest file or a directory whose `*.yaml` /
 * `*.yml` files (not recursive, hidden files skipped, sorted by name so that merging is
 * deterministic) are the manifest.
 * The directory given (or the file's directory) is the file's root: `${file:...}` never reads
 * outside it.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from './codes.js';

export interface ManifestFile {
  /** Absolute path. */
  path: string;
  /** Absolute path of the directory `${file:}` references are confined to. */
  root: string;
  /** Path as shown to the user (relative to cwd when inside it). */
  display: string;
}

export function displayPath(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  const shown = rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
  return shown.split(path.sep).join('/');
}

export function discoverManifestFiles(paths: readonly string[], cwd: string): { files: ManifestFile[]; diagnostics: Diagnostic[] } {
  const files: ManifestFile[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const add = (abs: string, root: string) => {
    if (seen.has(abs)) return;
    seen.add(abs);
    files.push({ path: abs, root, display: displayPath(abs, cwd) });
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
          .filter((d) => (d.isFile() || d.isSymbolicLink()) && /\.ya?ml$/i.test(d.name) && !d.name.startsWith('.'))
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
      add(abs, path.dirname(abs));
    } else {
      diagnostics.push(error('manifest.not-a-file', `${displayPath(abs, cwd)} is neither a file nor a directory`));
    }
  }
  return { files, diagnostics };
}
