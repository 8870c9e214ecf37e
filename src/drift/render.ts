/**
 * Drift reports as text: human (terminal / CI log), JSON (machines, with the fingerprint a
 * workflow keys its issue on) and markdown (the body of a GitHub issue). Pure functions.
 *
 * Everything shown that comes from the platform or the manifest (names, values) is escaped for its
 * format, so that a resource named to look like markdown, HTML, an @-mention or a terminal escape
 * cannot inject anything into the issue or the log. Secret values never reach here (the plan has
 * none); sensitive fields are shown as `(sensitive value)`.
 */
import { REDACTED } from '../model/secret.js';
import { escapeControl, escapeJsonText, escapeMarkdown, fenceFor, inlineCode } from '../render/escape.js';
import type { Palette } from '../render/palette.js';
import { outOfScopeLine } from '../plan/scope.js';
import { previewsLine } from '../plan/types.js';
import { joinMarkdown, packMarkdown, textBlock, type MarkdownBlock, type MarkdownDocument } from '../render/markdown-parts.js';
import { DRIFT_FORMAT_VERSION, type DriftField, type DriftItem, type DriftOrigin, type DriftReport } from './detect.js';
import type { Diagnostic } from '../diag/diagnostic.js';
import { changedByLine } from './changed-by.js';
import { plural } from '../render/words.js';
import { readableAddress } from '../model/resource.js';
import { shellQuote } from '../render/shell-quote.js';

export interface DriftRenderContext {
  /** The manifest paths as given, for the command that reconciles. */
  paths: readonly string[];
  /**
   * Whether the human report ends with next-step hints (the command that reconciles, how to keep a
   * change instead). Default true; false in CI (src/cli/ci.ts), where the workflow decides. The JSON
   * report's `reconcile_command` is data and the markdown issue body a document: both keep theirs.
   */
  hints?: boolean;
  /** `drift --target`: the reconciling command targets the same addresses. */
  targets?: readonly string[];
}

const ORIGIN_TEXT: Record<DriftOrigin, string> = {
  outside_git: 'changed outside Git',
  git: 'changed in Git, not applied yet',
  unknown: 'origin unknown',
};

export function reconcileCommand(ctx: DriftRenderContext): string {
  const paths = ctx.paths.length > 0 ? ` ${ctx.paths.map(shellQuote).join(' ')}` : '';
  // After the paths: --target takes every word that follows it.
  // Addresses as people read them: --target takes that form too (canonicalAddress).
  const targets = ctx.targets && ctx.targets.length > 0 ? ` --target ${ctx.targets.map((t) => shellQuote(readableAddress(t))).join(' ')}` : '';
  return `driftless apply${paths}${targets}`;
}

function value(v: unknown): string {
  if (v === undefined) return '(none)';
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v);
}

function fieldLine(f: DriftField): string {
  if (f.sensitive) return `${f.field}: ${REDACTED} differs`;
  return `${f.field}: live ${value(f.live)}, Git ${value(f.git)}`;
}

/** `file:line`; for an object of a template, each place it is written (`defined at ..., overridden at ...`). */
function where(i: DriftItem): string | undefined {
  if (i.related?.length) return i.related.map((r) => `${r.message} at ${r.range.file}:${r.range.start.line}`).join(', ');
  return i.source ? `declared at ${i.source.file}:${i.source.start.line}` : undefined;
}

/** The item's origin as shown: the audit log's cause of an undeclared object, or the origin, `inferred` when it is. */
function originText(i: DriftItem): string {
  const base = i.cause === 'removed_from_git' ? 'removed from Git' : i.cause === 'created_outside_git' ? 'created outside Git' : ORIGIN_TEXT[i.origin];
  // An unknown origin was inferred from nothing: saying so would claim an inference that was not made.
  return i.attribution === 'inference' && i.origin !== 'unknown' ? `${base}, inferred from timestamps` : base;
}

/** The report-level line of an inference: the audit log could not be read, and why. */
function inferenceLine(r: DriftReport): string | undefined {
  if (r.attribution?.source !== 'inference' || r.items.length === 0) return undefined;
  return `Origins are inferred from the records' timestamps, not read from the audit log: ${r.attribution.reason ?? 'it is not available'}.`;
}

/** `drift --target`: the report is of a part of the manifest only. */
function partialReportLine(r: DriftReport): string | undefined {
  if (!r.targets || r.targets.length === 0) return undefined;
  return `Partial report (--target): only ${r.targets.map(readableAddress).join(', ')}, what is under ${r.targets.length === 1 ? 'it' : 'them'} and what ${r.targets.length === 1 ? 'it depends' : 'they depend'} on were compared; drift elsewhere was not looked for.`;
}

