/**
 * The API calls that create, update and delete one resource of each kind.
 *
 * Every write uses what the plan already read (ids, records) or what an earlier write of this
 * apply returned: no GET before a write. The only reads here are on failure paths: an ambiguous
 * create (timeout, dropped connection, 5xx) is resolved by looking the object up by name before
 * it is tried again, so a re-run never creates a duplicate; and replacing a service waits until the
 * asynchronous delete is done, because the new one takes the same name.
 */
import type { Address, DesiredResource, ResourceKind, ServiceKind } from '../model/resource.js';
import { addressOf, isCaseInsensitiveKind, isServiceKind, parseAddress } from '../model/resource.js';
import type { ResourceChange } from '../plan/types.js';
import { compact } from '../graph/attrs.js';
import { SERVICE_KINDS, readOnlyKinds, serviceMappings, variableScopeOf } from '../model/kinds/index.js';
import { withFingerprintMarker, splitFingerprintMarker } from '../plan/fingerprint.js';
import { splitProtectMark } from '../plan/protect-mark.js';
import { isAmbiguousFailure, isNotFound, isRateLimitWaitRefusal, errorMessage, errorStatus, type ApiPort } from '../live/api-port.js';
import { listResults, type ApiRecord } from '../live/read.js';
import { routes } from '../api/routes.js';
import { createBody, desiredToRequest, scopeAddress, secretFingerprints, updateBody } from './bodies.js';
import type { BodyContext } from './body-helpers.js';
import type { IdRegistry } from './refs.js';
import type { Timing } from './deploy.js';
import { parentOf } from './steps.js';
import { builtInHash, parseBuiltInKey } from '../model/builtins.js';
import { withArticle } from '../render/words.js';

export interface WriteContext {
  api: ApiPort;
  refs: IdRegistry;
  organizationId: string;
  fingerprintKey: string;
  timing: Timing;
  /** Absolute deadline (timing scale) for waiting on asynchronous deletes. */
  deadline: number;
  pollIntervalMs: number;
}

type Obj = Record<string, unknown>;

/** A user-facing failure of one step (the message names what and why; never a secret). */
export class StepError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message);
    this.name = 'StepError';
  }
}

/** A look-up by name folds case for the kinds whose names the API compares so (their descriptors). */
function sameName(kind: ResourceKind, a: unknown, b: string): boolean {
  const x = String(a ?? '');
  return isCaseInsensitiveKind(kind) ? x.toLowerCase() === b.toLowerCase() : x === b;
}

/** Tries of one create whose earlier tries failed ambiguously (each after a look-up by name). */
const CREATE_TRIES = 4;

/**
 * POST, and on an ambiguous failure (5xx, lost answer, timeout) look the object up by name: found,
 * the create was committed; not found, try again (a few times, so that a flaky API does not fail the
 * step). Never a second POST without a look-up in between, so never a duplicate.
 */
async function createOnce(ctx: WriteContext, path: string, body: Obj, find: () => Promise<ApiRecord | undefined>): Promise<ApiRecord> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.api.post<ApiRecord>(path, body);
    } catch (e) {
      if (!isAmbiguousFailure(e) || attempt >= CREATE_TRIES) throw e;
      // A look-up that fails leaves the outcome unknown: stop rather than risk a second copy.
      const found = await find().catch(() => {
        throw e;
      });
      if (found) return found;
    }
  }
}

async function findIn(ctx: WriteContext, listPath: string, match: (r: ApiRecord) => boolean, query?: Record<string, string>): Promise<ApiRecord | undefined> {
  return listResults(await ctx.api.get(listPath, query)).find(match);
}

interface Collection {
  create: string;
  list: string;
  item: (id: string) => string;
}

