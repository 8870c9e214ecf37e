/**
 * computePlan: DesiredGraph + LiveState -> Plan. Pure and deterministic (same inputs, same plan),
 * linear in the number of resources: every lookup goes through a Map.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState, ResourceKind } from '../model/resource.js';
import { isCaseInsensitiveKind, isServiceKind, matchKey, parseAddress } from '../model/resource.js';
import { holdsData, kindsNamedByOthers, readOnlyKinds } from '../model/kinds/index.js';
import { desiredFingerprints, diffAttrs, sanitize, secretsIn, unreadSecretFields } from './compare.js';
import { isUnreadSecret } from '../model/secret.js';
import { deployOrder, markDeploys } from './deploy.js';
import { keptReason, manifestScope, ownsUndeclaredAtTop } from './scope.js';
import type { ActionList, GuardRequirement, OutOfScope, Plan, PlanOptions, PlanSummary, PreviewCount, ResourceChange } from './types.js';
import { isActionable, PLAN_FORMAT_VERSION } from './types.js';
import { guardChange, hasBeenDeployed, inheritedRequirements, type GuardFlags } from './guards.js';
import { stageBeforeLists } from './stage-lists.js';
import { databasesGoingWith, destroyCount, heldDataLoss } from './cascade.js';
import { kindReplacement } from './kind-change.js';
import { knownList } from '../manifest/suggest.js';
import { matchLive, type LiveMatch } from './moved.js';
import { guardProtected, protectFieldChange } from './protect.js';
import { PROTECT_MARK_FIELD } from './protect-mark.js';
import { renameHints } from './rename-hints.js';
import { aliasedService, aliasesOfDeletedServices } from './builtin-aliases.js';
import { renamedReferences, withRenamedReferences, type RenamedReferences } from './moved-references.js';
import { afterCreation, ignoredAttrs, ignoredFields } from '../graph/ignore.js';
import { plural, withArticle } from '../render/words.js';
import { previewNumberOf } from '../manifest/preview-names.js';

/**
 * The stage every environment is created with (services in no stage live there). It belongs to the
 * platform: never listed as unmanaged and never pruned, unless the manifest declares it.
 */
function isPlatformStage(l: LiveResource): boolean {
  return l.kind === 'deployment_stage' && l.name.toUpperCase() === 'DEFAULT';
}

