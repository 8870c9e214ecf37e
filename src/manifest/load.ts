/**
 * loadManifest: files on disk -> one validated, resolved Manifest, or diagnostics.
 *
 *   discover files -> read (size, binary, UTF-8 checks) -> parse YAML with source ranges
 *   -> schema-validate each file, numbers -> merge (projects, environments and templates by name)
 *   -> expand environment templates (templates.ts)
 *   -> duplicates, completeness (what a partial declaration left out), field combinations, references
 *   -> resolve ${env:} / ${file:} and wrap secrets -> cron schedules, time zones, look-alike names
 *   -> excerpts on every diagnostic
 *
 * Every problem found is reported at once; the manifest is returned only when there is no error
 * (warnings allowed). The only side effects are reading the manifest files and the files they
 * reference; the environment is passed in.
 */
import { hasErrors, type Diagnostic, type SourceRange } from '../diag/diagnostic.js';
import { error, warning } from './codes.js';
import { makeExcerpt, type Redaction } from '../diag/excerpt.js';
import type { ManifestFile } from './discover.js';
import { findDuplicates } from './duplicates.js';
import { checkCompleteness, type ParsedFile } from './completeness.js';
import { mergeManifestFiles, type PartialFile } from './merge.js';
import { DEFAULT_PARSE_LIMITS, parseYamlFile, type ParseLimits } from './parse-yaml.js';
import { parseYamlFileLazily } from './lazy-positions.js';
import { readReferencedFile } from './read-files.js';
import { checkReferences, type ReferenceContext } from './references.js';
import { resolveManifest, type FileReadResult } from './resolve.js';
import { prepareManifest, type LoadLimits, type ManifestSource, type PreparedManifest, type ResolutionInputs } from './prepare.js';
import { envReader } from './env-reader.js';
import { validateManifestSchema } from './schema-validate.js';
import { findSecretRanges } from './secret-ranges.js';
import { checkShapes } from './shape-checks.js';
import { walkParsedFile } from './file-walk.js';
import { checkValues } from './value-checks.js';
import { expandTemplates, relateDiagnostics, relateOverrideProblems, type TemplateLocations } from './templates.js';
import { decodeLoadCacheEntry, encodeLoadCacheEntry, loadCacheKey, type LoadCacheStore } from './load-cache.js';
import type { Manifest } from './types.js';
import { withPreviewEnvironment, type PreviewRequest } from './previews.js';

export { DEFAULT_LOAD_LIMITS, prepareManifest, preparedManifestKey, readReferenceOf, type LoadLimits, type ManifestSource, type PreparedManifest, type ResolutionInputs } from './prepare.js';

export { readReferencedFile };

export interface LoadOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  /** Names that exist outside the manifest (clusters, registries); unchecked when omitted. */
  references?: ReferenceContext;
  limits?: Partial<LoadLimits>;
  /** An unset `${env:NAME}`: an error (default; plan, apply) or a warning per name (offline validate). Empty is an error. */
  missingEnv?: 'error' | 'warning';
  /** `unread`: secret fields' references are not resolved (plan --no-secret-values); see ResolveDeps.secretValues. */
  secretValues?: 'read' | 'unread';
  /** Where what the files built is kept between runs (load-cache.ts); none: every load parses. */
  cache?: LoadCacheStore;
  /** `driftless preview up`: the preview environment of this pull request is added to its project (previews.ts). */
  preview?: PreviewRequest;
  /** The files of `paths` already discovered and read (prepareManifest): not read again. */
  prepared?: PreparedManifest;
  /** Filled with what resolution read besides the files (a reused plan's inputs: src/cli/plan-memo.ts). */
  recordInputs?: ResolutionInputs;
}

export interface LoadResult {
  /** Present when there is no error. */
  manifest?: Manifest;
  /**
   * Where each object the manifest instantiates from a template was written (the template, the
   * environment's override): for relateDiagnostics and buildGraph. Absent without templates.
   */
  templates?: TemplateLocations;
  /** Errors and warnings, sorted by file, line and column, each with its excerpt. */
  diagnostics: Diagnostic[];
  /** The manifest files read, as shown in diagnostics (relative to cwd when inside it). */
  files: string[];
}

interface FileText {
  file: ManifestFile;
  text: string;
  lineStarts: number[];
  lines?: string[];
}

export async function loadManifest(paths: readonly string[], opts: LoadOptions): Promise<LoadResult> {
  return loadManifestSync(paths, opts);
}

