/**
 * The second way of reading the live state: from the snapshot of the previous run and the audit
 * events since its cursor. It runs the very reader a full read runs (readLiveRecords), over a port
 * that answers each GET from the snapshot unless an event made that answer stale; so it returns the
 * records a full read would, and src/plan never learns which reader ran.
 *
 * Whenever it cannot prove the snapshot current it says why, and the full read runs instead:
 * another organization, a snapshot older than the audit log's retention, a log that says older
 * events are gone, an events endpoint that refuses (403/404) or answers what it cannot read, an
 * event it cannot place, or a manifest that needs a list the snapshot never held (for an object the
 * snapshot knew: the list of an object created since is simply read; the line names the lists).
 *
 * The snapshot it leaves is the union of what this run read and what the previous one held and is
 * still current (src/live/cache-union.ts): manifests sharing a cache never undo each other's.
 */
import { errorStatus, type ApiPort, type Query } from './api-port.js';
import { AuditLogError, latestEventCursor, readEventsSince, toNanos, type AuditEvent, type EventCursor } from './audit-log.js';
import { listResults, type ApiRecord, type LiveRecords } from './read.js';
import { NEVER_CACHED_ORG_LISTS, requestKey, shapeOf, stalenessOf, topologyOf, type Staleness } from './touched.js';
import { describeLacking } from './cache-lacks.js';
import { STALE, unionOfResponses } from './cache-union.js';

/** What a run leaves for the next one: the answers its read used, and where the log stood. */
export interface LiveSnapshot {
  organizationId: string;
  /** The newest event before the read began; null when the log was empty (every event is new). */
  cursor: EventCursor | null;
  /** When the read began (ISO, this machine's clock): the retention is counted from it. */
  readAt: string;
  /** GET request key (src/live/touched.ts requestKey) -> its answer. */
  responses: Record<string, unknown>;
}

/** A reader of the live records through a port: readLiveRecords for a plan, readOrganization for an export. */
export type RecordsReader = (port: ApiPort) => Promise<LiveRecords>;

export interface CachedReadOptions {
  /** The previous snapshot, or why there is none to use (no cache, another API URL, corrupt...). */
  previous: LiveSnapshot | { unusable: string };
  /** `--refresh full`. */
  forceFull?: boolean;
  /** Who needs a list the snapshot lacks, as the full-read line says it: the manifest (plan, drift...) or the export. */
  neededBy?: string;
  now?: () => Date;
}

export interface CachedReadResult {
  records: LiveRecords;
  /** The snapshot to keep for the next run. */
  snapshot: LiveSnapshot;
  reader: 'refresh' | 'full';
  /** Why the full read ran (reader 'full'). */
  fullReadReason?: string;
  /** Requests spent on the refresh (the events, the lists they made stale; a refresh given up included). */
  refreshRequests: number;
  /** Events the refresh applied. */
  events: AuditEvent[];
  /**
   * Request keys answered from the snapshot, not read live in this run (none after a full read):
   * what the cache alone vouches for (a delete is never sent on its word: src/apply/confirm-deletes.ts).
   */
  cachedKeys: string[];
}