export function computePlan(graph: DesiredGraph, live: LiveState, options: PlanOptions = {}): Plan {
  const diagnostics: Diagnostic[] = [...(options.checks ?? [])];
  /** Addresses a check already reported an error for: not reported twice. */
  const checked = new Set(diagnostics.filter((x) => x.severity === 'error' && x.address !== undefined).map((x) => x.address!));
  const allowDataLoss = options.allowDataLoss === true;
  const flags: GuardFlags = { allow_data_loss: allowDataLoss, allow_replace: options.allowReplace === true };
  const key = options.fingerprintKey;

  // Desired -> live pairs, through the manifest's `moved` renames (./moved.ts).
  const matched = matchLive(graph, live);
  const liveOf = matched.liveOf;
  diagnostics.push(...matched.diagnostics);
  // The live addresses matched: matchLive's own set (the values of liveOf), added to below.
  const claimed = matched.claimed;
  const servicesByName = liveServicesByName(live);
  const refNames = renamedReferences(graph, live, matched.renamed);
  const stageAdjust = stageLiveAttrs(matched, refNames);

  /** Desired services whose name a live service of another kind holds (./kind-change.ts), known before stages are compared. */
  const kindClashes = new Map<Address, LiveResource>();
  for (const d of graph.resources.values()) {
    if (!isServiceKind(d.kind) || d.parent === undefined || liveOf.has(d.address)) continue;
    const clash = servicesByName.get(`${liveOf.get(d.parent) ?? d.parent}\u0000${d.name.toLowerCase()}`);
    if (clash && !claimed.has(clash.address)) kindClashes.set(d.address, clash);
  }

  const changes: ResourceChange[] = [];
  /**
   * Desired addresses created fresh while a live one existed: their live children go with them,
   * under the guards of the replacement (a child of a blocked replacement is blocked too).
   */
  const recreated = new Map<Address, GuardRequirement[]>();
  /** Replacements not blocked: their old objects go (a stage loses a replaced member; ./stage-lists.ts). */
  const replacing = new Set<Address>();
  /** Desired service -> the live service of another kind it replaces (./kind-change.ts). */
  const kindReplaced = new Map<Address, Address>();
  /** Existing objects with `ignore_changes`, as owned once created (graph/ignore.ts): what is compared and deployed. */
  const owned = new Map<Address, DesiredResource>();
  /**
   * Replacements of an object a check already rejected (a cluster name the organization does not
   * have reads as a changed cluster), and their children: the plan cannot be applied, the check's
   * error is the cause, so what creating them again would need (a secret's value) is not reported.
   */
  const replacedOnError = new Set<Address>();
  let ignoredCount = 0;
  /** Objects whose ignored fields differ live: an OUT_OF_DATE status of a service they affect may be theirs alone (plan/deploy.ts). */
  const outOfDateIgnored = new Set<Address>();

  // graph.order's resources and their live matches, index by index (matchLive walked them).
  const { desiredInOrder, liveInOrder } = matched;
  for (let i = 0; i < graph.order.length; i++) {
    const address = graph.order[i]!;
    const d = desiredInOrder[i]!;
    const l = liveInOrder[i];
    const c = baseChange(d);
    if (readOnlyKinds().has(d.kind) && !l) {
      if (!checked.has(address)) diagnostics.push(
        error('live.not-found', `${d.kind === 'organization' ? 'the organization' : `${d.kind} "${d.name}"`} does not exist and cannot be created through the API`, {
          detail: d.kind === 'cluster' ? `Known clusters: ${knownList(namesOf(live, 'cluster'))}.` : undefined,
          address,
          range: d.source,
        }),
      );
      c.actions = ['no-op'];
      changes.push(c);
      continue;
    }
    if (!l) {
      c.actions = ['create'];
      const clash = kindClashes.get(address);
      if (clash && !(d.parent !== undefined && recreated.has(d.parent))) {
        // Another kind under the same name: a replacement (./kind-change.ts).
        claimed.add(clash.address);
        kindReplaced.set(address, clash.address);
        const k = kindReplacement(d, clash);
        c.actions = ['delete', 'create'];
        c.id = clash.id;
        c.version = clash.version;
        c.replaces = { address: clash.address, kind: clash.kind };
        c.before = clash.attrs;
        c.reasons.push(k.reason);
        diagnostics.push(...secretsNeededToCreate(d));
        setFingerprints(c, d, key);
        c.after = sanitizedAttrs(d, c.fingerprints ?? {});
        guardChange(c, k.requires, flags);
        recreated.set(address, c.requires ?? []);
        if (c.status === 'planned') replacing.add(address);
        changes.push(c);
        continue;
      }
      if (d.kind === 'alert_receiver' && d.attrs.type === 'EMAIL' && d.attrs.auth_password === undefined) {
        diagnostics.push(
          error('plan.receiver-password', `alert receiver "${d.name}" (EMAIL) does not exist yet and has no auth_password: the API requires one to create an EMAIL receiver`, {
            detail: 'Add `auth_password: ${env:NAME}` to it (the password of its SMTP server, from the environment); once it exists, leaving it out keeps the live one.',
            address,
            range: d.source,
          }),
        );
      }
      setFingerprints(c, d, key);
      c.after = sanitizedAttrs(d, c.fingerprints ?? {});
      diagnostics.push(...secretsNeededToCreate(d));
      if (d.cloneFrom) {
        c.clone_from = d.cloneFrom;
        if (!graph.resources.has(d.cloneFrom) && matched.find(d.cloneFrom) === undefined)
          diagnostics.push(
            error('ref.unresolved', `database ${d.name}: clone source ${d.cloneFrom} is neither declared nor live`, { address, range: d.source }),
          );
      }
      changes.push(c);
      continue;
    }
    c.id = l.id;
    c.version = l.version;
    if (l.address !== address && matchKey(l.address) !== matchKey(address)) c.previous_address = l.address;
    // The parent is replaced, or the service whose built-in this alias points at (./builtin-aliases.ts).
    const replacedWith = d.parent && recreated.has(d.parent) ? d.parent : aliasedServiceIn(d, recreated);
    if (replacedWith !== undefined) {
      // This object is deleted with it and created again.
      c.actions = ['delete', 'create'];
      c.reasons.push(replacedWith === d.parent ? `replaced with its parent ${d.parent}` : `replaced with ${replacedWith}, whose built-in it aliases`);
      c.before = l.attrs;
      if (replacedOnError.has(replacedWith)) replacedOnError.add(address);
      else diagnostics.push(...secretsNeededToCreate(d));
      setFingerprints(c, d, key);
      c.after = sanitizedAttrs(d, c.fingerprints ?? {});
      guardChange(c, [...inheritedRequirements(recreated.get(replacedWith)!, replacedWith), ...dataLossOf(c)], flags);
      recreated.set(address, c.requires ?? []);
      if (c.status === 'planned') replacing.add(address);
      changes.push(c);
      continue;
    }
    // Live attributes as the manifest names things: references to renamed objects by their new name.
    const liveAttrs = withoutReplacedMembers(d, sameNameAttrs(d, withRenamedReferences(d, (d.kind === 'deployment_stage' ? stageAdjust.get(address) : undefined) ?? l.attrs, refNames)), replacing);
    const o = afterCreation(d, liveAttrs);
    if (o !== d) {
      owned.set(address, o);
      c.ignored = ignoredFields(d);
      ignoredCount += c.ignored.length;
      // An ignored secret is not compared: not "not compared" either (that says --no-secret-values).
      const unread = unreadSecretFields(o);
      if (unread.length > 0) c.secrets_not_compared = unread;
      else delete c.secrets_not_compared;
    }
    const diff = diffAttrs(o, l, key, liveAttrs);
    for (const f of protectFieldChange(d, l)) diff.fields.push(f);
    if (o !== d && ignoredDiffers(d, o, l, key, liveAttrs)) outOfDateIgnored.add(address);
    c.fields = diff.fields;
    if (Object.keys(diff.fingerprints).length > 0) c.fingerprints = diff.fingerprints;
    if (diff.fields.length === 0) {
      // baseChange's own ['no-op'], unchanged since.
    } else if (diff.fields.every((f) => f.field === PROTECT_MARK_FIELD)) {
      // Only the mark differs: recorded by apply, not a change to the object (see `protect_mark`).
      c.actions = ['no-op'];
      c.protect_mark = diff.fields[0]!.after === true;
      c.fields = [];
      c.before = l.attrs;
      c.after = sanitizedAttrs(o, diff.fingerprints);
    } else {
      c.before = l.attrs;
      c.after = sanitizedAttrs(o, diff.fingerprints);
      const immutable = diff.fields.filter((f) => f.forces_replace);
      if (immutable.length > 0) {
        c.actions = ['delete', 'create'];
        if (checked.has(address)) replacedOnError.add(address);
        else diagnostics.push(...secretsNeededToCreate(d));
        for (const f of immutable) c.reasons.push(`${f.field} cannot be changed in place${f.sensitive ? '' : ` (${show(f.before)} -> ${show(f.after)})`}`);
        guardChange(c, [...replaceOf(c, l), ...dataLossOf(c)], flags);
        recreated.set(address, c.requires ?? []);
        if (c.status === 'planned') replacing.add(address);
      } else {
        c.actions = ['update'];
        if (d.kind === 'cluster' && d.attrs.upgrade_kubernetes === true) {
          c.reasons.push(`upgrade Kubernetes ${show(l.attrs.kubernetes_version)} -> ${show(l.attrs.next_k8s_available_version)}`);
        }
      }
    }
    changes.push(c);
  }

  const outOfScope: OutOfScope['counts'] = {};
  const previews: PreviewCount[] = (graph.previews ?? []).map((p) => ({ ...p, count: 0 }));
  changes.push(...undeclared(graph, live, claimed, recreated, liveOf, kindReplaced, flags, outOfScope, previews));
  // Protected objects and `moved` sources: never deleted or replaced, whatever the flags.
  diagnostics.push(...guardProtected(changes, graph, live, liveOf));
  diagnostics.push(...aliasesOfDeletedServices(graph, live, liveOf, changes));
  diagnostics.push(...renameHints(graph, live, changes, liveOf, key));
  stageBeforeLists(changes, live, liveOf, replacedServiceNames([...replacing]));
  const compared: DesiredGraph = owned.size === 0 ? graph : { ...graph, resources: new Map([...graph.resources, ...owned]) };
  markDeploys(changes, compared, live, liveOf, outOfDateIgnored);

  const summary = summarize(changes);
  // Every object that disappears counts, what goes with a parent and what a guard blocks for now included.
  const destroying = destroyCount(changes);
  if (options.maxDestroy !== undefined && destroying > options.maxDestroy) {
    const blocked = destroying - summary.destroy;
    diagnostics.push(
      error('plan.max-destroy', `The plan destroys ${plural(destroying, 'resource')}${blocked > 0 ? ` (${blocked} of them blocked for now)` : ''}, more than --max-destroy ${options.maxDestroy}`, {
        detail: 'Review the deletions and replacements above; raise --max-destroy if they are intended.',
      }),
    );
  }
  const plan: Plan = {
    format_version: PLAN_FORMAT_VERSION,
    organization_id: live.organizationId,
    changes,
    summary,
    deploy_order: deployOrder(changes, compared, live, liveOf),
    live_objects: liveObjects(changes, live, liveOf),
    request_count: live.requestCount,
    options: { allow_data_loss: allowDataLoss, allow_replace: flags.allow_replace },
    // A plan without secret values can be read, never applied: its secrets were not read.
    applyable: summary.blocked === 0 && !diagnostics.some((x) => x.severity === 'error') && options.noSecretValues !== true,
    diagnostics,
  };
  if (ignoredCount > 0) plan.ignored_fields = ignoredCount;
  if (Object.keys(outOfScope).length > 0) plan.out_of_scope = { scope: manifestScope(graph), counts: outOfScope };
  if (previews.some((p) => p.count > 0)) plan.previews = previews.filter((p) => p.count > 0);
  if (options.apiUrl !== undefined) plan.api_url = options.apiUrl;
  if (options.maxDestroy !== undefined) plan.options.max_destroy = options.maxDestroy;
  if (options.noSecretValues === true) plan.options.no_secret_values = true;
  return plan;
}