const MARK: Record<DriftItem['drift'], string> = { changed: '~', missing: '-', unmanaged: '+', not_deployed: '!' };
const ICON: Record<DriftItem['drift'], string> = { changed: '🔧', missing: '❌', unmanaged: '➕', not_deployed: '⏸️' };
const DRIFT_TEXT: Record<DriftItem['drift'], string> = { changed: 'changed', missing: 'missing live', unmanaged: 'not in Git', not_deployed: 'not deployed' };

/** `drift --no-secret-values`: said on every report, so that "No drift" is never read as "secrets in sync". */
function secretsLine(r: DriftReport): string | undefined {
  if (!r.secrets_not_compared) return undefined;
  const n = r.secrets_not_compared.reduce((sum, x) => sum + x.fields.length, 0);
  return `${n} secret${n === 1 ? '' : 's'} not compared (--no-secret-values: their values were not read${n > 0 ? `: ${r.secrets_not_compared.map((x) => x.address).join(', ')}` : ''}).`;
}

/**
 * The same line for an issue body: the flag, and the addresses as code when `withAddresses` (a
 * report in sync: no other section names them; with drift, every drifted address stays in exactly
 * one part, and the JSON report lists them).
 */
function secretsMarkdown(r: DriftReport, withAddresses: boolean): string | undefined {
  if (!r.secrets_not_compared) return undefined;
  const n = r.secrets_not_compared.reduce((sum, x) => sum + x.fields.length, 0);
  const list = r.secrets_not_compared.slice(0, 50).map((x) => inlineCode(x.address));
  if (r.secrets_not_compared.length > 50) list.push(`and ${r.secrets_not_compared.length - 50} more`);
  const names = withAddresses && n > 0 ? `: ${list.join(', ')}` : n > 0 ? ' (listed in the JSON report)' : '';
  return `**${n} secret${n === 1 ? '' : 's'} not compared** (\`--no-secret-values\`: their values were not read)${names}.`;
}

export function renderDriftHuman(r: DriftReport, ctx: DriftRenderContext, p: Palette): string {
  const scope = [outOfScopeLine(r.out_of_scope), previewsLine(r.previews)].filter(Boolean).join('\n') || undefined;
  const secrets = secretsLine(r);
  const partial = partialReportLine(r);
  if (r.in_sync) return `${p.green('No drift.')} The live platform matches Git (${plural(r.checked, 'resource')} compared, ${plural(r.request_count, 'API request')}).\n${partial ? `${p.yellow(escapeControl(partial))}\n` : ''}${secrets ? `${p.yellow(escapeControl(secrets))}\n` : ''}${scope ? `${p.dim(scope)}\n` : ''}`;
  const lines: string[] = [];
  if (partial) lines.push(p.yellow(escapeControl(partial)), '');
  lines.push(p.bold(`Drift detected: ${r.summary.drifted} resource${r.summary.drifted === 1 ? '' : 's'} differ${r.summary.drifted === 1 ? 's' : ''} from Git.`), '');
  for (const i of r.items) {
    const colour = i.origin === 'outside_git' ? p.red : i.origin === 'git' ? p.yellow : p.cyan;
    lines.push(`${colour(`${MARK[i.drift]} ${escapeControl(readableAddress(i.address))}`)}  ${p.dim(`[${originText(i)}]`)}`);
    lines.push(`    ${escapeControl(i.summary)}`);
    const who = changedByLine(i);
    if (who) lines.push(`    ${escapeControl(who)}`);
    for (const f of i.fields) lines.push(`    ${escapeControl(fieldLine(f))}`);
    const w = where(i);
    if (w) lines.push(`    ${p.dim(escapeControl(w))}`);
    lines.push(`    ${p.dim(`apply would ${escapeControl(i.apply_action)}`)}`);
    if (i.fix) lines.push(`    ${p.yellow(`apply does not fix this; to fix it: ${escapeControl(i.fix)}`)}`);
  }
  lines.push('');
  lines.push(`${r.summary.outside_git} changed outside Git, ${r.summary.git} changed in Git and not applied, ${r.summary.unknown} of unknown origin.`);
  const inferred = inferenceLine(r);
  if (inferred) lines.push(p.yellow(escapeControl(inferred)));
  if (secrets) lines.push(p.yellow(escapeControl(secrets)));
  if (scope) lines.push(p.dim(scope));
  lines.push(`Fingerprint: ${r.fingerprint}`);
  const fixable = r.summary.drifted - r.summary.not_fixed_by_apply;
  const hints = ctx.hints !== false;
  if (hints && fixable > 0) lines.push(`${reconcileLead(r)}, review and run:  ${escapeControl(reconcileCommand(ctx))}`);
  // A fact about the drift (apply will not fix it), not a hint: kept in CI.
  if (r.summary.not_fixed_by_apply > 0) lines.push(notFixedLine(r));
  if (hints) lines.push('To keep a change made outside Git instead, write it into the manifest (driftless export shows the live values).');
  return lines.join('\n') + '\n';
}

