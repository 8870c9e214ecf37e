/**
 * `plan --json`: one document modelled on Terraform's plan JSON (docs/DESIGN.md contract):
 * format_version, summary {add, change, destroy, deploy}, resource_changes[] with address, type,
 * name and change {actions, before, after, before_sensitive, after_sensitive}, plus request_count,
 * the deploy order and diagnostics. Deployment is its own action: `["update","deploy"]`,
 * `["deploy"]` for a service that only deploys. Secret values appear nowhere: a sensitive field is
 * null in before/after and `true` in the sensitive masks.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { isSensitivePlaceholder } from '../plan/types.js';
import { blockingOf } from '../plan/guards.js';
import { escapeJsonText } from './escape.js';

export interface JsonResourceChange {
  address: string;
  type: string;
  name: string;
  parent?: string;
  status: ResourceChange['status'];
  change: {
    actions: string[];
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
    before_sensitive: Record<string, boolean> | false;
    after_sensitive: Record<string, boolean> | false;
    changed_fields: string[];
    /**
     * `plan --no-secret-values`: the secrets of this record (marker field names: `value`,
     * `tf_vars.KEY`...) whose values were not read, so not compared: neither changed nor unchanged.
     * Their attributes are `true` in `after_sensitive`.
     */
    secret_not_compared?: string[];
    replace_paths?: string[];
    reasons?: string[];
  };
  deploy?: ResourceChange['deploy'];
  via_parent?: string;
  /**
   * Present when the change is blocked by a safety guard: why, and the flags that would allow it.
   * `change.actions` still says what the change would do; the summary does not count it.
   */
  blocked?: { reasons: string[]; flags: string[] };
}

export interface JsonPlan {
  format_version: string;
  organization_id: string;
  summary: Plan['summary'];
  resource_changes: JsonResourceChange[];
  deploy_order: Plan['deploy_order'];
  request_count: number;
  applyable: boolean;
  diagnostics: Diagnostic[];
  /** The options the plan was made with (`no_secret_values: true`: made with --no-secret-values, apply refuses it). */
  options: Plan['options'];
  /** Organization-level objects outside the manifest's scope, counted by kind (absent when none). */
  out_of_scope?: Plan['out_of_scope'];
}

/** The document as a value (for tests and for embedding). */
export function planToJson(plan: Plan): JsonPlan {
  const out: JsonPlan = {
    format_version: plan.format_version,
    organization_id: plan.organization_id,
    summary: plan.summary,
    resource_changes: plan.changes.map((c) => resourceChange(c, plan.options)),
    deploy_order: plan.deploy_order,
    request_count: plan.request_count,
    applyable: plan.applyable,
    diagnostics: plan.diagnostics,
    options: plan.options,
  };
  if (plan.out_of_scope) out.out_of_scope = plan.out_of_scope;
  return out;
}

/** The document as text: one line (NDJSON-friendly) unless `pretty`. */
export function renderPlanJson(plan: Plan, opts: { pretty?: boolean } = {}): string {
  return escapeJsonText(JSON.stringify(planToJson(plan), null, opts.pretty ? 2 : undefined)) + '\n';
}

function resourceChange(c: ResourceChange, options: Plan['options']): JsonResourceChange {
  const actions: string[] = [...c.actions];
  if (c.deploy) {
    if (actions[0] === 'no-op') actions.splice(0, 1, 'deploy');
    else actions.push('deploy');
  }
  const sensitive = new Set(c.sensitive_fields ?? []);
  const owned = c.after ? Object.keys(c.after) : undefined;
  const after = c.after ? maskSensitive(c.after, sensitive) : null;
  let before: Record<string, unknown> | null = null;
  if (c.before && c.actions[0] !== 'create') {
    // Before shows the fields the manifest owns (comparable with after); an unmanaged or deleted
    // resource shows its whole live state.
    const src = owned ? Object.fromEntries(owned.filter((k) => k in c.before!).map((k) => [k, c.before![k]])) : c.before;
    before = maskSensitive(src, sensitive);
  }
  const mask = (o: Record<string, unknown> | null) => (o && sensitive.size > 0 ? Object.fromEntries([...sensitive].map((k) => [k, true])) : false);
  const out: JsonResourceChange = {
    address: c.address,
    type: c.kind,
    name: c.name,
    status: c.status,
    change: {
      actions,
      before,
      after,
      before_sensitive: mask(before),
      after_sensitive: mask(after),
      changed_fields: c.fields.map((f) => f.field),
    },
  };
  if (c.parent !== undefined) out.parent = c.parent;
  if (c.secrets_not_compared && c.secrets_not_compared.length > 0) {
    out.change.secret_not_compared = [...c.secrets_not_compared];
    // A no-op has no `after`; the mask still says which attributes hold the secrets not compared.
    if (out.change.after_sensitive === false) out.change.after_sensitive = Object.fromEntries([...sensitive].map((k) => [k, true]));
  }
  const replace = c.fields.filter((f) => f.forces_replace).map((f) => f.field);
  if (replace.length > 0) out.change.replace_paths = replace;
  if (c.reasons.length > 0) out.change.reasons = c.reasons;
  if (c.deploy) out.deploy = c.deploy;
  if (c.via_parent !== undefined) out.via_parent = c.via_parent;
  const blocked = blockingOf(c, options);
  if (blocked) out.blocked = blocked;
  return out;
}

/** Sensitive fields (and any stray placeholder) become null: not even fingerprints are shown. */
function maskSensitive(attrs: Record<string, unknown>, sensitive: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) out[k] = sensitive.has(k) ? null : stripPlaceholders(v);
  return out;
}

function stripPlaceholders(v: unknown): unknown {
  if (isSensitivePlaceholder(v)) return null;
  if (Array.isArray(v)) return v.map(stripPlaceholders);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stripPlaceholders(x)]));
  return v;
}
