/**
 * The plan: a plain, versioned, JSON-serialisable value computed by `computePlan` (pure) and read
 * by `applyPlan`, the renderers and the plan-file writer. It never holds a secret value: sensitive
 * fields carry keyed fingerprints only (see ./fingerprint.ts).
 *
 * Invariants:
 * - `changes` is in execution order: creates and updates in topological order (parents, then
 *   dependencies, then dependents), deletions of unmanaged resources in reverse order, at the end.
 * - every change with actions other than `no-op` carries the live `id` and `version` it was computed
 *   against (except creates), so a saved plan can detect that an object changed since (stale plan).
 * - `reasons` and `FieldChange.reason` are for display only; apply decides from `actions`, `status`,
 *   `fields` and `deploy`.
 */
import type { Address, ManifestScope, ResourceKind } from '../model/resource.js';
import type { Diagnostic } from '../diag/diagnostic.js';

export const PLAN_FORMAT_VERSION = '1.0';

/** The closed set of actions a change can take, as in Terraform's plan JSON. */
export type ActionList = ['create'] | ['update'] | ['delete'] | ['delete', 'create'] | ['no-op'];
export type Action = ActionList[number];

/**
 * - `planned`: apply executes it.
 * - `unmanaged`: live, absent from the manifest, and its scope does not opt into pruning: listed,
 *   never touched (actions `["no-op"]`).
 * - `blocked`: a change that trips a guard (`requires`) whose flag was not given: a database
 *   delete/replace without `allowDataLoss`, the replacement of an environment or of a deployed
 *   service without `allowReplace`. Shown, never counted as done, and apply refuses the plan while
 *   one is present.
 */
export type ChangeStatus = 'planned' | 'unmanaged' | 'blocked';

/** One changed top-level attribute (see src/graph/attrs.ts for the attrs of each kind). */
export interface FieldChange {
  /** Attribute name in `attrs` (API field name), e.g. `cpu`, `git_repository`, `value`. */
  field: string;
  /**
   * Live value, projected onto the fields the manifest owns (a nested object shows only the
   * sub-fields the manifest sets). Absent for a field the live record does not have, and always
   * absent when `sensitive`.
   */
  before?: unknown;
  /** Desired value. Absent when `sensitive`. */
  after?: unknown;
  /** The field holds a secret: values never appear, fingerprints do. */
  sensitive?: boolean;
  /** The live record has no fingerprint for a secret in this field (not written by driftless): the value is unknown and is rewritten once. */
  before_unknown?: boolean;
  /** With before_unknown: driftless wrote this secret, and its record was written again since (a console edit), so its fingerprint no longer tells the value. */
  before_edited?: boolean;
  /** This field cannot be changed in place: the resource is replaced. */
  forces_replace?: boolean;
}

/** The flags that allow a guarded change, by option name. */
export const GUARD_FLAGS = { allow_data_loss: '--allow-data-loss', allow_replace: '--allow-replace' } as const;
export type Guard = keyof typeof GUARD_FLAGS;

/** A safety guard a change trips: it is done only when the guard's flag was given. */
export interface GuardRequirement {
  guard: Guard;
  /** Why the change needs the flag (display), e.g. `replaces the deployed application "api"`. */
  reason: string;
}

export interface DeployMark {
  /** Why the service is deployed (display only), e.g. `created`, `variable DATABASE_URL changed`. */
  reasons: string[];
  /** Pinned versions passed with the deploy request. */
  git_commit_id?: string;
  image_tag?: string;
  /** The deployed commit / tag the live service reports, for display. */
  before_git_commit_id?: string;
  before_image_tag?: string;
}