function collection(kind: ResourceKind, address: Address, ctx: WriteContext): Collection {
  const org = ctx.organizationId;
  const parent = parentOf(address);
  switch (kind) {
    case 'annotations_group':
      return { create: routes.orgList(org, 'annotationsGroups'), list: routes.orgList(org, 'annotationsGroups'), item: (id) => routes.orgListItem(org, 'annotationsGroups', id) };
    case 'labels_group':
      return { create: routes.orgList(org, 'labelsGroups'), list: routes.orgList(org, 'labelsGroups'), item: (id) => routes.orgListItem(org, 'labelsGroups', id) };
    case 'alert_receiver':
      return { create: routes.alertReceivers(), list: routes.orgList(org, 'alertReceivers'), item: (id) => routes.alertReceiverItem(id) };
    case 'alert_rule':
      return { create: routes.alertRules(), list: routes.orgList(org, 'alertRules'), item: (id) => routes.alertRuleItem(id) };
    case 'webhook':
      return { create: routes.orgList(org, 'webhooks'), list: routes.orgList(org, 'webhooks'), item: (id) => routes.orgListItem(org, 'webhooks', id) };
    case 'project':
      return { create: routes.orgList(org, 'projects'), list: routes.orgList(org, 'projects'), item: (id) => routes.projectItem(id) };
    case 'environment': {
      const pid = ctx.refs.id(parent, address);
      return { create: routes.environments(pid), list: routes.environments(pid), item: (id) => routes.environmentItem(id) };
    }
    case 'deployment_stage': {
      const eid = ctx.refs.id(parent, address);
      return { create: routes.environmentList(eid, 'deploymentStage'), list: routes.environmentList(eid, 'deploymentStage'), item: (id) => routes.stageItem(id) };
    }
    default:
      if (isServiceKind(kind)) {
        const eid = ctx.refs.id(parent, address);
        return { create: routes.environmentServices(eid, kind), list: routes.environmentList(eid, 'services'), item: (id) => routes.serviceItem(kind, id) };
      }
      throw new StepError(`${address}: driftless cannot create or delete ${withArticle(kind)}`);
  }
}

function identityMatch(kind: ResourceKind, name: string): (r: ApiRecord) => boolean {
  if (kind === 'webhook') return (r) => r.target_url === name;
  if (isServiceKind(kind)) return (r) => String(r.service_type ?? '').toLowerCase() === kind && sameName(kind, r.name, name);
  return (r) => sameName(kind, r.name, name);
}

function bodyContext(d: DesiredResource, ctx: WriteContext): BodyContext {
  const kept = keptFingerprints(d, ctx);
  return { address: d.address, refs: ctx.refs, fingerprintKey: ctx.fingerprintKey, ...(kept ? { keptFingerprints: kept } : {}), protectMark: protectMarkOf(d, ctx) };
}

/** The protect mark to write: as the manifest says, else as the live record has it (never dropped by an unrelated update). */
function protectMarkOf(d: DesiredResource, ctx: WriteContext): boolean {
  if (d.protect !== undefined) return d.protect.value;
  if (!ctx.refs.has(d.address)) return false;
  return splitProtectMark(splitFingerprintMarker(ctx.refs.record(d.address)?.description as string | null | undefined).fingerprints).marked;
}

/** The live marker's fingerprints of the secrets an update does not write (`ignore_changes`): kept as they are. */
function keptFingerprints(d: DesiredResource, ctx: WriteContext): Record<string, string> | undefined {
  if (!d.keptFingerprints || !ctx.refs.has(d.address)) return undefined;
  const live = splitFingerprintMarker(ctx.refs.record(d.address)?.description as string | null | undefined).fingerprints;
  const out: Record<string, string> = {};
  for (const f of d.keptFingerprints) if (live[f] !== undefined) out[f] = live[f];
  return Object.keys(out).length > 0 ? out : undefined;
}

// ---- create ----------------------------------------------------------------------------------

