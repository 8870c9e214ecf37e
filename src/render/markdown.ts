/**
 * `plan --format markdown`: a pull-request comment. The summary line, a warning banner when
 * anything is destroyed or replaced, a summary table per environment, one collapsible <details> per
 * resource (blocked and destructive changes first, then updates, then creates), a Mermaid diagram
 * of the deploy order when anything deploys. Built from blocks (./markdown-parts.ts): the whole
 * document for stdout, or parts under GitHub's comment limit (65,536 characters), every fence,
 * `<details>` and table closed in each, every resource in exactly one.
 *
 * Every user-controlled string is escaped (escapeMarkdown outside code, a fence longer than any
 * backtick run inside code), so a name cannot inject HTML, links or @-mentions.
 */
import { diffLines } from './line-diff.js';
import { REDACTED } from '../model/secret.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { formatValue, groupChanges, isMultiline, isVisible, labelOf, leafChanges, ignoredFieldsLine, noSecretValuesLine, protectMarksLine, plural, renamedFrom, requestLine, secretsNotCompared, summaryLine } from './describe.js';
import { escapeControl, escapeMarkdown, fenceFor, inlineCode } from './escape.js';
import { renderDeployMermaid } from './graph.js';
import { outOfScopeLine } from '../plan/scope.js';
import { previewsLine } from '../plan/types.js';
import { joinMarkdown, packMarkdownPlaced, textBlock, type MarkdownBlock, type MarkdownDocument } from './markdown-parts.js';
import { blockedRoots, blockingFlags, blockingOf, refusedWithout } from '../plan/guards.js';
import { readableAddress } from '../model/resource.js';

export interface MarkdownOptions {
  /** Heading of the comment. */
  title?: string;
  /** How many resources each warning (destroyed, blocked) names (default 20); the rest are counted. */
  listInWarnings?: number;
}

/**
 * GitHub refuses a comment over 65,536 characters; a part stays under 60,000 so that the marker
 * line a workflow adds to find its comment again (and a byte or two of slack) still fits.
 */
export const PART_LIMIT = 60_000;

/**
 * Mermaid's own defaults (mermaid.js.org/config/schema-docs/config.html): above `maxTextSize`
 * characters or `maxEdges` edges it draws an error instead of the diagram, and GitHub does not
 * raise either.
 */
export const MERMAID_MAX_TEXT_SIZE = 50_000;
export const MERMAID_MAX_EDGES = 500;

const SYMBOL: Record<string, string> = {
  create: '+',
  update: '~',
  destroy: '-',
  replace: '-/+',
  deploy: '>',
};

/** The whole plan as one markdown document (stdout). Every resource is in it; nothing is cut. */
export function renderPlanMarkdown(plan: Plan, opts: MarkdownOptions = {}): string {
  return joinMarkdown(planDocument(plan, opts, Infinity));
}

/**
 * The plan as pull-request comments: parts of at most `limit` characters, each well-formed, the
 * first holding the summary; blocked and destructive changes first, then updates, then creates;
 * every resource in exactly one part.
 */
export function renderPlanMarkdownParts(plan: Plan, opts: MarkdownOptions & { limit?: number } = {}): string[] {
  const limit = opts.limit ?? PART_LIMIT;
  // A resource whose diff alone would not fit in a part has its diff cut (with a note): the
  // heading, the summary and the separators of a part take well under 2,000 characters.
  const pack = (listInWarnings: number, nameOnly?: ReadonlySet<string>) => {
    const doc = planDocument(plan, { ...opts, listInWarnings }, limit - 2_000, nameOnly);
    return { doc, ...packMarkdownPlaced(doc, limit) };
  };
  let packed = pack(opts.listInWarnings ?? 20);
  // The warnings of part 1 name resources: only when each one's section is in part 1 too, so that
  // every address is in exactly one part (a huge summary table can push the sections on). Without
  // the names, the warnings say the resources are listed first below.
  const inFirst = (p: typeof packed) => (a: string) => p.partOf[p.doc.sectionOf.get(a) ?? -1] === 0;
  if (!packed.doc.named.every(inFirst(packed))) {
    // Naming fewer only moves sections earlier: the names kept stay in part 1.
    packed = pack(opts.listInWarnings ?? 20, new Set(packed.doc.named.filter(inFirst(packed))));
  }
  return packed.parts;
}

/** Where a change goes in the document: what needs a reviewer's eyes first. */
function rank(c: ResourceChange): number {
  if (c.status === 'blocked') return 0;
  const l = labelOf(c);
  if (l === 'destroy' || l === 'replace') return 1;
  if (l === 'update') return 2;
  if (l === 'deploy') return 3;
  return 4;
}

