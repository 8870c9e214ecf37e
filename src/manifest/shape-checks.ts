/**
 * Rules about combinations of fields that JSON Schema expresses poorly (its `oneOf` errors are a
 * wall of text): "exactly one of", "only with", "at most". Runs on a schema-valid manifest, so
 * field types can be trusted. Pure: Manifest in, diagnostics out.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error, warning } from './codes.js';
import { addressOf } from '../model/resource.js';
import { fieldSourceOf, keySourceOf } from './source-map.js';
import { sourceOf, type Manifest, type VariableSpec } from './types.js';
import { withArticle } from '../render/words.js';
import { serviceMappings } from '../model/kinds/index.js';
import { list } from './shape-helpers.js';
export { checkComputeShape, list } from './shape-helpers.js';

const present = (o: object, k: string) => (o as Record<string, unknown>)[k] !== undefined;

/** Where each prune key takes effect. */
const PRUNE_LEVELS: Record<string, { levels: string[]; where: string }> = {
  projects: { levels: ['organization'], where: 'in the top-level `prune`' },
  annotation_groups: { levels: ['organization'], where: 'in the top-level `prune`' },
  label_groups: { levels: ['organization'], where: 'in the top-level `prune`' },
  alert_receivers: { levels: ['organization'], where: 'in the top-level `prune`' },
  alert_rules: { levels: ['organization'], where: 'in the top-level `prune`' },
  webhooks: { levels: ['organization'], where: 'in the top-level `prune`' },
  environments: { levels: ['project'], where: "in a project's `prune`" },
  services: { levels: ['environment'], where: "in an environment's `prune`" },
  deployment_stages: { levels: ['environment'], where: "in an environment's `prune`" },
  variables: { levels: ['project', 'environment', 'service'], where: "in a project's, an environment's or a service's `prune`" },
};