/**
 * A secret left unread because its `${env:}` is not set (allowed under `ignore_changes`, where the
 * value serves only to create the object) is needed when the object is created: an error each.
 */
function secretsNeededToCreate(d: DesiredResource): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [field, value] of Object.entries(d.attrs)) {
    for (const s of secretsIn(field, value)) {
      if (!isUnreadSecret(s.value) || s.value.reference === undefined) continue;
      out.push(
        error('plan.secret-needed', `${d.address} is created, and its secret \`${s.field}\` needs a value: ${s.value.reference} is not set`, {
          detail: 'ignore_changes lets a secret go unread only for an object that exists (its value is never compared nor written then); creating the object writes it. Set the variable.',
          address: d.address,
          range: d.source,
        }),
      );
    }
  }
  return out;
}

/**
 * An ignored field (or pin) of this existing object differs from what the manifest says: someone
 * else changed it (a secret whose fingerprint is unknown, or whose value was not read, may have).
 */
function ignoredDiffers(d: DesiredResource, owned: DesiredResource, l: LiveResource, key: string | undefined, liveAttrs: Record<string, unknown>): boolean {
  const ignored = { ...d, attrs: ignoredAttrs(d) };
  // A secret left unread (its variable not set) cannot be compared: it may differ.
  if (unreadSecretFields(ignored).length > 0 || diffAttrs(ignored, l, key, liveAttrs).fields.length > 0) return true;
  const pin = d.deploy, kept = owned.deploy;
  if (pin?.git_commit_id !== undefined && kept?.git_commit_id === undefined && l.deployed?.git_commit_id !== pin.git_commit_id) return true;
  return pin?.image_tag !== undefined && kept?.image_tag === undefined && l.deployed?.image_tag !== undefined && l.deployed.image_tag !== pin.image_tag;
}

