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
import { parseAddress, addressOf } from '../model/resource.js';
import { isSecretValue } from '../model/secret.js';
import { kindDescriptor } from '../model/kinds/index.js';
import { splitFingerprintMarker, withFingerprintMarker } from '../plan/fingerprint.js';
import { canCarryMark, withProtectMark } from '../plan/protect-mark.js';
import { desiredFingerprints } from '../plan/compare.js';
import type { ApiRecord } from '../live/read.js';
import type { IdRegistry } from './refs.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !isSecretValue(v);

/** Fields each request body accepts (used to reduce a live record to a PUT body): the kind's descriptor's. */
function requestFieldsOf(kind: ResourceKind): readonly string[] | undefined {
  return kindDescriptor(kind).requestFields;
}

const GIT_FIELDS = ['url', 'branch', 'root_path', 'provider', 'git_token_id'];
const PORT_FIELDS = ['id', 'name', 'internal_port', 'external_port', 'protocol', 'publicly_accessible', 'is_default', 'public_path', 'public_path_rewrite', 'service_name', 'namespace'];

const STORAGE_FIELDS = ['id', 'type', 'size', 'mount_point'];
/** Top-level fields a record may answer null that the API's edit requests type without null. */
const NULL_MEANS_UNSET = ['instance_type'];

function pick(o: Obj, fields: readonly string[]): Obj {
  const out: Obj = {};
  for (const f of fields) if (o[f] !== undefined) out[f] = o[f];
  return out;
}

/**
 * `pick` for the items of a port, storage or git repository object: a null is left out. The API's
 * document types none of these fields nullable (an unset optional field is absent), so copying a
 * live `"external_port": null` back into a full-replacement PUT would send a value the API's
 * schema refuses; leaving it out keeps the field unset, which is what the null meant.
 */
function pickSet(o: Obj, fields: readonly string[]): Obj {
  const out: Obj = {};
  for (const f of fields) if (o[f] !== undefined && o[f] !== null) out[f] = o[f];
  return out;
}

function gitProviderOf(url: unknown): string {
  const u = String(url ?? '').toLowerCase();
  if (u.includes('gitlab')) return 'GITLAB';
  if (u.includes('bitbucket')) return 'BITBUCKET';
  return 'GITHUB';
}

function gitRequest(g: unknown): Obj | undefined {
  if (!isObj(g)) return undefined;
  const out = pickSet(g, GIT_FIELDS);
  if (out.provider === undefined) out.provider = gitProviderOf(out.url);
  return out;
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
  if (fields.includes('registry_id') && out.registry_id === undefined && isObj(record.registry)) out.registry_id = record.registry.id;
  if (out.git_repository !== undefined) out.git_repository = gitRequest(out.git_repository);
  if (Array.isArray(out.ports)) out.ports = (out.ports as Obj[]).map((p) => pickSet(p, PORT_FIELDS));
  if (Array.isArray(out.storage)) out.storage = (out.storage as Obj[]).map((st) => pickSet(st, STORAGE_FIELDS));
  for (const g of ['annotations_groups', 'labels_groups'] as const) {
    if (Array.isArray(out[g])) out[g] = (out[g] as Obj[]).map((x) => ({ id: x.id }));
  }
  if (kind === 'job' && isObj(out.source)) out.source = jobSourceFromRecord(out.source);
  if (kind === 'helm' && isObj(out.source)) out.source = helmSourceFromRecord(out.source);
  if (kind === 'terraform' && isObj(out.terraform_files_source) && isObj(out.terraform_files_source.git_repository)) {
    out.terraform_files_source = { ...out.terraform_files_source, git_repository: gitRequest(out.terraform_files_source.git_repository) };
  }
  if (kind === 'alert_rule' && Array.isArray(record.alert_receiver_ids)) out.alert_receiver_ids = [...record.alert_receiver_ids];
  return out;
}

function jobSourceFromRecord(src: Obj): Obj {
  if (isObj(src.image)) {
    const i = src.image;
    return { image: { image_name: i.image_name, tag: i.tag, registry_id: i.registry_id ?? (isObj(i.registry) ? i.registry.id : undefined) } };
  }
  if (isObj(src.docker)) {
    const d = src.docker;
    return { docker: { ...pick(d, ['dockerfile_path', 'dockerfile_raw', 'docker_target_build_stage']), git_repository: gitRequest(d.git_repository) } };
  }
  return src;
}

/**
 * A helm record's source in request shape. The API answers `{repository: {chart_name,
 * chart_version, repository: {id, name, url}}}` | `{git: {git_repository}}`; the request takes
 * `{helm_repository: {repository: <id>, chart_name, chart_version}}` | `{git_repository}`. A source
 * already in request shape passes through.
 */
function helmSourceFromRecord(src: Obj): Obj {
  if (isObj(src.repository)) {
    const r = src.repository;
    return { helm_repository: { repository: isObj(r.repository) ? r.repository.id : r.repository, chart_name: r.chart_name, chart_version: r.chart_version } };
  }
  if (isObj(src.git) && isObj(src.git.git_repository)) return { git_repository: gitRequest(src.git.git_repository) };
  if (isObj(src.git_repository)) return { git_repository: gitRequest(src.git_repository) };
  if (isObj(src.helm_repository)) return { helm_repository: pick(src.helm_repository, ['repository', 'chart_name', 'chart_version']) };
  return src;
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
    publicly_accessible: p.publicly_accessible ?? lp?.publicly_accessible ?? false,
    // The edit request's port list is the answer's (ServicePort: protocol required); HTTP is the
    // API's default, which the port created by this edit gets anyway.
    ...(edit ? { protocol: p.protocol ?? lp?.protocol ?? 'HTTP' } : {}),
  }));
}

