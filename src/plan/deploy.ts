/**
 * Deployment marking: which services the plan deploys, why, and in which order.
 *
 * A service is deployed when it is created or replaced, when its configuration changed (fields
 * other than description / icon_uri), when a variable it sees changed (its own, its environment's,
 * its project's: created, updated, replaced or pruned), when an annotations or labels group it uses
 * changed, when its pinned git_commit_id differs from the deployed commit, or when the live service
 * reports NEVER_DEPLOYED. A service the manifest declares with `deploy: false` (DesiredResource.noDeploy)
 * is never marked, for any of these reasons: driftless creates and configures it, nothing more.
 *
 * The live deployment status carries what an earlier run did not deploy. NEVER_DEPLOYED (an apply
 * interrupted between creating a service and deploying it, `apply --no-deploy` of a new service)
 * marks a deploy when nothing else does. So does OUT_OF_DATE (the platform's word for a service
 * whose configuration or variables changed since its last deployment: `apply --no-deploy`, an
 * apply interrupted before its deploys), but only when something the manifest owns explains it
 * (`outOfDateOwned`): the service's record, a declared variable it sees or a declared group it uses
 * changed after its last deployment, and none of those carries an `ignore_changes` field that
 * differs live (which may be the whole change: someone else's, which driftless must not deploy).
 * An OUT_OF_DATE that only something undeclared explains (a variable added in the console) is left
 * to whoever made it, as the rest of what the manifest does not own.
 */
import type { Address, DesiredGraph, LiveResource, LiveState } from '../model/resource.js';
import { isServiceKind } from '../model/resource.js';
import { holdsVariables } from '../model/kinds/index.js';
import { NON_DEPLOY_FIELDS } from '../graph/attrs.js';
import type { DeployGroup, DeployMark, ResourceChange } from './types.js';

export function markDeploys(
  changes: ResourceChange[],
  graph: DesiredGraph,
  live: LiveState,
  liveOf: Map<Address, Address>,
  ignoredDiffering: ReadonlySet<Address> = new Set(),
): void {
  const ownedChange = outOfDateOwned(ignoredDiffering, graph, live, liveOf);
  // Variable changes per scope address (project, environment or service).
  const changedKeys = new Map<Address, string[]>();
  for (const c of changes) {
    if (c.kind !== 'variable' || c.status !== 'planned' || c.actions[0] === 'no-op' || c.parent === undefined) continue;
    const list = changedKeys.get(c.parent) ?? [];
    list.push(c.name);
    changedKeys.set(c.parent, list);
  }
  // Annotation / label groups whose content changes: the services using them render differently.
  const changedGroups = new Map<string, Set<string>>([
    ['annotations_groups', new Set()],
    ['labels_groups', new Set()],
  ]);
  for (const c of changes) {
    if (c.status !== 'planned' || c.actions[0] === 'no-op' || c.actions[0] === 'create') continue;
    // A group only renamed renders the same annotations and labels.
    if (c.actions[0] === 'update' && c.fields.every((f) => NON_DEPLOY_FIELDS.has(f.field))) continue;
    if (c.kind === 'annotations_group') changedGroups.get('annotations_groups')!.add(c.name);
    if (c.kind === 'labels_group') changedGroups.get('labels_groups')!.add(c.name);
  }
  for (const c of changes) {
    if (!isServiceKind(c.kind) || c.status !== 'planned') continue;
    if (c.actions[0] === 'delete' && c.actions.length === 1) continue;
    const desired = graph.resources.get(c.address);
    if (!desired || desired.noDeploy) continue;
    const reasons: string[] = [];
    if (c.actions[0] === 'create') reasons.push('created');
    else if (c.actions.length === 2) reasons.push('replaced');
    else {
      const config = c.fields.filter((f) => !NON_DEPLOY_FIELDS.has(f.field)).map((f) => f.field);
      if (config.length > 0) reasons.push(`configuration changed (${config.join(', ')})`);
    }
    const liveAddr = liveOf.get(c.address);
    const l = liveAddr === undefined ? undefined : live.resources.get(liveAddr);
    const pin = desired.deploy?.git_commit_id;
    if (l && pin !== undefined && l.deployed?.git_commit_id !== pin) {
      reasons.push(`git_commit_id ${short(l.deployed?.git_commit_id)} -> ${short(pin)}`);
    }
    // A created or replaced service starts with every variable it sees: no need to list them.
    const fresh = c.actions[0] === 'create' || c.actions.length === 2;
    if (holdsVariables(c.kind) && !fresh) {
      const keys: string[] = [];
      for (let scope: Address | undefined = c.address; scope !== undefined; scope = graph.resources.get(scope)?.parent) {
        keys.push(...(changedKeys.get(scope) ?? []));
      }
      if (keys.length > 0) reasons.push(keys.length === 1 ? `variable ${keys[0]} changed` : `variables ${listSome(keys)} changed`);
    }
    if (!fresh) {
      for (const [field, names] of changedGroups) {
        for (const g of (desired.attrs[field] as string[] | undefined) ?? []) {
          if (names.has(g)) reasons.push(`${field === 'annotations_groups' ? 'annotations' : 'labels'} group ${g} changed`);
        }
      }
    }
    if (reasons.length === 0 && l?.status?.service_deployment_status === 'NEVER_DEPLOYED') reasons.push('never deployed');
    if (reasons.length === 0 && l?.status?.service_deployment_status === 'OUT_OF_DATE' && ownedChange(c.address, l)) {
      reasons.push(OUT_OF_DATE_REASON);
    }
    if (reasons.length === 0) continue;
    const mark: DeployMark = { reasons };
    if (pin !== undefined) mark.git_commit_id = pin;
    if (desired.deploy?.image_tag !== undefined) mark.image_tag = desired.deploy.image_tag;
    if (l?.deployed?.git_commit_id !== undefined) mark.before_git_commit_id = l.deployed.git_commit_id;
    if (l?.deployed?.image_tag !== undefined) mark.before_image_tag = l.deployed.image_tag;
    c.deploy = mark;
  }
}

