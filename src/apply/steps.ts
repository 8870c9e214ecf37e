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
 * - A stage's step creates, renames or reorders it; each service it gains is moved in by a step of
 *   its own, right after that service exists (so a stage is not held back by the slowest of its
 *   members, and a deploy waits only for its own services).
 * - The plain variables a service gains (no secret, file, description, alias or override, nothing
 *   referring to them) are created by one import step per service instead of one request each.
 * - Deploys: per environment, one step per stage in order, each after the previous stage and after
 *   every configuration step its services see (their own subtree and stage moves, their
 *   environment and project and the variables of those), and nothing else, so the first stage
 *   deploys while the later stages are still being configured.
 */
import type { Address, ResourceKind, ServiceKind } from '../model/resource.js';
import { addressOf, isServiceKind, parentAddress, parseAddress } from '../model/resource.js';
import { variableHoldingServiceKinds } from '../model/kinds/index.js';
import { writesObject, type Plan, type ResourceChange } from '../plan/types.js';
import type { StepAction, StepRef } from './events.js';

export type ChangeAction = 'create' | 'update' | 'delete' | 'replace';

export type PlannedStep =
  | { type: 'change'; id: string; action: ChangeAction; change: ResourceChange; dependsOn: string[] }
  | { type: 'delete-services'; id: string; environment: Address; changes: ResourceChange[]; dependsOn: string[] }
  | { type: 'stage-member'; id: string; stage: ResourceChange; member: string; service?: Address; dependsOn: string[] }
  | { type: 'import-variables'; id: string; service: Address; changes: ResourceChange[]; dependsOn: string[] }
  | { type: 'deploy'; id: string; environment: Address; stage: string | null; services: Address[]; dependsOn: string[] };

/** The action a change takes in apply's vocabulary; undefined when apply sends nothing for it. */
export function stepActionOf(c: ResourceChange): ChangeAction | undefined {
  if (c.status !== 'planned' || c.via_parent !== undefined || !writesObject(c)) return undefined;
  const [a, b] = c.actions;
  // An otherwise unchanged object whose protect mark is recorded or cleared: one update of it.
  if (a === 'no-op') return 'update';
  if (a === 'delete' && b === 'create') return 'replace';
  return a;
}

/**
 * A change's step as events and reports show it: a change that only records or clears the protect
 * mark is sent as an update of the description, but shown as the plan shows it, `no-op` with
 * `protect_mark`, so that no line says "update" of an object the summary counts as unchanged.
 */
export function stepRefOf(c: ResourceChange, action: ChangeAction): StepRef {
  if (c.actions[0] === 'no-op' && c.protect_mark !== undefined) return { address: c.address, action: 'no-op', protect_mark: c.protect_mark };
  return { address: c.address, action };
}

/** The changes apply sends something for (those with a step action), by address. */
export function changesWithSteps(plan: Plan): Map<Address, ResourceChange> {
  return new Map(plan.changes.filter((c) => stepActionOf(c) !== undefined).map((c) => [c.address, c]));
}

/** The resources a step acts on, with the action shown for each. */
export function targetsOf(s: PlannedStep): StepRef[] {
  switch (s.type) {
    case 'change':
      return [stepRefOf(s.change, s.action)];
    case 'delete-services':
      return s.changes.map((c) => ({ address: c.address, action: 'delete' as const }));
    case 'import-variables':
      return s.changes.map((c) => ({ address: c.address, action: 'create' as const }));
    case 'stage-member':
      // Part of the stage's change: a failure or skip is reported on the stage.
      return [stepRefOf(s.stage, stepActionOf(s.stage)!)];
    case 'deploy':
      return s.services.map((address) => ({ address, action: 'deploy' as const }));
  }
}

