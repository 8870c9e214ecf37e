/**
 * `plan --format markdown`: a pull-request comment. A summary table per environment, a warning
 * banner when anything is destroyed or replaced, one collapsible <details> per resource, a Mermaid
 * diagram of the deploy order when anything deploys, kept under a size limit (GitHub refuses
 * comments over 65,536 characters) with a note when resources were left out.
 *
 * Every user-controlled string is escaped (escapeMarkdown outside code, a fence longer than any
 * backtick run inside code), so a name cannot inject HTML, links or @-mentions.
 */
import { diffLines } from 'diff';
import { REDACTED } from '../model/secret.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { formatValue, groupChanges, isMultiline, labelOf, leafChanges, noSecretValuesLine, plural, requestLine, secretsNotCompared, summaryLine } from './describe.js';
import { escapeControl, escapeMarkdown, fenceFor, inlineCode } from './escape.js';
import { renderDeployMermaid } from './graph.js';
import { outOfScopeLine } from '../plan/scope.js';
import { blockedRoots, blockingFlags, blockingOf } from '../plan/guards.js';

export interface MarkdownOptions {
  /** Maximum length of the whole comment. Default 60,000 characters. */
  maxLength?: number;
  /** Heading of the comment. */
  title?: string;
}

const SYMBOL: Record<string, string> = {
  create: '+',
  update: '~',
  destroy: '-',
  replace: '-/+',
  deploy: '>',
};

export function renderPlanMarkdown(plan: Plan, opts: MarkdownOptions = {}): string {
  const max = opts.maxLength ?? 60_000;
  const head: string[] = [];
  head.push(`### ${escapeMarkdown(opts.title ?? 'driftless plan')}`, '');

  const destructive = plan.changes.filter((c) => c.status === 'planned' && c.actions[0] === 'delete');
  if (destructive.length > 0) {
    head.push('> [!WARNING]');
    head.push(`> This plan **destroys or replaces ${plural(destructive.length, 'resource')}**:`);
    for (const c of destructive.slice(0, 20)) head.push(`> - ${labelOf(c)} ${inlineCode(c.address)}`);
    if (destructive.length > 20) head.push(`> - and ${destructive.length - 20} more`);
    head.push('');
  }
  const blocked = plan.changes.filter((c) => c.status === 'blocked');
  if (blocked.length > 0) {
    head.push('> [!CAUTION]');
    const flags = blockingFlags(blocked, plan.options).map((f) => `\`${f}\``);
    head.push(`> ${plural(blocked.length, 'change')} ${blocked.length === 1 ? 'is' : 'are'} **blocked** (not done, not counted): apply refuses this plan without ${flags.join(' and ')}.`);
    const roots = blockedRoots(blocked, plan.options);
    for (const { change: c, following } of roots.slice(0, 20)) {
      const withIt = following > 0 ? ` (with ${plural(following, 'object')} that ${following === 1 ? 'goes' : 'go'} with it)` : '';
      head.push(`> - ${inlineCode(c.address)}${withIt}: ${escapeMarkdown(blockingOf(c, plan.options)!.reasons.join('; '))}`);
    }
    if (roots.length > 20) head.push(`> - and ${roots.length - 20} more`);
    head.push('');
  }

  const problems = plan.diagnostics.filter((d) => d.severity !== 'info');
  if (problems.length > 0) {
    head.push(problems.some((d) => d.severity === 'error') ? '> [!CAUTION]' : '> [!WARNING]');
    for (const d of problems.slice(0, 20)) head.push(`> - **${d.severity}**: ${escapeMarkdown(d.summary)}${d.address ? ` (${inlineCode(d.address)})` : ''}`);
    if (problems.length > 20) head.push(`> - and ${problems.length - 20} more`);
    head.push('');
  }

  const secretless = noSecretValuesLine(plan);
  if (secretless) {
    // Not a change and not "no change": the reader must not take a quiet plan for "secrets in sync".
    head.push('> [!NOTE]', `> ${escapeMarkdown(secretless)}`);
    const notCompared = secretsNotCompared(plan);
    for (const x of notCompared.slice(0, 20)) head.push(`> - ${inlineCode(x.address)}: ${escapeMarkdown(x.fields.join(', '))} not compared`);
    if (notCompared.length > 20) head.push(`> - and ${notCompared.length - 20} more`);
    head.push('');
  }

  const groups = groupChanges(plan);
  if (groups.length > 0) {
    head.push('| Scope | Add | Change | Destroy | Deploy | Unmanaged |', '|---|---:|---:|---:|---:|---:|');
    for (const g of groups) {
      const n = { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0 };
      for (const c of g.changes) {
        if (c.status === 'blocked') continue;
        const l = labelOf(c);
        if (l === 'create') n.add++;
        else if (l === 'update') n.change++;
        else if (l === 'destroy') n.destroy++;
        else if (l === 'replace') {
          n.add++;
          n.destroy++;
        } else if (l === 'unmanaged') n.unmanaged++;
        if (c.deploy) n.deploy++;
      }
      const scope = g.project === null ? 'organization' : g.environment === null ? escapeMarkdown(g.project) : `${escapeMarkdown(g.project)} / ${escapeMarkdown(g.environment)}`;
      head.push(`| ${scope} | ${n.add} | ${n.change} | ${n.destroy} | ${n.deploy} | ${n.unmanaged} |`);
    }
    head.push('');
  }
  const tail: string[] = [];
  if (plan.deploy_order.length > 0) {
    tail.push('<details><summary>Deploy order</summary>', '', '```mermaid', renderDeployMermaid(plan).trimEnd(), '```', '', '</details>', '');
  }
  const scope = outOfScopeLine(plan.out_of_scope);
  if (scope) tail.push(`${escapeMarkdown(scope)}`, '');
  tail.push(`**${summaryLine(plan)}** ${requestLine(plan)}`);

  const managed: ResourceChange[] = [];
  for (const g of groups) for (const c of g.changes) if (c.status !== 'unmanaged') managed.push(c);
  const unmanaged = plan.changes.filter((c) => c.status === 'unmanaged');
  const unmanagedSection = () =>
    `<details><summary>${plural(unmanaged.length, 'resource')} not in the manifest (left untouched)</summary>\n\n${unmanaged.map((c) => `- ${inlineCode(c.address)}${c.reasons.length > 0 ? `: ${escapeMarkdown(c.reasons.join('; '))}` : ''}`).join('\n')}\n\n</details>\n`;

  // Keep the head, the tail and as many sections as fit; say how many were left out. Sections are
  // rendered only while they fit, so a plan of thousands of resources stays cheap to render.
  let used = head.join('\n').length + tail.join('\n').length + 200;
  const body: string[] = [];
  let omitted = 0;
  const total = managed.length + (unmanaged.length > 0 ? 1 : 0);
  for (let i = 0; i < total; i++) {
    const s = i < managed.length ? section(managed[i]!) : unmanagedSection();
    if (used + s.length + 1 > max) {
      omitted = (i < managed.length ? managed.length - i : 0) + unmanaged.length;
      break;
    }
    body.push(s);
    used += s.length + 1;
  }
  if (omitted > 0) body.push(`> [!NOTE]\n> ${plural(omitted, 'more resource')} not shown: the comment is limited to ${max.toLocaleString('en-US')} characters. Run \`driftless plan\` for the full plan.\n`);
  let out = [...head, ...body, ...tail].join('\n') + '\n';
  if (out.length > max) out = out.slice(0, max - 40) + '\n\n(truncated)\n';
  return out;
}

