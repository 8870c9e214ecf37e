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
import { addressOf, parseAddress } from '../model/resource.js';
import { builtInHash, parseBuiltInKey } from '../model/builtins.js';
import { serviceKindOfApiType, serviceMappings } from '../model/kinds/index.js';
import { compact, desc, num, sortedSet } from '../graph/attrs.js';
import { splitFingerprintMarker } from '../plan/fingerprint.js';
import { canCarryMark, splitProtectMark } from '../plan/protect-mark.js';
import { byKey, nameOf, type ApiRecord, type LiveLookup, type LiveServiceRef } from './record-helpers.js';

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

export interface NormalizeExtra {
  /** Clusters: the status record (next_k8s_available_version). */
  clusterStatus?: ApiRecord;
}

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
  const name = nameFor(kind, record);
  const n = normalizeAttrs(kind, record, lookup, extra);
  if (kind === 'variable' && parent !== undefined) Object.assign(n.attrs, builtInTarget(n.attrs, parent, lookup));
  const res: LiveResource = {
    address: kind === 'organization' ? 'organization' : addressOf(kind, name, parent),
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

/**
 * An alias of a service's built-in (`QOVERY_POSTGRESQL_Z5E9B62FB_DATABASE_URL_INTERNAL`) as a
 * manifest names it: `aliased_service` (the service of the alias's environment whose id gives that
 * hash) and `aliased_builtin` (the suffix), compared with `alias: {service, builtin}`. Nothing
 * when no service of the environment has the hash (its service is gone: the alias went with it).
 */
function builtInTarget(attrs: Record<string, unknown>, parent: Address, lookup: LiveLookup): Record<string, unknown> {
  if (attrs.variable_type !== 'ALIAS' || attrs.aliased_scope !== 'BUILT_IN' || typeof attrs.aliased_key !== 'string') return {};
  const key = parseBuiltInKey(attrs.aliased_key);
  const [project, environment] = parseAddress(parent);
  if (!key || project?.kind !== 'project' || environment?.kind !== 'environment') return {};
  const service = servicesByHash(lookup).get(key.hash)?.find(
    (s) => s.project.toLowerCase() === project.name!.toLowerCase() && s.environment.toLowerCase() === environment.name!.toLowerCase(),
  );
  return service ? { aliased_service: service.name, aliased_builtin: key.suffix } : {};
}

const hashIndex = new WeakMap<Map<string, LiveServiceRef>, Map<string, LiveServiceRef[]>>();

/** The lookup's services by the hash of their built-in keys, built once per lookup. */
function servicesByHash(lookup: LiveLookup): Map<string, LiveServiceRef[]> {
  let index = hashIndex.get(lookup.services);
  if (!index) {
    index = new Map();
    for (const [id, ref] of lookup.services) {
      const h = builtInHash(id);
      const list = index.get(h);
      if (list) list.push(ref);
      else index.set(h, [ref]);
    }
    hashIndex.set(lookup.services, index);
  }
  return index;
}

function nameFor(kind: ResourceKind, r: ApiRecord): string {
  if (kind === 'webhook') return String(r.target_url);
  if (kind === 'variable') return String(r.key);
  return String(r.name ?? kind);
}

interface Normalized {
  attrs: Record<string, unknown>;
  fingerprints?: Record<string, string>;
  deployed?: LiveResource['deployed'];
}

export function normalizeAttrs(kind: ResourceKind, r: ApiRecord, lookup: LiveLookup, extra: NormalizeExtra = {}): Normalized {
  switch (kind) {
    case 'organization':
      return {
        attrs: compact({
          name: r.name,
          description: desc(r.description),
          website_url: r.website_url ?? undefined,
          repository: r.repository ?? undefined,
          logo_url: r.logo_url ?? undefined,
          icon_url: r.icon_url ?? undefined,
          admin_emails: Array.isArray(r.admin_emails) ? sortedSet(r.admin_emails) : undefined,
        }),
      };
    case 'cluster': {
      const next = extra.clusterStatus?.next_k8s_available_version ?? r.next_k8s_available_version ?? null;
      // An upgrade (or any deployment) in progress counts as done: asking again would be refused (409).
      const busy = /QUEUED|ING$/.test(String(extra.clusterStatus?.status ?? ''));
      return {
        attrs: {
          kubernetes_version: r.kubernetes_version ?? r.version ?? r.kubernetes ?? null,
          next_k8s_available_version: next,
          upgrade_kubernetes: busy || next === null || next === undefined || next === '',
        },
      };
    }
    case 'container_registry':
    case 'helm_repository':
      return { attrs: compact({ name: r.name, kind: r.kind, url: r.url }) };
    case 'annotations_group':
      return {
        attrs: {
          name: r.name,
          annotations: [...(r.annotations ?? [])]
            .map((a: ApiRecord) => ({ key: String(a.key), value: String(a.value) }))
            .sort(byKey),
          scopes: sortedSet(r.scopes ?? []),
        },
      };
    case 'labels_group':
      return {
        attrs: {
          name: r.name,
          labels: [...(r.labels ?? [])]
            .map((l: ApiRecord) => ({ key: String(l.key), value: String(l.value), propagate_to_cloud_provider: l.propagate_to_cloud_provider === true }))
            .sort(byKey),
        },
      };
    case 'alert_receiver': {
      const d = splitFingerprintMarker(r.description);
      return {
        attrs: compact({
          name: r.name,
          type: r.type,
          description: d.description,
          send_resolved: r.send_resolved,
          owner: r.owner ?? undefined,
          severity: r.severity ?? undefined,
          to: r.to ?? undefined,
          from: r.from ?? undefined,
          smarthost: r.smarthost ?? undefined,
          auth_username: r.auth_username ?? undefined,
          require_tls: r.require_tls ?? undefined,
        }),
        fingerprints: d.fingerprints,
      };
    }
    case 'alert_rule':
      return { attrs: alertRule(r, lookup) };
    case 'webhook': {
      const d = splitFingerprintMarker(r.description);
      return {
        attrs: compact({
          target_url: r.target_url,
          kind: r.kind,
          description: d.description,
          events: sortedSet(r.events ?? []),
          enabled: r.enabled,
          project_names_filter: Array.isArray(r.project_names_filter) ? sortedSet(r.project_names_filter) : undefined,
          environment_types_filter: Array.isArray(r.environment_types_filter) ? sortedSet(r.environment_types_filter) : undefined,
        }),
        fingerprints: d.fingerprints,
      };
    }
    case 'project': {
      // Its description may carry the protect mark (never shown, never compared).
      const d = splitFingerprintMarker(r.description);
      return { attrs: { name: r.name, description: desc(d.description) }, fingerprints: d.fingerprints };
    }
    case 'environment':
      return {
        attrs: compact({
          name: r.name,
          mode: r.mode,
          cluster: nameOf(lookup.clusters, r.cluster_id ?? r.cloud_provider?.cluster),
        }),
      };
    case 'deployment_stage':
      return {
        attrs: {
          name: r.name,
          description: desc(r.description),
          services: sortedSet((r.services ?? []).map((s: ApiRecord) => lookup.services.get(String(s.service_id))?.name ?? `(unknown id ${String(s.service_id)})`)),
          deployment_order: num(r.deployment_order) ?? 0,
        },
      };
    case 'variable':
      return variable(r);
    default:
      return service(kind, r, lookup);
  }
}

function alertRule(r: ApiRecord, lookup: LiveLookup): Record<string, unknown> {
  const t = r.target ?? {};
  let target: Record<string, string>;
  if (String(t.target_type ?? '').trim() === 'CLUSTER') {
    target = { cluster: nameOf(lookup.clusters, t.target_id ?? r.cluster_id) };
  } else {
    const s = lookup.services.get(String(t.target_id));
    target = s
      ? { project: s.project, environment: s.environment, service: s.name }
      : { project: String(t.service?.project_name ?? '?'), environment: String(t.service?.environment_name ?? '?'), service: String(t.service?.name ?? `(unknown id ${String(t.target_id)})`) };
  }
  const c = r.condition ?? {};
  return compact({
    name: r.name,
    description: desc(r.description),
    tag: r.tag ?? undefined,
    condition: compact({ kind: c.kind, promql: c.promql, operator: c.operator, threshold: num(c.threshold), function: c.function }),
    for_duration: r.for_duration ?? undefined,
    severity: r.severity,
    enabled: r.enabled,
    alert_receivers: sortedSet((r.alert_receiver_ids ?? []).map((id: unknown) => nameOf(lookup.alertReceivers, id))),
    presentation: r.presentation ? compact({ summary: r.presentation.summary ?? undefined, runbook_url: r.presentation.runbook_url ?? undefined }) : undefined,
    target,
  });
}

function variable(r: ApiRecord): Normalized {
  const d = splitFingerprintMarker(r.description);
  const isSecret = r.is_secret === true;
  const type = String(r.variable_type ?? (r.mount_path ? 'FILE' : 'VALUE'));
  const aliased = r.aliased_variable ?? r.aliased_secret;
  const overridden = r.overridden_variable ?? r.overridden_secret;
  const attrs: Record<string, unknown> = { key: r.key, variable_type: type, is_secret: isSecret };
  if (!isSecret && type !== 'ALIAS' && type !== 'EXTERNAL_SECRET' && r.value !== undefined && r.value !== null) attrs.value = String(r.value);
  if (r.mount_path) attrs.mount_path = r.mount_path;
  attrs.description = d.description;
  if (typeof r.enable_interpolation_in_file === 'boolean') attrs.enable_interpolation_in_file = r.enable_interpolation_in_file;
  if (type === 'ALIAS' && aliased) {
    attrs.aliased_key = aliased.key;
    attrs.aliased_scope = aliased.scope;
  }
  if (type === 'OVERRIDE' && overridden) attrs.overridden_scope = overridden.scope;
  if (r.secret_manager_access_id) attrs.secret_manager_access_id = r.secret_manager_access_id;
  // The API has no field for the reference of an external secret: it is written as the value.
  if (type === 'EXTERNAL_SECRET' && (r.reference ?? r.value) != null) attrs.reference = String(r.reference ?? r.value);
  return { attrs, fingerprints: d.fingerprints };
}

function groupNames(list: unknown, map: Map<string, string>): string[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return sortedSet(list.map((g: ApiRecord) => (typeof g.name === 'string' ? g.name : nameOf(map, g.id))));
}

function service(kind: ServiceKind, r: ApiRecord, lookup: LiveLookup): Normalized {
  // Its description may carry driftless's marker: the protect mark, a terraform service's fingerprints.
  const marker = splitFingerprintMarker(r.description);
  const a: Record<string, unknown> = {
    name: r.name,
    description: desc(marker.description),
  };
  if (r.icon_uri !== undefined && r.icon_uri !== null) a.icon_uri = r.icon_uri;
  const ag = groupNames(r.annotations_groups, lookup.annotationsGroups);
  if (ag) a.annotations_groups = ag;
  const lg = groupNames(r.labels_groups, lookup.labelsGroups);
  if (lg) a.labels_groups = lg;
  // The kind's own fields: its descriptor's mapping (src/model/kinds).
  const deployed = serviceMappings(kind).fromRecord(r, a, lookup);
  return deployed ? { attrs: a, fingerprints: marker.fingerprints, deployed } : { attrs: a, fingerprints: marker.fingerprints };
}