/** What running apply achieves: all of it, or the part it can fix. */
function reconcileLead(r: DriftReport): string {
  const fixable = r.summary.drifted - r.summary.not_fixed_by_apply;
  return r.summary.not_fixed_by_apply === 0 ? 'To make the platform match Git again' : `To fix ${fixable} of the ${r.summary.drifted} resources`;
}

/** Drift that running apply leaves as it is, said in so many words: a nightly job must not keep re-running apply for it. */
function notFixedLine(r: DriftReport): string {
  const n = r.summary.not_fixed_by_apply;
  const which = n === r.summary.drifted ? (n === 1 ? 'this drift' : `these ${n} resources`) : n === 1 ? 'the other resource' : `the other ${n} resources`;
  return `Running apply leaves ${which} as ${n === 1 ? 'it is' : 'they are'}: see "to fix it" above.`;
}

export function renderDriftJson(r: DriftReport, ctx: DriftRenderContext): string {
  const reconcile = r.in_sync || r.summary.not_fixed_by_apply < r.summary.drifted ? { reconcile_command: reconcileCommand(ctx) } : {};
  return escapeJsonText(JSON.stringify({ ...r, errored: false, ...reconcile }, null, 2)) + '\n';
}

/**
 * A drift check that failed (manifest errors, API errors, a refused token): the report's shape
 * with `errored: true`, no fingerprint (nothing was compared: a workflow must not close or open an
 * issue on it) and every diagnostic.
 */
export function renderDriftFailureJson(diagnostics: readonly Diagnostic[]): string {
  const doc = {
    format_version: DRIFT_FORMAT_VERSION,
    errored: true,
    in_sync: false,
    fingerprint: null,
    summary: { drifted: 0, outside_git: 0, git: 0, unknown: 0, not_fixed_by_apply: 0 },
    items: [],
    checked: 0,
    request_count: 0,
    diagnostics,
  };
  return escapeJsonText(JSON.stringify(doc, null, 2)) + '\n';
}

/** A part of an issue body or comment: under GitHub's 65,536 characters, with room for a marker line. */
export const MARKDOWN_PART_LIMIT = 60_000;

/** A marker a workflow finds the issue by; the fingerprint inside tells whether the drift changed. */
export function fingerprintMarker(r: DriftReport): string {
  return `<!-- driftless-drift fingerprint=${r.fingerprint} -->`;
}

/** The whole drift report as one markdown document (stdout): every drifted resource, nothing cut. */
export function renderDriftMarkdown(r: DriftReport, ctx: DriftRenderContext): string {
  return joinMarkdown(driftDocument(r, ctx, Infinity));
}

/**
 * The drift report as an issue body and follow-up comments: parts of at most `limit` characters,
 * each well-formed, the first holding the fingerprint marker and the summary, every drifted
 * resource in exactly one part.
 */
export function renderDriftMarkdownParts(r: DriftReport, ctx: DriftRenderContext, limit = MARKDOWN_PART_LIMIT): string[] {
  // A detail whose values alone would not fit in a part has its text block cut (with a note).
  return packMarkdown(driftDocument(r, ctx, limit - 2_000), limit);
}

