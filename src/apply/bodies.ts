/**
 * Request bodies: desired attrs (names, see src/graph/attrs.ts) -> API request bodies (ids).
 *
 * Pure functions. Update bodies of full-replacement PUTs (containers, jobs, helm, terraform,
 * applications, webhooks, groups, alert rules) start from the live record the plan already read,
 * reduced to the fields the request accepts, with the desired attrs laid over it: fields the
 * manifest does not own keep their live value instead of being reset. Secret values stay
 * `SecretValue`s: the API client reveals them into the wire body only.
 */
import type { Address, DesiredResource, ResourceKind } from '../model/resource.js';
import { parseAddress, addressOf, isServiceKind } from '../model/resource.js';
import { kindDescriptor, serviceMappings, type KindDescriptor, type ServiceMappings } from '../model/kinds/index.js';
import { splitFingerprintMarker, withFingerprintMarker } from '../plan/fingerprint.js';
import { canCarryMark, withProtectMark } from '../plan/protect-mark.js';
import { desiredFingerprints } from '../plan/compare.js';
import type { ApiRecord } from '../live/api-record.js';
import type { IdRegistry } from './refs.js';
import { gitRequest, isObj, pick, pickSet, type BodyContext } from './body-helpers.js';
import { PART_DEFAULTS } from '../export/part-defaults.js';

type Obj = Record<string, unknown>;

/** Fields each request body accepts (used to reduce a live record to a PUT body): the kind's descriptor's. */
function requestFieldsOf(kind: ResourceKind): readonly string[] | undefined {
  return kindDescriptor(kind).requestFields;
}

const PORT_FIELDS = ['id', 'name', 'internal_port', 'external_port', 'protocol', 'publicly_accessible', 'is_default', 'public_path', 'public_path_rewrite', 'service_name', 'namespace'];

const STORAGE_FIELDS = ['id', 'type', 'size', 'mount_point'];
/** Top-level fields a record may answer null that the API's edit requests type without null. */
const NULL_MEANS_UNSET = ['instance_type'];

/**
 * A kind's own request mappings (attrs -> request body, after what every kind shares): a service
 * kind's are in its `service` mappings, any other kind's on its descriptor (src/model/kinds).
 */
function requestMappings(kind: ResourceKind): Pick<KindDescriptor, 'toRequest' | 'recordToRequest' | 'finishCreate'> & Pick<ServiceMappings, 'finishUpdate'> {
  return isServiceKind(kind) ? serviceMappings(kind) : kindDescriptor(kind);
}

/** `[{id, name, ...}]` or `[name]` resolved -> `[{id}]`. */
function groupIds(v: unknown, kind: 'annotations_group' | 'labels_group', refs: IdRegistry, wantedBy: Address): Obj[] {
  if (!Array.isArray(v)) return [];
  return v.map((g) => (typeof g === 'string' ? { id: refs.idOf(kind, g, wantedBy) } : { id: (g as Obj).id }));
}

/** The live record reduced to what the update request accepts, in request shape. */
export function recordToRequest(kind: ResourceKind, record: ApiRecord): Obj {
  const fields = requestFieldsOf(kind) ?? [];
  const out = pick(record, fields);
  // A container-mode database answers `instance_type: null` (seed 2.4), which the edit request
  // types string: left out, it stays unset.
  for (const f of NULL_MEANS_UNSET) if (out[f] === null) delete out[f];
  if (out.git_repository !== undefined) out.git_repository = gitRequest(out.git_repository);
  if (Array.isArray(out.ports)) out.ports = (out.ports as Obj[]).map((p) => pickSet(p, PORT_FIELDS));
  if (Array.isArray(out.storage)) out.storage = (out.storage as Obj[]).map((st) => pickSet(st, STORAGE_FIELDS));
  for (const g of ['annotations_groups', 'labels_groups'] as const) {
    if (Array.isArray(out[g])) out[g] = (out[g] as Obj[]).map((x) => ({ id: x.id }));
  }
  requestMappings(kind).recordToRequest?.(out, record);
  return out;
}

/** Lays desired over base: nested objects merge (the manifest owns only the sub-fields it sets). */
export function overlay(base: Obj, desired: Obj, replaceWhole: ReadonlySet<string> = new Set()): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(desired)) {
    if (v === undefined) continue;
    out[k] = !replaceWhole.has(k) && isObj(v) && isObj(base[k]) ? overlay(base[k] as Obj, v) : v;
  }
  return out;
}

/** Each desired entry with the live entry of the same `key` (undefined when new). */
function pairByKey(desired: Obj[], live: unknown, key: string): Array<[Obj, Obj | undefined]> {
  const byKey = new Map<string, Obj>();
  if (Array.isArray(live)) for (const l of live as Obj[]) byKey.set(String(l[key]), l);
  return desired.map((d) => [d, byKey.get(String(d[key]))]);
}

