/**
 * planSteps(plan): the plan's changes as a dependency graph of steps. Pure: what each step does is
 * decided by applyPlan; here only what runs, as one step, after what.
 *
 * - One step per change; the services an environment deletes outright form one batched step (the
 *   API deletes them with one request).
 * - Creates, updates and replaces run after their parent and dependencies.
 * - Deletes run children first: after the delete of whatever has them as parent or dependency.
 *   A deployment stage is deleted after the stage changes of its environment (its services move
 *   out first), and a receiver or group after the changes of what may refer to it.
 * - Deploys: per environment, one step per stage in order, each after the previous stage and after
 *   every configuration step its services see (their own subtree, their environment, project,
 *   their variables, the environment's stages).
 */
import type { Address, ResourceKind, ServiceKind } from '../model/resource.js';
import { addressOf, isServiceKind, parseAddress } from '../model/resource.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import type { StepAction } from './events.js';

export type ChangeAction = 'create' | 'update' | 'delete' | 'replace';

export type PlannedStep =
  | { type: 'change'; id: string; action: ChangeAction; change: ResourceChange; dependsOn: string[] }
  | { type: 'delete-services'; id: string; environment: Address; changes: ResourceChange[]; dependsOn: string[] }
  | { type: 'deploy'; id: string; environment: Address; stage: string | null; services: Address[]; dependsOn: string[] };

/** The action a change takes in apply's vocabulary; undefined when apply sends nothing for it. */
export function stepActionOf(c: ResourceChange): ChangeAction | undefined {
  if (c.status !== 'planned' || c.via_parent !== undefined) return undefined;
  const [a, b] = c.actions;
  if (a === 'no-op') return undefined;
  if (a === 'delete' && b === 'create') return 'replace';
  return a;
}

/** The resources a step acts on, with the action shown for each. */
export function targetsOf(s: PlannedStep): Array<{ address: Address; action: StepAction }> {
  switch (s.type) {
    case 'change':
      return [{ address: s.change.address, action: s.action }];
    case 'delete-services':
      return s.changes.map((c) => ({ address: c.address, action: 'delete' as const }));
    case 'deploy':
      return s.services.map((address) => ({ address, action: 'deploy' as const }));
  }
}

export function parentOf(address: Address): Address {
  const i = address.lastIndexOf('/');
  return i < 0 ? '' : address.slice(0, i);
}

/** Kinds whose deletion must wait for the changes of the kinds that may refer to them. */
const REFERRED_BY: Partial<Record<ResourceKind, (k: ResourceKind) => boolean>> = {
  alert_receiver: (k) => k === 'alert_rule',
  annotations_group: (k) => isServiceKind(k),
  labels_group: (k) => isServiceKind(k),
};

/** The service an address belongs to (itself or an ancestor), if any. */
function serviceOf(address: Address): Address | undefined {
  const segs = address.split('/');
  for (let i = segs.length; i > 0; i--) {
    const kind = segs[i - 1]!.split('.')[0]!;
    if (isServiceKind(kind)) return segs.slice(0, i).join('/');
  }
  return undefined;
}

