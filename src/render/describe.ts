/**
 * What the renderers share: grouping of changes by project and environment, action labels and
 * the display of values (secrets as `(sensitive value)`, never their fingerprints' meaning).
 */
import type { Address } from '../model/resource.js';
import { parseAddress, readableAddress } from '../model/resource.js';
import { REDACTED } from '../model/secret.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { isSensitivePlaceholder } from '../plan/types.js';

export type ChangeLabel = 'create' | 'update' | 'destroy' | 'replace' | 'deploy' | 'unmanaged' | 'no-op';

/** The main label of a change (deploy only when it deploys and changes nothing else). */
export function labelOf(c: ResourceChange): ChangeLabel {
  if (c.status === 'unmanaged') return 'unmanaged';
  const [a, b] = c.actions;
  if (a === 'create') return 'create';
  if (a === 'update') return 'update';
  if (a === 'delete') return b === 'create' ? 'replace' : 'destroy';
  return c.deploy ? 'deploy' : 'no-op';
}

/** Whether a change belongs in a rendering (anything but a silent no-op). */
export function isVisible(c: ResourceChange): boolean {
  return labelOf(c) !== 'no-op';
}

export interface ChangeGroup {
  /** null for organization-level resources. */
  project: string | null;
  environment: string | null;
  changes: ResourceChange[];
}

/** Project and environment names of an address (from its segments). */
export function scopeOf(address: Address): { project: string | null; environment: string | null } {
  const segs = parseAddress(address);
  const project = segs[0]?.kind === 'project' ? (segs[0].name ?? null) : null;
  const environment = project !== null && segs[1]?.kind === 'environment' ? (segs[1].name ?? null) : null;
  return { project, environment };
}

/**
 * Visible changes grouped: organization-level first, then each project (its own resources, then
 * each environment), in the order they first appear in the plan (execution order).
 */
export function groupChanges(plan: Plan): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  const org: ChangeGroup = { project: null, environment: null, changes: [] };
  for (const c of plan.changes) {
    if (!isVisible(c)) continue;
    const { project, environment } = scopeOf(c.address);
    if (project === null) {
      org.changes.push(c);
      continue;
    }
    const key = JSON.stringify([project, environment]);
    let g = groups.get(key);
    if (!g) {
      // Project-level group always precedes its environments.
      const pk = JSON.stringify([project, null]);
      if (environment !== null && !groups.has(pk)) groups.set(pk, { project, environment: null, changes: [] });
      g = { project, environment, changes: [] };
      groups.set(key, g);
    }
    g.changes.push(c);
  }
  const ordered: ChangeGroup[] = org.changes.length > 0 ? [org] : [];
  const byProject = new Map<string, ChangeGroup[]>();
  for (const g of groups.values()) {
    const list = byProject.get(g.project!) ?? [];
    list.push(g);
    byProject.set(g.project!, list);
  }
  for (const list of byProject.values()) {
    list.sort((a, b) => (a.environment === null ? -1 : b.environment === null ? 1 : 0));
    ordered.push(...list.filter((g) => g.changes.length > 0));
  }
  return ordered;
}

/** The resource's own segment for display: `application "api"`, `variable "LOG_LEVEL"`. */
/**
 * The address a `moved` entry renames this object from, or undefined: an object only inside a
 * renamed parent (its own name unchanged) is not shown as renamed.
 */
export function renamedFrom(c: ResourceChange): string | undefined {
  const prev = c.previous_address;
  if (prev === undefined) return undefined;
  const own = (a: string) => a.slice(a.lastIndexOf('/') + 1);
  return own(prev) === own(c.address) ? undefined : prev;
}

export function titleOf(c: ResourceChange): string {
  return c.kind === 'organization' ? 'organization' : `${c.kind} "${c.name}"`;
}

/** How a secret whose value was not read (`--no-secret-values`) is shown. */
export const NOT_READ = '(sensitive value, not read)';

/** A value for display: strings quoted, secrets redacted, objects as compact JSON. */
export function formatValue(v: unknown): string {
  if (v === undefined) return '(none)';
  if (isSensitivePlaceholder(v)) return v.not_compared ? NOT_READ : REDACTED;
  if (typeof v === 'string') return JSON.stringify(v);
  return JSON.stringify(redactPlaceholders(v));
}

/** Copy with every sensitive placeholder replaced by the redaction marker. */
export function redactPlaceholders(v: unknown): unknown {
  if (isSensitivePlaceholder(v)) return v.not_compared ? NOT_READ : REDACTED;
  if (Array.isArray(v)) return v.map(redactPlaceholders);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactPlaceholders(x)]));
  return v;
}

export function isMultiline(v: unknown): v is string {
  return typeof v === 'string' && v.includes('\n');
}

