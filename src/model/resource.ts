/**
 * The resource model shared by the whole pipeline:
 *
 *   Manifest --buildGraph--> DesiredGraph --+
 *                                           +--computePlan--> Plan --applyPlan--> ApplyResult
 *   API ----fetchLiveState--> LiveState ----+
 *
 * Desired and live resources have the same shape (`attrs` in API field names, normalised the same
 * way), so that computing a plan is a comparison of two maps keyed by address.
 */
import type { RelatedLocation, SourceRange } from '../diag/diagnostic.js';

// The kind names from the leaf module, not the registry (./kinds/index.ts): the registry's
// descriptors import this model (and its helpers do), and no import cycle is allowed.
import { CASE_INSENSITIVE_KINDS, RESOURCE_KINDS } from './kinds/names.js';

export type { ResourceKind, ServiceKind } from './kinds/names.js';
export { SERVICE_KINDS, RESOURCE_KINDS, isServiceKind, isResourceKind } from './kinds/names.js';
import type { ResourceKind } from './kinds/names.js';

/**
 * A deploy pin (DesiredResource.deploy) an ignored field also releases. Declared here, with the
 * model, rather than in ignore-paths.ts, whose table is keyed by ResourceKind: no import cycle.
 */
export type DeployPin = 'git_commit_id' | 'image_tag';

/**
 * A resource address: `kind.name` segments joined by `/`, from the top of the hierarchy down, e.g.
 *   project.shop/environment.production/application.api/variable.LOG_LEVEL
 *   alert_rule.high-cpu      webhook.https:%2F%2Fhooks.example.com%2Fx      organization
 * Names are escaped with `escapeName` so that `/` inside a name can never forge a path.
 */
export type Address = string;