/** Live services by `parent address NUL lower-cased name`, to spot a service whose kind changed. */
function liveServicesByName(live: LiveState): Map<string, LiveResource> {
  const out = new Map<string, LiveResource>();
  for (const l of live.resources.values()) if (isServiceKind(l.kind) && l.parent !== undefined) out.set(`${l.parent}\u0000${l.name.toLowerCase()}`, l);
  return out;
}

function baseChange(d: DesiredResource): ResourceChange {
  const c: ResourceChange = { address: d.address, kind: d.kind, name: d.name, actions: ['no-op'], status: 'planned', reasons: [], fields: [], depends_on: [] };
  if (d.parent !== undefined) {
    c.parent = d.parent;
    c.depends_on.push(d.parent);
  }
  for (const a of d.dependsOn) c.depends_on.push(a);
  if (d.sensitiveFields && d.sensitiveFields.length > 0) c.sensitive_fields = [...d.sensitiveFields];
  const unread = unreadSecretFields(d);
  if (unread.length > 0) c.secrets_not_compared = unread;
  return c;
}

function setFingerprints(c: ResourceChange, d: DesiredResource, key: string | undefined): void {
  const fps = desiredFingerprints(d, key);
  if (Object.keys(fps).length > 0) c.fingerprints = fps;
}

