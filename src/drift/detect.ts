/**
 * detectDrift: a plan (computed as `plan` computes it) -> a drift report for a cron job.
 *
 * Every difference between Git and the live platform becomes a DriftItem, and each item says
 * where the difference most likely comes from, using the record's own timestamps (the API keeps no
 * audit trail driftless can read):
 *
 * - `outside_git`: the live record changed after the last deployment of the services it affects
 *   (`updated_at` > `last_deployment_date`), or the object was created since, or it exists live
 *   only: someone changed the platform directly (console, API, another tool).
 * - `git`: the live record has not changed since the last deployment, so the manifest moved: a
 *   change made in Git and not applied yet.
 * - `unknown`: no timestamp settles it (organization-level objects have no deployment).
 *
 * Secrets: the API never returns their values. A secret edited in the console keeps its
 * fingerprint but not its `updated_at`; the live reader drops such stale fingerprints
 * (src/live/stale-secrets.ts), so the plan shows the value as unknown and it is reported here as
 * replaced outside Git (apply writes it again).
 *
 * Live objects outside the manifest's scope (projects of other teams, see src/plan/scope.ts) are
 * not in the plan's changes, so they are never drift; the report only counts them.
 *
 * The fingerprint is a hash of what drifted (addresses, kinds of drift, fields and their values),
 * never of timestamps, ids or request counts: the same drift gives the same fingerprint on every
 * run, so a workflow can keep one issue per drift. Pure: no I/O, no clock.
 */
import { createHash } from 'node:crypto';
import type { RelatedLocation, SourceRange } from '../diag/diagnostic.js';
import type { Address, DesiredGraph, LiveResource, LiveState, ResourceKind } from '../model/resource.js';
import { isServiceKind } from '../model/resource.js';
import { holdsVariables } from '../model/kinds/index.js';
import { pruneOptIn } from '../graph/prune.js';
import { blockingOf } from '../plan/guards.js';
import type { FieldChange, OutOfScope, Plan, PreviewCount, ResourceChange } from '../plan/types.js';
import { secretsNotCompared } from '../render/describe.js';
import type { ChangedBy } from './change-author.js';

export const DRIFT_FORMAT_VERSION = '1.0';

export type DriftOrigin = 'outside_git' | 'git' | 'unknown';

/**
 * - `changed`: declared and live, with fields that differ (or a secret that was replaced).
 * - `missing`: declared in Git, absent live (deleted outside Git, or added in Git and not applied).
 * - `unmanaged`: live, not declared in Git (created outside Git, or removed from Git).
 * - `not_deployed`: the configuration matches but the service does not run what Git says
 *   (never deployed, or another commit deployed).
 */
export type DriftKind = 'changed' | 'missing' | 'unmanaged' | 'not_deployed';

export interface DriftField {
  field: string;
  /** The live value (absent for secrets, and for fields the live record lacks). */
  live?: unknown;
  /** The value in Git (absent for secrets). */
  git?: unknown;
  sensitive?: boolean;
}

export interface DriftItem {
  address: Address;
  kind: ResourceKind;
  name: string;
  drift: DriftKind;
  origin: DriftOrigin;
  /** One line: what happened, in words. */
  summary: string;
  fields: DriftField[];
  /** When the live side last changed (updated_at / created_at), when known. */
  since?: string;
  /** The last deployment the origin was judged against. */
  last_deployment?: string;
  /** Where the resource is declared in the manifest. */
  source?: SourceRange;
  /** Renamed by a `moved` entry not applied yet: its live address (Terraform's `previous_address`). */
  previous_address?: Address;
  /** Instantiated from a template: where the template defines it and where its environment overrides it. */
  related?: RelatedLocation[];
  /** What `apply` would do about it. */
  apply_action: string;
  /**
   * Whether that brings the platform back to Git. False for an undeclared object whose scope does
   * not prune its kind (apply keeps it, so the same drift is reported every night) and for a change
   * the plan blocks (apply refuses it without a flag): `fix` then says what does.
   */
  apply_fixes: boolean;
  /** When apply alone does not fix it: what does (a manifest change, a flag, the console). */
  fix?: string;
  /**
   * Who made the live side what it is, from the organization's audit log (./changed-by.ts): the
   * latest write to the object (for an undeclared one, its creation unless driftless wrote it last).
   * Absent when the log has no write of it, or cannot be read.
   */
  changed_by?: ChangedBy;
  /**
   * An undeclared live object: `removed_from_git` when driftless created it or wrote it last (its
   * own token), `created_outside_git` when anyone else did. From the audit log only: absent where
   * the origin is inferred.
   */
  cause?: 'removed_from_git' | 'created_outside_git';
  /** Where `origin` comes from: the audit log, or an inference from the records' timestamps. */
  attribution?: 'audit_log' | 'inference';
}