/** The same as loadManifest, synchronously (the work is CPU-bound and local). */
export function loadManifestSync(paths: readonly string[], opts: LoadOptions): LoadResult {
  const { discovered, sources, readProblems, limits } = opts.prepared ?? prepareManifest(paths, opts);
  const result = loadManifestFromSources(sources, {
    env: opts.env,
    references: opts.references,
    limits,
    ...(opts.missingEnv ? { missingEnv: opts.missingEnv } : {}),
    ...(opts.secretValues ? { secretValues: opts.secretValues } : {}),
    ...(opts.cache && !opts.preview ? { cache: opts.cache } : {}),
    ...(opts.preview ? { preview: opts.preview } : {}),
    ...(opts.recordInputs ? { recordInputs: opts.recordInputs } : {}),
    readFile: (ref, from) => readReferencedFile(ref, from, limits),
  });
  const diagnostics = [...discovered.diagnostics, ...readProblems, ...result.diagnostics];
  const noFiles = discovered.files.length === 0;
  return {
    manifest: hasErrors(diagnostics) || noFiles ? undefined : result.manifest,
    ...(result.templates ? { templates: result.templates } : {}),
    diagnostics: sortDiagnostics(diagnostics, discovered.files.map((f) => f.display)),
    files: discovered.files.map((f) => f.display),
  };
}

export interface SourceLoadOptions {
  env: Record<string, string | undefined>;
  references?: ReferenceContext;
  limits?: Partial<ParseLimits>;
  /** See LoadOptions.missingEnv. */
  missingEnv?: 'error' | 'warning';
  /** See LoadOptions.secretValues. */
  secretValues?: 'read' | 'unread';
  /** Reads a `${file:...}` reference of the manifest file `from`. */
  readFile(ref: string, from: ManifestFile): FileReadResult;
  /** See LoadOptions.cache. */
  cache?: LoadCacheStore;
  /** See LoadOptions.preview. */
  preview?: PreviewRequest;
  /** See LoadOptions.recordInputs. */
  recordInputs?: ResolutionInputs;
}

/**
 * The loader's pure core: texts in, Manifest and diagnostics out (file access only through
 * `readFile`). Tests and fuzzers call it directly.
 */