function sanitizedAttrs(d: DesiredResource, fps: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d.attrs)) out[k] = sanitize(v, fps, k);
  return out;
}

/** The service an alias of a built-in points at, when this plan replaces it. */
function aliasedServiceIn(d: DesiredResource, recreated: ReadonlyMap<Address, unknown>): Address | undefined {
  const s = aliasedService(d);
  return s !== undefined && recreated.has(s) ? s : undefined;
}

/** For kinds named case-insensitively, a name that differs only in case is the same name. */
function sameNameAttrs(d: DesiredResource, attrs: Record<string, unknown>): Record<string, unknown> {
  const out = sameNameRefs(d, attrs);
  const n = out.name;
  if (!isCaseInsensitiveKind(d.kind) || typeof n !== 'string' || typeof d.attrs.name !== 'string') return out;
  if (n === d.attrs.name || n.toLowerCase() !== d.attrs.name.toLowerCase()) return out;
  return { ...out, name: d.attrs.name };
}

/** Names of case-insensitive objects referred to by name (groups, receivers, a target, a stage): live spelled as desired when they only differ in case. */
function sameNameRefs(d: DesiredResource, attrs: Record<string, unknown>): Record<string, unknown> {
  let out = attrs;
  for (const f of NAME_REF_FIELDS) {
    if (attrs[f] === undefined || d.attrs[f] === undefined) continue;
    const v = foldCase(attrs[f], d.attrs[f]);
    if (v !== attrs[f]) out = { ...out, [f]: v };
  }
  const lt = attrs.target, dt = d.attrs.target;
  if (lt && dt && typeof lt === 'object' && typeof dt === 'object' && !Array.isArray(lt)) {
    const t: Record<string, unknown> = { ...(lt as Record<string, unknown>) };
    for (const k of TARGET_NAME_FIELDS) t[k] = foldCase(t[k], (dt as Record<string, unknown>)[k]);
    out = { ...out, target: t };
  }
  return out;
}

/** The attrs that name case-insensitive objects, and the names of an alert rule's target (one list each, not one per resource). */
const NAME_REF_FIELDS = ['annotations_groups', 'labels_groups', 'alert_receivers', 'after', 'aliased_service'] as const;
const TARGET_NAME_FIELDS = ['project', 'environment', 'service'] as const;

/** A live name (or list of names) spelled as the manifest wants it when the two differ only in case. */
function foldCase(live: unknown, want: unknown): unknown {
  if (typeof live === 'string' && typeof want === 'string') return live !== want && live.toLowerCase() === want.toLowerCase() ? want : live;
  if (Array.isArray(live) && Array.isArray(want)) {
    const spelled = new Map(want.filter((w): w is string => typeof w === 'string').map((w) => [w.toLowerCase(), w]));
    return live.map((x) => (typeof x === 'string' ? spelled.get(x.toLowerCase()) ?? x : x));
  }
  return live;
}

/**
 * A stage's live members without the services of its environment that this plan replaces (and
 * does not block): the new service starts outside every stage, so a stage that lists it gains it
 * again (apply moves it in once it is created). Services come before their stages in graph order.
 */
function withoutReplacedMembers(d: DesiredResource, attrs: Record<string, unknown>, recreated: ReadonlySet<Address>): Record<string, unknown> {
  if (d.kind !== 'deployment_stage' || !Array.isArray(attrs.services) || d.parent === undefined) return attrs;
  const replaced = replacedServiceNames([...recreated]);
  if (replaced.size === 0) return attrs;
  return { ...attrs, services: (attrs.services as unknown[]).filter((n) => typeof n !== 'string' || !replaced.has(`${d.parent}\u0000${n.toLowerCase()}`)) };
}