export function checkShapes(m: Manifest): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (o: object, k?: string) => (k ? keySourceOf(o, k) ?? fieldSourceOf(o, k) : undefined) ?? sourceOf(o);

  const exactlyOne = (o: object, keys: string[], what: string, address?: string) => {
    const set = keys.filter((k) => present(o, k));
    if (set.length === 1) return;
    out.push(
      error('manifest.exclusive', set.length === 0 ? `${what} needs one of ${list(keys)}` : `${what} sets ${list(set)}: only one is allowed`, {
        detail: `Exactly one of ${list(keys)} must be set.`,
        range: at(o, set[1]),
        address,
      }),
    );
  };
  const onlyWith = (o: object, key: string, requires: string, what: string, address?: string) => {
    if (present(o, key) && !present(o, requires)) {
      out.push(error('manifest.only-with', `\`${key}\` of ${what} is only allowed with \`${requires}\``, { range: at(o, key), address }));
    }
  };

  const checkVariables = (vars: VariableSpec[] | undefined, parent: () => string, scope: 'project' | 'environment' | 'service') => {
    for (const v of vars ?? []) {
      // A variable with one of value, alias and external_secret, and none of the fields checked
      // below (nearly every one): nothing to report, no address or label built.
      const sources = (present(v, 'value') ? 1 : 0) + (present(v, 'alias') ? 1 : 0) + (present(v, 'external_secret') ? 1 : 0);
      if (sources === 1 && v.override !== true && !present(v, 'alias') && v.enable_interpolation_in_file === undefined) continue;
      const address = addressOf('variable', v.key, parent());
      const what = `variable \`${v.key}\``;
      exactlyOne(v, ['value', 'alias', 'external_secret'], what, address);
      if (v.override === true) {
        if (!present(v, 'value')) out.push(error('manifest.only-with', `${what} is an override and needs a \`value\``, { range: at(v, 'override'), address }));
        if (scope === 'project') out.push(error('manifest.override-scope', `${what} overrides a higher scope, but a project has none`, { detail: 'Overrides are written on an environment or a service.', range: at(v, 'override'), address }));
      }
      if (present(v, 'alias')) {
        for (const k of ['mount_path', 'override', 'enable_interpolation_in_file'] as const) {
          if (present(v, k)) out.push(error('manifest.exclusive', `\`${k}\` cannot be set on an alias (${what})`, { detail: 'An alias takes its type and value from the variable it points to.', range: at(v, k), address }));
        }
      }
      if (v.enable_interpolation_in_file !== undefined) onlyWith(v, 'enable_interpolation_in_file', 'mount_path', what, address);
    }
  };

  for (const r of m.alert_receivers ?? []) {
    const address = addressOf('alert_receiver', r.name);
    const emailOnly = ['to', 'from', 'smarthost', 'auth_username', 'auth_password', 'require_tls'];
    const bad = r.type === 'SLACK' ? emailOnly.filter((k) => present(r, k)) : r.type === 'EMAIL' && present(r, 'webhook_url') ? ['webhook_url'] : [];
    for (const k of bad) out.push(error('manifest.only-with', `\`${k}\` does not apply to ${withArticle(String(r.type))} receiver (\`${r.name}\`)`, { range: at(r, k), address }));
  }
  for (const rule of m.alert_rules ?? []) {
    const t = rule.target as Record<string, unknown>;
    const serviceKeys = ['project', 'environment', 'service'];
    const hasCluster = present(t, 'cluster');
    const svc = serviceKeys.filter((k) => present(t, k));
    if (hasCluster === (svc.length > 0) || (!hasCluster && svc.length !== 3)) {
      out.push(
        error('manifest.exclusive', `the target of alert rule \`${rule.name}\` must be a cluster or a service`, {
          detail: 'Write `target: {cluster: NAME}` or `target: {project: P, environment: E, service: S}`.',
          range: sourceOf(t) ?? at(rule, 'target'),
          address: addressOf('alert_rule', rule.name),
        }),
      );
    }
  }

  // A prune key where it deletes nothing: the user expects a deletion that never happens.
  const pruneLevel = (prune: unknown, level: 'organization' | 'project' | 'environment' | 'service', address?: string) => {
    if (prune === null || typeof prune !== 'object') return;
    const on = { organization: 'at the top level', project: 'on a project', environment: 'on an environment', service: 'on a service' }[level];
    for (const [key, value] of Object.entries(prune)) {
      const rule = PRUNE_LEVELS[key];
      if (value !== true || !rule || rule.levels.includes(level)) continue;
      out.push(warning('manifest.prune-level', `prune key \`${key}\` has no effect ${on}`, { detail: `Nothing is deleted because of it: \`${key}\` takes effect ${rule.where}.`, range: at(prune, key), address }));
    }
  };
  pruneLevel(m.prune, 'organization');
  // `scope: declared` says undeclared organization-level objects are someone else's; a top-level
  // prune of a kind would delete exactly those. Refused rather than letting either one win silently.
  if (m.scope === 'declared' && m.prune) {
    for (const [key, value] of Object.entries(m.prune)) {
      if (value !== true || !PRUNE_LEVELS[key]?.levels.includes('organization')) continue;
      out.push(
        error('manifest.scope-prune', `\`prune.${key}\` deletes ${key.replace(/_/g, ' ')} this manifest does not declare, but \`scope: declared\` says those belong to someone else`, {
          detail: 'Remove the top-level prune key, or set `scope: organization` (or remove `scope`) if this manifest owns the whole organization.',
          range: at(m.prune, key),
        }),
      );
    }
  }

  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    pruneLevel(p.prune, 'project', pa);
    checkVariables(p.variables, () => pa, 'project');
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      pruneLevel(e.prune, 'environment', ea);
      checkVariables(e.variables, () => ea, 'environment');
      for (const s of e.services ?? []) {
        // The service's address and label are built when something is reported (rarely).
        let sa: string | undefined;
        const serviceAddress = () => (sa ??= addressOf(s.type, s.name, ea));
        if ('variables' in s) checkVariables(s.variables, serviceAddress, 'service');
        if (s.prune !== null && typeof s.prune === 'object') pruneLevel(s.prune, 'service', serviceAddress());
        // The kind's own checks: its descriptor's (src/model/kinds).
        const checkShape = serviceMappings(s.type).checkShape;
        if (checkShape) {
          checkShape(s as never, {
            get what() {
              return `${s.type} \`${s.name}\``;
            },
            get address() {
              return serviceAddress();
            },
            report: (d) => out.push(d),
            at,
            present,
            exactlyOne,
            onlyWith,
          });
        }
      }
    }
  }
  return out;
}