function section(c: ResourceChange): string {
  const label = labelOf(c);
  const sym = SYMBOL[label] ?? '?';
  const extra = c.deploy && label !== 'deploy' ? ', deploy' : '';
  const status = c.status === 'blocked' ? ' — **blocked**' : '';
  const lines: string[] = [];
  lines.push(`<details><summary><code>${escapeMarkdown(sym)}</code> ${escapeMarkdown(c.kind)} <b>${escapeMarkdown(c.name)}</b> (${label}${extra})${status}</summary>`, '');
  lines.push(`Address: <code>${escapeMarkdown(c.address)}</code>`, '');
  for (const r of c.reasons) lines.push(`- ${escapeMarkdown(r)}`);
  if (c.deploy) lines.push(`- deploy: ${escapeMarkdown(c.deploy.reasons.join('; '))}`);
  if (c.reasons.length > 0 || c.deploy) lines.push('');
  const diff = diffText(c);
  if (diff !== '') {
    const fence = fenceFor(diff);
    lines.push(`${fence}diff`, diff, fence, '');
  }
  lines.push('</details>', '');
  return lines.join('\n');
}

/** The change as a diff block body: `+`/`-` lines, secrets redacted, controls escaped. */
function diffText(c: ResourceChange): string {
  const label = labelOf(c);
  const out: string[] = [];
  if (label === 'create' || (label === 'replace' && c.fields.length === 0)) {
    for (const [k, v] of Object.entries(c.after ?? {})) {
      if (isMultiline(v)) {
        out.push(`+ ${k}:`);
        for (const l of v.replace(/\n$/, '').split('\n')) out.push(`+     ${l}`);
      } else out.push(`+ ${k} = ${formatValue(v)}`);
    }
  } else {
    for (const f of c.fields) {
      const forces = f.forces_replace ? '  # forces replacement' : '';
      if (f.sensitive) {
        out.push(`- ${f.field} = ${f.before_unknown ? '(value unknown)' : REDACTED}`, `+ ${f.field} = ${REDACTED}${forces}`);
      } else if (isMultiline(f.before) || isMultiline(f.after)) {
        out.push(`  ${f.field}:${forces}`);
        for (const part of diffLines(typeof f.before === 'string' ? f.before : '', typeof f.after === 'string' ? f.after : '')) {
          const sign = part.added ? '+' : part.removed ? '-' : ' ';
          for (const l of part.value.replace(/\n$/, '').split('\n')) out.push(`${sign}     ${l}`);
        }
      } else {
        for (const l of leafChanges(f.field, f.before, f.after)) {
          if (l.before !== undefined) out.push(`- ${l.path} = ${formatValue(l.before)}`);
          out.push(`+ ${l.path} = ${l.after === undefined ? '(removed)' : formatValue(l.after)}${forces}`);
        }
      }
    }
  }
  return out.map(escapeControl).join('\n');
}
