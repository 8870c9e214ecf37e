/**
 * `plan --json` and `show --format json`: one document modelled on Terraform's plan JSON
 * (the design's contract; docs/commands.md) so that policy tools (OPA/conftest) read it as they read Terraform's:
 * format_version, driftless_version, timestamp, errored, summary {add, change, destroy, deploy},
 * resource_changes[] with address, mode, type, name, provider_name and change {actions, before,
 * after, after_unknown, before_sensitive, after_sensitive, patch}, plus request_count, the deploy
 * order and diagnostics.
 *
 * `change.actions` holds only Terraform's closed set (create, update, delete, no-op): a deployment
 * is not a config action, it is `change.deploy` (why, and the pinned version). `change.patch` is
 * the RFC 6902 JSON Patch (fast-json-patch) of an update's changed fields, from `before` to `after`.
 * Secret values appear nowhere: a sensitive field is null in before/after/patch and `true` in the
 * sensitive masks.
 *
 * A failed plan is still a document (`planFailureToJson`): the same top-level shape with
 * `errored: true` and the diagnostics, like Terraform's `plan -json` diagnostics, so a workflow
 * always has something to parse and to post.
 */
// fast-json-patch is CommonJS: under Node's ESM its functions come on the default export only.
import jsonPatch, { type Operation } from 'fast-json-patch';
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { isSensitivePlaceholder } from '../plan/types.js';
import { blockingOf } from '../plan/guards.js';
import { escapeJsonText } from './escape.js';
import { PLAN_FORMAT_VERSION } from '../plan/types.js';

/** Every resource driftless plans is one it manages (read-only references never appear as changes). */
export const RESOURCE_MODE = 'managed';
/** What Terraform's tools read as the provider: the API driftless reconciles. */
export const PROVIDER_NAME = 'driftless/infrastructure-api';

export interface JsonResourceChange {
  address: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  provider_name: string;
  parent?: string;
  /** Terraform's `previous_address`: where the object was live before a rename (`moved`). */
  previous_address?: string;
  status: ResourceChange['status'];
  change: {
    actions: string[];
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
    /** Attributes known only once applied (`id` of what is created), as in Terraform. */
    after_unknown: Record<string, boolean>;
    before_sensitive: Record<string, boolean> | false;
    after_sensitive: Record<string, boolean> | false;
    changed_fields: string[];
    /**
     * `plan --no-secret-values`: the secrets of this record (marker field names: `value`,
     * `tf_vars.KEY`...) whose values were not read, so not compared: neither changed nor unchanged.
     * Their attributes are `true` in `after_sensitive`.
     */
    secret_not_compared?: string[];
    /** `ignore_changes`: the fields of this existing object set at creation and not compared. */
    ignored_fields?: string[];
    /** RFC 6902 operations turning `before` into `after` on the changed fields (updates and replaces). */
    patch?: Operation[];
    /** The service is deployed by this plan (not an action: a no-op service may deploy). */
    deploy?: ResourceChange['deploy'];
    /** The protect mark apply records (true) or clears (false) on this otherwise unchanged object (not an action). */
    protect_mark?: boolean;
    replace_paths?: string[];
    reasons?: string[];
  };
  via_parent?: string;
  /** A replace whose old half is a live service of another kind under the same name: its address. */
  replaces?: string;
  /**
   * Present when the change is blocked by a safety guard: why, and the flags that would allow it.
   * `change.actions` still says what the change would do; the summary does not count it.
   */
  blocked?: { reasons: string[]; flags: string[] };
}

/** Who rendered the document and when the plan was made (injected: renderers stay pure). */
export interface JsonPlanMeta {
  driftless_version: string;
  /** ISO 8601: when the plan was made (a saved plan's `created_at`). */
  timestamp: string;
}

export interface JsonPlan {
  format_version: string;
  driftless_version: string;
  timestamp: string;
  /** True when the plan could not be made, or has an error: `diagnostics` says why; never apply it. */
  errored: boolean;
  organization_id: string | null;
  summary: Plan['summary'];
  resource_changes: JsonResourceChange[];
  deploy_order: Plan['deploy_order'];
  request_count: number;
  applyable: boolean;
  diagnostics: Diagnostic[];
  /**
   * The options the plan was made with (`no_secret_values: true`: made with --no-secret-values,
   * apply refuses it). Absent from a failure document without a plan.
   */
  options?: Plan['options'];
  /** Organization-level objects outside the manifest's scope, counted by kind (absent when none). */
  out_of_scope?: Plan['out_of_scope'];
  previews?: Plan['previews'];
  /**
   * As Terraform's: false when applying this plan does not converge the whole manifest, which here
   * means it was made with `--target` (then `targets` lists the addresses). Absent from a failure
   * document without a plan.
   */
  complete?: boolean;
  /** `--target`: the addresses the partial plan was made for (absent for a whole-manifest plan). */
  targets?: string[];
  /** How many fields of existing objects `ignore_changes` left alone (absent when none; each change lists its own in `change.ignored_fields`). */
  ignored_fields?: number;
}

