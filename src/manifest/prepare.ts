/**
 * A manifest's files discovered and read, before anything is parsed, and the load cache's key of
 * them: what a warm `plan` needs to know whether its last plan may stand (src/cli/plan-memo.ts)
 * without loading the parser, the schema or the checks (load.ts imports this, not the reverse).
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { discoverManifestFiles, type ManifestFile } from './discover.js';
import { readManifestFile, readReferencedFile } from './read-files.js';
import { loadCacheKey } from './load-cache-key.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-yaml.js';
import type { FileReadResult } from './resolve.js';

export interface LoadLimits extends ParseLimits {
  /** Largest manifest file read, in bytes. */
  maxFileBytes: number;
  /** Largest file a `${file:...}` reference may read, in bytes. */
  maxReferencedFileBytes: number;
}

export const DEFAULT_LOAD_LIMITS: LoadLimits = {
  ...DEFAULT_PARSE_LIMITS,
  // NOTE: the YAML parser needs about a second per MiB on a loaded CI machine. 2 MiB holds the
  // 1,000-service project of issue 6's benchmark in one file (1 x 10 x 100, each service with 12
  // variables: about 1 MiB); a larger project can be split over several files of a directory.
  maxFileBytes: 2 * 1024 * 1024,
  maxReferencedFileBytes: 1024 * 1024,
};

/** A manifest file's text, already read. */
export interface ManifestSource {
  file: ManifestFile;
  text: string;
}

/**
 * What a load's resolution read besides the manifest files: each `${env:}` variable and each
 * `${file:}` reference, with what it gave. Held in memory only (values may be secrets).
 */
export interface ResolutionInputs {
  env: Map<string, string | undefined>;
  files: Array<{ ref: string; from: string; result: FileReadResult }>;
}

/** The manifest files of `paths`, discovered and read, before anything is parsed. */
export interface PreparedManifest {
  discovered: { files: ManifestFile[]; diagnostics: Diagnostic[] };
  sources: ManifestSource[];
  readProblems: Diagnostic[];
  limits: LoadLimits;
}

export function prepareManifest(paths: readonly string[], opts: { cwd: string; limits?: Partial<LoadLimits> }): PreparedManifest {
  const limits: LoadLimits = { ...DEFAULT_LOAD_LIMITS, ...opts.limits };
  const discovered = discoverManifestFiles(paths, opts.cwd);
  const sources: ManifestSource[] = [];
  const readProblems: Diagnostic[] = [];
  for (const file of discovered.files) {
    const read = readManifestFile(file, limits);
    if ('diagnostic' in read) readProblems.push(read.diagnostic);
    else sources.push({ file, text: read.text });
  }
  return { discovered, sources, readProblems, limits };
}

/**
 * The key of a prepared manifest's files as the load cache computes it (load-cache.ts: paths,
 * bytes, limits, `identity`), or undefined when discovering or reading them said anything.
 */
export function preparedManifestKey(prepared: PreparedManifest, identity: string): string | undefined {
  if (prepared.discovered.diagnostics.length > 0 || prepared.readProblems.length > 0 || prepared.sources.length === 0) return undefined;
  const limits: ParseLimits = { ...DEFAULT_PARSE_LIMITS, ...prepared.limits };
  return loadCacheKey(identity, prepared.sources.map((s) => ({ path: s.file.path, display: s.file.display, text: s.text })), limits);
}

/** A `${file:}` reference read again as a load reads it (for a reused plan's inputs). */
export function readReferenceOf(prepared: PreparedManifest, ref: string, fromDisplay: string): FileReadResult {
  const from = prepared.sources.find((s) => s.file.display === fromDisplay)?.file;
  return from ? readReferencedFile(ref, from, prepared.limits) : { ok: false, reason: 'the manifest file is unknown' };
}