/** Desired storage matched to live storage by mount_point, so that the PUT keeps their ids. */
function storageWithIds(desired: unknown, live: unknown): unknown {
  if (!Array.isArray(desired)) return desired;
  return pairByKey(desired as Obj[], live, 'mount_point').map(([st, ls]) => ({ ...(ls && ls.id !== undefined ? { id: ls.id } : {}), ...st }));
}

export interface BodyContext {
  address: Address;
  refs: IdRegistry;
  /** Key of the secret fingerprints written into descriptions. */
  fingerprintKey: string;
  /** Fingerprints of secrets this request does not write (ignored), kept in the marker as the live record has them. */
  keptFingerprints?: Record<string, string>;
  /** Projects and services: whether the description carries the protect mark (src/plan/protect-mark.ts). */
  protectMark?: boolean;
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
  if (kind === 'container' && typeof a.registry === 'string') {
    a.registry_id = refs.idOf('container_registry', a.registry, address);
    delete a.registry;
  }
  if (kind === 'job' && isObj(a.source)) {
    const s = a.source;
    if (isObj(s.image)) {
      const { registry, ...rest } = s.image;
      a.source = { image: { ...rest, ...(typeof registry === 'string' ? { registry_id: refs.idOf('container_registry', registry, address) } : {}) } };
    } else if (isObj(s.docker)) {
      a.source = { docker: { ...s.docker, git_repository: gitRequest(s.docker.git_repository) } };
    }
  }
  if (kind === 'helm' && isObj(a.source) && isObj(a.source.git_repository)) a.source = { git_repository: gitRequest(a.source.git_repository) };
  // The manifest names the chart repository; the API wants the id of the organization's helm repository.
  if (kind === 'helm' && isObj(a.source) && isObj(a.source.helm_repository) && typeof a.source.helm_repository.repository === 'string') {
    const h = a.source.helm_repository;
    a.source = { helm_repository: { ...h, repository: refs.idOf('helm_repository', h.repository as string, address) } };
  }
  if (kind === 'terraform' && isObj(a.terraform_files_source)) {
    a.terraform_files_source = { ...a.terraform_files_source, git_repository: gitRequest(a.terraform_files_source.git_repository) };
  }
  if (kind === 'alert_rule') {
    if (Array.isArray(a.alert_receivers)) a.alert_receiver_ids = (a.alert_receivers as string[]).map((n) => refs.idOf('alert_receiver', n, address));
    delete a.alert_receivers;
    delete a.target;
  }
  if (kind === 'environment') delete a.cluster;
  if (kind === 'deployment_stage') {
    delete a.services;
    delete a.after;
  }
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
  if (kind === 'job') keepUnownedJobFields(body, base);
  // values_override: each part the manifest sets replaces the live one; set_json, and a values file
  // from git, cannot be declared and stay unless the manifest sets a values file of its own.
  if (kind === 'helm' && isObj(desired.values_override) && isObj(base.values_override)) {
    body.values_override = { ...base.values_override, ...desired.values_override };
  }
  const fields = new Set(requestFieldsOf(kind) ?? Object.keys(body));
  return Object.fromEntries(Object.entries(body).filter(([k]) => fields.has(k)));
}

/**
 * `source` and `schedule` are replaced whole (a job may switch image <-> docker, cron <-> lifecycle),
 * but a manifest cannot declare a lifecycle job's lifecycle_type nor a docker job's dockerfile_raw /
 * docker_target_build_stage: when the kind of source / schedule stays, the live values are kept.
 */
function keepUnownedJobFields(body: Obj, base: Obj): void {
  const bs = body.schedule, ls = base.schedule;
  if (isObj(bs) && isObj(ls) && bs !== ls && !isObj(bs.cronjob) && !isObj(ls.cronjob) && bs.lifecycle_type === undefined && ls.lifecycle_type !== undefined) {
    body.schedule = { ...bs, lifecycle_type: ls.lifecycle_type };
  }
  const bd = isObj(body.source) ? body.source.docker : undefined, ld = isObj(base.source) ? base.source.docker : undefined;
  if (isObj(bd) && isObj(ld) && bd !== ld) {
    const kept: Obj = {};
    for (const f of ['dockerfile_raw', 'docker_target_build_stage']) if (bd[f] === undefined && ld[f] !== undefined && ld[f] !== null) kept[f] = ld[f];
    if (Object.keys(kept).length > 0) body.source = { docker: { ...bd, ...kept } };
  }
}

/** Defaults for request fields the API requires but the manifest may leave out (the kind's descriptor's; a copy). */
function createDefaults(kind: ResourceKind): Obj {
  return structuredClone({ ...kindDescriptor(kind).createDefaults }) as Obj;
}

/** A create body: defaults, then the desired attrs in request shape. */
export function createBody(kind: ResourceKind, attrs: Obj, ctx: BodyContext): Obj {
  const desired = desiredToRequest(kind, attrs, ctx);
  const body = overlay(createDefaults(kind), desired);
  if (kind === 'alert_rule' && isObj(body.condition)) {
    body.condition = { kind: 'CUSTOM', operator: 'NONE', function: 'NONE', threshold: 0, ...body.condition };
  }
  if (Array.isArray(body.ports)) body.ports = portsWithIds(body.ports, undefined);
  if (body.description === null && (kind === 'terraform' || kind === 'alert_rule' || kind === 'alert_receiver')) body.description = '';
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
