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

interface WithIgnoreChanges {
  kind: ResourceKind;
  address: Address;
  spec: IgnoresChanges;
  what: string;
}

/**
 * Each manifest object that carries an `ignore_changes` list, with its kind and address, in
 * manifest order. Few objects do: an address is built only for those (a parent's when a child needs it).
 */
export function objectsWithIgnoreChanges(m: Manifest): WithIgnoreChanges[] {
  const out: WithIgnoreChanges[] = [];
  const listed = (spec: IgnoresChanges) => Array.isArray(spec.ignore_changes);
  const add = (kind: ResourceKind, spec: IgnoresChanges, address: Address, what: string) => out.push({ kind, address, spec, what });
  if (m.organization && listed(m.organization)) add('organization', m.organization, 'organization', 'the organization');
  for (const g of m.annotation_groups ?? []) if (listed(g)) add('annotations_group', g, addressOf('annotations_group', g.name), `annotation group \`${g.name}\``);
  for (const g of m.label_groups ?? []) if (listed(g)) add('labels_group', g, addressOf('labels_group', g.name), `label group \`${g.name}\``);
  for (const r of m.alert_receivers ?? []) if (listed(r)) add('alert_receiver', r, addressOf('alert_receiver', r.name), `alert receiver \`${r.name}\``);
  for (const r of m.alert_rules ?? []) if (listed(r)) add('alert_rule', r, addressOf('alert_rule', r.name), `alert rule \`${r.name}\``);
  for (const w of m.webhooks ?? []) if (listed(w)) add('webhook', w, addressOf('webhook', w.target_url), `webhook \`${w.target_url}\``);
  const vars = (list: VariableSpec[] | undefined, parent: Address) => {
    for (const v of list ?? []) if (listed(v)) add('variable', v, addressOf('variable', v.key, parent), `variable \`${v.key}\``);
  };
  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    if (listed(p)) add('project', p, pa, `project \`${p.name}\``);
    vars(p.variables, pa);
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      if (listed(e)) add('environment', e, ea, `environment \`${e.name}\``);
      vars(e.variables, ea);
      for (const st of e.deployment_stages ?? []) if (listed(st)) add('deployment_stage', st, addressOf('deployment_stage', st.name, ea), `deployment stage \`${st.name}\``);
      for (const s of e.services ?? []) {
        const variables = holdsVariables(s.type) && 'variables' in s ? s.variables : undefined;
        // The service's address only when it or one of its variables needs one.
        if (!listed(s) && !variables?.some(listed)) continue;
        const sa = addressOf(s.type, s.name, ea);
        if (listed(s)) add(s.type, s, sa, `${s.type} \`${s.name}\``);
        vars(variables, sa);
      }
    }
  }
  return out;
}

export function checkIgnoreChanges(m: Manifest): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const o of objectsWithIgnoreChanges(m)) {
    const list = o.spec.ignore_changes as unknown[];
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
