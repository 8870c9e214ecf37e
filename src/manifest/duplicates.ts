/**
 * A resource declared twice is an error that names both places.
 *
 * Identity follows the API: names of projects, environments, services, stages, groups, receivers and
 * rules are compared case-insensitively (the API treats them so); variable keys are case-sensitive;
 * a webhook is identified by its target_url.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from './codes.js';
import { formatRange } from '../diag/excerpt.js';
import { addressOf, type Address } from '../model/resource.js';
import { fieldSourceOf } from './source-map.js';
import { sourceOf, type Manifest, type VariableSpec } from './types.js';

/** The first of a name: its position is asked for only when a second one is reported (positions may be built lazily). */
interface Seen {
  item: object;
}

function checkUnique<T extends object>(
  items: readonly T[] | undefined,
  identity: (t: T) => string | undefined,
  field: string,
  what: string,
  caseInsensitive: boolean,
  address: (t: T) => Address | undefined,
  out: Diagnostic[],
): void {
  if (!items) return;
  const seen = new Map<string, Seen>();
  for (const item of items) {
    const id = identity(item);
    if (typeof id !== 'string') continue;
    const norm = caseInsensitive ? id.toLowerCase() : id;
    const first = seen.get(norm);
    if (!first) {
      seen.set(norm, { item });
      continue;
    }
    const here = fieldSourceOf(item, field) ?? sourceOf(item);
    const firstRange = fieldSourceOf(first.item, field) ?? sourceOf(first.item);
    out.push(
      error('manifest.duplicate', `${what} \`${id}\` is declared twice`, {
        detail: `It is also declared at ${firstRange ? formatRange(firstRange) : 'another place'}${caseInsensitive ? ' (names are compared case-insensitively)' : ''}. Remove or rename one of them.`,
        range: here,
        address: address(item),
      }),
    );
  }
}

function checkVariables(vars: VariableSpec[] | undefined, parent: Address | undefined, out: Diagnostic[]): void {
  checkUnique(vars, (v) => v.key, 'key', 'variable', false, (v) => addressOf('variable', v.key, parent), out);
}

export function findDuplicates(m: Manifest): Diagnostic[] {
  const out: Diagnostic[] = [];
  const top = <T extends { name: string }>(items: T[] | undefined, kind: Parameters<typeof addressOf>[0], what: string) =>
    checkUnique(items, (t) => t.name, 'name', what, true, (t) => addressOf(kind, t.name), out);
  top(m.clusters, 'cluster', 'cluster');
  top(m.annotation_groups, 'annotations_group', 'annotation group');
  top(m.label_groups, 'labels_group', 'label group');
  top(m.alert_receivers, 'alert_receiver', 'alert receiver');
  top(m.alert_rules, 'alert_rule', 'alert rule');
  top(m.projects, 'project', 'project');
  checkUnique(m.webhooks, (w) => w.target_url, 'target_url', 'webhook with target_url', false, (w) => addressOf('webhook', w.target_url), out);
  for (const g of m.label_groups ?? []) {
    checkUnique(g.labels, (l) => l.key, 'key', `label in group \`${g.name}\`:`, false, () => addressOf('labels_group', g.name), out);
  }
  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    checkVariables(p.variables, pa, out);
    checkUnique(p.environments, (e) => e.name, 'name', `environment of project \`${p.name}\`:`, true, (e) => addressOf('environment', e.name, pa), out);
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      checkVariables(e.variables, ea, out);
      checkUnique(e.services, (s) => s.name, 'name', `service of environment \`${e.name}\`:`, true, (s) => addressOf(s.type, s.name, ea), out);
      checkUnique(e.deployment_stages, (s) => s.name, 'name', `deployment stage of environment \`${e.name}\`:`, true, (s) => addressOf('deployment_stage', s.name, ea), out);
      for (const s of e.services ?? []) {
        if ('variables' in s) checkVariables(s.variables, addressOf(s.type, s.name, ea), out);
      }
      // A service belongs to one stage only.
      const stageOf = new Map<string, { stage: string; list: unknown; index: number }>();
      for (const st of e.deployment_stages ?? []) {
        (st.services ?? []).forEach((svc, i) => {
          if (typeof svc !== 'string') return;
          const prev = stageOf.get(svc.toLowerCase());
          if (prev) {
            const here = fieldSourceOf(st.services, String(i));
            const prevRange = fieldSourceOf(prev.list, String(prev.index));
            out.push(
              error('manifest.duplicate', `service \`${svc}\` is listed in two deployment stages`, {
                detail: `It is also listed in stage \`${prev.stage}\` at ${prevRange ? formatRange(prevRange) : 'another place'}. A service belongs to one stage.`,
                range: here,
                address: addressOf('deployment_stage', st.name, ea),
              }),
            );
          } else stageOf.set(svc.toLowerCase(), { stage: st.name, list: st.services, index: i });
        });
      }
    }
  }
  return out;
}