/** Desired ports matched to live ports by internal_port, so that the PUT keeps their ids. */
function portsWithIds(desired: unknown, live: unknown, edit = false): unknown {
  if (!Array.isArray(desired)) return desired;
  return pairByKey(desired as Obj[], live, 'internal_port').map(([p, lp]) => ({
    ...(lp ? pickSet(lp, PORT_FIELDS) : {}),
    ...p,
    publicly_accessible: p.publicly_accessible ?? lp?.publicly_accessible ?? PART_DEFAULTS.port.publicly_accessible,
    // The edit request's port list is the answer's (ServicePort: protocol required); HTTP is the
    // API's default, which the port created by this edit gets anyway.
    ...(edit ? { protocol: p.protocol ?? lp?.protocol ?? PART_DEFAULTS.port.protocol } : {}),
  }));
}

/** Desired storage matched to live storage by mount_point, so that the PUT keeps their ids. */
function storageWithIds(desired: unknown, live: unknown): unknown {
  if (!Array.isArray(desired)) return desired;
  return pairByKey(desired as Obj[], live, 'mount_point').map(([st, ls]) => ({ ...(ls && ls.id !== undefined ? { id: ls.id } : {}), ...st }));
}

/** Fingerprints of the desired secret values, keyed exactly as computePlan keys them. */
export function secretFingerprints(attrs: Obj, key: string): Record<string, string> {
  return desiredFingerprints({ attrs } as DesiredResource, key);
}

/** Desired attrs in request shape: names resolved to ids, secrets fingerprinted into the description. */
export function desiredToRequest(kind: ResourceKind, attrs: Obj, ctx: BodyContext): Obj {
  const a: Obj = { ...attrs };
  const { refs, address } = ctx;
  for (const g of ['annotations_groups', 'labels_groups'] as const) {
    if (a[g] !== undefined) a[g] = groupIds(a[g], g === 'annotations_groups' ? 'annotations_group' : 'labels_group', refs, address);
  }
  if (a.git_repository !== undefined) a.git_repository = gitRequest(a.git_repository);
  requestMappings(kind).toRequest?.(a, ctx);
  const fps = withProtectMark({ ...ctx.keptFingerprints, ...secretFingerprints(attrs, ctx.fingerprintKey) }, canCarryMark(kind) && ctx.protectMark === true);
  if (Object.keys(fps).length > 0) a.description = withFingerprintMarker(a.description as string | null | undefined, fps);
  return a;
}

const REPLACED_WHOLE = new Set(['source', 'schedule', 'values_override', 'ports', 'healthchecks', 'storage', 'annotations', 'labels', 'scopes', 'events']);

/** A full-replacement update body: live record (request fields only) with the desired attrs laid over it. */
export function updateBody(kind: ResourceKind, attrs: Obj, record: ApiRecord, ctx: BodyContext): Obj {
  const base = recordToRequest(kind, record);
  // A manifest that does not own the description still gets the fingerprint marker written into
  // it: keep the description the record has (someone may have written it in the console).
  const liveDescription = attrs.description === undefined ? splitFingerprintMarker(record.description as string | null | undefined).description : null;
  // A protect mark being cleared from a description that holds nothing else: sent empty, not kept.
  const clearsMark = attrs.description === undefined && liveDescription === null && canCarryMark(kind) && typeof record.description === 'string' && record.description !== '';
  const desired = desiredToRequest(kind, liveDescription !== null ? { ...attrs, description: liveDescription } : clearsMark ? { ...attrs, description: '' } : attrs, ctx);
  if (desired.ports !== undefined) desired.ports = portsWithIds(desired.ports, record.ports, true);
  // A service's storage; a database's `storage` is its size (a number), left as it is.
  if (Array.isArray(desired.storage)) desired.storage = storageWithIds(desired.storage, record.storage);
  const body = overlay(base, desired, REPLACED_WHOLE);
  requestMappings(kind).finishUpdate?.(body, base, desired);
  const fields = new Set(requestFieldsOf(kind) ?? Object.keys(body));
  return Object.fromEntries(Object.entries(body).filter(([k]) => fields.has(k)));
}

/** Defaults for request fields the API requires but the manifest may leave out (the kind's descriptor's; a copy). */
function createDefaults(kind: ResourceKind): Obj {
  return structuredClone({ ...kindDescriptor(kind).createDefaults }) as Obj;
}

/** A create body: defaults, then the desired attrs in request shape. */
export function createBody(kind: ResourceKind, attrs: Obj, ctx: BodyContext): Obj {
  const desired = desiredToRequest(kind, attrs, ctx);
  const body = overlay(createDefaults(kind), desired);
  requestMappings(kind).finishCreate?.(body);
  if (Array.isArray(body.ports)) body.ports = portsWithIds(body.ports, undefined);
  if (body.description === null && kindDescriptor(kind).createDefaults?.description === '') body.description = '';
  return body;
}

/** The address of the scope (project / environment) a variable alias or override points to. */
export function scopeAddress(variableAddress: Address, scope: string): Address {
  const segs = parseAddress(variableAddress);
  const project = addressOf('project', segs[0]!.name);
  if (scope === 'PROJECT') return project;
  if (scope === 'ENVIRONMENT') return addressOf('environment', segs[1]!.name, project);
  throw new Error(`unsupported variable scope ${scope}`);
}