export function escapeName(name: string): string {
  // Almost every name has neither character: no regular expression run for it.
  if (!name.includes('%') && !name.includes('/')) return name;
  return name.replace(/%/g, '%25').replace(/\//g, '%2F');
}

export function unescapeName(name: string): string {
  return name.replace(/%2F/g, '/').replace(/%25/g, '%');
}

/**
 * An address as people read it: a webhook's segment (its target URL, top level and without
 * children, so nothing can follow it) with its `/` written as `/` (`webhook.https://hooks.example.com/x`
 * rather than `webhook.https:%2F%2Fhooks.example.com%2Fx`). Every other address as it is. Human
 * and markdown output show this form; `--target` takes either (canonicalAddress); JSON keeps the
 * canonical one.
 */
export function readableAddress(address: Address): string {
  return address.startsWith('webhook.') ? `webhook.${unescapeName(address.slice('webhook.'.length))}` : address;
}

/** The canonical address of a word written either way (readableAddress). */
export function canonicalAddress(word: string): Address {
  if (!word.startsWith('webhook.')) return word;
  const name = word.slice('webhook.'.length);
  return name.includes('/') ? addressOf('webhook', name) : word;
}

export function addressOf(kind: ResourceKind, name: string | undefined, parent?: Address): Address {
  const seg = name === undefined ? kind : `${kind}.${escapeName(name)}`;
  return parent ? `${parent}/${seg}` : seg;
}

/**
 * Kinds whose names the API compares case-insensitively (seed 2.4, 2.7, 2.8): `DB` and `db` are
 * the same database, so live and desired are matched on `matchKey`, not on the raw address. The
 * API keeps every name unique case-insensitively in its scope (services of an environment whatever
 * their kind, projects, environments, groups, receivers, alert rules); variable keys are
 * case-sensitive. src/model/kinds/names.ts lists them (each descriptor's `caseInsensitiveName` agrees).
 */
export function isCaseInsensitiveKind(kind: ResourceKind): boolean {
  return CASE_INSENSITIVE_KINDS.includes(kind);
}

let caseInsensitiveSegment: RegExp | undefined;
/** A segment of a case-insensitive kind (built on first use). */
function caseInsensitiveSegmentPattern(): RegExp {
  return (caseInsensitiveSegment ??= new RegExp(`(^|/)(${RESOURCE_KINDS.filter(isCaseInsensitiveKind).join('|')})\\.`));
}

/**
 * Folded addresses already computed: a plan asks for the key of each of its (tens of thousands
 * of) addresses several times (pairing, moved, targets, stages), and folding splits and joins the
 * address each time. Pure, so remembered; cleared when it grows past any plan's size.
 */
const matchKeys = new Map<Address, string>();
const MATCH_KEYS_KEPT = 1_000_000;

/** The address with case-insensitive names folded, used to pair live and desired resources. */
export function matchKey(address: Address): string {
  let key = matchKeys.get(address);
  if (key === undefined) {
    if (matchKeys.size >= MATCH_KEYS_KEPT) matchKeys.clear();
    matchKeys.set(address, (key = foldedAddress(address)));
  }
  return key;
}

/**
 * Each `/`-separated segment of a case-insensitive kind lower-cased. Walks the address in place and
 * builds a new string only from the first segment that changes: most addresses (names written in
 * lower case) come back as they are, without splitting and joining them.
 */
export function foldedAddress(address: Address): string {
  if (!caseInsensitiveSegmentPattern().test(address)) return address;
  let out: string | undefined;
  let from = 0;
  for (;;) {
    const slash = address.indexOf('/', from);
    const end = slash < 0 ? address.length : slash;
    const seg = address.slice(from, end);
    const dot = seg.indexOf('.');
    const folded = dot >= 0 && isCaseInsensitiveKind(seg.slice(0, dot) as ResourceKind) ? seg.toLowerCase() : seg;
    if (out !== undefined) out += folded;
    else if (folded !== seg) out = address.slice(0, from) + folded;
    if (slash < 0) return out ?? address;
    if (out !== undefined) out += '/';
    from = slash + 1;
  }
}

/**
 * The address of the resource an address lives under (undefined: a top-level object). The one
 * rule every stage uses: the address minus its last segment (a name never holds a raw `/`).
 */
export function parentAddress(address: Address): Address | undefined {
  const i = address.lastIndexOf('/');
  return i < 0 ? undefined : address.slice(0, i);
}

/** Splits an address into its segments: [{kind, name}]. */
export function parseAddress(address: Address): Array<{ kind: ResourceKind; name?: string }> {
  return address.split('/').map((seg) => {
    const dot = seg.indexOf('.');
    if (dot < 0) return { kind: seg as ResourceKind };
    return { kind: seg.slice(0, dot) as ResourceKind, name: unescapeName(seg.slice(dot + 1)) };
  });
}

/**
 * One resource as the manifest wants it.
 * `attrs` holds only the fields the manifest owns, already normalised (see src/graph/attrs.ts);
 * secret values inside are `SecretValue`s and are never serialised.
 */
export interface DesiredResource {
  address: Address;
  kind: ResourceKind;
  /** Identity inside the parent: a name, a variable key, a webhook target_url. */
  name: string;
  parent?: Address;
  attrs: Record<string, unknown>;
  /** Fields of attrs that hold secrets (compared by fingerprint, shown as `(sensitive value)`). */
  sensitiveFields?: string[];
  /** Fields whose change cannot be done in place (the plan shows a replace with this reason). */
  immutableFields?: string[];
  /** Addresses this resource needs to exist first (besides its parent). */
  dependsOn: Address[];
  /** For services: what is deployed with it (commit, image tag). A change marks the service for deploy. */
  deploy?: { git_commit_id?: string; image_tag?: string };
  /**
   * Services: the manifest says `deploy: false`: the plan never marks the service for deploy, for
   * any reason (creation, change, pin, NEVER_DEPLOYED), and drift never reports it as not deployed.
   */
  noDeploy?: true;
  /** The manifest opts into deleting unmanaged children of these kinds under this resource. */
  prune?: ResourceKind[];
  /**
   * Kinds of children the manifest lists under this resource, even as an empty list
   * (`variables: []`): the resource owns all of them, so a live one it does not list is unmanaged.
   */
  owns?: ResourceKind[];
  /** Databases: created as a clone of this database (address) instead of from scratch. */
  cloneFrom?: Address;
  /**
   * `ignore_changes` of the manifest: fields written when the object is created, never compared or
   * written afterwards (src/graph/ignore.ts applies it to an object that exists).
   */
  ignoreChanges?: IgnoreChanges;
  /**
   * Set by `afterCreation` (src/graph/ignore.ts): marker fields (`value`, `tf_vars.KEY`...) of the
   * ignored secrets. Not written, they keep the fingerprints the live record's marker has for them
   * when an update rewrites its description.
   */
  keptFingerprints?: string[];
  /**
   * `protect:` as the manifest writes it on a project, an environment or a service, with where it
   * is written: true, never deleted or replaced (src/plan/protect.ts); false, not protected, and a
   * live mark is cleared. Absent: the manifest says nothing, a live mark stays as it is.
   */
  protect?: { value: boolean; source?: SourceRange };
  source?: SourceRange;
  /**
   * An object instantiated from a template: where it is defined there and where its environment
   * overrides (or instantiates) it. `source` alone would send a reader to the template, shared by
   * every environment, for a value one environment's override sets.
   */
  related?: RelatedLocation[];
}

export interface IgnoreChanges {
  /** The fields ignored, as the plan reports them: the manifest's paths (for `all`, the attrs set). */
  fields: string[];
  /** Dot-separated attr paths they set. */
  attrPaths: string[];
  /** Deploy pins they set (DesiredResource.deploy). */
  pins: DeployPin[];
  /** `ignore_changes: all`. */
  all?: true;
}

/**
 * How much of the organization a manifest owns (`scope:` at the top of the manifest; see
 * src/plan/scope.ts for the rule): `organization`, every undeclared project and organization-level
 * object is its business; `kinds` (the default), undeclared organization-level objects of the kinds
 * it declares, never undeclared projects; `declared`, nothing undeclared at organization level.
 * Inside the projects it declares, undeclared objects are always its business.
 */
export type ManifestScope = 'organization' | 'kinds' | 'declared';
export const DEFAULT_MANIFEST_SCOPE: ManifestScope = 'kinds';

export interface DesiredGraph {
  resources: Map<Address, DesiredResource>;
  /** Topological order: every resource after its parent and its dependsOn. */
  order: Address[];
  /** Organization-level pruning (`prune:` at the top of the manifest): kinds without a parent resource. */
  prune?: ResourceKind[];
  /** `scope:` of the manifest; absent means DEFAULT_MANIFEST_SCOPE. */
  scope?: ManifestScope;
  /** `moved:` renames, checked and in canonical address form (src/graph/moved.ts); matched by src/plan/moved.ts. */
  moved?: MovedEntry[];
  /**
   * Every well-formed `moved` entry, those refused by the checks included (two entries with one
   * `to`, a cycle...): no live object one of them names as `from` is ever deleted (src/plan/protect.ts).
   */
  movedFrom?: MovedEntry[];
  /**
   * `previews.name` of each project that declares previews: live environments of that project whose
   * name matches belong to `driftless preview`, never changed, deleted or listed by a plan.
   */
  previews?: Array<{ project: Address; pattern: string }>;
}

/** A rename in place: the live object at `from` is the desired object at `to`. */
export interface MovedEntry {
  from: Address;
  to: Address;
  /** Where the entry was written. */
  source?: SourceRange;
}

/** One resource as the API has it, normalised to the same attrs as the desired side. */
export interface LiveResource {
  address: Address;
  kind: ResourceKind;
  name: string;
  parent?: Address;
  id: string;
  attrs: Record<string, unknown>;
  /** The raw API record (secrets never included by the API), used to build full-replacement PUT bodies. */
  record: Record<string, unknown>;
  /** A version marker to detect a change after the plan (updated_at, or a hash of the record). */
  version: string;
  /** Keyed fingerprints of secret fields, as kept with the record (see src/plan/fingerprint.ts). */
  fingerprints?: Record<string, string>;
  /**
   * Secret fields whose fingerprint was dropped because the record was written again after driftless
   * wrote it (a console edit: src/live/stale-secrets.ts), unlike a secret driftless never wrote.
   */
  distrustedFingerprints?: string[];
  /**
   * Projects and services: their description carries driftless's protect mark (an apply with
   * `protect: true` wrote it; src/plan/protect.ts): never deleted or replaced while it is there.
   */
  protected?: true;
  /** Services: what the live service last deployed (compared with the manifest's deploy pins). */
  deployed?: { git_commit_id?: string; image_tag?: string };
  /** Services: last deployment state and date, for drift attribution. */
  status?: { state?: string; service_deployment_status?: string; last_deployment_date?: string };
}

export interface LiveState {
  organizationId: string;
  resources: Map<Address, LiveResource>;
  /** How many HTTP requests reading it took. */
  requestCount: number;
}
