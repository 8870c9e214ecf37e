/**
 * The human plan: Terraform-like markers, only the changed fields with before -> after, multi-line
 * values as a line diff, secrets as `(sensitive value)`, grouped by project and environment, and
 * the summary line with the request count last. A pure function of the plan.
 */
import { diffLines } from './line-diff.js';
import { REDACTED } from '../model/secret.js';
import type { FieldChange, Plan, ResourceChange } from '../plan/types.js';
import type { ChangeLabel } from './describe.js';
import { formatValue, groupChanges, isMultiline, labelOf, leafChanges, ignoredFieldsLine, noSecretValuesLine, protectMarksLine, partialLine, plural, renamedFrom, requestLine, secretsNotCompared, summaryLine, titleOf } from './describe.js';
import { escapeControl } from './escape.js';
import { outOfScopeLine } from '../plan/scope.js';
import { previewsLine } from '../plan/types.js';
import type { Palette } from './palette.js';
import { NO_COLOR } from './palette.js';
import { blockedRoots, blockingFlags, blockingOf, refusedWithout } from '../plan/guards.js';
import { readableAddress } from '../model/resource.js';

export interface HumanOptions {
  palette?: Palette;
}

const MARKER: Record<ChangeLabel, string> = {
  create: '+',
  update: '~',
  destroy: '-',
  replace: '-/+',
  deploy: '>',
  unmanaged: '?',
  'no-op': ' ',
};

const VERB: Record<ChangeLabel, string> = {
  create: 'will be created',
  update: 'will be updated in place',
  destroy: 'will be destroyed',
  replace: 'must be replaced',
  deploy: 'will be deployed',
  unmanaged: 'is not in the manifest',
  'no-op': 'is unchanged',
};

export function renderPlanHuman(plan: Plan, opts: HumanOptions = {}): string {
  const p = opts.palette ?? NO_COLOR;
  const out: string[] = [];
  const colour = (label: ChangeLabel, s: string): string =>
    label === 'create' ? p.green(s) : label === 'update' ? p.yellow(s) : label === 'destroy' ? p.red(s) : label === 'replace' ? p.red(s) : label === 'deploy' ? p.cyan(s) : p.dim(s);

  const partial = partialLine(plan.targets);
  if (partial) out.push(p.yellow(partial), '');
  const groups = groupChanges(plan);
  const managed = groups.map((g) => ({ ...g, changes: g.changes.filter((c) => c.status !== 'unmanaged') })).filter((g) => g.changes.length > 0);
  if (managed.length > 0) {
    out.push('driftless will perform the following actions:', '');
    out.push(`  ${p.green('+')} create   ${p.yellow('~')} update in place   ${p.red('-')} destroy   ${p.red('-/+')} replace   ${p.cyan('>')} deploy`, '');
  }
  for (const g of managed) {
    out.push(p.bold(groupTitle(g.project, g.environment)));
    for (const c of g.changes) out.push(...renderChange(c, colour, p, plan.options), '');
  }

  const unmanaged = plan.changes.filter((c) => c.status === 'unmanaged');
  if (unmanaged.length > 0) {
    out.push(p.bold(`Not in the manifest (${plural(unmanaged.length, 'resource')}, left untouched; opt into pruning to delete):`));
    for (const c of unmanaged) {
      out.push(`  ${p.dim('?')} ${escapeControl(readableAddress(c.address))}`);
      // The reason names the prune key, and where to write it, that would delete it.
      for (const r of c.reasons) out.push(p.dim(`      # ${escapeControl(r)}`));
    }
    out.push('');
  }
  const blocked = plan.changes.filter((c) => c.status === 'blocked');
  if (blocked.length > 0) {
    out.push(p.red(p.bold(`Blocked: ${plural(blocked.length, 'change')} not done and not counted below; apply refuses this plan ${refusedWithout(blocked, plan.options)}:`)));
    for (const { change: c, following } of blockedRoots(blocked, plan.options)) {
      const b = blockingOf(c, plan.options)!;
      const withIt = following > 0 ? `, with ${plural(following, 'object')} that ${following === 1 ? 'goes' : 'go'} with it` : '';
      out.push(`  ${p.red('!')} ${escapeControl(readableAddress(c.address))}${withIt}: ${escapeControl(b.reasons.join('; '))} (${b.flags.length > 0 ? `needs ${b.flags.join(' and ')}` : 'no flag allows it'})`);
    }
    out.push('');
  }
  const notCompared = secretsNotCompared(plan);
  if (notCompared.length > 0) {
    out.push(p.bold('Secrets not compared (their values were not read: --no-secret-values):'));
    for (const x of notCompared) out.push(`  ${p.dim('?')} ${escapeControl(x.address)}: ${escapeControl(x.fields.join(', '))}`);
    out.push('');
  }
  const secretless = noSecretValuesLine(plan);
  if (secretless) out.push(p.yellow(secretless));
  const scope = outOfScopeLine(plan.out_of_scope);
  if (scope) out.push(p.dim(scope));
  const previews = previewsLine(plan.previews);
  if (previews) out.push(p.dim(previews));
  // Again beside the summary: a long plan's top is out of sight where its summary is read.
  if (partial && plan.changes.length > 0) out.push(p.yellow(`Partial plan: --target ${plan.targets!.map(readableAddress).join(' ')}.`));
  const ignored = ignoredFieldsLine(plan);
  if (ignored) out.push(p.dim(ignored));
  const marks = protectMarksLine(plan);
  if (marks) out.push(p.dim(marks));
  out.push(`${p.bold(summaryLine(plan))} ${requestLine(plan)}`);
  return out.join('\n') + '\n';
}