export async function createResource(c: ResourceChange, d: DesiredResource, ctx: WriteContext): Promise<ApiRecord> {
  if (readOnlyKinds().has(d.kind)) throw new StepError(`${d.address}: ${withArticle(d.kind)} cannot be created through the API; create it in the console and run plan again`);
  let rec: ApiRecord;
  switch (d.kind) {
    case 'variable':
      rec = await createVariable(d, ctx);
      break;
    case 'alert_receiver':
      rec = await createReceiver(d, ctx);
      break;
    case 'alert_rule':
      rec = await createAlertRule(d, ctx);
      break;
    case 'deployment_stage':
      rec = await createStage(d, ctx);
      break;
    case 'environment': {
      const coll = collection('environment', d.address, ctx);
      const body = { ...createBody('environment', d.attrs, bodyContext(d, ctx)), cluster_id: ctx.refs.idOf('cluster', String(d.attrs.cluster), d.address) };
      rec = await createOnce(ctx, coll.create, body, () => findIn(ctx, coll.list, identityMatch('environment', d.name)));
      break;
    }
    case 'webhook':
      rec = await createWebhook(d, ctx);
      break;
    default:
      // A service declared as a copy of another (a database's `clone_from`) is cloned from it.
      rec = d.cloneFrom ? await createAsClone(d, ctx) : await createGeneric(d, ctx);
  }
  ctx.refs.set(c.address, rec);
  return rec;
}

async function createGeneric(d: DesiredResource, ctx: WriteContext): Promise<ApiRecord> {
  const coll = collection(d.kind, d.address, ctx);
  const body = createBody(d.kind, d.attrs, bodyContext(d, ctx));
  return createOnce(ctx, coll.create, body, () => findIn(ctx, coll.list, identityMatch(d.kind, d.name)));
}

/**
 * The API does not keep webhook target URLs unique, so two applies racing (two CI jobs) could
 * each create one. After the create, the copies of this target URL are listed: the oldest is kept
 * (ties by id, so every racer keeps the same one) and the others deleted.
 */
async function createWebhook(d: DesiredResource, ctx: WriteContext): Promise<ApiRecord> {
  const created = await createGeneric(d, ctx);
  const coll = collection('webhook', d.address, ctx);
  let same: ApiRecord[];
  try {
    same = listResults(await ctx.api.get(coll.list)).filter(identityMatch('webhook', d.name));
  } catch {
    // The webhook exists: a check that could not run (interrupted, API failing) does not undo that.
    return created;
  }
  if (same.length <= 1) return created;
  same.sort((a, b) => String(a.created_at ?? '').localeCompare(String(b.created_at ?? '')) || String(a.id).localeCompare(String(b.id)));
  for (const extra of same.slice(1)) {
    await ctx.api.delete(coll.item(String(extra.id))).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  }
  return same[0]!;
}

/** The API's clone call (`POST /database/{id}/clone`, the only kind that has one), then the manifest's own settings. */
async function createAsClone(d: DesiredResource, ctx: WriteContext): Promise<ApiRecord> {
  const source = ctx.refs.id(d.cloneFrom!, d.address);
  const envId = ctx.refs.id(parentOf(d.address), d.address);
  const coll = collection(d.kind, d.address, ctx);
  const cloned = await createOnce(ctx, routes.databaseClone(source), { name: d.name, environment_id: envId }, () =>
    findIn(ctx, coll.list, identityMatch(d.kind, d.name)),
  );
  // The clone copies the source's configuration; what the manifest sets on top is applied now.
  const own = Object.keys(d.attrs).filter((k) => !['name', 'type', 'mode'].includes(k));
  if (own.length === 0) return cloned;
  const updated = await ctx.api.put<ApiRecord>(routes.serviceItem(d.kind as ServiceKind, cloned.id), updateBody(d.kind, d.attrs, cloned, bodyContext(d, ctx)));
  return updated ?? cloned;
}

function receiverBody(d: DesiredResource, ctx: WriteContext, base?: ApiRecord): Obj {
  const b = base ? updateBody('alert_receiver', d.attrs, base, bodyContext(d, ctx)) : createBody('alert_receiver', d.attrs, bodyContext(d, ctx));
  return b;
}