export function planSteps(plan: Plan): PlannedStep[] {
  const changes = plan.changes.filter((c) => stepActionOf(c) !== undefined);
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const steps: PlannedStep[] = [];
  const stepOf = new Map<Address, string>();
  const edges = new Map<string, Set<string>>();
  const addDep = (from: string, to: string | undefined) => {
    if (to === undefined || to === from) return;
    let s = edges.get(from);
    if (!s) edges.set(from, (s = new Set()));
    s.add(to);
  };

  const serviceDeletes = new Map<Address, ResourceChange[]>();
  for (const c of changes) {
    if (stepActionOf(c) === 'delete' && isServiceKind(c.kind)) {
      const env = parentOf(c.address);
      const list = serviceDeletes.get(env);
      if (list) list.push(c);
      else serviceDeletes.set(env, [c]);
    }
  }
  for (const [environment, list] of serviceDeletes) {
    const id = `delete services of ${environment}`;
    for (const c of list) stepOf.set(c.address, id);
    steps.push({ type: 'delete-services', id, environment, changes: list, dependsOn: [] });
  }
  for (const c of changes) {
    if (stepOf.has(c.address)) continue;
    const action = stepActionOf(c)!;
    const id = `${action} ${c.address}`;
    stepOf.set(c.address, id);
    steps.push({ type: 'change', id, action, change: c, dependsOn: [] });
  }

  const nonDeleteByKind = new Map<ResourceKind, string[]>();
  const stageChangesByEnv = new Map<Address, string[]>();
  for (const c of changes) {
    const action = stepActionOf(c)!;
    if (action === 'delete') continue;
    const id = stepOf.get(c.address)!;
    push(nonDeleteByKind, c.kind, id);
    if (c.kind === 'deployment_stage') push(stageChangesByEnv, parentOf(c.address), id);
  }

  for (const c of changes) {
    const action = stepActionOf(c)!;
    const sid = stepOf.get(c.address)!;
    if (action === 'delete') {
      // Children and dependents are deleted first.
      for (const t of [c.parent, ...c.depends_on]) {
        const tc = t === undefined ? undefined : byAddress.get(t);
        if (tc && stepActionOf(tc) === 'delete') addDep(stepOf.get(tc.address)!, sid);
      }
      if (c.kind === 'deployment_stage') for (const other of stageChangesByEnv.get(parentOf(c.address)) ?? []) addDep(sid, other);
      const referredBy = REFERRED_BY[c.kind];
      if (referredBy) for (const [kind, ids] of nonDeleteByKind) if (referredBy(kind)) for (const other of ids) addDep(sid, other);
    } else {
      for (const t of c.depends_on) addDep(sid, stepOf.get(t));
      if (c.parent !== undefined) addDep(sid, stepOf.get(c.parent));
    }
  }

  // What each service's deployment waits for: configuration steps in its subtree, and those of
  // its environment and project (the environment itself, their variables, the stages).
  const byService = new Map<Address, Set<string>>();
  const byScope = new Map<Address, Set<string>>();
  const put = (m: Map<Address, Set<string>>, k: Address, id: string) => {
    let s = m.get(k);
    if (!s) m.set(k, (s = new Set()));
    s.add(id);
  };
  for (const [addr, sid] of stepOf) {
    if (sid.startsWith('delete')) continue;
    const svc = serviceOf(addr);
    if (svc !== undefined) put(byService, svc, sid);
    else {
      const last = addr.slice(addr.lastIndexOf('/') + 1).split('.')[0];
      if (last === 'project' || last === 'environment') put(byScope, addr, sid);
      else if (last === 'variable' || last === 'deployment_stage') put(byScope, parentOf(addr), sid);
    }
  }
  for (const group of plan.deploy_order) {
    const env = group.environment;
    const project = addressOf('project', parseAddress(env)[0]!.name);
    let previous: string | undefined;
    group.stages.forEach((stage, i) => {
      if (stage.services.length === 0) return;
      const id = `deploy ${env} stage ${stage.stage ?? '(default)'} #${i}`;
      const needs = new Set<string>([...(byScope.get(env) ?? []), ...(byScope.get(project) ?? [])]);
      if (previous) needs.add(previous);
      for (const s of stage.services) for (const sid of byService.get(s) ?? []) needs.add(sid);
      steps.push({ type: 'deploy', id, environment: env, stage: stage.stage, services: stage.services, dependsOn: [...needs] });
      previous = id;
    });
  }

  for (const s of steps) if (s.type !== 'deploy') s.dependsOn = [...(edges.get(s.id) ?? [])];
  return steps;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

export function serviceKindOfAddress(address: Address): ServiceKind {
  return parseAddress(address).pop()!.kind as ServiceKind;
}
