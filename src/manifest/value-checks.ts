/**
 * Checks of values that a JSON Schema cannot make, on a schema-valid, resolved manifest: a job's
 * cron schedule against each field's range (./cron.ts), its time zone against the IANA database
 * (./timezone.ts), and names of one namespace that differ only by look-alike characters
 * (./confusables.ts), and `ignore_changes` paths against the fields of each kind (./ignore-changes.ts). They run in `validate` and `plan` alike (both load the manifest), offline.
 * Pure: Manifest in, diagnostics out.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { formatRange } from '../diag/excerpt.js';
import { addressOf, type Address } from '../model/resource.js';
import { error, warning } from './codes.js';
import { confusablePairs, skeleton } from './confusables.js';
import { cronProblem } from './cron.js';
import { fieldSourceOf } from './source-map.js';
import { checkIgnoreChanges } from './ignore-changes.js';
import { timeZoneProblem } from './timezone.js';
import { sourceOf, type Manifest, type VariableSpec } from './types.js';

/** A value still holding a reference was not resolved (its problem is reported): not checked again. */
const unresolved = (v: string) => v.includes('${');

export function checkValues(m: Manifest): Diagnostic[] {
  return [...checkSchedules(m), ...checkConfusableNames(m), ...checkIgnoreChanges(m)];
}

export function checkSchedules(m: Manifest): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of m.projects ?? []) {
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, addressOf('project', p.name));
      for (const s of e.services ?? []) {
        // A kind with a cron schedule (jobs): its schedule's cron, whatever the kind is called.
        if (!('schedule' in s) || !s.schedule || !('cron' in s.schedule) || !s.schedule.cron) continue;
        const cron = s.schedule.cron;
        const address = addressOf(s.type, s.name, ea);
        if (typeof cron.scheduled_at === 'string' && !unresolved(cron.scheduled_at)) {
          const problem = cronProblem(cron.scheduled_at);
          if (problem) out.push(error('schema.bad-cron', `${s.type} \`${s.name}\`: ${problem.summary}`, { detail: problem.detail, range: fieldSourceOf(cron, 'scheduled_at'), address }));
        }
        if (typeof cron.timezone === 'string' && !unresolved(cron.timezone)) {
          const problem = timeZoneProblem(cron.timezone);
          if (problem) out.push(error('schema.bad-timezone', `job \`${s.name}\`: ${problem.summary}`, { detail: problem.detail, range: fieldSourceOf(cron, 'timezone'), address }));
        }
      }
    }
  }
  return out;
}

/**
 * Two names of one namespace that a reader cannot tell apart (`shop` and `ѕhop`) are two objects
 * for the API: a warning names both and where each is written.
 */
export function checkConfusableNames(m: Manifest): Diagnostic[] {
  const out: Diagnostic[] = [];
  // Each name's skeleton once: the same variable keys recur in every service.
  const skeletons = new Map<string, string>();
  const skeletonOf = (s: string) => {
    let k = skeletons.get(s);
    if (k === undefined) skeletons.set(s, (k = skeleton(s)));
    return k;
  };
  const check = <T extends object>(items: readonly T[] | undefined, field: 'name' | 'key', what: string, caseInsensitive: boolean, address: (t: T) => Address | undefined) => {
    if (!items || items.length < 2) return;
    const nameOf = (t: T) => (t as Record<string, unknown>)[field];
    for (const { first, second } of confusablePairs(items, nameOf, caseInsensitive, skeletonOf)) {
      const a = String(nameOf(first));
      const b = String(nameOf(second));
      const firstAt: SourceRange | undefined = fieldSourceOf(first, field) ?? sourceOf(first);
      out.push(
        warning('manifest.confusable', `${what} \`${b}\` looks like ${what} \`${a}\`${firstAt ? ` (${formatRange(firstAt)})` : ''} but is another name`, {
          detail: `They differ only by look-alike characters (${describeDifference(a, b)}). The API takes them as two different objects. Rename one, or write both with the same characters.`,
          range: fieldSourceOf(second, field) ?? sourceOf(second),
          address: address(second),
        }),
      );
    }
  };
  const vars = (list: VariableSpec[] | undefined, parent: () => Address) => check(list, 'key', 'variable', false, (v) => addressOf('variable', v.key, parent()));
  check(m.clusters, 'name', 'cluster', true, (c) => addressOf('cluster', c.name));
  check(m.annotation_groups, 'name', 'annotation group', true, (g) => addressOf('annotations_group', g.name));
  check(m.label_groups, 'name', 'label group', true, (g) => addressOf('labels_group', g.name));
  check(m.alert_receivers, 'name', 'alert receiver', true, (r) => addressOf('alert_receiver', r.name));
  check(m.alert_rules, 'name', 'alert rule', true, (r) => addressOf('alert_rule', r.name));
  check(m.projects, 'name', 'project', true, (p) => addressOf('project', p.name));
  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    vars(p.variables, () => pa);
    check(p.environments, 'name', 'environment', true, (e) => addressOf('environment', e.name, pa));
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      vars(e.variables, () => ea);
      check(e.services, 'name', 'service', true, (s) => addressOf(s.type, s.name, ea));
      check(e.deployment_stages, 'name', 'deployment stage', true, (st) => addressOf('deployment_stage', st.name, ea));
      for (const s of e.services ?? []) if ('variables' in s) vars(s.variables, () => addressOf(s.type, s.name, ea));
    }
  }
  return out;
}

/** "`ѕ` (U+0455) looks like `s`": the characters of either name that have a look-alike prototype. */
function describeDifference(a: string, b: string): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const ch of [...b, ...a]) {
    const proto = skeleton(ch);
    if (proto === ch.normalize('NFD') || seen.has(ch) || parts.length >= 3) continue;
    seen.add(ch);
    parts.push(`\`${ch}\` (U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}) looks like \`${proto}\``);
  }
  return parts.join(', ') || 'look-alike characters';
}