/** The document as a value (for tests and for embedding). */
export function planToJson(plan: Plan, meta: JsonPlanMeta): JsonPlan {
  const out: JsonPlan = {
    format_version: plan.format_version,
    driftless_version: meta.driftless_version,
    timestamp: meta.timestamp,
    errored: plan.diagnostics.some((d) => d.severity === 'error'),
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
  if (plan.previews) out.previews = plan.previews;
  out.complete = plan.targets === undefined;
  if (plan.targets) out.targets = [...plan.targets];
  if (plan.ignored_fields !== undefined) out.ignored_fields = plan.ignored_fields;
  return out;
}

/** The document as text: one line (NDJSON-friendly) unless `pretty`. */
export function renderPlanJson(plan: Plan, meta: JsonPlanMeta, opts: { pretty?: boolean } = {}): string {
  return jsonText(planToJson(plan, meta), opts);
}

/**
 * A plan that failed (manifest errors, API errors, a refused token...): the same top-level shape,
 * `errored: true`, every diagnostic (located ones with file/line/col), and the plan's changes when
 * one was computed (a plan whose own checks failed), else none.
 */
export function planFailureToJson(diagnostics: readonly Diagnostic[], meta: JsonPlanMeta, plan?: Plan): JsonPlan {
  if (plan) return { ...planToJson(plan, meta), errored: true, applyable: false, diagnostics: [...diagnostics] };
  return {
    format_version: PLAN_FORMAT_VERSION,
    driftless_version: meta.driftless_version,
    timestamp: meta.timestamp,
    errored: true,
    organization_id: null,
    summary: { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 },
    resource_changes: [],
    deploy_order: [],
    request_count: 0,
    applyable: false,
    diagnostics: [...diagnostics],
  };
}

export function renderPlanFailureJson(diagnostics: readonly Diagnostic[], meta: JsonPlanMeta, plan?: Plan, opts: { pretty?: boolean } = {}): string {
  return jsonText(planFailureToJson(diagnostics, meta, plan), opts);
}

function jsonText(doc: JsonPlan, opts: { pretty?: boolean }): string {
  return escapeJsonText(JSON.stringify(doc, null, opts.pretty ? 2 : undefined)) + '\n';
}

function resourceChange(c: ResourceChange, options: Plan['options']): JsonResourceChange {
  const actions: string[] = [...c.actions];
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
    mode: RESOURCE_MODE,
    type: c.kind,
    name: c.name,
    provider_name: PROVIDER_NAME,
    status: c.status,
    change: {
      actions,
      before,
      after,
      // The API assigns the id of what is created (or re-created).
      after_unknown: (c.actions as readonly string[]).includes('create') ? { id: true } : {},
      before_sensitive: mask(before),
      after_sensitive: mask(after),
      changed_fields: c.fields.map((f) => f.field),
    },
  };
  if (before && after && c.fields.length > 0) out.change.patch = fieldPatch(c, before, after, sensitive);
  if (c.deploy) out.change.deploy = c.deploy;
  if (c.protect_mark !== undefined) out.change.protect_mark = c.protect_mark;
  if (c.parent !== undefined) out.parent = c.parent;
  if (c.previous_address !== undefined) out.previous_address = c.previous_address;
  if (c.ignored && c.ignored.length > 0) out.change.ignored_fields = [...c.ignored];
  if (c.secrets_not_compared && c.secrets_not_compared.length > 0) {
    out.change.secret_not_compared = [...c.secrets_not_compared];
    // A no-op has no `after`; the mask still says which attributes hold the secrets not compared.
    if (out.change.after_sensitive === false) out.change.after_sensitive = Object.fromEntries([...sensitive].map((k) => [k, true]));
  }
  const replace = c.fields.filter((f) => f.forces_replace).map((f) => f.field);
  if (replace.length > 0) out.change.replace_paths = replace;
  if (c.reasons.length > 0) out.change.reasons = c.reasons;
  if (c.via_parent !== undefined) out.via_parent = c.via_parent;
  if (c.replaces !== undefined) out.replaces = c.replaces.address;
  const blocked = blockingOf(c, options);
  if (blocked) out.blocked = blocked;
  return out;
}

/**
 * The JSON Patch of the changed fields, computed by fast-json-patch between the document's own
 * (masked) `before` and `after` of each field, so that applying it to `before` gives `after` on
 * those fields. A changed secret is one `replace` (or `add`) whose value is null, like its
 * before/after: the patch says that it changes, never to what.
 */
function fieldPatch(c: ResourceChange, before: Record<string, unknown>, after: Record<string, unknown>, sensitive: Set<string>): Operation[] {
  const ops: Operation[] = [];
  for (const f of c.fields) {
    const path = '/' + jsonPatch.escapePathComponent(f.field);
    const inBefore = Object.hasOwn(before, f.field);
    const inAfter = Object.hasOwn(after, f.field);
    if (sensitive.has(f.field) || f.sensitive) {
      if (inAfter) ops.push({ op: inBefore ? 'replace' : 'add', path, value: null });
      else if (inBefore) ops.push({ op: 'remove', path });
      continue;
    }
    // A field kept outside the attrs (`protect`, a mark in the description): added with its new value,
    // so that the patch still applies to `before`.
    const own = !inBefore && !inAfter;
    const fieldOps = own
      ? jsonPatch.compare({}, f.after !== undefined ? { [f.field]: f.after } : {})
      : jsonPatch.compare(inBefore ? { [f.field]: before[f.field] } : {}, inAfter ? { [f.field]: after[f.field] } : {});
    ops.push(...fieldOps);
  }
  return ops;
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