export interface DriftReport {
  format_version: string;
  in_sync: boolean;
  fingerprint: string;
  /** `not_fixed_by_apply`: items whose `apply_fixes` is false (drift that running apply leaves as it is). */
  summary: { drifted: number; outside_git: number; git: number; unknown: number; not_fixed_by_apply: number };
  items: DriftItem[];
  /** Resources compared. */
  checked: number;
  request_count: number;
  /**
   * Organization-level objects outside the manifest's scope (src/plan/scope.ts), counted by kind:
   * not drift, not in the fingerprint; shown so that nobody wonders why they are not reported.
   */
  out_of_scope?: OutOfScope;
  /** Live environments left to `driftless preview`, per project (see Plan.previews). */
  previews?: PreviewCount[];
  /**
   * `drift --no-secret-values`: the live records whose secrets were not compared (their values were
   * not read), with the secrets' marker fields. Not drift, not in the fingerprint: a secret changed
   * outside Git is not seen by such a run. Absent without the flag.
   */
  secrets_not_compared?: Array<{ address: Address; fields: string[] }>;
  /**
   * Where the items' origins come from: `audit_log`, or `inference` from timestamps when the log
   * cannot be read (`reason` says why: a 403/404, an API without it).
   */
  attribution?: { source: 'audit_log' | 'inference'; reason?: string };
  /**
   * `drift --target`: the report covers only these subtrees and what they depend on (the plan's
   * `targets`); drift elsewhere is not looked for. Absent for a whole-manifest report.
   */
  targets?: Address[];
  /**
   * False when the report covers only `targets`, as the JSON plan's `complete` (Terraform's): a job
   * that reads `in_sync` can tell "no drift anywhere" from "no drift in the part looked at".
   */
  complete?: boolean;
}

export interface DetectOptions {
  /**
   * Addresses of declared services that are missing live but appear in their environment's
   * deployment history: they existed, so they were deleted outside Git.
   */
  deployedBefore?: ReadonlySet<Address>;
}

export function detectDrift(plan: Plan, graph: DesiredGraph, live: LiveState, opts: DetectOptions = {}): DriftReport {
  const liveByAddress = live.resources;
  const deployments = lastDeployments(live);
  const items: DriftItem[] = [];
  const missing = new Set<Address>();
  // Services declared and missing live, by environment: their stage memberships went with them.
  const missingServices = new Map<Address, Set<string>>();
  for (const c of plan.changes) {
    if (!isServiceKind(c.kind) || c.actions[0] !== 'create' || c.via_parent || c.parent === undefined) continue;
    missingServices.set(c.parent, (missingServices.get(c.parent) ?? new Set()).add(c.name));
  }
  for (const c of plan.changes) {
    // Everything under a missing parent is missing with it: the parent's item says it all.
    if (c.parent !== undefined && missing.has(c.parent)) {
      missing.add(c.address);
      continue;
    }
    if (onlyMissingMembers(c, missingServices)) continue;
    const item = itemOf(c, graph, liveByAddress.get(c.address), deployments, opts);
    if (!item) continue;
    if (item.drift === 'missing') missing.add(c.address);
    items.push(item);
  }
  items.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const summary = { drifted: items.length, outside_git: 0, git: 0, unknown: 0, not_fixed_by_apply: 0 };
  for (const i of items) {
    summary[i.origin]++;
    if (!i.apply_fixes) summary.not_fixed_by_apply++;
  }
  const report: DriftReport = {
    format_version: DRIFT_FORMAT_VERSION,
    in_sync: items.length === 0,
    fingerprint: driftFingerprint(items),
    summary,
    items,
    checked: plan.changes.length,
    request_count: plan.request_count,
  };
  if (plan.out_of_scope) report.out_of_scope = plan.out_of_scope;
  if (plan.previews) report.previews = plan.previews;
  if (plan.options.no_secret_values === true) report.secrets_not_compared = secretsNotCompared(plan);
  if (plan.targets) report.targets = [...plan.targets];
  report.complete = plan.targets === undefined;
  return report;
}

/**
 * A deployment stage whose only difference is members that are missing live (deleted outside Git,
 * or not created yet): the services' own items say it, the stage did not change on its own.
 */
function onlyMissingMembers(c: ResourceChange, missingServices: Map<Address, Set<string>>): boolean {
  if (c.kind !== 'deployment_stage' || c.actions[0] !== 'update' || c.parent === undefined) return false;
  const gone = missingServices.get(c.parent);
  if (!gone || c.fields.length !== 1 || c.fields[0]!.field !== 'services') return false;
  const live = c.fields[0]!.before, git = c.fields[0]!.after;
  if (!Array.isArray(live) || !Array.isArray(git)) return false;
  const rest = git.filter((n) => !gone.has(String(n)));
  return rest.length === live.length && rest.every((n, i) => n === live[i]);
}