export interface ResourceChange {
  address: Address;
  kind: ResourceKind;
  name: string;
  parent?: Address;
  actions: ActionList;
  status: ChangeStatus;
  /**
   * The live address this desired object was matched at, when it differs from `address`: the
   * object is renamed by a `moved` entry, or is inside a renamed project or environment
   * (Terraform's `previous_address`).
   */
  previous_address?: Address;
  /** Display-only explanations: replace reasons, blocked reasons, `recreated with its parent`. */
  reasons: string[];
  /** Live id and version (updated_at or record hash) the change was computed against. */
  id?: string;
  version?: string;
  /** Changed fields only (empty for create, delete and no-op). */
  fields: FieldChange[];
  /**
   * Desired attrs (create/update/replace), secrets replaced by `{ "sensitive": true,
   * "fingerprint": "..." }` placeholders (see `SensitivePlaceholder`). Apply builds request bodies
   * from these plus the secrets it re-reads; for full-replacement PUTs it merges them over `record`.
   */
  after?: Record<string, unknown>;
  /** Live attrs (update/delete/replace), as normalised; no secret values (the API never returns them). */
  before?: Record<string, unknown>;
  /** Names of attrs that hold secrets. */
  sensitive_fields?: string[];
  /**
   * Fingerprints of every secret of the desired record, keyed by marker field (`value`,
   * `webhook_url`, `target_secret`, `tf_vars.KEY`...): apply writes the description as
   * `withFingerprintMarker(after.description, fingerprints)` and checks the secrets it re-reads
   * against them.
   */
  fingerprints?: Record<string, string>;
  /**
   * Secrets of this record whose value was not read (`plan --no-secret-values`), by marker field:
   * neither a change nor a no-change, "not compared". The plan is then not applyable.
   */
  secrets_not_compared?: string[];
  /**
   * Fields of this existing object that the manifest's `ignore_changes` leaves alone (its paths, or
   * for `all` every attr it sets): set at creation, neither compared nor written now.
   */
  ignored?: string[];
  /** Service deployment, independent of the config action (a no-op service may still deploy). */
  deploy?: DeployMark;
  /**
   * The guards this change trips (present whether or not their flags were given): `status` is
   * `blocked` when one of their flags was not given, and apply checks them again against its own
   * flags.
   */
  requires?: GuardRequirement[];
  /**
   * A deletion or replacement driftless never makes (src/plan/protect.ts): of an object marked
   * `protect: true` (in the manifest, or recorded live), of what holds one, or of an object a
   * `moved` entry names. `status` is `blocked`, and no flag lifts it.
   */
  protection?: Protection;
  /** Addresses this change waits for (parent and dependencies that are themselves in the plan). */
  depends_on: Address[];
  /** Databases: create through the clone operation of this database. */
  clone_from?: Address;
  /**
   * A replace whose old half is a live object of another kind under the same name (a service
   * re-declared as another kind, src/plan/kind-change.ts): `id` and `version` are that object's,
   * and apply deletes it as that kind, waits until it is gone, then creates this one.
   */
  replaces?: { address: Address; kind: ResourceKind };
  /**
   * The change happens as a consequence of its parent's delete (e.g. a variable of a replaced
   * environment): apply sends no request of its own for it.
   */
  via_parent?: Address;
  /**
   * The protect mark to record on the live object (`true`) or to clear from it (`false`) when the
   * mark is all that differs (src/plan/protect-mark.ts): driftless's own bookkeeping in the
   * description, not a change to the object, so `actions` stay `["no-op"]` and the summary does not
   * count it (a manifest from `export`, which writes `protect: true` on every database, plans "No
   * changes"). Apply writes it; the plan says so in one line.
   */
  protect_mark?: boolean;
}

export interface Protection {
  /** What is protected: this object, or the object inside it that would go with it. */
  address: Address;
  /** `manifest`: `protect: true`; `live`: the mark recorded on the live object; `moved`: the `from` of a `moved` entry. */
  by: 'manifest' | 'live' | 'moved';
  /** Where the mark or the entry is written, `file:line:col` (absent for a live mark of an undeclared object). */
  at?: string;
  /** Why it is blocked (display). */
  reason: string;
}

export interface SensitivePlaceholder {
  sensitive: true;
  fingerprint: string;
  /** The value was not read (`plan --no-secret-values`): no fingerprint, not compared. */
  not_compared?: true;
}

export function isSensitivePlaceholder(v: unknown): v is SensitivePlaceholder {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as SensitivePlaceholder).sensitive === true &&
    typeof (v as SensitivePlaceholder).fingerprint === 'string'
  );
}

export interface PlanSummary {
  add: number;
  change: number;
  destroy: number;
  deploy: number;
  /** Live resources not in the manifest and not pruned. */
  unmanaged: number;
  /** Changes refused without `allowDataLoss` or `allowReplace`: not counted in add, change, destroy or deploy. */
  blocked: number;
  /** Protect marks to record or clear on objects otherwise unchanged (`protect_mark`); absent when none. */
  marks?: number;
}

/** The services to deploy in one environment, stage by stage in deployment order. */
export interface DeployGroup {
  environment: Address;
  stages: Array<{
    /** Stage name, or null for services in no stage of the manifest (the environment's default stage). */
    stage: string | null;
    services: Address[];
  }>;
}