/** `nameOnly`: the warnings name only these resources (those whose section is in part 1). */
function planDocument(plan: Plan, opts: MarkdownOptions, maxSection: number, nameOnly?: ReadonlySet<string>): MarkdownDocument & { named: string[]; sectionOf: Map<string, number> } {
  const nameable = (a: string) => !nameOnly || nameOnly.has(a);
  const limit = opts.listInWarnings ?? 20;
  const named: string[] = [];
  const title = escapeMarkdown(opts.title ?? 'driftless plan');
  const head: string[] = [`**${summaryLine(plan)}** ${requestLine(plan)}`, ''];
  if (plan.targets) head.push('> [!NOTE]', `> ${partialMarkdown(plan.targets!)}`, '');

  const destructive = plan.changes.filter((c) => c.status === 'planned' && c.actions[0] === 'delete');
  if (destructive.length > 0) {
    head.push('> [!WARNING]');
    // Listed in the order of their sections (which come first), so that a part that names one
    // also holds its section (see renderPlanMarkdownParts).
    destructive.sort((a, b) => rank(a) - rank(b));
    const toName = destructive.slice(0, limit).filter((c) => nameable(c.address));
    const listed = toName.length;
    head.push(`> This plan **destroys or replaces ${plural(destructive.length, 'resource')}**${listed > 0 ? ':' : ', listed first below.'}`);
    for (const c of toName) {
      head.push(`> - ${labelOf(c)} ${inlineCode(readableAddress(c.address))}`);
      named.push(c.address);
    }
    if (destructive.length > listed && listed > 0) head.push(`> - and ${destructive.length - listed} more, listed first below`);
    head.push('');
  }
  const blocked = plan.changes.filter((c) => c.status === 'blocked');
  if (blocked.length > 0) {
    head.push('> [!CAUTION]');
    head.push(`> ${plural(blocked.length, 'change')} ${blocked.length === 1 ? 'is' : 'are'} **blocked** (not done, not counted): apply refuses this plan ${refusedWithout(blocked, plan.options).replace(/--[a-z-]+/g, (f) => `\`${f}\``)}.`);
    const roots = blockedRoots(blocked, plan.options);
    const toName = roots.slice(0, limit).filter((r) => nameable(r.change.address));
    for (const { change: c, following } of toName) {
      const withIt = following > 0 ? ` (with ${plural(following, 'object')} that ${following === 1 ? 'goes' : 'go'} with it)` : '';
      head.push(`> - ${inlineCode(readableAddress(c.address))}${withIt}: ${escapeMarkdown(blockingOf(c, plan.options)!.reasons.join('; '))}`);
      named.push(c.address);
    }
    if (roots.length > toName.length) head.push(toName.length > 0 ? `> - and ${roots.length - toName.length} more, listed first below` : '> They are listed first below.');
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
    // A record with a section of its own is named only when that section is in part 1 (as in the
    // warnings above); a no-op has none, so this note is where its address is.
    const sectioned = new Set(plan.changes.filter(isVisible).map((c) => c.address));
    const toName = notCompared.slice(0, limit).filter((x) => !sectioned.has(x.address) || nameable(x.address));
    for (const x of toName) {
      head.push(`> - ${inlineCode(x.address)}: ${escapeMarkdown(x.fields.join(', '))} not compared`);
      if (sectioned.has(x.address)) named.push(x.address);
    }
    if (notCompared.length > toName.length) head.push(`> - and ${notCompared.length - toName.length} more`);
    head.push('');
  }

  const blocks: MarkdownBlock[] = [];
  const groups = groupChanges(plan);
  if (groups.length > 0) {
    const rows: string[] = [];
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
      rows.push(`| ${scope} | ${n.add} | ${n.change} | ${n.destroy} | ${n.deploy} | ${n.unmanaged} |`);
    }
    // A table continued in another part repeats its header (a table cannot be split otherwise).
    blocks.push({ kind: 'group', open: () => '| Scope | Add | Change | Destroy | Deploy | Unmanaged |\n|---|---:|---:|---:|---:|---:|', items: rows, close: '' });
  }

  const managed: ResourceChange[] = [];
  for (const g of groups) for (const c of g.changes) if (c.status !== 'unmanaged') managed.push(c);
  // Stable: within a rank, the plan's own order (scope by scope, execution order).
  managed.sort((a, b) => rank(a) - rank(b));
  const sectionOf = new Map<string, number>();
  for (const c of managed) {
    sectionOf.set(c.address, blocks.length);
    blocks.push(textBlock(section(c, maxSection)));
  }

  const unmanaged = plan.changes.filter((c) => c.status === 'unmanaged');
  if (unmanaged.length > 0) {
    blocks.push({
      kind: 'group',
      open: (n, continued) => `<details><summary>${continued ? `${plural(n, 'more resource')} of the ${unmanaged.length}` : plural(unmanaged.length, 'resource')} not in the manifest (left untouched)</summary>\n`,
      items: unmanaged.map((c) => `- ${inlineCode(readableAddress(c.address))}${c.reasons.length > 0 ? `: ${escapeMarkdown(c.reasons.join('; '))}` : ''}`),
      close: '\n</details>',
    });
  }
  if (plan.deploy_order.length > 0) blocks.push(textBlock(deployOrder(plan)));
  const scope = outOfScopeLine(plan.out_of_scope);
  if (scope) blocks.push(textBlock(escapeMarkdown(scope)));
  const previews = previewsLine(plan.previews);
  if (previews) blocks.push(textBlock(escapeMarkdown(previews)));
  const ignored = ignoredFieldsLine(plan);
  if (ignored) blocks.push(textBlock(escapeMarkdown(ignored)));
  const marks = protectMarksLine(plan);
  if (marks) blocks.push(textBlock(escapeMarkdown(marks)));

  return {
    heading: (part) => `### ${title}${part ? ` (part ${part.index} of ${part.count})` : ''}`,
    head: head.join('\n').trimEnd(),
    blocks,
    named,
    sectionOf,
  };
}