/** The API's validation call sends a test message; a receiver that fails it is not written. */
async function validateReceiver(d: DesiredResource, body: Obj, ctx: WriteContext): Promise<void> {
  const validate = () =>
    ctx.api.post(routes.alertReceiverValidate(), {
      alert_receiver: { ...body, organization_id: ctx.organizationId },
      message: `driftless: test message for alert receiver "${d.name}" before it is saved`,
    });
  try {
    // Validation stores nothing: a 5xx or a lost answer is asked again (at worst, one more test message).
    for (let attempt = 1; ; attempt++) {
      try {
        await validate();
        break;
      } catch (e) {
        if (attempt >= 3 || !isAmbiguousFailure(e)) throw e;
      }
    }
  } catch (e) {
    const status = errorStatus(e);
    // Not a verdict on the receiver: the token was refused, or the request was not sent at all
    // (its rate-limit wait exceeds --max-wait).
    if (status === 401 || status === 403 || isRateLimitWaitRefusal(e)) throw e;
    if (isAmbiguousFailure(e)) {
      throw new StepError(`${d.address}: the alert receiver could not be validated (the API failed) and was not saved: ${errorMessage(e)}`, 'Run apply again.');
    }
    throw new StepError(`${d.address}: the alert receiver failed validation and was not saved: ${errorMessage(e)}`,
      'Check the receiver settings (webhook URL, SMTP host and credentials) and run apply again.');
  }
}

async function createReceiver(d: DesiredResource, ctx: WriteContext): Promise<ApiRecord> {
  const body = receiverBody(d, ctx);
  await validateReceiver(d, body, ctx);
  const coll = collection('alert_receiver', d.address, ctx);
  return createOnce(ctx, coll.create, { ...body, organization_id: ctx.organizationId }, () =>
    findIn(ctx, coll.list, identityMatch('alert_receiver', d.name)),
  );
}

function alertRuleTarget(d: DesiredResource, ctx: WriteContext): { target: Obj; cluster_id: string } {
  const t = d.attrs.target as { cluster?: string; project?: string; environment?: string; service?: string } | undefined;
  if (!t) throw new StepError(`${d.address}: the alert rule has no target`);
  if (t.cluster !== undefined) {
    const id = ctx.refs.idOf('cluster', t.cluster, d.address);
    return { target: { target_type: 'CLUSTER', target_id: id }, cluster_id: id };
  }
  const env = addressOf('environment', t.environment!, addressOf('project', t.project!));
  const svc = ctx.refs.serviceAddress(env, t.service!);
  if (!svc) throw new StepError(`${d.address}: target service ${t.service} does not exist in ${env}`);
  const kind = parseAddress(svc).pop()!.kind;
  const envRec = ctx.refs.record(env);
  const clusterId = String(envRec?.cluster_id ?? '');
  return { target: { target_type: kind.toUpperCase(), target_id: ctx.refs.id(svc, d.address) }, cluster_id: clusterId };
}

async function createAlertRule(d: DesiredResource, ctx: WriteContext): Promise<ApiRecord> {
  const coll = collection('alert_rule', d.address, ctx);
  const body = { ...createBody('alert_rule', d.attrs, bodyContext(d, ctx)), organization_id: ctx.organizationId, ...alertRuleTarget(d, ctx) };
  return createOnce(ctx, coll.create, body, () => findIn(ctx, coll.list, identityMatch('alert_rule', d.name)));
}

async function createStage(d: DesiredResource, ctx: WriteContext): Promise<ApiRecord> {
  const coll = collection('deployment_stage', d.address, ctx);
  const find = () => findIn(ctx, coll.list, identityMatch('deployment_stage', d.name));
  const body = createBody('deployment_stage', d.attrs, bodyContext(d, ctx));
  let rec: ApiRecord;
  try {
    rec = await createOnce(ctx, coll.create, body, find);
  } catch (e) {
    // The API creates a DEFAULT stage with every environment: a manifest declaring it for an
    // environment created by this apply finds it there (409). Adopt it, with the declared fields.
    const existing = errorStatus(e) === 409 ? await find() : undefined;
    if (!existing) throw e;
    rec = existing;
    if ((body.name !== undefined && body.name !== rec.name) || (body.description !== undefined && body.description !== rec.description)) {
      rec = await ctx.api.put<ApiRecord>(routes.stageItem(rec.id), updateBody('deployment_stage', d.attrs, rec, bodyContext(d, ctx)));
    }
  }
  ctx.refs.set(d.address, rec);
  await orderStage(d, rec, undefined, ctx);
  return rec;
}

/**
 * Puts the stage after its predecessor. Its members are moved in by `moveIntoStage`, one step per
 * service (see steps.ts), so that the stage does not wait for the creation of all its services.
 */
