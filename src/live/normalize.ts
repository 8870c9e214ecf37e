/**
 * Live API records -> LiveResource, in exactly the attrs shape buildGraph gives desired resources
 * (documented in src/graph/attrs.ts): ids of referenced objects become names through a lookup
 * built from the same live read, set-like lists are sorted, fingerprint markers are stripped from
 * descriptions (and returned as `fingerprints`), and secret values are never present.
 *
 * fetchLiveState (src/live/fetch.ts, the apply track) decides which requests to make; it calls
 * `buildLiveLookup` once with the organization-level lists and the services it read, then
 * `normalizeLive` for each record with the address of its parent.
 */
import { createHash } from 'node:crypto';
import type { Address, LiveResource, ResourceKind, ServiceKind } from '../model/resource.js';
import { addressOf } from '../model/resource.js';
import { kindDescriptor, serviceKindOfApiType } from '../model/kinds/index.js';
import { canCarryMark, splitProtectMark } from '../plan/protect-mark.js';
import type { ApiRecord, LiveLookup, LiveServiceRef, NormalizeExtra, RecordAttrs } from './record-helpers.js';

export interface LiveLookupInput {
  clusters?: ApiRecord[];
  registries?: ApiRecord[];
  helmRepositories?: ApiRecord[];
  annotationsGroups?: ApiRecord[];
  labelsGroups?: ApiRecord[];
  alertReceivers?: ApiRecord[];
  /** Every service record read, with the names of its environment and project. */
  services?: Array<{ record: ApiRecord; environment: string; project: string }>;
}

export function buildLiveLookup(input: LiveLookupInput): LiveLookup {
  const byName = (list: ApiRecord[] | undefined) => new Map((list ?? []).map((r) => [String(r.id), String(r.name)]));
  const services = new Map<string, LiveServiceRef>();
  for (const s of input.services ?? []) {
    const kind = serviceKindOf(s.record);
    if (kind) services.set(String(s.record.id), { name: String(s.record.name), kind, environment: s.environment, project: s.project });
  }
  return {
    clusters: byName(input.clusters),
    registries: byName(input.registries),
    helmRepositories: byName(input.helmRepositories),
    annotationsGroups: byName(input.annotationsGroups),
    labelsGroups: byName(input.labelsGroups),
    alertReceivers: byName(input.alertReceivers),
    services,
  };
}

/** The service kind of a record from `GET /environment/{id}/services` (by `service_type`), if driftless manages it. */
export function serviceKindOf(record: ApiRecord): ServiceKind | undefined {
  const t = typeof record.service_type === 'string' ? record.service_type.toUpperCase() : '';
  return serviceKindOfApiType().get(t);
}

/** A version marker for stale-plan detection: updated_at, else a hash of the record. */
export function versionOf(record: ApiRecord): string {
  if (typeof record.updated_at === 'string' && record.updated_at !== '') return record.updated_at;
  return 'sha256:' + createHash('sha256').update(JSON.stringify(record)).digest('hex').slice(0, 16);
}

export type { NormalizeExtra } from './record-helpers.js';

/**
 * One live record as a LiveResource under `parent` (undefined for organization-level objects).
 * The caller sets `status` for services from the environment's status list.
 */
export function normalizeLive(
  kind: ResourceKind,
  record: ApiRecord,
  parent: Address | undefined,
  lookup: LiveLookup,
  extra: NormalizeExtra = {},
): LiveResource {
  const d = kindDescriptor(kind);
  const name = d.recordName ? d.recordName(record) : String(record.name ?? kind);
  const n = normalizeAttrs(kind, record, lookup, parent === undefined ? extra : { ...extra, parent });
  const res: LiveResource = {
    address: d.singleton ? kind : addressOf(kind, name, parent),
    kind,
    name,
    id: String(record.id ?? ''),
    attrs: n.attrs,
    record,
    version: versionOf(record),
  };
  if (parent !== undefined) res.parent = parent;
  if (n.fingerprints && canCarryMark(kind)) {
    // The protect mark shares the marker with the secrets' fingerprints (src/plan/protect-mark.ts).
    const m = splitProtectMark(n.fingerprints);
    if (m.marked) res.protected = true;
    n.fingerprints = m.fingerprints;
  }
  if (n.fingerprints && Object.keys(n.fingerprints).length > 0) res.fingerprints = n.fingerprints;
  if (n.deployed) res.deployed = n.deployed;
  return res;
}

/** A record's attrs, by its kind's descriptor (src/model/kinds): a service's through serviceFromRecord. */
export function normalizeAttrs(kind: ResourceKind, r: ApiRecord, lookup: LiveLookup, extra: NormalizeExtra = {}): RecordAttrs {
  return kindDescriptor(kind).fromRecord(r, lookup, extra);
}