export interface PlanOptions {
  /** Allow deleting or replacing databases. Default false. */
  allowDataLoss?: boolean;
  /** Allow replacing (delete then create) an environment or a deployed service. Default false. */
  allowReplace?: boolean;
  /**
   * Diagnostics of the checks made against the live organization before the plan (references to
   * clusters, registries and helm repositories, cluster limits, instance types, terraform
   * variables): they are part of the plan, and an error among them makes it not applyable.
   */
  checks?: Diagnostic[];
  /** Refuse the plan when it deletes more than this many resources (the plan gets an error diagnostic). */
  maxDestroy?: number;
  /** Key for secret fingerprints (see resolveFingerprintKey). Without one, secrets always show as "value unknown". */
  fingerprintKey?: string;
  /** Recorded in the plan, for saved plans. */
  apiUrl?: string;
  /**
   * The manifest was loaded without secret values (`plan --no-secret-values`): recorded in the plan
   * options (and so under the plan file's seal); the plan is not applyable.
   */
  noSecretValues?: boolean;
}

export interface Plan {
  format_version: string;
  organization_id: string;
  api_url?: string;
  /** Every desired resource and every unmanaged live one, in execution order. */
  changes: ResourceChange[];
  summary: PlanSummary;
  deploy_order: DeployGroup[];
  /**
   * Ids and versions of every live object a change touches or refers to by name (clusters,
   * registries, groups, receivers, parents), so that apply can resolve names without reading again
   * and a saved plan can detect a changed object.
   */
  live_objects: Record<Address, { id: string; version: string }>;
  /** HTTP requests the live read took. */
  request_count: number;
  /** `no_secret_values`: planned with --no-secret-values; apply refuses such a plan (its secrets were never read). */
  options: { allow_data_loss: boolean; allow_replace?: boolean; max_destroy?: number; no_secret_values?: boolean; preview?: PreviewOption };
  /** false when a change is blocked or an error diagnostic is present: apply must refuse it. */
  applyable: boolean;
  diagnostics: Diagnostic[];
  /**
   * Live organization-level objects outside the manifest's scope (src/plan/scope.ts), counted by
   * kind: not changes, not unmanaged, never touched. Absent when none was left out.
   */
  out_of_scope?: OutOfScope;
  /**
   * `--target ADDRESS...`: the plan is partial. Only these subtrees, and what they depend on, were
   * read and planned (src/graph/target.ts); nothing outside them is listed, changed or deleted. A
   * saved plan keeps them (under its seal), so `apply PLANFILE` re-plans exactly that part. Absent
   * for a whole-manifest plan.
   */
  targets?: Address[];
  /** How many fields of existing objects `ignore_changes` left out of the comparison (absent: none). */
  ignored_fields?: number;
  /**
   * Live environments left to `driftless preview` (their name matches a project's `previews.name`),
   * counted per project: never changed, deleted or listed. Absent when there is none.
   */
  previews?: PreviewCount[];
}

/** `driftless preview up`: the preview environment this plan was made with (src/manifest/previews.ts). */
export interface PreviewOption {
  project: string;
  number: number;
  set?: Array<{ text: string; path: string; value: string }>;
}

export interface PreviewCount {
  project: Address;
  pattern: string;
  count: number;
}

/** `2 preview environments (pr-{number}) left to `driftless preview`.`, or undefined when none. */
export function previewsLine(previews: readonly PreviewCount[] | undefined): string | undefined {
  const total = (previews ?? []).reduce((n, p) => n + p.count, 0);
  if (total === 0) return undefined;
  const patterns = [...new Set(previews!.filter((p) => p.count > 0).map((p) => p.pattern))].join(', ');
  return `${total} preview environment${total === 1 ? '' : 's'} (${patterns}) left to \`driftless preview\`.`;
}

export interface OutOfScope {
  scope: ManifestScope;
  counts: Partial<Record<ResourceKind, number>>;
}

/** True when the plan changes or deploys anything (the `--detailed-exitcode` test). */
export function planHasChanges(plan: Plan): boolean {
  const s = plan.summary;
  return s.add + s.change + s.destroy + s.deploy + s.blocked > 0;
}

/**
 * Whether apply writes the object itself for this change: a change of its own, or a protect mark
 * recorded on (or cleared from) an otherwise unchanged object.
 */
export function writesObject(c: ResourceChange): boolean {
  return c.actions[0] !== 'no-op' || c.protect_mark !== undefined;
}

/**
 * Whether the plan asks apply to act on this change (now, or once a guard is lifted): it writes
 * the object or deploys it. A saved plan is compared with a fresh one on these, and the plan
 * records the live objects they touch.
 */
export function isActionable(c: ResourceChange): boolean {
  return c.status !== 'unmanaged' && (writesObject(c) || c.deploy !== undefined);
}

/** Whether apply has anything to write: a change, or a protect mark to record on an unchanged object. */
export function planHasWrites(plan: Plan): boolean {
  return planHasChanges(plan) || (plan.summary.marks ?? 0) > 0;
}