async function orderStage(d: DesiredResource, rec: ApiRecord, liveAfter: unknown, ctx: WriteContext): Promise<void> {
  const env = parentOf(d.address);
  const after = d.attrs.after as string | undefined;
  if (after !== undefined && after !== liveAfter) {
    const afterId = ctx.refs.id(addressOf('deployment_stage', after, env), d.address);
    await ctx.api.put(routes.stageMoveAfter(rec.id, afterId));
  }
}

/** Moves one service the manifest lists into its stage (the stage exists: its step ran first). */
export async function moveIntoStage(stage: ResourceChange, member: string, ctx: WriteContext): Promise<void> {
  const env = parentOf(stage.address);
  const svc = ctx.refs.serviceAddress(env, member);
  if (!svc) throw new StepError(`${stage.address}: service ${member} is not in ${env}`);
  await ctx.api.put(routes.stageService(ctx.refs.id(stage.address), ctx.refs.id(svc, stage.address)));
}

async function createVariable(d: DesiredResource, ctx: WriteContext): Promise<ApiRecord> {
  const a = d.attrs;
  const parent = parentOf(d.address);
  const parentKind = parseAddress(parent).pop()!.kind;
  const scope = variableScopeOf(parentKind);
  if (!scope) throw new StepError(`${d.address}: variables cannot be declared on ${withArticle(parentKind)}`);
  const parentId = ctx.refs.id(parent, d.address);
  const type = String(a.variable_type ?? 'VALUE');
  const description = variableDescription(d, ctx, a.description as string | null | undefined);
  const find = () => findIn(ctx, routes.variables(), (r) => r.key === a.key && r.scope === scope, { parent_id: parentId, scope });
  if (type === 'ALIAS' || type === 'OVERRIDE') {
    const targetScope = String(type === 'ALIAS' ? a.aliased_scope : a.overridden_scope);
    const targetKey = String(type === 'ALIAS' ? a.aliased_key : a.key);
    const targetId =
      type === 'ALIAS' && typeof a.aliased_service === 'string'
        ? await builtInTargetId(d, a.aliased_service, String(a.aliased_builtin), parentId, scope, ctx)
        : await variableTargetId(d, targetScope, targetKey, parentId, scope, ctx);
    const body =
      type === 'ALIAS'
        ? compact({ key: a.key, alias_scope: scope, alias_parent_id: parentId, description })
        : compact({ value: a.value, override_scope: scope, override_parent_id: parentId, description });
    return createOnce(ctx, routes.variableDerived(targetId, type === 'ALIAS' ? 'alias' : 'override'), body, find);
  }
  const body = compact({
    key: a.key,
    value: a.value ?? (type === 'EXTERNAL_SECRET' ? (a.reference ?? '') : ''),
    mount_path: a.mount_path,
    is_secret: a.is_secret === true,
    variable_scope: scope,
    variable_parent_id: parentId,
    description,
    enable_interpolation_in_file: a.enable_interpolation_in_file,
    secret_manager_access_id: a.secret_manager_access_id,
  });
  return createOnce(ctx, routes.variables(), body, find);
}

function variableDescription(d: DesiredResource, ctx: WriteContext, description: string | null | undefined): string | null | undefined {
  const fps = { ...keptFingerprints(d, ctx), ...secretFingerprints(d.attrs, ctx.fingerprintKey) };
  if (Object.keys(fps).length === 0) return description;
  return withFingerprintMarker(description, fps);
}

/** The id of the variable an alias or override points to: from the plan's reads, else one list call. */
async function variableTargetId(d: DesiredResource, targetScope: string, key: string, parentId: string, scope: string, ctx: WriteContext): Promise<string> {
  if (targetScope === 'PROJECT' || targetScope === 'ENVIRONMENT') {
    const target = `${scopeAddress(d.address, targetScope)}/variable.${key}`;
    if (ctx.refs.has(target)) return ctx.refs.id(target);
  }
  // Not declared in the manifest (or built in): the unified list of the variable's own parent
  // includes every variable it inherits.
  const found = await findIn(ctx, routes.variables(), (r) => r.key === key && r.scope === targetScope, { parent_id: parentId, scope });
  if (!found) throw new StepError(`${d.address}: there is no ${targetScope} variable ${key} to ${d.attrs.variable_type === 'ALIAS' ? 'alias' : 'override'}`);
  return found.id;
}