/** sha256 of what drifted, in a canonical order; `sha256:` + 16 hex characters. */
export function driftFingerprint(items: readonly DriftItem[]): string {
  const canonical = items
    .map((i) => ({ a: i.address, d: i.drift, f: i.fields.map((f) => [f.field, f.sensitive ? 'sensitive' : canonicalJson(f.live), f.sensitive ? '' : canonicalJson(f.git)]).sort() }))
    .sort((x, y) => (x.a < y.a ? -1 : x.a > y.a ? 1 : x.d < y.d ? -1 : x.d > y.d ? 1 : 0));
  return 'sha256:' + createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}

function canonicalJson(v: unknown): string {
  if (v === undefined) return '';
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The latest deployment date under each scope (service, environment, project): the newest
 * `last_deployment_date` of the services at or below it (the same rule as src/live/stale-secrets.ts).
 */
function lastDeployments(live: LiveState): Map<Address, string> {
  const out = new Map<Address, string>();
  for (const r of live.resources.values()) {
    const date = r.status?.last_deployment_date;
    if (!isServiceKind(r.kind) || !date) continue;
    // A database's deployment dates only itself: it sees no variables.
    for (let a: Address | undefined = r.address; a !== undefined; a = holdsVariables(r.kind) ? live.resources.get(a)?.parent : undefined) {
      const prev = out.get(a);
      if (prev === undefined || date > prev) out.set(a, date);
    }
  }
  return out;
}

function judge(updated: string | undefined, deployed: string | undefined): DriftOrigin {
  if (!updated || !deployed) return 'unknown';
  return updated > deployed ? 'outside_git' : 'git';
}

function fieldsOf(c: ResourceChange): DriftField[] {
  return c.fields.map((f: FieldChange) => {
    const out: DriftField = { field: f.field };
    if (f.sensitive) out.sensitive = true;
    else {
      if ('before' in f) out.live = f.before;
      if ('after' in f) out.git = f.after;
    }
    return out;
  });
}

function itemOf(
  c: ResourceChange,
  graph: DesiredGraph,
  l: LiveResource | undefined,
  deployments: Map<Address, string>,
  opts: DetectOptions,
): DriftItem | undefined {
  const d = graph.resources.get(c.address);
  const base = { address: c.address, kind: c.kind, name: c.name, ...(d?.source ? { source: d.source } : {}), ...(d?.related ? { related: d.related } : {}) };
  const scope = isServiceKind(c.kind) ? c.address : (c.parent ?? c.address);
  const deployed = deployments.get(scope);
  const updated = str(l?.record.updated_at) ?? str(l?.record.created_at);

  if (c.status === 'unmanaged' || (c.actions[0] === 'delete' && c.actions.length === 1 && !c.via_parent)) {
    const created = str(l?.record.created_at) ?? updated;
    // Created after the last deployment of its scope: nothing driftless deployed made it, so
    // someone else did. Created before: it may as well have been removed from Git since.
    const origin: DriftOrigin = created !== undefined && deployed !== undefined && created <= deployed ? 'unknown' : 'outside_git';
    const how = origin === 'outside_git' ? 'created outside Git' : `removed from Git, or created outside Git before the last deployment (${deployed})`;
    const common = { ...base, drift: 'unmanaged' as const, origin, fields: [], ...(created ? { since: created } : {}) };
    if (c.status === 'unmanaged') {
      return { ...common, summary: `exists live but not in Git: ${how}; pruning is off for its scope, so apply leaves it`, ...keptAdvice(c, graph) };
    }
    const notApplied = origin === 'outside_git' ? `${how}, or removed from Git and not applied yet` : `${how}; not applied yet`;
    return { ...common, summary: `exists live but not in Git: ${notApplied}`, ...applyAdvice(c, 'delete it') };
  }
  if (c.actions[0] === 'create' && !c.via_parent) {
    const before = opts.deployedBefore?.has(c.address) === true;
    return {
      ...base,
      drift: 'missing',
      origin: before ? 'outside_git' : 'unknown',
      summary: before ? 'declared in Git, deleted live outside Git (it appears in the deployment history)' : 'declared in Git, missing live (deleted outside Git, or added in Git and not applied yet)',
      fields: [],
      ...applyAdvice(c, 'create it'),
    };
  }
  if (c.actions[0] === 'update' || c.actions.length === 2) {
    if (c.via_parent) return undefined;
    // A rename comes from a `moved` entry, so from Git whatever the timestamps say; the object's
    // other fields are judged as usual.
    const renamed = c.previous_address !== undefined ? c.fields.filter((f) => f.field === 'name' || f.field === 'key') : [];
    const others = c.fields.filter((f) => !renamed.includes(f));
    const renameText = `renamed in Git from ${c.previous_address} (\`moved\`), not applied yet`;
    const origin = renamed.length > 0 && others.length === 0 ? 'git' : judge(updated, deployed);
    const unknownSecret = c.fields.some((f) => f.sensitive && f.before_unknown);
    const names = others.map((f) => f.field).join(', ');
    let summary: string;
    if (others.length === 0) summary = renameText;
    else if (origin === 'outside_git') summary = `${names} changed live at ${updated}, after the last deployment (${deployed}): changed outside Git`;
    else if (origin === 'git') summary = `${names} differ${others.length === 1 ? 's' : ''}, and the live record has not changed since the last deployment (${deployed}): changed in Git, not applied yet`;
    else summary = `${names} differ${others.length === 1 ? 's' : ''} from Git`;
    if (others.length > 0 && renamed.length > 0) summary += `; ${renameText}`;
    if (unknownSecret && origin === 'outside_git') summary = `secret updated live at ${updated}, after the last deployment (${deployed}): its value was replaced outside Git (the API never returns it)`;
    else if (unknownSecret) summary += '; the live value of a secret here is unknown (not written by driftless, or replaced outside Git)';
    return {
      ...base,
      ...(renamed.length > 0 ? { previous_address: c.previous_address } : {}),
      drift: 'changed',
      origin,
      summary,
      fields: fieldsOf(c),
      ...(updated ? { since: updated } : {}),
      ...(deployed ? { last_deployment: deployed } : {}),
      ...applyAdvice(c, c.actions.length === 2 ? 'replace it' : unknownSecret ? 'write the value from Git again' : 'update it to match Git'),
    };
  }
  if (c.deploy && c.status === 'planned') {
    // Deploys caused by a variable change are the consequence of that variable's own item.
    const own = c.deploy.reasons.filter((r) => !/^variables? .* changed$/.test(r));
    if (own.length === 0) return undefined;
    return {
      ...base,
      drift: 'not_deployed',
      origin: 'unknown',
      summary: `not running what Git says: ${own.join('; ')}`,
      fields: [],
      ...(deployed ? { last_deployment: deployed } : {}),
      ...applyAdvice(c, 'deploy it'),
    };
  }
  return undefined;
}

type Advice = Pick<DriftItem, 'apply_action' | 'apply_fixes' | 'fix'>;

/**
 * What apply does about a change it owns: `action`, unless the plan blocks the change (a database's
 * data, a replacement): then apply refuses the whole plan until the flag named in the plan's reason
 * is given, and a cron job must not be told that running apply fixes it.
 */
function applyAdvice(c: ResourceChange, action: string): Advice {
  // A drift plan is made without any guard flag: every guard the change trips is to be lifted.
  const blocking = blockingOf(c, {});
  if (!blocking) return { apply_action: action, apply_fixes: true };
  const why = blocking.reasons.join('; ') || 'the plan blocks it';
  return {
    apply_action: `refuse to ${action} (${why})`,
    apply_fixes: false,
    fix: blocking.flags.length > 0
      ? `apply with ${blocking.flags.join(' and ')} if this is wanted, or change the manifest so that it is not needed`
      : 'change the manifest so that it is not needed, or make the change in the console',
  };
}

/**
 * An undeclared live object in a scope that owns its kind but does not prune it: drift (the
 * manifest says what the scope holds), which apply never touches. The fix is in the manifest or the
 * console: declare it, opt the scope into pruning that kind (the exact key, and where), or delete it.
 */
function keptAdvice(c: ResourceChange, graph: DesiredGraph): Advice {
  const optIn = pruneOptIn(c.kind, c.parent);
  const scope = c.parent === undefined ? undefined : graph.resources.get(c.parent);
  const at = scope?.source ? ` (declared at ${scope.source.file}:${scope.source.start.line})` : '';
  const declare = c.parent === undefined ? 'declare it in the manifest' : `declare it in the manifest under ${c.parent}${at}`;
  const ways = [declare];
  if (optIn) ways.push(`add ${optIn.text} so that apply deletes it`);
  ways.push('delete it in the console');
  if (c.parent === undefined) ways.push('set `scope: declared` if it is not this manifest\'s business');
  const last = ways.pop()!;
  return {
    apply_action: optIn ? `leave it (no ${optIn.text})` : 'leave it',
    apply_fixes: false,
    fix: `${ways.join(', ')}, or ${last}`,
  };
}