/**
 * The deploy-order diagram, or a note saying why it is left out: above mermaid's own limits GitHub
 * would show "Maximum text size in diagram exceeded" or "Too many edges" in its place.
 */
function deployOrder(plan: Plan): string {
  const mermaid = renderDeployMermaid(plan).trimEnd();
  const edges = mermaid.split('\n').filter((l) => l.includes('-->')).length;
  const over =
    mermaid.length > MERMAID_MAX_TEXT_SIZE
      ? `its ${mermaid.length.toLocaleString('en-US')} characters are over mermaid's limit of ${MERMAID_MAX_TEXT_SIZE.toLocaleString('en-US')}`
      : edges > MERMAID_MAX_EDGES
        ? `its ${edges.toLocaleString('en-US')} arrows are over mermaid's limit of ${MERMAID_MAX_EDGES}`
        : undefined;
  if (over) return `> [!NOTE]\n> The deploy-order diagram is left out: ${over}, so GitHub would show an error in its place. \`driftless graph --format mermaid\` writes it.`;
  return ['<details><summary>Deploy order</summary>', '', '```mermaid', mermaid, '```', '', '</details>'].join('\n');
}

function section(c: ResourceChange, maxChars: number): string {
  const label = labelOf(c);
  const sym = SYMBOL[label] ?? '?';
  const extra = c.deploy && label !== 'deploy' ? ', deploy' : '';
  const status = c.status === 'blocked' ? ' — **blocked**' : '';
  const lines: string[] = [];
  lines.push(`<details><summary><code>${escapeMarkdown(sym)}</code> ${escapeMarkdown(c.kind)} <b>${escapeMarkdown(c.name)}</b> (${label}${extra})${status}</summary>`, '');
  lines.push(`Address: <code>${escapeMarkdown(readableAddress(c.address))}</code>`, '');
  const from = renamedFrom(c);
  if (from !== undefined) lines.push(`- ~ renamed from <code>${escapeMarkdown(from)}</code>`);
  for (const r of c.reasons) lines.push(`- ${escapeMarkdown(r)}`);
  if (c.deploy) lines.push(`- deploy: ${escapeMarkdown(c.deploy.reasons.join('; '))}`);
  if (c.reasons.length > 0 || c.deploy || from !== undefined) lines.push('');
  const close = ['</details>'];
  let diff = diffText(c);
  const sizeWith = (d: string) => lines.join('\n').length + d.length + 200 + close.join('\n').length;
  if (diff !== '' && sizeWith(diff) > maxChars) {
    // Only a change of a huge value (a file, helm values) gets here: its diff is cut at a line,
    // inside its own fence, so the section stays whole and says what is left out.
    const all = diff.split('\n');
    let room = maxChars - sizeWith('');
    let keep = 0;
    while (keep < all.length && room - (all[keep]!.length + 1) >= 0) room -= all[(keep++)]!.length + 1;
    diff = all.slice(0, keep).join('\n');
    close.unshift(`_${plural(all.length - keep, 'more line')} of this diff left out: too long for a comment. \`driftless plan\` in a terminal shows the whole change._`, '');
  }
  if (diff !== '') {
    const fence = fenceFor(diff);
    lines.push(`${fence}diff`, diff, fence, '');
  }
  lines.push(...close);
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

/** The partial-plan note (`--target`): partialLine's sentence, the addresses as code. */
function partialMarkdown(targets: readonly string[]): string {
  const one = targets.length === 1;
  const list = targets.map((t) => inlineCode(readableAddress(t)));
  const joined = one ? list[0]! : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]!}`;
  return `**Partial plan (--target): only** ${joined}${escapeMarkdown(`, what is under ${one ? 'it' : 'them'} and what ${one ? 'it depends' : 'they depend'} on were read and planned; the rest of the manifest was not compared, and nothing outside the targets is changed or deleted.`)}`;
}