/**
 * The id of the built-in an `alias: {service, builtin}` points to, found in the alias's own list
 * (it holds the environment's built-ins): the one of that service (by `service_id`, else by the
 * hash of its key) with that suffix. The service may have been created by this apply: its step
 * ran first (the alias depends on it), and the platform creates its built-ins with it.
 */
async function builtInTargetId(d: DesiredResource, service: string, builtin: string, parentId: string, scope: string, ctx: WriteContext): Promise<string> {
  const env = scopeAddress(d.address, 'ENVIRONMENT');
  const svc = ctx.refs.serviceAddress(env, service);
  if (svc === undefined) throw new StepError(`${d.address}: service ${service} of ${env} does not exist: there is no built-in ${builtin} to alias`);
  const serviceId = ctx.refs.id(svc, d.address);
  const found = await findIn(ctx, routes.variables(), (r) => {
    const k = typeof r.key === 'string' ? parseBuiltInKey(r.key) : undefined;
    if (r.scope !== 'BUILT_IN' || k?.suffix !== builtin) return false;
    return typeof r.service_id === 'string' ? r.service_id === serviceId : k.hash === builtInHash(serviceId);
  }, { parent_id: parentId, scope });
  if (!found) throw new StepError(`${d.address}: ${svc} has no built-in ${builtin} to alias (yet)`);
  return found.id;
}

// ---- update ----------------------------------------------------------------------------------

export async function updateResource(c: ResourceChange, d: DesiredResource, ctx: WriteContext): Promise<ApiRecord | undefined> {
  const id = ctx.refs.id(c.address);
  const record = ctx.refs.record(c.address) ?? ({ id } as ApiRecord);
  const bc = bodyContext(d, ctx);
  let rec: ApiRecord | undefined;
  switch (d.kind) {
    case 'organization':
      rec = await ctx.api.put<ApiRecord>(routes.organizationItem(id), updateBody('organization', d.attrs, record, bc));
      break;
    case 'cluster':
      await ctx.api.post(routes.clusterUpgrade(id));
      return undefined;
    case 'environment':
      rec = await ctx.api.put<ApiRecord>(routes.environmentItem(id), updateBody('environment', d.attrs, record, bc));
      break;
    case 'project':
      rec = await ctx.api.put<ApiRecord>(routes.projectItem(id), updateBody('project', d.attrs, record, bc));
      break;
    case 'deployment_stage': {
      const changed = new Set(c.fields.map((f) => f.field));
      if (changed.has('name') || changed.has('description')) {
        rec = await ctx.api.put<ApiRecord>(routes.stageItem(id), updateBody('deployment_stage', d.attrs, record, bc));
      }
      const liveAfter = changed.has('after') ? c.fields.find((f) => f.field === 'after')?.before : d.attrs.after;
      await orderStage(d, { ...record, id }, liveAfter, ctx);
      break;
    }
    case 'variable':
      rec = await updateVariable(d, record, ctx);
      break;
    case 'alert_receiver': {
      const body = receiverBody(d, ctx, record);
      await validateReceiver(d, body, ctx);
      rec = await ctx.api.put<ApiRecord>(routes.alertReceiverItem(id), body);
      break;
    }
    default: {
      const coll = collection(d.kind, d.address, ctx);
      rec = await ctx.api.put<ApiRecord>(coll.item(id), updateBody(d.kind, d.attrs, record, bc));
    }
  }
  if (rec && typeof rec === 'object' && rec.id) ctx.refs.set(c.address, rec);
  return rec;
}

async function updateVariable(d: DesiredResource, record: ApiRecord, ctx: WriteContext): Promise<ApiRecord> {
  const a = d.attrs;
  const own = a.description !== undefined ? (a.description as string | null) : splitFingerprintMarker(record.description as string | null).description;
  const body = compact({
    key: a.key,
    // An external secret's reference is written as its value.
    value: a.variable_type === 'ALIAS' ? undefined : a.variable_type === 'EXTERNAL_SECRET' ? (a.value ?? a.reference) : a.value,
    description: variableDescription(d, ctx, own),
    enable_interpolation_in_file: a.enable_interpolation_in_file,
    secret_manager_access_id: a.secret_manager_access_id,
  });
  return ctx.api.put<ApiRecord>(routes.variableItem(record.id), body);
}

