/**
 * `ignore_changes:` paths checked offline (validate and plan alike): every path must name a field
 * of that kind of object (src/model/ignore-paths.ts), so that a typo never silently ignores nothing.
 * Pure: Manifest in, diagnostics out.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { addressOf, type Address, type ResourceKind } from '../model/resource.js';
import { ignorablePaths } from '../model/ignore-paths.js';
import { holdsVariables } from '../model/kinds/index.js';
import { error } from './codes.js';
import { fieldSourceOf } from './source-map.js';
import { knownList, nearest } from './suggest.js';
import { sourceOf, type IgnoresChanges, type Manifest, type VariableSpec } from './types.js';

/** Each manifest object that may carry `ignore_changes`, with its kind and address. */
export function* objectsWithIgnoreChanges(m: Manifest): Generator<{ kind: ResourceKind; address: Address; spec: IgnoresChanges; what: string }> {
  if (m.organization) yield { kind: 'organization', address: 'organization', spec: m.organization, what: 'the organization' };
  for (const g of m.annotation_groups ?? []) yield { kind: 'annotations_group', address: addressOf('annotations_group', g.name), spec: g, what: `annotation group \`${g.name}\`` };
  for (const g of m.label_groups ?? []) yield { kind: 'labels_group', address: addressOf('labels_group', g.name), spec: g, what: `label group \`${g.name}\`` };
  for (const r of m.alert_receivers ?? []) yield { kind: 'alert_receiver', address: addressOf('alert_receiver', r.name), spec: r, what: `alert receiver \`${r.name}\`` };
  for (const r of m.alert_rules ?? []) yield { kind: 'alert_rule', address: addressOf('alert_rule', r.name), spec: r, what: `alert rule \`${r.name}\`` };
  for (const w of m.webhooks ?? []) yield { kind: 'webhook', address: addressOf('webhook', w.target_url), spec: w, what: `webhook \`${w.target_url}\`` };
  function* vars(list: VariableSpec[] | undefined, parent: Address) {
    for (const v of list ?? []) yield { kind: 'variable' as const, address: addressOf('variable', v.key, parent), spec: v, what: `variable \`${v.key}\`` };
  }
  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    yield { kind: 'project', address: pa, spec: p, what: `project \`${p.name}\`` };
    yield* vars(p.variables, pa);
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      yield { kind: 'environment', address: ea, spec: e, what: `environment \`${e.name}\`` };
      yield* vars(e.variables, ea);
      for (const st of e.deployment_stages ?? []) yield { kind: 'deployment_stage', address: addressOf('deployment_stage', st.name, ea), spec: st, what: `deployment stage \`${st.name}\`` };
      for (const s of e.services ?? []) {
        const sa = addressOf(s.type, s.name, ea);
        yield { kind: s.type, address: sa, spec: s, what: `${s.type} \`${s.name}\`` };
        if (holdsVariables(s.type) && 'variables' in s) yield* vars(s.variables, sa);
      }
    }
  }
}

export function checkIgnoreChanges(m: Manifest): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const o of objectsWithIgnoreChanges(m)) {
    const list = o.spec.ignore_changes;
    if (!Array.isArray(list)) continue;
    const allowed = ignorablePaths(o.kind);
    list.forEach((path, i) => {
      if (typeof path !== 'string' || allowed.includes(path)) return;
      const suggestion = nearest(path, allowed);
      out.push(
        error('manifest.ignore-path', `${o.what}: ignore_changes names \`${path}\`, which is not one of its fields${suggestion ? `; did you mean \`${suggestion}\`?` : ''}`, {
          detail: `A path is a field as this manifest spells it, through nested objects (\`git_repository.branch\`); a list or a map is ignored whole; variables and other child objects take their own ignore_changes; \`ignore_changes: all\` ignores every field. Allowed here: ${knownList(allowed, { max: 80 })}.`,
          range: fieldSourceOf(list, String(i)) ?? fieldSourceOf(o.spec, 'ignore_changes') ?? sourceOf(o.spec),
          address: o.address,
        }),
      );
    });
  }
  return out;
}