/**
 * Whether what the manifest owns explains a service's OUT_OF_DATE: among the declared objects that
 * affect it -- its own record, the variables declared in its scopes (itself, its environment, its
 * project; a database sees none), the groups it uses -- at least one was written after its last
 * deployment, and none of those has an ignored field that differs live (`differing`).
 */
function outOfDateOwned(
  differing: ReadonlySet<Address>,
  graph: DesiredGraph,
  live: LiveState,
  liveOf: Map<Address, Address>,
): (service: Address, l: LiveResource) => boolean {
  const updatedAt = (desired: Address): string | undefined => {
    const la = liveOf.get(desired);
    const r = la === undefined ? undefined : live.resources.get(la)?.record;
    const v = r?.updated_at ?? r?.created_at;
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  /**
   * Declared variables by scope, and declared groups by attr and name: built on the first service
   * reported OUT_OF_DATE with no other reason to deploy (most plans have none).
   */
  const variablesOf = new Map<Address, Address[]>();
  const groups = new Map<string, Address>();
  let indexed = false;
  const index = (): void => {
    indexed = true;
    for (const d of graph.resources.values()) {
      if (d.kind === 'variable' && d.parent !== undefined) {
        const list = variablesOf.get(d.parent);
        if (list) list.push(d.address);
        else variablesOf.set(d.parent, [d.address]);
      }
      if (d.kind === 'annotations_group') groups.set(`annotations_groups\u0000${d.name}`, d.address);
      if (d.kind === 'labels_group') groups.set(`labels_groups\u0000${d.name}`, d.address);
    }
  };
  return (service, l) => {
    if (!indexed) index();
    const since = l.status?.last_deployment_date;
    const affecting: Address[] = [service];
    if (holdsVariables(l.kind)) for (let s: Address | undefined = service; s !== undefined; s = graph.resources.get(s)?.parent) affecting.push(...(variablesOf.get(s) ?? []));
    const d = graph.resources.get(service);
    for (const f of ['annotations_groups', 'labels_groups']) {
      for (const g of (d?.attrs[f] as string[] | undefined) ?? []) {
        const a = groups.get(`${f}\u0000${g}`);
        if (a !== undefined) affecting.push(a);
      }
    }
    // Without a deployment date nothing can be told apart: every declared object counts.
    const changed = affecting.filter((a) => {
      const at = updatedAt(a);
      return since === undefined || (at !== undefined && at > since);
    });
    return changed.length > 0 && !changed.some((a) => differing.has(a));
  };
}

/** Why a service the platform reports OUT_OF_DATE is deployed. */
export const OUT_OF_DATE_REASON = 'configuration changed since its last deployment';

function short(commit: string | undefined): string {
  if (commit === undefined) return '(none)';
  return /^[0-9a-f]{12,}$/i.test(commit) ? commit.slice(0, 8) : commit;
}

function listSome(keys: string[]): string {
  const uniq = [...new Set(keys)];
  return uniq.length <= 3 ? uniq.join(', ') : `${uniq.slice(0, 3).join(', ')} and ${uniq.length - 3} more`;
}

/**
 * Deploy order per environment, stage by stage. Services the manifest assigns to a stage deploy
 * with that stage, in manifest order. The others deploy with the live stage they are in (stages
 * the manifest does not declare, such as the platform's DEFAULT stage, in their live order, before
 * the manifest's stages), or, when the live state knows no stage for them, in a first group with
 * `stage: null` (the environment's default stage).
 */
export function deployOrder(changes: ResourceChange[], graph: DesiredGraph, live?: LiveState, liveOf?: Map<Address, Address>): DeployGroup[] {
  const byEnv = new Map<Address, ResourceChange[]>();
  for (const c of changes) {
    if (!c.deploy || c.parent === undefined) continue;
    const list = byEnv.get(c.parent) ?? [];
    list.push(c);
    byEnv.set(c.parent, list);
  }
  if (byEnv.size === 0) return [];
  const stagesOf = new Map<Address, Array<{ name: string; services: Set<string> }>>();
  for (const address of graph.order) {
    const r = graph.resources.get(address)!;
    if (r.kind !== 'deployment_stage' || r.parent === undefined || !byEnv.has(r.parent)) continue;
    const list = stagesOf.get(r.parent) ?? [];
    list.push({ name: r.name, services: new Set((r.attrs.services as string[] | undefined) ?? []) });
    stagesOf.set(r.parent, list);
  }
  const liveStagesOf = liveStagesByEnv(byEnv, graph, live, liveOf);
  const groups: DeployGroup[] = [];
  for (const [environment, services] of byEnv) {
    const stages = stagesOf.get(environment) ?? [];
    const declared = new Set(stages.map((st) => st.name.toLowerCase()));
    const staged = new Set<Address>();
    const stageServices = stages.map((st) => {
      const members = services.filter((s) => st.services.has(s.name)).map((s) => s.address);
      members.forEach((m) => staged.add(m));
      return { stage: st.name as string | null, services: members };
    });
    const rest = services.filter((s) => !staged.has(s.address));
    const out: DeployGroup['stages'] = [];
    const unknown: Address[] = [];
    const liveGroups = new Map<string, Address[]>();
    const allLive = liveStagesOf.get(environment) ?? [];
    const undeclaredLive = allLive.filter((st) => !declared.has(st.name.toLowerCase()));
    for (const s of rest) {
      // Membership the manifest does not set stays where the platform has it.
      const st = allLive.find((x) => x.services.has(s.name.toLowerCase()));
      const declaredGroup = st ? stageServices.find((g) => g.stage!.toLowerCase() === st.name.toLowerCase()) : undefined;
      if (declaredGroup) declaredGroup.services.push(s.address);
      else if (st) liveGroups.set(st.name, [...(liveGroups.get(st.name) ?? []), s.address]);
      else unknown.push(s.address);
    }
    if (unknown.length > 0) out.push({ stage: null, services: unknown });
    for (const st of undeclaredLive) {
      const members = liveGroups.get(st.name);
      if (members) out.push({ stage: st.name, services: members });
    }
    for (const s of stageServices) if (s.services.length > 0) out.push(s);
    groups.push({ environment, stages: out });
  }
  return groups;
}

/** Live stages of the environments that deploy something, in live deployment order. */
function liveStagesByEnv(
  byEnv: Map<Address, ResourceChange[]>,
  graph: DesiredGraph,
  live: LiveState | undefined,
  liveOf: Map<Address, Address> | undefined,
): Map<Address, Array<{ name: string; order: number; services: Set<string> }>> {
  const out = new Map<Address, Array<{ name: string; order: number; services: Set<string> }>>();
  if (!live || !liveOf) return out;
  const envOfLive = new Map<Address, Address>();
  for (const env of byEnv.keys()) {
    const l = liveOf.get(env);
    if (l !== undefined && graph.resources.has(env)) envOfLive.set(l, env);
  }
  for (const l of live.resources.values()) {
    if (l.kind !== 'deployment_stage' || l.parent === undefined) continue;
    const env = envOfLive.get(l.parent);
    if (env === undefined) continue;
    const list = out.get(env) ?? [];
    list.push({
      name: l.name,
      order: Number(l.attrs.deployment_order ?? 0),
      services: new Set(((l.attrs.services as string[] | undefined) ?? []).map((n) => n.toLowerCase())),
    });
    out.set(env, list);
  }
  for (const list of out.values()) list.sort((a, b) => a.order - b.order);
  return out;
}