function groupTitle(project: string | null, environment: string | null): string {
  if (project === null) return 'Organization';
  return environment === null ? `Project ${escapeControl(project)}` : `Project ${escapeControl(project)} / environment ${escapeControl(environment)}`;
}

function renderChange(c: ResourceChange, colour: (l: ChangeLabel, s: string) => string, p: Palette, options: Plan['options']): string[] {
  const label = labelOf(c);
  const lines: string[] = [];
  const deploys = c.deploy !== undefined && label !== 'deploy' ? ', and deployed' : '';
  lines.push(p.dim(`  # ${escapeControl(readableAddress(c.address))} ${VERB[label]}${deploys}`));
  for (const r of c.reasons) lines.push(p.dim(`  # (${escapeControl(r)})`));
  const blocked = blockingOf(c, options);
  if (blocked) lines.push(p.red(`  # BLOCKED: ${blocked.flags.length > 0 ? `needs ${blocked.flags.join(' and ')}` : 'protected, no flag allows it'}`));
  lines.push(`  ${colour(label, MARKER[label])} ${escapeControl(titleOf(c))}`);
  const from = renamedFrom(c);
  if (from !== undefined) lines.push(`      ${colour('update', '~')} renamed from ${escapeControl(from)}`);
  if (label === 'create' || (label === 'replace' && c.fields.length === 0)) {
    for (const [k, v] of Object.entries(c.after ?? {})) lines.push(...renderAssignment(k, v, colour));
  } else {
    for (const f of c.fields) lines.push(...renderField(f, colour, p));
  }
  if (c.deploy) {
    const pins = [c.deploy.git_commit_id ? `commit ${c.deploy.git_commit_id}` : '', c.deploy.image_tag ? `tag ${c.deploy.image_tag}` : ''].filter(Boolean).join(', ');
    lines.push(`      ${p.cyan('>')} deploy: ${escapeControl(c.deploy.reasons.join('; '))}${pins ? ` (${escapeControl(pins)})` : ''}`);
  }
  return lines;
}

function renderAssignment(k: string, v: unknown, colour: (l: ChangeLabel, s: string) => string): string[] {
  if (isMultiline(v)) {
    return [`      ${colour('create', '+')} ${escapeControl(k)} = <<EOT`, ...v.replace(/\n$/, '').split('\n').map((l) => `          ${escapeControl(l)}`), '        EOT'];
  }
  return [`      ${colour('create', '+')} ${escapeControl(k)} = ${escapeControl(formatValue(v))}`];
}

function renderField(f: FieldChange, colour: (l: ChangeLabel, s: string) => string, p: Palette): string[] {
  const mark = colour('update', '~');
  const forces = f.forces_replace ? p.red(' # forces replacement') : '';
  const name = escapeControl(f.field);
  if (f.sensitive) {
    const before = !f.before_unknown ? REDACTED : f.before_edited ? '(value unknown: changed since driftless wrote it)' : '(value unknown: not written by driftless)';
    return [`      ${mark} ${name}: ${before} -> ${REDACTED}${forces}`];
  }
  if (isMultiline(f.before) || isMultiline(f.after)) {
    const before = typeof f.before === 'string' ? f.before : '';
    const after = typeof f.after === 'string' ? f.after : '';
    const lines = [`      ${mark} ${name}:${forces}`];
    for (const part of diffLines(before, after)) {
      const sign = part.added ? colour('create', '+') : part.removed ? colour('destroy', '-') : ' ';
      for (const l of part.value.replace(/\n$/, '').split('\n')) lines.push(`          ${sign} ${escapeControl(l)}`);
    }
    return lines;
  }
  return leafChanges(f.field, f.before, f.after).map(
    (l) => `      ${mark} ${escapeControl(l.path)}: ${escapeControl(formatValue(l.before))} -> ${escapeControl(formatValue(l.after))}${forces}`,
  );
}
