/**
 * `ignore_changes`: a field is written when its object is created and never compared or written
 * afterwards (Terraform's `lifecycle.ignore_changes`). The graph keeps the full attrs (what a create
 * writes) and records which attr paths and deploy pins are ignored (`ignoreChangesOf`); once the
 * object exists, `afterCreation` gives the view that the plan compares and an update writes.
 *
 * In that view an ignored path holds the LIVE value when the live object has one (so a comparison
 * finds nothing, and a request that replaces a whole object -- a job's `source`, a service's
 * `healthchecks` -- writes back what is live instead of dropping it), and is left out otherwise (a
 * secret, which the API never returns: not compared, not written; an update keeps the fingerprint
 * its live marker has for it, `keptFingerprints`). Ignored deploy pins are dropped: a deploy for
 * another reason deploys what runs, never the manifest's ignored tag or commit.
 */
import type { DesiredResource, IgnoreChanges, ResourceKind } from '../model/resource.js';
import { IDENTITY_ATTRS, ignoreTableOf, type DeployPin } from '../model/ignore-paths.js';
import { isSecretValue } from '../model/secret.js';
import { secretsIn } from '../plan/compare.js';

/** What the manifest's `ignore_changes` (a list of paths, or `all`) ignores on an object with these attrs. */
export function ignoreChangesOf(
  kind: ResourceKind,
  spec: readonly string[] | 'all' | undefined,
  attrs: Record<string, unknown>,
  deploy: DesiredResource['deploy'],
): IgnoreChanges | undefined {
  if (spec === undefined) return undefined;
  if (spec === 'all') {
    const keys = allAttrs(kind, attrs);
    const pins = (['git_commit_id', 'image_tag'] as const).filter((p) => deploy?.[p] !== undefined);
    return { fields: keys, attrPaths: keys, pins: [...pins], all: true };
  }
  const table = ignoreTableOf(kind);
  const out: IgnoreChanges = { fields: [], attrPaths: [], pins: [] };
  for (const path of spec) {
    const target = table[path];
    // Unknown paths are refused when the manifest is loaded (src/manifest/ignore-changes.ts).
    if (!target || out.fields.includes(path)) continue;
    out.fields.push(path);
    for (const a of target.attrs) if (!out.attrPaths.includes(a)) out.attrPaths.push(a);
    for (const p of target.pins ?? []) if (!out.pins.includes(p)) out.pins.push(p);
  }
  return out.fields.length > 0 ? out : undefined;
}

/** Every attr of an object but its identity (the organization has none: its name is a setting like the others). */
function allAttrs(kind: ResourceKind, attrs: Record<string, unknown>): string[] {
  return Object.keys(attrs).filter((k) => kind === 'organization' || !IDENTITY_ATTRS.has(k));
}

/**
 * The fields `ignore_changes` ignores on this object, as the plan reports them: the manifest's
 * paths, or for `all` every attr it sets (read now: aliases gain attrs after they are added).
 */
export function ignoredFields(d: DesiredResource): string[] {
  const ig = d.ignoreChanges;
  if (!ig) return [];
  if (!ig.all) return ig.fields;
  const fields = allAttrs(d.kind, d.attrs);
  if (d.deploy?.git_commit_id !== undefined) fields.push('git_commit_id');
  return fields;
}

/**
 * The desired object as it is owned once it exists: every ignored attr path takes the live value
 * (or is left out when the live object has none, or when the manifest's value holds a secret), and
 * ignored deploy pins are dropped. Without `ignore_changes`, the object itself.
 */
export function afterCreation(d: DesiredResource, liveAttrs: Record<string, unknown>): DesiredResource {
  const ig = d.ignoreChanges;
  if (!ig) return d;
  const attrs = structuredCloneAttrs(d.attrs);
  for (const path of ig.all ? allAttrs(d.kind, d.attrs) : ig.attrPaths) {
    const segs = path.split('.');
    const desired = getPath(d.attrs, segs);
    const live = getPath(liveAttrs, segs);
    if (live !== undefined && !containsSecret(desired)) setPath(attrs, segs, live);
    else deletePath(attrs, segs);
  }
  const out: DesiredResource = { ...d, attrs };
  const written = new Set(Object.entries(attrs).flatMap(([f, v]) => secretsIn(f, v).map((s) => s.field)));
  const kept = Object.entries(d.attrs).flatMap(([f, v]) => secretsIn(f, v).map((s) => s.field)).filter((f) => !written.has(f));
  if (kept.length > 0) out.keptFingerprints = kept;
  if (d.deploy) {
    const deploy = { ...d.deploy };
    for (const p of ig.pins) delete deploy[p as DeployPin];
    if (Object.keys(deploy).length > 0) out.deploy = deploy;
    else delete out.deploy;
  }
  return out;
}

/**
 * The manifest's values of the ignored fields only (for `all`, every attr): what the plan compares
 * with the live object to know whether an ignored field differs (someone else changed it).
 */
export function ignoredAttrs(d: DesiredResource): Record<string, unknown> {
  const ig = d.ignoreChanges;
  if (!ig) return {};
  const out: Record<string, unknown> = {};
  for (const path of ig.all ? allAttrs(d.kind, d.attrs) : ig.attrPaths) {
    const segs = path.split('.');
    const v = getPath(d.attrs, segs);
    if (v !== undefined) setPath(out, segs, v);
  }
  return out;
}

/** Copies plain objects and arrays along every path (SecretValues are kept as they are, never copied out). */
function structuredCloneAttrs(attrs: Record<string, unknown>): Record<string, unknown> {
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(copy);
    if (isPlain(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)]));
    return v;
  };
  return copy(attrs) as Record<string, unknown>;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !isSecretValue(v);

function containsSecret(v: unknown): boolean {
  if (isSecretValue(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecret);
  if (isPlain(v)) return Object.values(v).some(containsSecret);
  return false;
}

function getPath(o: unknown, segs: string[]): unknown {
  let cur = o;
  for (const s of segs) {
    if (!isPlain(cur)) return undefined;
    cur = cur[s];
  }
  return cur;
}

function setPath(o: Record<string, unknown>, segs: string[], value: unknown): void {
  let cur = o;
  for (const s of segs.slice(0, -1)) {
    if (!isPlain(cur[s])) cur[s] = {};
    cur = cur[s] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]!] = value;
}

function deletePath(o: Record<string, unknown>, segs: string[]): void {
  let cur: unknown = o;
  for (const s of segs.slice(0, -1)) {
    if (!isPlain(cur)) return;
    cur = cur[s];
  }
  if (isPlain(cur)) delete cur[segs[segs.length - 1]!];
}