/** The parent of a change's address (every address a step handles has one: '' otherwise). */
export function parentOf(address: Address): Address {
  return parentAddress(address) ?? '';
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
    if (stepActionOf(c) === 'delete' && isServiceKind(c.kind)) push(serviceDeletes, parentOf(c.address), c);
  }
  for (const [environment, list] of serviceDeletes) {
    const id = `delete services of ${environment}`;
    for (const c of list) stepOf.set(c.address, id);
    steps.push({ type: 'delete-services', id, environment, changes: list, dependsOn: [] });
  }
  const imports = importBatches(changes);
  for (const c of changes) {
    if (stepOf.has(c.address)) continue;
    const batch = imports.get(c.address);
    if (batch) {
      const id = `import variables of ${batch.service}`;
      for (const v of batch.changes) stepOf.set(v.address, id);
      steps.push({ type: 'import-variables', id, service: batch.service, changes: batch.changes, dependsOn: [] });
      continue;
    }
    const action = stepActionOf(c)!;
    const id = `${action} ${c.address}`;
    stepOf.set(c.address, id);
    steps.push({ type: 'change', id, action, change: c, dependsOn: [] });
  }

  // Stage membership: one step per service a stage gains, after the stage and the service exist.
  const serviceByName = servicesByEnvironment(plan);
  const memberMoves: Array<{ id: string; env: Address; service: Address | undefined }> = [];
  for (const c of changes) {
    const action = stepActionOf(c)!;
    if (c.kind !== 'deployment_stage' || action === 'delete') continue;
    const env = parentOf(c.address);
    for (const name of gainedMembers(c, action)) {
      const service = serviceByName.get(env)?.get(name);
      const id = `move ${name} into ${c.address}`;
      steps.push({ type: 'stage-member', id, stage: c, member: name, ...(service !== undefined ? { service } : {}), dependsOn: [] });
      addDep(id, stepOf.get(c.address));
      const serviceChange = service === undefined ? undefined : byAddress.get(service);
      const serviceAction = serviceChange === undefined ? undefined : stepActionOf(serviceChange);
      if (serviceAction === 'create' || serviceAction === 'replace') addDep(id, stepOf.get(service!));
      memberMoves.push({ id, env, service });
    }
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
  for (const m of memberMoves) push(stageChangesByEnv, m.env, m.id);

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
      // A stage's members are moved in by their own steps (above), not by the stage's.
      const deps = c.kind === 'deployment_stage' ? c.depends_on.filter((t) => serviceOf(t) !== t) : c.depends_on;
      for (const t of deps) addDep(sid, stepOf.get(t));
      if (c.parent !== undefined) addDep(sid, stepOf.get(c.parent));
    }
  }

  // What each service's deployment waits for: configuration steps in its subtree and its moves
  // into a stage, and those of its environment and project (themselves and their variables).
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
      else if (last === 'variable') put(byScope, parentOf(addr), sid);
    }
  }
  // A move whose service is unknown (not in the plan) holds back every deploy of its environment.
  for (const m of memberMoves) put(m.service !== undefined ? byService : byScope, m.service ?? m.env, m.id);
  for (const group of plan.deploy_order) {
    const env = group.environment;
    const project = addressOf('project', parseAddress(env)[0]!.name);
    let previous: string | undefined;
    group.stages.forEach((stage, i) => {
      if (stage.services.length === 0) return;
      const id = `deploy ${env} stage ${stage.stage ?? '(default)'} #${i}`;
      const needs = new Set<string>([...(byScope.get(env) ?? []), ...(byScope.get(project) ?? [])]);
      if (previous) needs.add(previous);
      const stageStep = stage.stage === null ? undefined : stepOf.get(addressOf('deployment_stage', stage.stage, env));
      if (stageStep !== undefined && !stageStep.startsWith('delete')) needs.add(stageStep);
      for (const s of stage.services) for (const sid of byService.get(s) ?? []) needs.add(sid);
      steps.push({ type: 'deploy', id, environment: env, stage: stage.stage, services: stage.services, dependsOn: [...needs] });
      previous = id;
    });
  }

  for (const s of steps) if (s.type !== 'deploy') s.dependsOn = [...(edges.get(s.id) ?? [])];
  return steps;
}

/** Kinds whose variables the API can import in bulk (`POST /variable/import?service_type=`): the services that hold variables. */
const importServiceKinds = (): readonly string[] => variableHoldingServiceKinds();

/**
 * Variables created by one import request per service: plain values only, since an import
 * carries just name, value, scope and is_secret (a secret needs its fingerprint in the
 * description; files, aliases, overrides and described variables need fields it lacks), and
 * none that another change waits for (an import does not answer the ids). Two or more per service,
 * else the single create is as cheap. Keyed by every batched variable's address.
 */
export function importBatches(changes: ResourceChange[]): Map<Address, { service: Address; changes: ResourceChange[] }> {
  const referenced = new Set(changes.flatMap((c) => c.depends_on));
  const byService = new Map<Address, ResourceChange[]>();
  for (const c of changes) {
    if (c.kind !== 'variable' || stepActionOf(c) !== 'create' || c.parent === undefined || referenced.has(c.address)) continue;
    if (!importServiceKinds().includes(parseAddress(c.parent).pop()!.kind) || !isPlainValue(c)) continue;
    push(byService, c.parent, c);
  }
  const out = new Map<Address, { service: Address; changes: ResourceChange[] }>();
  for (const [service, list] of byService) {
    if (list.length < 2) continue;
    const batch = { service, changes: list };
    for (const c of list) out.set(c.address, batch);
  }
  return out;
}

function isPlainValue(c: ResourceChange): boolean {
  const a = c.after ?? {};
  const plainKeys = new Set(['key', 'value', 'variable_type', 'is_secret']);
  return (
    (a.variable_type ?? 'VALUE') === 'VALUE' &&
    a.is_secret !== true &&
    (a.value === undefined || typeof a.value === 'string') &&
    Object.keys(a).every((k) => plainKeys.has(k) || a[k] === undefined) &&
    (c.sensitive_fields ?? []).length === 0 &&
    Object.keys(c.fingerprints ?? {}).length === 0
  );
}

/** The members a stage change adds: all of them for a new stage, else those not live in it. */
function gainedMembers(c: ResourceChange, action: ChangeAction): string[] {
  const want = (c.after?.services as string[] | undefined) ?? [];
  if (action !== 'update') return want;
  const before = c.fields.find((f) => f.field === 'services')?.before;
  const live = Array.isArray(before) ? (before as string[]) : ((c.before?.services as string[] | undefined) ?? []);
  return want.filter((name) => !live.includes(name));
}

/** Service addresses by environment and name, from every change of the plan (no-ops included). */
function servicesByEnvironment(plan: Plan): Map<Address, Map<string, Address>> {
  const out = new Map<Address, Map<string, Address>>();
  for (const c of plan.changes) {
    if (!isServiceKind(c.kind)) continue;
    const env = parentOf(c.address);
    let m = out.get(env);
    if (!m) out.set(env, (m = new Map()));
    m.set(c.name, c.address);
  }
  return out;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

export function serviceKindOfAddress(address: Address): ServiceKind {
  return parseAddress(address).pop()!.kind as ServiceKind;
}