export function loadManifestFromSources(sources: readonly ManifestSource[], opts: SourceLoadOptions): Omit<LoadResult, 'files'> {
  const limits: ParseLimits = { ...DEFAULT_PARSE_LIMITS, ...opts.limits };
  const diagnostics: Diagnostic[] = [];
  const texts = new Map<string, FileText>();
  const parts: PartialFile[] = [];
  /** Every file's parsed value, schema-valid or not: where a template is, for problems in an override. */
  const parsedValues: unknown[] = [];
  const secretRanges: SourceRange[] = [];
  /** Some file could not be parsed or failed the schema: what it declares is unknown. */
  let incomplete = false;
  /** Every file parsed to a mapping, schema-valid or not: what completeness is checked over. */
  const parsedFiles: ParsedFile[] = [];
  /** Some file is not even YAML: what it declares is unknown. */
  let unparsed = false;

  // Files unchanged since the run that stored the cache: their manifest as the file-only stages
  // left it, with no diagnostic (only a clean load is stored); resolution and the checks after it run.
  const cacheKey = opts.cache ? loadCacheKey(opts.cache.identity, sources.map((s) => ({ path: s.file.path, display: s.file.display, text: s.text })), limits) : undefined;
  const stored = opts.cache && cacheKey ? opts.cache.read() : undefined;
  const cachedManifest = stored !== undefined && cacheKey ? decodeLoadCacheEntry(stored, cacheKey) : undefined;
  if (cachedManifest) for (const { file, text } of sources) texts.set(file.display, { file, text, lineStarts: lineStartsOf(text) });

  for (const { file, text } of cachedManifest ? [] : sources) {
    // Fast, positions built when first asked for (lazy-positions.ts); with a load cache, positioned
    // at once: a clean load is stored with every position (load-cache.ts), which would ask for all.
    const parsed = opts.cache ? parseYamlFile(text, file.display, limits) : parseYamlFileLazily(text, file.display, limits);
    texts.set(file.display, { file, text, lineStarts: parsed.lineCounter.lineStarts });
    diagnostics.push(...parsed.diagnostics);
    if (hasErrors(parsed.diagnostics)) {
      incomplete = true;
      unparsed = true;
      continue;
    }
    if (parsed.value === undefined || parsed.value === null) {
      diagnostics.push(warning('manifest.empty-file', 'the file is empty', { detail: 'It declares nothing.', range: { file: file.display, start: { line: 1, col: 1 } } }));
      continue;
    }
    // Before resolution rewrites them: where the file itself shows a secret; and, in the same walk,
    // numbers the API would not get as written (reported after the schema, below).
    const walked = walkParsedFile(parsed.value, file.display);
    secretRanges.push(...walked.secretRanges);
    if (typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
      diagnostics.push(
        error('schema.wrong-type', 'a manifest file must be a mapping at the top level', {
          detail: 'Start with `version: 1` and top-level keys such as `projects:`.',
          range: { file: file.display, start: { line: 1, col: 1 } },
          // A file that is not a manifest at all: none of its text is shown.
          excerpt: '',
        }),
      );
      incomplete = true;
      continue;
    }
    parsedFiles.push({ file: file.display, value: parsed.value as Record<string, unknown> });
    parsedValues.push(parsed.value);
    const schemaDiags = validateManifestSchema(parsed.value, file.display);
    diagnostics.push(...schemaDiags);
    // After the schema (which reports a wrong type first): numbers the API would not get as written.
    if (schemaDiags.length === 0) {
      diagnostics.push(...walked.numberDiagnostics());
    }
    if (schemaDiags.length === 0) parts.push({ file: file.display, value: parsed.value as Record<string, unknown> });
    else incomplete = true;
  }

  // What a file may leave to another (an environment's cluster), over every file that parsed, even
  // one that failed the schema; not when a file is not YAML: that one may be where it is written.
  if (!unparsed && !cachedManifest) diagnostics.push(...checkCompleteness(parsedFiles));

  let manifest: Manifest | undefined;
  let templates: TemplateLocations | undefined;
  if (cachedManifest) {
    manifest = cachedManifest;
    diagnostics.push(...finishLoad(manifest, true, texts, opts));
  } else if (parts.length === 0 && sources.length > 0 && !hasErrors(diagnostics)) {
    diagnostics.push(error('manifest.empty', 'the manifest declares nothing', { detail: 'Write at least `version: 1`.' }));
  } else if (parts.length > 0) {
    // The files that passed the schema are checked further even when another one did not, so that
    // one run shows every problem. Reference checks are the exception: a name declared in a broken
    // file would be reported as missing.
    const complete = !incomplete && !hasErrors(diagnostics);
    const merged = mergeManifestFiles(parts);
    // A preview being made is an environment of its project from here on (previews.ts).
    let declared = merged.manifest;
    if (opts.preview) {
      const withPreview = withPreviewEnvironment(merged.manifest, opts.preview);
      diagnostics.push(...withPreview.diagnostics);
      if (withPreview.manifest) declared = withPreview.manifest;
    }
    // Templates are expanded before any other check: every later stage sees plain environments.
    const expanded = expandTemplates(declared);
    manifest = expanded.manifest;
    templates = expanded.templates;
    // An override's value of a variable its template marks secret is a secret too: only the
    // expanded manifest shows which values those are.
    if (expanded.manifest !== merged.manifest) secretRanges.push(...findSecretRanges(expanded.manifest));
    diagnostics.push(...merged.diagnostics, ...expanded.diagnostics, ...findDuplicates(manifest), ...checkShapes(manifest));
    // Stored before resolution writes values into it, and only when clean (see load-cache.ts).
    const cacheable = opts.cache && cacheKey && complete && diagnostics.length === 0 && expanded.manifest === merged.manifest && secretRanges.length === 0;
    if (cacheable) storeLoad(opts.cache!, cacheKey!, manifest);
    // A template that could not be instantiated leaves its environments without what it declares.
    diagnostics.push(...finishLoad(manifest, complete && !expanded.incomplete, texts, opts));
  }

  // Indexed by file and line: an excerpt looks only at the redactions of its own line, so that
  // 30,000 secrets with 30,000 diagnostics stay linear (a list per file made it quadratic).
  const redactions = new Map<string, Map<number, Redaction[]>>();
  for (const r of secretRanges) {
    if (!r.end) continue;
    let byLine = redactions.get(r.file);
    if (!byLine) redactions.set(r.file, (byLine = new Map()));
    for (let line = r.start.line; line <= r.end.line; line++) {
      const list = byLine.get(line) ?? [];
      list.push({ start: r.start, end: r.end });
      byLine.set(line, list);
    }
  }
  // A problem of an object instantiated from a template also points at the template and the override.
  const withExcerpts = collapseRepeats(relateOverrideProblems(parsedValues, relateDiagnostics(templates, diagnostics))).map((d) => {
    if (!d.range || d.excerpt !== undefined) return d;
    const t = texts.get(d.range.file);
    if (t && !t.lines) t.lines = t.text.split('\n');
    const excerpt = t ? makeExcerpt(t.lines!, d.range, redactions.get(d.range.file)?.get(d.range.start.line)) : undefined;
    return excerpt === undefined ? d : { ...d, excerpt };
  });
  return {
    manifest: hasErrors(withExcerpts) ? undefined : manifest,
    ...(templates ? { templates } : {}),
    diagnostics: sortDiagnostics(withExcerpts, sources.map((s) => s.file.display)),
  };
}