function driftDocument(r: DriftReport, ctx: DriftRenderContext, maxDetail: number): MarkdownDocument {
  const md = escapeMarkdown;
  const preamble = fingerprintMarker(r);
  const scope = [outOfScopeLine(r.out_of_scope), previewsLine(r.previews)].filter(Boolean).join(' ') || undefined;
  const partialLine = partialReportLine(r);
  const partial = partialLine ? `> [!NOTE]\n> ${md(partialLine)}` : undefined;
  if (r.in_sync) {
    const secrets = [secretsMarkdown(r, true), partial].filter(Boolean).join('\n\n') || undefined;
    return {
      preamble,
      heading: (part) => `### ✅ No drift${part ? ` (part ${part.index} of ${part.count})` : ''}`,
      head: `The live platform matches Git (${plural(r.checked, 'resource')} compared).${secrets ? `\n\n${secrets}` : ''}${scope ? `\n\n${md(scope)}` : ''}`,
      blocks: [],
    };
  }
  const since = r.items.map((i) => i.since).filter((s): s is string => s !== undefined).sort()[0];
  const title = `### ⚠️ Drift: ${r.summary.drifted} resource${r.summary.drifted === 1 ? '' : 's'} differ${r.summary.drifted === 1 ? 's' : ''} from Git`;
  const secrets = [secretsMarkdown(r, false), partial].filter(Boolean).join('\n\n') || undefined;
  const head = `**${r.summary.outside_git}** changed outside Git · **${r.summary.git}** changed in Git and not applied · **${r.summary.unknown}** of unknown origin${since ? ` · earliest change ${md(since)}` : ''}${secrets ? `\n\n${secrets}` : ''}${inferenceLine(r) ? `\n\n_${md(inferenceLine(r)!)}_` : ''}`;
  const blocks: MarkdownBlock[] = [];
  // The table, split between rows (its header repeated) when it does not fit in one part.
  blocks.push({
    kind: 'group',
    open: () => '| | Resource | Drift | Origin | Since | Declared at |\n|---|---|---|---|---|---|',
    items: r.items.map((i) => {
      const w = where(i);
      return `| ${ICON[i.drift]} | ${md(readableAddress(i.address))} | ${DRIFT_TEXT[i.drift]} | ${md(originText(i))}${i.changed_by ? `: ${md(changedByLine(i)!)}` : ''} | ${i.since ? md(i.since) : '–'} | ${w ? md(w.replace(/^declared at /, '')) : 'live only'} |`;
    }),
    close: '',
  });
  for (const i of r.items) {
    const who = changedByLine(i);
    const lines = ['<details>', `<summary>${md(readableAddress(i.address))}</summary>`, '', md(i.summary), '', ...(who ? [`${md(who[0]!.toUpperCase() + who.slice(1))}.`, ''] : [])];
    if (i.fields.length > 0) {
      // A code block shows characters literally, so controls and bidi overrides are escaped as in
      // the human output: raw, they would reorder or hide the text of the issue.
      let body = i.fields.map((f) => escapeControl(fieldLine(f))).join('\n');
      const room = maxDetail - lines.join('\n').length - 1_000;
      let cut = 0;
      if (body.length > room) {
        // Only huge values (a file variable) get here: the block is cut inside its fence, so the
        // detail stays whole, and says how much is left to the JSON report.
        cut = body.length - room;
        body = body.slice(0, room);
      }
      const fence = fenceFor(body);
      lines.push(`${fence}text`, body, fence, '');
      if (cut > 0) lines.push(`_${cut.toLocaleString('en-US')} more characters of these values left out: too long for an issue. The JSON report (\`--json-file\`) has them._`, '');
    }
    lines.push(`Apply would ${md(i.apply_action)}.`, '');
    if (i.fix) lines.push(`**Apply does not fix this.** To fix it: ${md(i.fix)}.`, '');
    lines.push('</details>');
    blocks.push(textBlock(lines.join('\n')));
  }
  const tail: string[] = [];
  const fixable = r.summary.drifted - r.summary.not_fixed_by_apply;
  if (fixable > 0) {
    const what = r.summary.not_fixed_by_apply > 0 ? `fix ${fixable} of the ${r.summary.drifted} resources` : 'make the platform match Git again';
    tail.push(`**To reconcile** (${what}), review the plan and apply it:`, '');
    const reconcile = escapeControl(reconcileCommand(ctx));
    const cmd = `driftless plan${reconcile.slice('driftless apply'.length)}\n${reconcile}`;
    const fence = fenceFor(cmd);
    tail.push(`${fence}sh`, cmd, fence, '');
  }
  if (r.summary.not_fixed_by_apply > 0) tail.push(`**${md(notFixedLine(r).replace('see "to fix it" above', 'see "To fix it" in the details'))}**`, '');
  tail.push('To keep a change made outside Git instead, write it into the manifest (`driftless export` shows the live values) and merge it.', '');
  if (scope) tail.push(md(scope), '');
  tail.push(`<sub>Drift fingerprint \`${r.fingerprint}\` · ${plural(r.checked, 'resource')} compared · ${plural(r.request_count, 'API request')}</sub>`);
  blocks.push(textBlock(tail.join('\n')));
  return { preamble, heading: (part) => `${title}${part ? ` (part ${part.index} of ${part.count})` : ''}`, head, blocks };
}