/** `environment address NUL lower-cased name` of the services among these replaced addresses. */
function replacedServiceNames(replaced: readonly Address[]): Set<string> {
  const out = new Set<string>();
  for (const a of replaced) {
    const slash = a.lastIndexOf('/');
    const last = parseAddress(a).at(-1);
    if (slash > 0 && last?.name !== undefined && isServiceKind(last.kind)) out.add(`${a.slice(0, slash)}\u0000${last.name.toLowerCase()}`);
  }
  return out;
}

/** What holds data (a database), deleted or replaced, loses it. */
function dataLossOf(c: ResourceChange): GuardRequirement[] {
  return holdsData(c.kind) ? [{ guard: 'allow_data_loss', reason: `destroys the data of ${withArticle(c.kind)}` }] : [];
}

/** Replacing an environment, or a service that has been deployed, stops what runs there. */
function replaceOf(c: ResourceChange, l: LiveResource): GuardRequirement[] {
  if (c.kind === 'environment') return [{ guard: 'allow_replace', reason: `replaces environment "${c.name}" with everything in it` }];
  if (isServiceKind(c.kind) && hasBeenDeployed(l)) return [{ guard: 'allow_replace', reason: `replaces the deployed ${c.kind} "${c.name}"` }];
  return [];
}

function show(v: unknown): string {
  if (v === undefined) return '(none)';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function namesOf(live: LiveState, kind: ResourceKind): string[] {
  const out: string[] = [];
  for (const l of live.resources.values()) if (l.kind === kind) out.push(l.name);
  return out.sort();
}

/** The preview declaration of `project` whose pattern `environmentName` matches. */
function previewOf(previews: PreviewCount[], project: Address, environmentName: string): PreviewCount | undefined {
  return previews.find((p) => p.project === project && previewNumberOf(p.pattern, environmentName) !== undefined);
}

/** The states of a service the API is deleting (seed 4.2: the deletion runs in the background). */
const DELETING_STATES: ReadonlySet<string> = new Set(['DELETE_QUEUED', 'DELETING', 'DELETED']);

/** Whether the API is already deleting this live object (its status, read with its environment's). */
export function isBeingDeleted(l: Pick<LiveResource, 'status'>): boolean {
  return l.status?.state !== undefined && DELETING_STATES.has(l.status.state);
}

/**
 * Live resources the manifest does not declare: deleted with a replaced or pruned ancestor, deleted
 * when their scope opts into pruning their kind, otherwise listed as unmanaged. Children of an
 * unmanaged resource are not listed (the unmanaged ancestor stands for them). Organization-level
 * objects outside the manifest's scope (./scope.ts) are only counted, by kind, into `outOfScope`.
 * Returned children-first (reverse address order), the order deletions must run in.
 */
function undeclared(
  graph: DesiredGraph,
  live: LiveState,
  claimed: Set<Address>,
  recreated: Map<Address, GuardRequirement[]>,
  liveOf: Map<Address, Address>,
  kindReplaced: Map<Address, Address>,
  flags: GuardFlags,
  outOfScope: OutOfScope['counts'],
  previews: PreviewCount[],
): ResourceChange[] {
  const owns = ownsUndeclaredAtTop(graph);
  // Live address of a parent -> desired resource, for prune scopes. Asked only for the parents of
  // undeclared live objects (few on most plans): a parent matched at its own address is looked up
  // directly (liveOf is one-to-one), the full reverse map is built once only for the others.
  let reverse: Map<Address, DesiredResource> | undefined;
  const desiredOfLive = (l: Address): DesiredResource | undefined => {
    if (liveOf.get(l) === l) return graph.resources.get(l);
    if (reverse === undefined) {
      reverse = new Map();
      for (const [d, la] of liveOf) reverse.set(la, graph.resources.get(d)!);
    }
    return reverse.get(l);
  };
  /** Live address of a replaced object -> the guards of its replacement. */
  const recreatedLive = new Map<Address, { desired: Address; requires: GuardRequirement[] }>();
  for (const [d, requires] of recreated) {
    const l = liveOf.get(d) ?? kindReplaced.get(d);
    if (l) recreatedLive.set(l, { desired: d, requires });
  }
  /** Guards of each deleted live object, inherited by what is deleted with it. */
  const requiresOf = new Map<Address, GuardRequirement[]>();
  const candidates: LiveResource[] = [];
  for (const l of live.resources.values()) {
    if (!claimed.has(l.address) && !readOnlyKinds().has(l.kind) && l.attrs.variable_type !== 'BUILT_IN' && !isPlatformStage(l)) candidates.push(l);
  }
  candidates.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  // Parents first to decide, then emitted children-first.
  const fate = new Map<Address, 'delete' | 'unmanaged' | 'hidden'>();
  const out: ResourceChange[] = [];
  /** Deleted objects, parents first, with the guards of a replaced parent they go with. */
  const deleted: Array<{ change: ResourceChange; inherited: GuardRequirement[] }> = [];
  for (const l of candidates) {
    const c: ResourceChange = {
      address: l.address,
      kind: l.kind,
      name: l.name,
      actions: ['no-op'],
      status: 'unmanaged',
      reasons: [],
      fields: [],
      depends_on: [],
      id: l.id,
      version: l.version,
      before: l.attrs,
    };
    if (l.parent !== undefined) c.parent = l.parent;
    const parentFate = l.parent === undefined ? undefined : fate.get(l.parent);
    if (parentFate === 'unmanaged' || parentFate === 'hidden') {
      fate.set(l.address, 'hidden');
      continue;
    }
    if (l.parent === undefined && !owns(l.kind)) {
      fate.set(l.address, 'hidden');
      outOfScope[l.kind] = (outOfScope[l.kind] ?? 0) + 1;
      continue;
    }
    // A service already on its way out (a delete sent by the last apply, or from the console: the
    // API deletes in the background, DELETE_QUEUED -> DELETING -> gone) is not deleted again: a
    // second delete would be refused as busy, and the plan right after an apply would not be clean.
    if (parentFate !== 'delete' && isBeingDeleted(l)) {
      fate.set(l.address, 'hidden');
      continue;
    }
    // A preview's environment (its name matches the project's `previews.name`), and all in it:
    // `driftless preview`'s, whatever the project prunes; only counted.
    const preview = l.kind === 'environment' && l.parent !== undefined ? previewOf(previews, desiredOfLive(l.parent)?.address ?? l.parent, l.name) : undefined;
    if (preview) {
      fate.set(l.address, 'hidden');
      preview.count++;
      continue;
    }
    let deleteReason: string | undefined;
    let viaParent: Address | undefined;
    let inherited: GuardRequirement[] = [];
    if (parentFate === 'delete') {
      viaParent = l.parent;
      deleteReason = `deleted with ${l.parent}`;
    } else if (l.parent !== undefined && recreatedLive.has(l.parent)) {
      viaParent = l.parent;
      deleteReason = `deleted with ${l.parent}, which is replaced`;
      const r = recreatedLive.get(l.parent)!;
      inherited = inheritedRequirements(r.requires, r.desired);
    } else {
      const prune = l.parent === undefined ? graph.prune : desiredOfLive(l.parent)?.prune;
      if (prune?.includes(l.kind)) deleteReason = `not in the manifest, and ${l.parent ?? 'the organization'} prunes ${l.kind} resources`;
    }
    if (deleteReason === undefined) {
      c.reasons.push(keptReason(l.kind, l.parent));
      fate.set(l.address, 'unmanaged');
      out.push(c);
      continue;
    }
    fate.set(l.address, 'delete');
    c.actions = ['delete'] as ActionList;
    c.status = 'planned';
    c.reasons.push(deleteReason);
    if (viaParent !== undefined) c.via_parent = viaParent;
    deleted.push({ change: c, inherited });
    out.push(c);
  }
  // Guards once every fate is known: a deleted parent is guarded by the databases that go with it.
  const held = databasesGoingWith(deleted.map((x) => x.change));
  for (const { change: c, inherited: fromReplaced } of deleted) {
    const inherited = c.via_parent !== undefined && requiresOf.has(c.via_parent) ? inheritedRequirements(requiresOf.get(c.via_parent)!, c.via_parent) : fromReplaced;
    guardChange(c, [...inherited, ...dataLossOf(c), ...heldDataLoss(held.get(c.address))], flags);
    requiresOf.set(c.address, c.requires ?? []);
  }
  return out.reverse();
}

function summarize(changes: ResourceChange[]): PlanSummary {
  const s: PlanSummary = { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 };
  for (const c of changes) {
    if (c.status === 'unmanaged') s.unmanaged++;
    // A blocked change is not done: it counts as blocked only, never as to add or to destroy.
    if (c.status === 'blocked') {
      s.blocked++;
      continue;
    }
    if (c.deploy) s.deploy++;
    if (c.protect_mark !== undefined) s.marks = (s.marks ?? 0) + 1;
    const [a, b] = c.actions;
    if (a === 'create') s.add++;
    else if (a === 'update') s.change++;
    else if (a === 'delete') {
      s.destroy++;
      if (b === 'create') s.add++;
    }
  }
  return s;
}

/**
 * The live objects apply touches or relies on: every object a change acts on, the objects its
 * change depends on (parents, groups, receivers, alert targets, stage members), and the small
 * organization-level objects names resolve to. Untouched objects are left out, so an unrelated
 * edit made after the plan does not make a saved plan stale.
 */
function liveObjects(changes: ResourceChange[], live: LiveState, liveOf: Map<Address, Address>): Plan['live_objects'] {
  const out: Plan['live_objects'] = {};
  const record = (desiredAddress: Address) => {
    const l = live.resources.get(liveOf.get(desiredAddress) ?? desiredAddress);
    if (l) out[desiredAddress] = { id: l.id, version: l.version };
  };
  // Live objects recorded even when untouched: apply resolves names through them.
  for (const l of live.resources.values()) if (kindsNamedByOthers().has(l.kind)) out[l.address] = { id: l.id, version: l.version };
  for (const c of changes) {
    if (!isActionable(c)) continue;
    if (c.id !== undefined && c.version !== undefined) out[c.address] = { id: c.id, version: c.version };
    for (const d of c.depends_on) record(d);
    if (c.clone_from !== undefined) record(c.clone_from);
  }
  return out;
}

/**
 * Live attrs of desired deployment stages, adjusted to what the manifest owns: `after` is the
 * previous stage among the stages the manifest declares (in live deployment_order), and `services`
 * keeps only services the manifest assigns to a stage of that environment (the others stay wherever
 * the platform put them).
 */
function stageLiveAttrs(matched: Pick<LiveMatch, 'desiredInOrder' | 'liveInOrder'>, refNames: RenamedReferences): Map<Address, Record<string, unknown>> {
  const out = new Map<Address, Record<string, unknown>>();
  const byEnv = new Map<Address, Array<{ desired: DesiredResource; live: LiveResource }>>();
  /** env -> lower-cased staged service name -> name as the manifest writes it (database names ignore case). */
  const servicesByEnv = new Map<Address, Map<string, string>>();
  // In graph order, with each stage's live match (matchLive's walk).
  const { desiredInOrder, liveInOrder } = matched;
  for (let i = 0; i < desiredInOrder.length; i++) {
    const d = desiredInOrder[i]!;
    if (d.parent === undefined || d.kind !== 'deployment_stage') continue;
    // Only services the manifest places in some stage have an owned membership.
    const names = servicesByEnv.get(d.parent) ?? new Map<string, string>();
    for (const n of (d.attrs.services as string[] | undefined) ?? []) names.set(n.toLowerCase(), n);
    servicesByEnv.set(d.parent, names);
    const l = liveInOrder[i];
    if (l === undefined) continue;
    const list = byEnv.get(d.parent) ?? [];
    list.push({ desired: d, live: l });
    byEnv.set(d.parent, list);
  }
  for (const [env, stages] of byEnv) {
    const sorted = [...stages].sort((a, b) => Number(a.live.attrs.deployment_order ?? 0) - Number(b.live.attrs.deployment_order ?? 0));
    const managed = servicesByEnv.get(env) ?? new Map<string, string>();
    sorted.forEach((s, i) => {
      const attrs: Record<string, unknown> = { ...s.live.attrs };
      if (i > 0) attrs.after = sorted[i - 1]!.desired.name;
      else delete attrs.after;
      if (Array.isArray(attrs.services)) {
        const owned: string[] = [];
        for (const n of attrs.services as string[]) {
          // A service renamed by a `moved` entry is listed live under its old name.
          const name = managed.get((refNames.services.get(`${matchKey(env)}\u0000${n.toLowerCase()}`) ?? n).toLowerCase());
          if (name !== undefined) owned.push(name);
        }
        attrs.services = owned.sort();
      }
      out.set(s.desired.address, attrs);
    });
  }
  return out;
}
