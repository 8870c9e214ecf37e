/**
 * What a kind's export mapping is given (ExportContext) and the manifest-writing helpers the kind
 * descriptors (src/model/kinds, `toManifest`) share, in a module that does not import the kind
 * registry: the registry imports the descriptors, and ./to-manifest.ts imports the registry (no
 * import cycle). The compute helpers take the kind's descriptor (its defaults), not its name.
 */
import type { Address, LiveResource } from '../model/resource.js';
import type { PlaceholderAllocator } from './placeholders.js';
import { args } from '../live/record-helpers.js';
import { withoutKindDefaults, withoutPartDefaults, type KindDefaults } from './part-defaults.js';
import { DESCRIPTION_MAX_LENGTH, markerLength } from '../plan/fingerprint.js';

export type Doc = Record<string, unknown>;

/** A `${env:NAME}` placeholder, kept apart from ordinary strings until they are escaped. */
export class EnvRef {
  constructor(readonly text: string) {}
}

/** What the export of one object needs besides the object (the descriptors' toManifest get it too). */
export interface ExportContext {
  children: Map<Address | undefined, LiveResource[]>;
  secrets: PlaceholderAllocator;
  warnings: string[];
}

/** Drops undefined, null, empty lists and empty objects. */
export function clean(doc: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(doc)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (typeof v === 'object' && !Array.isArray(v) && !(v instanceof EnvRef) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

/** A list of strings as the record gives it (the reader's own `args`). */
export const strs = args;

export const obj = (v: unknown): Doc => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : {});

export function gitRepository(g: unknown, omit: string[] = []): Doc {
  const r = obj(g);
  const doc = withoutPartDefaults('git_repository', { url: r.url, branch: r.branch, root_path: r.root_path, provider: r.provider });
  for (const k of omit) delete (doc as Doc)[k];
  return doc;
}

export function ports(list: unknown): Doc[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((p: Doc) =>
    withoutPartDefaults('port', { name: p.name, internal_port: p.internal_port, external_port: p.external_port, protocol: p.protocol, publicly_accessible: p.publicly_accessible }),
  );
}

/** A normalized probe (src/graph/attrs.ts normalizeProbe) as a manifest writes it: API defaults left out. */
function probe(p: unknown): Doc | undefined {
  if (!p || typeof p !== 'object') return undefined;
  const pr = p as Doc;
  const type: Doc = {};
  for (const [k, v] of Object.entries(obj(pr.type))) type[k] = k === 'http' ? withoutPartDefaults('probe_http', obj(v)) : withoutPartDefaults('probe', obj(v));
  return { type, ...withoutPartDefaults('probe', { initial_delay_seconds: pr.initial_delay_seconds, period_seconds: pr.period_seconds, timeout_seconds: pr.timeout_seconds, success_threshold: pr.success_threshold, failure_threshold: pr.failure_threshold }) };
}

/** Written only when the service has a probe: then the manifest owns both (one left out is none). */
export function healthchecks(h: unknown): Doc | undefined {
  const hc = obj(h);
  const out = clean({ readiness_probe: probe(hc.readiness_probe), liveness_probe: probe(hc.liveness_probe) });
  return Object.keys(out).length > 0 ? out : undefined;
}

export function storage(list: unknown): Doc[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((st: Doc) => withoutPartDefaults('storage_volume', { type: st.type, size: st.size, mount_point: st.mount_point }));
}

/** The compute settings of an application, a container or a job that a manifest has no key for. */
export function computeUnmanaged(r: Doc): string[] {
  const out: string[] = [];
  if (typeof r.gpu === 'number' && r.gpu > 0) out.push('gpu');
  if (r.cpu_architecture !== undefined && r.cpu_architecture !== null && r.cpu_architecture !== 'AMD64') out.push('cpu_architecture');
  if ((r.ephemeral_storage_in_gib ?? null) !== null) out.push('ephemeral_storage_in_gib');
  return out;
}

/** The compute keys of an application or a container, and those they share (ports, probes, storage...). */
export function computeToManifest(kind: KindDefaults, a: Doc): Doc {
  return {
    ...withoutKindDefaults(kind, { cpu: a.cpu, memory: a.memory, min_running_instances: a.min_running_instances, max_running_instances: a.max_running_instances }),
    ports: ports(a.ports),
    healthchecks: healthchecks(a.healthchecks),
    storage: storage(a.storage),
    arguments: strs(a.arguments),
    entrypoint: a.entrypoint,
    auto_deploy: a.auto_deploy,
  };
}

/**
 * A secret driftless writes keeps its fingerprint marker in the description, within the API's
 * limit: a longer description is shortened, with a warning. When the secrets are under
 * `ignore_changes` (`unknowable`), driftless writes them (and the marker) only when it creates the
 * object again: the shortened text is for that, and the live description is ignored too, so that
 * adopting the object rewrites neither.
 */
export function fitDescription(doc: Doc, address: string, secretFields: string[], ctx: ExportContext, unknowable: string[] = []): void {
  const d = doc.description;
  const room = DESCRIPTION_MAX_LENGTH - markerLength(secretFields);
  if (typeof d !== 'string' || d.length <= room) return;
  doc.description = d.slice(0, room).trimEnd();
  if (unknowable.length > 0) {
    ctx.warnings.push(`${address}: description shortened to ${room} characters (from ${d.length}) for when driftless creates it again (a secret it writes keeps a fingerprint marker in the description); under ignore_changes with its secrets, the live one is kept.`);
    doc.ignore_changes = [...((doc.ignore_changes as string[] | undefined) ?? []), 'description'];
  } else {
    ctx.warnings.push(`${address}: description shortened to ${room} characters (from ${d.length}): a secret driftless writes keeps a fingerprint marker in its description.`);
  }
}

/**
 * `ignore_changes` for the secrets an export cannot know (the API never returns them, and
 * driftless did not write them, so no fingerprint says what they hold): adopting the organization
 * must not overwrite them with whatever the placeholders are set to. Their `${env:}` may then stay
 * unset; it is needed only to create the object again.
 */
export function unknowable(paths: string[]): string[] | undefined {
  return paths.length > 0 ? paths : undefined;
}

/** The document with these keys first, in this order, then the others as they were. */
export function reorder(doc: Doc, keys: string[]): Doc {
  const out: Doc = {};
  for (const k of keys) if (k in doc) out[k] = doc[k];
  for (const k of Object.keys(doc)) if (!(k in out)) out[k] = doc[k];
  return out;
}