// ---- delete ----------------------------------------------------------------------------------

/** Deletes one non-service resource. Already gone (404) counts as deleted. */
export async function deleteResource(c: ResourceChange, ctx: WriteContext): Promise<void> {
  const id = c.id ?? ctx.refs.id(c.address);
  const path = c.kind === 'variable' ? routes.variableItem(id) : collection(c.kind, c.address, ctx).item(id);
  try {
    await ctx.api.delete(path);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  ctx.refs.forget(c.address);
}

/** Each kind's list of ids in the batch delete (its descriptor's). */
const batchField = (kind: ServiceKind): string => serviceMappings(kind).deleteIds;

/**
 * Deletes services of one environment with one batched request. With `wait`, returns only once
 * the environment's service list no longer has them (their names are about to be reused).
 */
export async function deleteServices(env: Address, services: Array<{ address: Address; kind: ServiceKind; id: string }>, ctx: WriteContext, wait: boolean): Promise<void> {
  const envId = ctx.refs.id(env);
  const body: Record<string, string[]> = {};
  for (const k of SERVICE_KINDS) body[batchField(k)] = [];
  for (const s of services) body[batchField(s.kind)]!.push(s.id);
  try {
    await ctx.api.post(routes.environmentDeleteServices(envId), body);
  } catch (e) {
    if (!isAmbiguousFailure(e)) throw e;
    // The answer was lost: the deletion may have been taken. Ask again only for what is still
    // there and not already on its way out.
    const live = listResults(await ctx.api.get(routes.environmentList(envId, 'services')));
    const statuses = await ctx.api.get<Record<string, unknown>>(routes.environmentList(envId, 'statuses')).catch(() => ({}));
    const deleting = new Set<string>();
    for (const v of Object.values(statuses)) {
      if (Array.isArray(v)) for (const st of v as ApiRecord[]) if (/^DELETE|DELETING$/.test(String(st.state ?? ''))) deleting.add(st.id);
    }
    const remaining = services.filter((s) => live.some((r) => r.id === s.id) && !deleting.has(s.id));
    if (remaining.length > 0) {
      const again: Record<string, string[]> = {};
      for (const k of SERVICE_KINDS) again[batchField(k)] = [];
      for (const s of remaining) again[batchField(s.kind)]!.push(s.id);
      await ctx.api.post(routes.environmentDeleteServices(envId), again);
    }
  }
  for (const s of services) ctx.refs.forget(s.address);
  if (!wait) return;
  const ids = new Set(services.map((s) => s.id));
  let interval = ctx.pollIntervalMs;
  for (;;) {
    const live = listResults(await ctx.api.get(routes.environmentList(envId, 'services')));
    if (!live.some((r) => ids.has(r.id))) return;
    if (ctx.timing.now() >= ctx.deadline) throw new StepError(`${env}: timed out waiting for the deletion of ${services.map((s) => s.address).join(', ')}`);
    await ctx.timing.sleep(interval);
    interval = Math.min(interval * 2, 10_000);
  }
}

/** Takes a backup of a database before it is deleted or replaced; returns its name and id. */
export async function backupDatabase(address: Address, id: string, ctx: WriteContext, at: Date): Promise<{ name: string; id: string }> {
  const name = `driftless-${parseAddress(address).pop()!.name}-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
  const rec = await ctx.api.post<ApiRecord>(routes.databaseBackup(id), {
    name,
    message: `Taken by driftless before ${address} is deleted or replaced (--allow-data-loss).`,
  });
  return { name: String(rec?.name ?? name), id: String(rec?.id ?? '') };
}

/** Applies `desiredToRequest` to be sure every reference of a desired resource resolves (used before a replace deletes anything). */
export function checkReferences(d: DesiredResource, ctx: WriteContext): void {
  desiredToRequest(d.kind, d.attrs, bodyContext(d, ctx));
}