/** Reads the live records, from the snapshot and the audit log when it can prove them current. */
export async function readLiveRecordsCached(api: ApiPort, read: RecordsReader, opts: CachedReadOptions): Promise<CachedReadResult> {
  const now = opts.now ?? (() => new Date());
  const readAt = now().toISOString();
  const start = api.requestCount;
  const full = async (reason: string, org?: unknown, keep?: KeepOfPrevious): Promise<CachedReadResult> => {
    const refreshRequests = api.requestCount - start;
    const r = await fullRead(api, read, readAt, org, keep);
    return { ...r, reader: 'full', fullReadReason: reason, refreshRequests, events: [], cachedKeys: [] };
  };

  if (opts.forceFull) return full('--refresh full');
  const previous = opts.previous;
  if ('unusable' in previous) return full(previous.unusable);

  const orgResp = await api.get<unknown>('/organization');
  const organization = (listResults(orgResp)[0] ?? orgResp) as ApiRecord;
  if (organization.id !== previous.organizationId) return full('the cache is of another organization', orgResp);
  const retentionDays = retentionOf(organization);
  if (retentionDays !== undefined && now().getTime() - Date.parse(previous.readAt) > retentionDays * 86_400_000) {
    return full(`the cache is older than the audit log's retention (${retentionDays} days)`, orgResp);
  }

  let since;
  try {
    since = await readEventsSince(api, organization.id, lowerBound(previous));
  } catch (e) {
    const status = errorStatus(e);
    if (status === 403 || status === 404) return full(`the audit log is not available to this token (the events endpoint answered ${status})`, orgResp);
    if (e instanceof AuditLogError) return full(`the audit log could not be read (${e.message})`, orgResp);
    throw e;
  }
  if (since.maxLimitReached) return full('the audit log no longer holds every event since the cache was written (organization_max_limit_reached)', orgResp);

  const staleness = stalenessOf(since.events, topologyOf(previous.responses));
  if ('reason' in staleness) return full(staleness.reason, orgResp);

  // Objects the events name: a list of theirs the snapshot lacks is needed because of a change
  // (the last service of an environment deleted: the environment's own variable list), not because
  // the manifest asks for more; it is read.
  const touched = new Set(since.events.flatMap((e) => [e.target_id, e.project_id, e.environment_id]).filter((x): x is string => typeof x === 'string'));
  const known = new Set([...topologyOf(previous.responses).ids].filter((id) => !touched.has(id)));
  const port = new SnapshotPort(api, previous.responses, staleness, known, { '/organization': orgResp });
  let records: LiveRecords | undefined;
  try {
    records = await read(port);
  } catch (e) {
    // A reader given the empty answers that stand in for lacking lists may trip on them: the full
    // read below is what runs in any case.
    if (port.lacking.length === 0) throw e;
  }
  if (port.lacking.length > 0 || records === undefined) {
    // What the snapshot held stays for the manifests that need it: current as of the events just
    // read, so the full read keeps their cursor (a later event is replayed by the next run).
    return full(`${opts.neededBy ?? 'the manifest'} needs lists the cache does not hold ${describeLacking(port.lacking, previous.responses)}`, orgResp, {
      responses: unionOfResponses(previous.responses, staleness, {}, deletedIdsOf(since.events)),
      cursor: since.cursor ?? null,
    });
  }
  return {
    records,
    snapshot: { organizationId: organization.id, cursor: since.cursor ?? null, readAt, responses: unionOfResponses(previous.responses, staleness, port.used, deletedIdsOf(since.events)) },
    reader: 'refresh',
    refreshRequests: api.requestCount - start,
    events: since.events,
    cachedKeys: [...port.fromCache],
  };
}

/** The objects the events say were deleted: the cache forgets their lists. */
function deletedIdsOf(events: readonly AuditEvent[]): Set<string> {
  return new Set(events.filter((e) => e.event_type === 'DELETE' && typeof e.target_id === 'string').map((e) => e.target_id!));
}

/** What a full read keeps of a usable previous snapshot: its lists still current, and the cursor they are current at. */
interface KeepOfPrevious {
  responses: Record<string, unknown>;
  cursor: EventCursor | null;
}

async function fullRead(api: ApiPort, read: RecordsReader, readAt: string, orgResp?: unknown, keep?: KeepOfPrevious): Promise<Omit<CachedReadResult, 'reader' | 'refreshRequests' | 'events' | 'cachedKeys'>> {
  const org = orgResp ?? (await api.get<unknown>('/organization'));
  const organization = (listResults(org)[0] ?? org) as ApiRecord;
  // The cursor first: a change made while the lists are read is replayed by the next run.
  let cursor: EventCursor | null = null;
  if (keep) cursor = keep.cursor;
  else {
    try {
      cursor = (await latestEventCursor(api, organization.id)).cursor ?? null;
    } catch (e) {
      // Without the log the next run cannot refresh either, and will say why; this read stands.
      if (!(errorStatus(e) === 403 || errorStatus(e) === 404 || e instanceof AuditLogError)) throw e;
    }
  }
  const port = new SnapshotPort(api, {}, { isStale: () => true }, new Set(), { '/organization': org });
  const records = await read(port);
  return { records, snapshot: { organizationId: organization.id, cursor, readAt, responses: { ...(keep?.responses ?? {}), ...port.used } } };
}

/** How far the API's clock may be behind this machine's. */
const CLOCK_SKEW_MS = 15 * 60_000;

