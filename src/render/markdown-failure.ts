/**
 * The markdown body of a plan or drift that failed (manifest errors, API errors, a refused token):
 * printed on stdout in place of the plan, so that the pull-request comment (or issue) a workflow
 * posts from it is replaced by the failure, never left showing an older plan.
 *
 * Well-formed by construction: a heading, a callout, one list item per diagnostic (summary, where,
 * detail) and the source excerpt in a fence longer than any backtick run inside it. Every
 * user-controlled string is escaped like in the plan's own markdown.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { formatRange } from '../diag/excerpt.js';
import { summarizeDiagnostics } from '../diag/render.js';
import { escapeControl, escapeMarkdown, fenceFor, inlineCode } from './escape.js';

export interface FailureMarkdownOptions {
  /** What failed, e.g. `driftless plan`. */
  command: string;
  /** Shown first in the body, so a workflow finds the comment it posted before (e.g. an HTML comment marker). */
  marker?: string;
}

export function renderFailureMarkdown(diagnostics: readonly Diagnostic[], opts: FailureMarkdownOptions): string {
  const out: string[] = [];
  if (opts.marker) out.push(opts.marker);
  out.push(`### ❌ ${escapeMarkdown(opts.command)} failed`, '');
  const counts = summarizeDiagnostics(diagnostics);
  out.push('> [!CAUTION]', `> The run stopped with ${counts ? escapeMarkdown(counts) : 'an error'}: nothing here is a plan or a result, and nothing can be applied from this run. Fix the problems below and run it again.`, '');
  for (const d of diagnostics) {
    const where = d.range ? ` at ${inlineCode(formatRange(d.range))}` : '';
    const related = (d.related ?? []).map((r) => `, ${escapeMarkdown(r.message)} at ${inlineCode(formatRange(r.range))}`).join('');
    const address = d.address ? ` (${inlineCode(d.address)})` : '';
    out.push(`- **${d.severity}** ${inlineCode(d.code)}${where}${related}${address}: ${escapeMarkdown(d.summary)}`);
    if (d.excerpt) {
      const excerpt = d.excerpt.split('\n').map(escapeControl).join('\n');
      const fence = fenceFor(excerpt);
      out.push('', `  ${fence}`, ...excerpt.split('\n').map((l) => `  ${l}`), `  ${fence}`);
    }
    if (d.detail) out.push('', ...d.detail.split('\n').map((l) => `  ${escapeMarkdown(l)}`));
    out.push('');
  }
  return out.join('\n').replace(/\n+$/, '') + '\n';
}
