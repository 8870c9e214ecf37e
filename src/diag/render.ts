/**
 * Rendering diagnostics: human text (optionally coloured) and GitHub Actions workflow commands.
 * Pure functions of the diagnostics; the caller decides where the text goes.
 *
 * Everything shown comes from the diagnostic, whose text may quote user input (names, keys). Control
 * characters are neutralised here so that a crafted name cannot drive the terminal or forge an
 * extra GitHub workflow command.
 */
import type { Diagnostic, RelatedLocation, Severity } from './diagnostic.js';
import { formatRange } from './excerpt.js';
import { createPalette, type Palette } from '../render/palette.js';
import { readableAddress } from '../model/resource.js';

// One palette for every human renderer (diagnostics use a subset of its colours).
export { createPalette, type Palette } from '../render/palette.js';

/** Colour only for a terminal, and never when NO_COLOR is set, TERM is dumb or --no-color was given. */
export function shouldUseColor(opts: { isTTY?: boolean; env: Record<string, string | undefined>; noColor?: boolean }): boolean {
  if (opts.noColor) return false;
  if (opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== '') return false;
  if (opts.env.FORCE_COLOR !== undefined && opts.env.FORCE_COLOR !== '' && opts.env.FORCE_COLOR !== '0') return true;
  if (opts.env.TERM === 'dumb') return false;
  return opts.isTTY === true;
}

/**
 * Replaces terminal control characters (ESC, CSI, BEL...), line and paragraph separators and bidi
 * overrides / isolates (which reorder what is shown: "evil\u202egnp.exe" reads "evilexe.png") with
 * `?`, one character for one so that carets stay aligned; keeps newlines when asked.
 */
export function sanitize(s: string, keepNewlines = false): string {
  return s.replace(keepNewlines ? /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g : /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => (c === '\t' ? ' ' : '?'));
}

function severityLabel(sev: Severity, p: Palette): string {
  if (sev === 'error') return p.bold(p.red('error'));
  if (sev === 'warning') return p.bold(p.yellow('warning'));
  return p.bold(p.cyan('info'));
}

/**
 * One diagnostic, compiler style:
 *
 *   error[schema.unknown-key]: unknown key `dockerfile_pth` in application `api`
 *     --> infra/app.yaml:12:13
 *      |
 *   12 |             dockerfile_pth: Dockerfile
 *      |             ^~~~~~~~~~~~~~
 *      = Did you mean `dockerfile_path`? ...
 */
export function renderDiagnostic(d: Diagnostic, p: Palette = createPalette(false)): string {
  const lines: string[] = [];
  lines.push(`${severityLabel(d.severity, p)}${p.dim(`[${d.code}]`)}: ${p.bold(sanitize(d.summary))}`);
  const gutterWidth = d.range ? String(d.range.start.line).length : 1;
  const pad = ' '.repeat(gutterWidth);
  if (d.range) lines.push(`${pad}${p.cyan('-->')} ${sanitize(formatRange(d.range))}`);
  if (d.range && d.excerpt) {
    const [src = '', caret = ''] = d.excerpt.split('\n');
    lines.push(`${pad} ${p.cyan('|')}`);
    lines.push(`${p.cyan(String(d.range.start.line))} ${p.cyan('|')} ${sanitize(src)}`);
    lines.push(`${pad} ${p.cyan('|')} ${d.severity === 'error' ? p.red(caret) : p.yellow(caret)}`);
  }
  if (d.related?.length) lines.push(`${pad} ${p.cyan('=')} ${sanitize(relatedText(d.related))}`);
  if (d.detail) for (const l of sanitize(d.detail, true).split('\n')) lines.push(`${pad} ${p.cyan('=')} ${l}`);
  if (d.address) lines.push(`${pad} ${p.cyan('=')} ${p.dim(`at ${sanitize(readableAddress(d.address))}`)}`);
  return lines.join('\n');
}

/** "defined at t.yaml:4:9, overridden at prod.yaml:12:11": a diagnostic's other locations. */
export function relatedText(related: readonly RelatedLocation[]): string {
  return related.map((r) => `${r.message} at ${formatRange(r.range)}`).join(', ');
}

export function countBySeverity(diags: readonly Diagnostic[]): Record<Severity, number> {
  const c: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const d of diags) c[d.severity]++;
  return c;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 errors, 1 warning" (empty string when there is nothing). */
export function summarizeDiagnostics(diags: readonly Diagnostic[]): string {
  const c = countBySeverity(diags);
  const parts: string[] = [];
  if (c.error) parts.push(plural(c.error, 'error'));
  if (c.warning) parts.push(plural(c.warning, 'warning'));
  if (c.info) parts.push(plural(c.info, 'note'));
  return parts.join(', ');
}

/** All diagnostics, separated by blank lines, ending with a newline (empty string for none). */
export function renderDiagnosticsHuman(diags: readonly Diagnostic[], p: Palette = createPalette(false)): string {
  return diags.length ? diags.map((d) => renderDiagnostic(d, p)).join('\n\n') + '\n' : '';
}

/** Workflow-command escaping of the message part (GitHub's `escapeData`). */
export function escapeGithubData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Workflow-command escaping of a property value (GitHub's `escapeProperty`). */
export function escapeGithubProperty(s: string): string {
  return escapeGithubData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const GITHUB_COMMAND: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

/**
 * One GitHub Actions annotation per diagnostic:
 *   ::error file=app.yaml,line=12,col=13,endLine=12,endColumn=27,title=schema.unknown-key::unknown key ...
 * The message holds the summary and the detail on a second line; never the excerpt.
 */
export function renderDiagnosticGithub(d: Diagnostic): string {
  const props: string[] = [];
  if (d.range) {
    props.push(`file=${escapeGithubProperty(sanitize(d.range.file))}`, `line=${d.range.start.line}`, `col=${d.range.start.col}`);
    if (d.range.end) props.push(`endLine=${d.range.end.line}`, `endColumn=${d.range.end.col}`);
  }
  props.push(`title=${escapeGithubProperty(sanitize(d.code))}`);
  const message = sanitize(d.summary) + (d.related?.length ? `\n${sanitize(relatedText(d.related))}` : '') + (d.detail ? `\n${sanitize(d.detail, true)}` : '');
  return `::${GITHUB_COMMAND[d.severity]} ${props.join(',')}::${escapeGithubData(message)}`;
}

export function renderDiagnosticsGithub(diags: readonly Diagnostic[]): string {
  return diags.map((d) => renderDiagnosticGithub(d) + '\n').join('');
}