/**
 * Where to read the log from. The cursor was the newest event when the previous read began, so
 * every event after it happened after that read began (give or take the clocks' skew): in a quiet
 * organization the cursor may be older than the log's retention while nothing since was lost, and
 * asking from it would make the API say older events are gone.
 */
function lowerBound(previous: LiveSnapshot): EventCursor | undefined {
  const began = Date.parse(previous.readAt) - CLOCK_SKEW_MS;
  if (previous.cursor && toNanos(previous.cursor.timestamp) >= BigInt(began) * 1_000_000n) return previous.cursor;
  return { timestamp: new Date(began).toISOString(), ids: [] };
}

function retentionOf(org: ApiRecord): number | undefined {
  const days = (org.organization_plan as { audit_logs_retention_in_days?: unknown } | undefined)?.audit_logs_retention_in_days;
  return typeof days === 'number' && Number.isFinite(days) && days > 0 ? days : undefined;
}

/**
 * An ApiPort for reads that answers from the snapshot when the answer is still current, reads
 * through otherwise, and keeps every answer used (for the next snapshot). `preloaded` answers were
 * just read (the organization) and are not asked again.
 */
class SnapshotPort implements ApiPort {
  readonly used: Record<string, unknown> = {};
  /** Keys answered from the snapshot. */
  readonly fromCache = new Set<string>();
  /** Keys the reader asked for that the snapshot never held (in order): the run gives way to a full read. */
  readonly lacking: string[] = [];

  constructor(
    private readonly api: ApiPort,
    private readonly snapshot: Readonly<Record<string, unknown>>,
    private readonly staleness: Staleness,
    /** The objects the snapshot knew and no event touched since: a list of theirs it lacks was never read. */
    private readonly knownIds: ReadonlySet<string>,
    private readonly preloaded: Record<string, unknown>,
  ) {}

  get requestCount(): number {
    return this.api.requestCount;
  }

  async get<T = unknown>(path: string, query?: Query): Promise<T> {
    const key = requestKey(path, query);
    if (key in this.preloaded) return this.keep(key, this.preloaded[key]) as T;
    // A list kept STALE (src/live/cache-union.ts) is read like a stale one: some run needed it.
    if (key in this.snapshot && this.snapshot[key] !== STALE && !this.staleness.isStale(key)) {
      this.fromCache.add(key);
      return this.keep(key, structuredClone(this.snapshot[key])) as T;
    }
    if (!(key in this.snapshot) && this.neverRead(key)) this.lacking.push(key);
    // Once a list is lacking a full read follows: the rest of this read only looks for more lists
    // the snapshot lacks (to name them), and spends no request.
    if (this.lacking.length > 0) return { results: [] } as T;
    return this.keep(key, await this.api.get<unknown>(path, query)) as T;
  }

  private neverRead(key: string): boolean {
    if (this.knownIds.size === 0 && Object.keys(this.snapshot).length === 0) return false;
    const s = shapeOf(key);
    switch (s.kind) {
      case 'org-list':
        // The clusters are read on every run: not holding them says nothing of the manifest.
        return !NEVER_CACHED_ORG_LISTS.has(s.list);
      case 'environments':
        return this.knownIds.has(s.project);
      case 'env-list':
        return this.knownIds.has(s.env);
      case 'variables':
        return this.knownIds.has(s.parent);
      default:
        return false;
    }
  }

  /** The answer as the cache keeps it: a variable list without its BUILT_INs, which no reader uses and which grow with every sibling service. */
  private keep(key: string, body: unknown): unknown {
    this.used[key] = shapeOf(key).kind === 'variables' ? withoutBuiltIns(body) : body;
    return body;
  }

  post<T>(): Promise<T> {
    return Promise.reject(new Error('the live read does not write'));
  }
  put<T>(): Promise<T> {
    return Promise.reject(new Error('the live read does not write'));
  }
  delete(): Promise<void> {
    return Promise.reject(new Error('the live read does not write'));
  }
}

function withoutBuiltIns(body: unknown): unknown {
  if (Array.isArray(body)) return body.filter((v) => (v as ApiRecord | null)?.scope !== 'BUILT_IN');
  if (body && typeof body === 'object' && Array.isArray((body as { results?: unknown }).results)) {
    return { ...(body as object), results: ((body as { results: ApiRecord[] }).results).filter((v) => v?.scope !== 'BUILT_IN') };
  }
  return body;
}