export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  const total = s.add + s.change + s.destroy + s.deploy;
  // Blocked changes are not done, so not counted; but a plan that has some is never "No changes".
  const blocked = s.blocked > 0 ? `; ${s.blocked} blocked (not done, not counted)` : '';
  if (total === 0 && blocked === '') return 'No changes.';
  return `Plan: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy, ${s.deploy} to deploy${blocked}.`;
}

/**
 * The live records whose secrets were not compared (`plan --no-secret-values`): neither changed nor
 * unchanged as far as the plan knows. A record created, deleted or replaced is shown as that
 * change (its secret is written or goes with it), so only updates, no-ops and deploys are listed.
 */
export function secretsNotCompared(plan: Plan): Array<{ address: Address; fields: string[] }> {
  return plan.changes
    .filter((c) => c.secrets_not_compared && c.secrets_not_compared.length > 0 && ['update', 'no-op', 'deploy'].includes(labelOf(c)))
    .map((c) => ({ address: c.address, fields: c.secrets_not_compared! }));
}

/** The sentence every rendering of a plan made with `--no-secret-values` carries. */
export function noSecretValuesLine(plan: Plan): string | undefined {
  if (plan.options.no_secret_values !== true) return undefined;
  const n = secretsNotCompared(plan).reduce((sum, x) => sum + x.fields.length, 0);
  return `Planned with --no-secret-values: no secret value was read${n > 0 ? `, ${plural(n, 'secret')} of live records not compared` : ''}; this plan cannot be applied (apply re-plans with the secrets).`;
}

/**
 * `--target`: said on every rendering of a partial plan (and of a drift report made from one), so
 * that nobody takes "No changes" of a part for "No changes" of the whole manifest.
 */
export function partialLine(targets: readonly string[] | undefined): string | undefined {
  if (!targets || targets.length === 0) return undefined;
  const shown = targets.map(readableAddress);
  const list = shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]!}`;
  return `Partial plan (--target): only ${list}, what is under ${targets.length === 1 ? 'it' : 'them'} and what ${targets.length === 1 ? 'it depends' : 'they depend'} on were read and planned; the rest of the manifest was not compared, and nothing outside the targets is changed or deleted.`;
}

/**
 * The one line every rendering of a plan says about protect marks to record on otherwise unchanged
 * objects (none when there are none): not changes, but apply writes them.
 */
export function protectMarksLine(plan: Plan): string | undefined {
  if (!plan.summary.marks) return undefined;
  const marks = plan.changes.filter((c) => c.protect_mark !== undefined && c.status !== 'blocked');
  const record = marks.filter((c) => c.protect_mark === true).map((c) => c.address);
  const clear = marks.filter((c) => c.protect_mark === false).map((c) => c.address);
  const list = (xs: string[]) => (xs.length <= 5 ? xs.join(', ') : `${xs.slice(0, 5).join(', ')} and ${xs.length - 5} more`);
  const parts = [
    ...(record.length > 0 ? [`records the protect mark on ${plural(record.length, 'object')} (${list(record)})`] : []),
    ...(clear.length > 0 ? [`clears it from ${plural(clear.length, 'object')} (${list(clear)})`] : []),
  ];
  return `Apply also ${parts.join(' and ')}: driftless's note in the description, no change to the object${marks.length === 1 ? '' : 's'}.`;
}

/** The one line every rendering of a plan says about `ignore_changes` (none when nothing was ignored). */
export function ignoredFieldsLine(plan: Plan): string | undefined {
  const n = plan.ignored_fields ?? 0;
  if (n === 0) return undefined;
  const objects = plan.changes.filter((c) => (c.ignored?.length ?? 0) > 0).length;
  return `Ignored ${plural(n, 'field')} of ${plural(objects, 'object')} (ignore_changes): set at creation, not compared.`;
}

export function requestLine(plan: Plan): string {
  return `Live state read with ${plan.request_count} API request${plan.request_count === 1 ? '' : 's'}.`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isSensitivePlaceholder(v);
}

/**
 * A changed field split into its changed leaves when both sides are objects
 * (`git_repository.branch: "develop" -> "main"` rather than two whole objects). Lists stay whole.
 */
export function leafChanges(path: string, before: unknown, after: unknown): Array<{ path: string; before: unknown; after: unknown }> {
  if (!isPlainObject(before) || !isPlainObject(after)) return [{ path, before, after }];
  const out: Array<{ path: string; before: unknown; after: unknown }> = [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const k of keys) {
    const b = before[k];
    const a = after[k];
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    out.push(...leafChanges(`${path}.${k}`, b, a));
  }
  return out.length > 0 ? out : [{ path, before, after }];
}