/**
 * The stages that depend on more than the files' bytes, run on every load (cached or not): the
 * reference checks (names the API knows), resolution of `${env:}` / `${file:}` and the checks of
 * resolved values. Resolution writes the values into `manifest`.
 */
function finishLoad(manifest: Manifest, checkRefs: boolean, texts: Map<string, FileText>, opts: SourceLoadOptions): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (checkRefs) diagnostics.push(...checkReferences(manifest, opts.references));
  const record = opts.recordInputs;
  const readEnv = envReader(opts.env);
  const resolved = resolveManifest(manifest, {
    env: opts.env,
    ...(opts.missingEnv ? { missingEnv: opts.missingEnv } : {}),
    ...(opts.secretValues ? { secretValues: opts.secretValues } : {}),
    readEnv: record
      ? (name) => {
          const value = readEnv(name);
          record.env.set(name, value);
          return value;
        }
      : readEnv,
    readFile: (ref, fromFile) => {
      const from = texts.get(fromFile)?.file;
      const result: FileReadResult = from ? opts.readFile(ref, from) : { ok: false, reason: 'the manifest file is unknown' };
      record?.files.push({ ref, from: fromFile, result });
      return result;
    },
    refine: (range, needle) => refineRange(range, needle, texts.get(range.file)),
  });
  diagnostics.push(...resolved.diagnostics);
  // After resolution: a schedule or time zone may come from ${env:...}.
  diagnostics.push(...checkValues(manifest));
  return diagnostics;
}

/** A failure to encode or write leaves the next run to parse, as without a cache. */
function storeLoad(cache: LoadCacheStore, key: string, manifest: Manifest): void {
  let data: string;
  try {
    data = encodeLoadCacheEntry(key, manifest);
  } catch {
    return;
  }
  try {
    cache.write(data);
  } catch {
    // Not a problem of the manifest: the next run parses.
  }
}

/** Offsets where each line of `text` starts, as the YAML library's LineCounter has them. */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * The same problem at the same place, reported once: a mistake in a template is found again in
 * every environment that instantiates it (`tagg` in a template service's ignore_changes, with
 * three environments, was three identical errors). The places the repeats relate to are kept.
 */
function collapseRepeats(diags: readonly Diagnostic[]): Diagnostic[] {
  const first = new Map<string, Diagnostic>();
  const out: Diagnostic[] = [];
  for (const d of diags) {
    if (!d.range) {
      out.push(d);
      continue;
    }
    const key = JSON.stringify([d.severity, d.code, d.summary, d.detail, d.range.file, d.range.start]);
    const kept = first.get(key);
    if (!kept) {
      const copy = { ...d };
      first.set(key, copy);
      out.push(copy);
      continue;
    }
    for (const r of d.related ?? []) {
      const known = (kept.related ?? []).some((k) => k.message === r.message && k.range.file === r.range.file && k.range.start.line === r.range.start.line && k.range.start.col === r.range.start.col);
      if (!known) kept.related = [...(kept.related ?? []), r];
    }
  }
  return out;
}

/** Source order: by file (in load order), line, column; diagnostics without a place first. */
function sortDiagnostics(diags: Diagnostic[], fileOrder: readonly string[]): Diagnostic[] {
  const order = new Map(fileOrder.map((f, i) => [f, i]));
  return [...diags].sort((a, b) => compareRanges(a.range, b.range, order));
}

function compareRanges(a: SourceRange | undefined, b: SourceRange | undefined, order: Map<string, number>): number {
  if (!a || !b) return a ? 1 : b ? -1 : 0;
  const fa = order.get(a.file) ?? 0;
  const fb = order.get(b.file) ?? 0;
  return fa - fb || a.start.line - b.start.line || a.start.col - b.start.col;
}

/** Narrows `range` to the first occurrence of `needle` at or after its start (same line preferred). */
function refineRange(range: SourceRange, needle: string, t: FileText | undefined): SourceRange {
  if (!t) return range;
  const lineStart = t.lineStarts[range.start.line - 1];
  if (lineStart === undefined) return range;
  const from = lineStart + range.start.col - 1;
  const idx = t.text.indexOf(needle, from);
  if (idx < 0 || idx > from + 4096) return range;
  let line = range.start.line;
  while (line < t.lineStarts.length && t.lineStarts[line]! <= idx) line++;
  const col = idx - t.lineStarts[line - 1]! + 1;
  return { file: range.file, start: { line, col }, end: { line, col: col + needle.length } };
}
