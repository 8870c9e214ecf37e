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
 * snapshot knew: the list of an object created since is simply read; the line names the lists); a
 * cursor that cannot be this log's (./cursor.ts), a last full read older than --max-cache-age, or a
 * list the rotation re-read (./verify.ts) that differs from the cache: the audit log did not explain
 * that change.
 *
 * The snapshot it leaves is the union of what this run read and what the previous one held and is
 * still current (src/live/cache-union.ts): manifests sharing a cache never undo each other's.
 */
import { errorStatus, type ApiPort, type Query } from './api-port.js';
import { routes } from '../api/routes.js';
import { AuditLogError, latestEventCursor, readEventsSince, type AuditEvent, type EventCursor } from './audit-log.js';
import { advance, afterFullRead, cursorBeyondLogReason, floorReason, futureCursorReason, legacyFreshness, readBound, unseenEvents, type Freshness } from './cursor.js';
import { DEFAULT_VERIFY_REQUESTS, canonical, differenceOf, goneAddress, keysToVerify } from './verify.js';
import { listResults, type ApiRecord, type LiveRecords } from './read.js';
import { NEVER_CACHED_ORG_LISTS, requestKey, shapeOf, stalenessOf, topologyOf, type Staleness } from './touched.js';
import { describeLacking } from './cache-lacks.js';
import { STALE, unionOfResponses } from './cache-union.js';
import { copyOfAnswer } from './cache-bytes.js';

/** What a run leaves for the next one: the answers its read used, and where the log stood. */
export interface LiveSnapshot {
  organizationId: string;
  /** The newest event before the read began; null when the log was empty (every event is new). */
  cursor: EventCursor | null;
  /** When the read began (ISO, this machine's clock): only when the API sends no `Date`, ages are counted from it. */
  readAt: string;
  /** GET request key (src/live/touched.ts requestKey) -> its answer. */
  responses: Record<string, unknown>;
  /** The overlap window, the server's clock and the verification's rotation (./cursor.ts); absent in an older file. */
  freshness?: Freshness;
}

/** A reader of the live records through a port: readLiveRecords for a plan, readOrganization for an export. */
export type RecordsReader = (port: ApiPort) => Promise<LiveRecords>;

/** The previous snapshot, or why there is none to use (no cache, another API URL, corrupt...). */
export type PreviousSnapshot = LiveSnapshot | { unusable: string };

export interface CachedReadOptions {
  /**
   * The previous snapshot, or how to load it: a loader is called once the organization's request
   * is on its way (every path starts with it), so that reading and checking the cache file (46 MB
   * at 5,000 services) overlaps the answer's latency; it is not called with `forceFull`.
   */
  previous: PreviousSnapshot | (() => Promise<PreviousSnapshot>);
  /** `--refresh full`. */
  forceFull?: boolean;
  /** Who needs a list the snapshot lacks, as the full-read line says it: the manifest (plan, drift...) or the export. */
  neededBy?: string;
  /** This machine's clock: used only when the API sends no `Date` header. */
  now?: () => Date;
  /** `--verify-requests N`: cached lists re-read per warm run, in rotation (default 5; 0: none). */
  verifyRequests?: number;
  /** `--max-cache-age`: a last full read older than this (milliseconds) means a full read (default 24h). */
  maxCacheAgeMs?: number;
  /** The overlap window read again for late events (./cursor.ts OVERLAP_MS); tests of a busy log narrow it. */
  overlapMs?: number;
  /**
   * A plan made from this very snapshot may stand for this run's (src/cli/plan-memo.ts): when the
   * previous snapshot is the one it was made from (`isFrom`) and the audit log holds no event since, the lists
   * that run read live (`liveKeys`) are read again, with the rotation, before the reader's walk;
   * `accept` is given their answers (and the organization's) and says whether they are the ones
   * the plan was made from. If so the walk does not run (`reused`); else it runs as always, and
   * asks for none of them again.
   */
  reuse?: ReuseProbe;
}

export interface ReuseProbe {
  isFrom(previous: LiveSnapshot): boolean;
  /** The run waits for the API now (the audit log, then the probe's reads): the caller may do its own checks meanwhile. */
  meanwhile?(): void;
  /** The keys of the answers of the run the plan was made from (CachedReadResult.quiet), the organization's included. */
  liveKeys: readonly string[];
  /** Their answers now, as canonical JSON, by key. */
  accept(answers: ReadonlyMap<string, string>): boolean;
}

export const DEFAULT_MAX_CACHE_AGE_MS = 24 * 3_600_000;

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
  /**
   * A refresh whose audit log held no event since the cursor, and whose walk read live only what
   * such a run reads live every time (the organization, lists never cached, the lists of
   * environments being deployed; the rotation aside): those answers, as canonical JSON
   * (./verify.ts canonical) taken before the reader had them, by request key. Unset otherwise.
   */
  quiet?: { answers: Map<string, string> };
  /**
   * The probe of `reuse` accepted: the reader did not run, and `records` holds the organization
   * alone; the caller's plan stands for this run's.
   */
  reused?: true;
}

/** A list the rotation re-read differs from the cache (or is gone): no event explained it. */
class Unexplained extends Error {
  constructor(
    readonly address: string,
    /** The list answered 404: its object is gone. */
    readonly gone = false,
  ) {
    super(`the audit log did not explain a change to ${address}`);
  }
}

/** Reads the live records, from the snapshot and the audit log when it can prove them current. */
export async function readLiveRecordsCached(api: ApiPort, read: RecordsReader, opts: CachedReadOptions): Promise<CachedReadResult> {
  const now = opts.now ?? (() => new Date());
  const machineNow = now();
  const readAt = machineNow.toISOString();
  const start = api.requestCount;
  // Every path, refresh or full read, starts with GET /organization: it is sent before the previous
  // snapshot is loaded, and awaited after. (Awaited in every path below; the handler only keeps a
  // failure from counting as unhandled while the file is read.)
  const orgSent = api.get<unknown>(routes.organization());
  orgSent.catch(() => undefined);
  /** `before`: given up before the refresh began (no usable snapshot): the organization is the full read's request, not the refresh's. */
  const full = async (reason: string, keep?: KeepOfPrevious, before = false): Promise<CachedReadResult> => {
    const org = await orgSent;
    const refreshRequests = before ? 0 : api.requestCount - start;
    const r = await fullRead(api, read, readAt, machineNow, org, keep);
    return { ...r, reader: 'full', fullReadReason: reason, refreshRequests, events: [], cachedKeys: [] };
  };

  if (opts.forceFull) return full('--refresh full', undefined, true);
  const previous = typeof opts.previous === 'function' ? await opts.previous() : opts.previous;
  if ('unusable' in previous) return full(previous.unusable, undefined, true);

  const orgResp = await orgSent;
  // The API's clock from here on: ages, the cursor's check and the bound never use this machine's.
  const serverNow = api.serverDate?.();
  const organization = (listResults(orgResp)[0] ?? orgResp) as ApiRecord;
  if (organization.id !== previous.organizationId) return full('the cache is of another organization');
  const freshness = previous.freshness ?? legacyFreshness(previous.cursor, previous.readAt);
  const clockNow = (serverNow ?? machineNow).getTime();
  const retentionDays = retentionOf(organization);
  const lastRead = Date.parse(serverNow && freshness.serverReadAt ? freshness.serverReadAt : previous.readAt);
  if (retentionDays !== undefined && clockNow - lastRead > retentionDays * 86_400_000) {
    return full(`the cache is older than the audit log's retention (${retentionDays} days)`);
  }
  const maxAge = opts.maxCacheAgeMs ?? DEFAULT_MAX_CACHE_AGE_MS;
  const age = clockNow - Date.parse(freshness.fullReadAt);
  if (age > maxAge) return full(`the cache's last full read is ${spokenAge(age)} old, more than --max-cache-age ${spokenAge(maxAge)}`);
  const future = futureCursorReason(previous.cursor, serverNow) ?? floorReason(previous.cursor, freshness);
  if (future) return full(future);

  const bound = readBound(previous.cursor, freshness, { ...(serverNow ? { serverNow } : {}), ...(retentionDays !== undefined ? { retentionDays } : {}), ...(opts.overlapMs !== undefined ? { overlapMs: opts.overlapMs } : {}) });
  let since;
  try {
    const asked = readEventsSince(api, organization.id, bound === undefined ? undefined : { timestamp: bound, ids: [] });
    opts.reuse?.meanwhile?.();
    since = await asked;
  } catch (e) {
    const status = errorStatus(e);
    if (status === 403 || status === 404) return full(`the audit log is not available to this token (the events endpoint answered ${status})`);
    if (e instanceof AuditLogError) return full(`the audit log could not be read (${e.message})`);
    throw e;
  }
  if (since.maxLimitReached) return full('the audit log no longer holds every event since the cache was written (organization_max_limit_reached)');
  if (since.unreadable.length > 0) return full(`the audit log holds ${since.unreadable[0]}`);
  const beyond = cursorBeyondLogReason(previous.cursor, bound, since.events);
  if (beyond) return full(beyond);

  // The window before the cursor is read again for late events; what the snapshot reflects is skipped.
  const events = unseenEvents(since.events, freshness);
  // Walked once (every environment, service and status list of the snapshot), used twice.
  const topology = topologyOf(previous.responses);
  const staleness = stalenessOf(events, topology);
  if ('reason' in staleness) return full(staleness.reason);

  // The rotation: a few lists the cache would answer are read again, live, and compared.
  const verifyNow = keysToVerify(Object.keys(previous.responses).filter((k) => previous.responses[k] !== STALE), staleness, freshness.verifiedThrough, opts.verifyRequests ?? DEFAULT_VERIFY_REQUESTS);

  // Objects the events name: a list of theirs the snapshot lacks is needed because of a change
  // (the last service of an environment deleted: the environment's own variable list), not because
  // the manifest asks for more; it is read.
  const touched = new Set(events.flatMap((e) => [e.target_id, e.project_id, e.environment_id]).filter((x): x is string => typeof x === 'string'));
  const known = new Set([...topology.ids].filter((id) => !touched.has(id)));
  const quiet = events.length === 0;
  // Taken before the reader sees it (a reused plan is checked against it).
  const orgCanonical = quiet ? canonical(orgResp) : undefined;
  const port = new SnapshotPort(api, previous.responses, staleness, known, { [routes.organization()]: orgResp }, new Set(verifyNow), quiet);
  /** A refresh's result: what it read, and the snapshot it leaves (the answers it used over what the cache held, less what is `gone`). */
  const refreshed = (records: LiveRecords, position: ReturnType<typeof advance>, gone: ReadonlySet<string>) => ({
    records,
    snapshot: nextSnapshot(organization.id, position, readAt, unionOfResponses(previous.responses, staleness, port.used, gone), freshness, serverNow, verifyNow.at(-1) ?? freshness.verifiedThrough),
    reader: 'refresh' as const,
    refreshRequests: api.requestCount - start,
    events,
    cachedKeys: [...port.fromCache],
  });
  let records: LiveRecords | undefined;
  const goneOwners = new Set<string>();
  let readerFailed: { error: unknown } | undefined;
  if (opts.reuse && quiet && opts.reuse.isFrom(previous)) {
    const probed = await probeForReuse(port, opts.reuse, verifyNow);
    if ('failure' in probed) {
      const e = probed.failure.error;
      if (e instanceof Unexplained) return full(`the audit log did not explain a change to ${e.address}`);
      throw e;
    }
    if (probed.accepted) return { ...refreshed(organizationAlone(organization), advance(previous.cursor, freshness, since.events, opts.overlapMs), goneOwners), reused: true };
  }
  try {
    records = await read(port);
    // The rotation covers the whole cache, also the lists other manifests sharing it need and this
    // run did not ask for: those are read here, all at once.
    if (port.lacking.length === 0) port.verifyUnasked(verifyNow);
  } catch (e) {
    readerFailed = { error: e };
  }
  // Every read of the rotation is awaited and compared before anything is believed; a difference
  // (the first in the order the reads were sent) is what the run says, before any failure of the
  // reader, which may only have walked on from the cached answer that differs.
  const verification = await port.settleVerified(goneOwners);
  const failure = verification && verification.error instanceof Unexplained ? verification : (readerFailed ?? verification);
  if (failure) {
    const e = failure.error;
    if (e instanceof Unexplained) return full(`the audit log did not explain a change to ${e.address}`);
    // A reader given the empty answers that stand in for lacking lists may trip on them: the full
    // read below is what runs in any case.
    if (port.lacking.length === 0) throw e;
  }
  const position = advance(previous.cursor, freshness, since.events, opts.overlapMs);
  if (port.lacking.length > 0 || records === undefined) {
    // What the snapshot held stays for the manifests that need it: current as of the events just
    // read, so the full read keeps their cursor (a later event is replayed by the next run).
    return full(`${opts.neededBy ?? 'the manifest'} needs lists the cache does not hold ${describeLacking(port.lacking, previous.responses)}`, {
      responses: unionOfResponses(previous.responses, staleness, {}, deletedIdsOf(events)),
      cursor: position.cursor,
    });
  }
  return {
    ...refreshed(records, position, new Set([...deletedIdsOf(events), ...goneOwners])),
    ...(quiet && !port.readOnce ? { quiet: { answers: new Map([[routes.organization(), orgCanonical!], ...port.readLive.map((k): [string, string] => [k, port.liveCanonical.get(k)!])]) } } : {}),
  };
}

/** The snapshot a refresh leaves: the responses, and where the log and the rotation stand. */
function nextSnapshot(organizationId: string, position: ReturnType<typeof advance>, readAt: string, responses: Record<string, unknown>, freshness: Freshness, serverNow: Date | undefined, lastVerified: string | undefined): LiveSnapshot {
  return {
    organizationId,
    cursor: position.cursor,
    readAt,
    responses,
    freshness: {
      ...(freshness.floor !== undefined ? { floor: freshness.floor } : {}),
      seen: position.seen,
      ...(serverNow ? { serverReadAt: serverNow.toISOString() } : {}),
      fullReadAt: freshness.fullReadAt,
      ...(lastVerified !== undefined ? { verifiedThrough: lastVerified } : {}),
    },
  };
}

/**
 * The probe of a reuse (CachedReadOptions.reuse): the lists read live on every quiet run, and the
 * rotation, all at once; then, once every read of the rotation equals the cache, whether the
 * caller accepts the answers. Nothing the probe read is asked again if the walk runs after it.
 */
async function probeForReuse(port: SnapshotPort, reuse: ReuseProbe, verifyNow: readonly string[]): Promise<{ accepted: boolean } | { failure: { error: unknown } }> {
  const answers = new Map<string, string>();
  let failed: { error: unknown } | undefined;
  const reads = Promise.all(
    reuse.liveKeys.map(async (key) => {
      answers.set(key, canonical(await port.getKey(key)));
    }),
  ).catch((e: unknown) => {
    failed = { error: e };
  });
  port.verifyUnasked(verifyNow);
  reuse.meanwhile?.();
  await reads;
  // Every read of the rotation is sent before the reader asks for anything: a list gone (404) may
  // be one the reader needs, a change the log did not explain. The plan is then not reused, and
  // the reader's walk says which (settleVerified, once the reader has asked for what it needs).
  const gone = new Set<string>();
  const verification = await port.settleVerified(gone);
  const failure = verification && verification.error instanceof Unexplained ? verification : (failed ?? verification);
  if (failure) return { failure };
  if (gone.size > 0 || port.lacking.length > 0 || port.readOnce) return { accepted: false };
  return { accepted: reuse.accept(answers) };
}

/** The records of a reused read: the organization alone (the caller's plan stands for the rest). */
function organizationAlone(organization: ApiRecord): LiveRecords {
  return { organization, lists: {}, environments: new Map(), variables: new Map(), services: new Map(), stages: new Map(), statuses: new Map() };
}

/** The id of the object whose list `key` is (a project's environments, an environment's lists, a variable list's parent). */
function ownerIdOf(key: string): string | undefined {
  const s = shapeOf(key);
  return s.kind === 'environments' ? s.project : s.kind === 'env-list' ? s.env : s.kind === 'variables' ? s.parent : undefined;
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

async function fullRead(api: ApiPort, read: RecordsReader, readAt: string, machineNow: Date, orgResp?: unknown, keep?: KeepOfPrevious): Promise<Omit<CachedReadResult, 'reader' | 'refreshRequests' | 'events' | 'cachedKeys'>> {
  const org = orgResp ?? (await api.get<unknown>(routes.organization()));
  const serverNow = api.serverDate?.();
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
  const port = new SnapshotPort(api, {}, { isStale: () => true }, new Set(), { [routes.organization()]: org });
  const records = await read(port);
  return { records, snapshot: { organizationId: organization.id, cursor, readAt, responses: { ...(keep?.responses ?? {}), ...port.used }, freshness: afterFullRead(cursor, serverNow, machineNow) } };
}

/** `12s`, `45m`, `25h`, `3 days`: an age as the full-read line says it. */
function spokenAge(ms: number): string {
  // `--max-cache-age 0s` (or 30s): seconds, not "0m old, more than 0m".
  if (ms < 59_500) return `${Math.round(ms / 1000)}s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.round(ms / 3_600_000);
  return hours < 72 ? `${hours}h` : `${Math.round(ms / 86_400_000)} days`;
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
  /** Keys read live other than the rotation's (stale, never cached), in the order first asked. */
  readonly readLive: string[] = [];
  /** With `recordLive`: canonical JSON (./verify.ts) of each of their answers as read, before the reader had it. */
  readonly liveCanonical = new Map<string, string>();
  /**
   * A key was read live that this run's staleness does not make stale (a list kept STALE, a list of
   * an object the snapshot did not know): the next quiet run answers it from the snapshot, so this
   * run's live answers are not the ones a quiet run reads live every time.
   */
  readOnce = false;
  /** The answers the probe for a reuse asked for (getKey): the walk after a refused probe does not ask again. */
  private readonly probed = new Map<string, Promise<unknown>>();
  /** The rotation's reads sent, in order (verifyLater). */
  private readonly pending: Array<{ key: string; check: Promise<unknown>; unasked: boolean }> = [];
  /** The same, by key. */
  private readonly pendingByKey = new Map<string, { unasked: boolean }>();

  constructor(
    private readonly api: ApiPort,
    private readonly snapshot: Readonly<Record<string, unknown>>,
    private readonly staleness: Staleness,
    /** The objects the snapshot knew and no event touched since: a list of theirs it lacks was never read. */
    private readonly knownIds: ReadonlySet<string>,
    private readonly preloaded: Record<string, unknown>,
    /** Keys of the rotation (./verify.ts): read live even though the snapshot holds them, and compared. */
    private readonly verify: ReadonlySet<string> = new Set(),
    /** Keep liveCanonical (a quiet refresh: what a reused plan is checked against). */
    private readonly recordLive = false,
  ) {}

  get requestCount(): number {
    return this.api.requestCount;
  }

  serverDate(): Date | undefined {
    return this.api.serverDate?.();
  }

  /** get() of a request key (./touched.ts requestKey), for the probe of a reuse: its answer is kept for the walk. */
  getKey(key: string): Promise<unknown> {
    const { path, query } = splitKey(key);
    const answer = this.get(path, query);
    this.probed.set(key, answer);
    return answer;
  }

  get<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.read<T>(path, query, false);
  }

  /**
   * This port with every list read live, the snapshot's answer or not (what a plan deletes with its
   * parent: src/live/read.ts). The answers are kept for the next snapshot as any other; a list the
   * snapshot holds read so makes the run not a quiet one (readOnce): a plan that deletes is not
   * reused, its lists are read again.
   */
  live(): ApiPort {
    const port = this;
    return {
      get: <T>(path: string, query?: Query) => port.read<T>(path, query, true),
      post: () => port.post(),
      put: () => port.put(),
      delete: () => port.delete(),
      get requestCount() {
        return port.requestCount;
      },
      serverDate: () => port.serverDate(),
    };
  }

  private async read<T>(path: string, query: Query | undefined, live: boolean): Promise<T> {
    const key = requestKey(path, query);
    if (key in this.preloaded) return this.keep(key, this.preloaded[key]) as T;
    const probed = live ? undefined : this.probed.get(key);
    if (probed) {
      this.probed.delete(key);
      return copyOfAnswer(await probed) as T;
    }
    // A list kept STALE (src/live/cache-union.ts) is read like a stale one: some run needed it.
    const current = !live && key in this.snapshot && this.snapshot[key] !== STALE && !this.staleness.isStale(key);
    const sent = current ? this.pendingByKey.get(key) : undefined;
    if (sent) {
      // Sent before the reader asked (the probe of a reuse): asked now, so that its list gone is
      // a change the log did not explain, as for any list the reader needs (settleVerified).
      sent.unasked = false;
      return copyOfAnswer(this.snapshot[key]) as T;
    }
    if (current && this.verify.has(key)) return this.verifyLater(key, path, query, false) as T;
    if (current) {
      this.fromCache.add(key);
      // The next snapshot keeps the held answer itself (already a kept answer: it was kept so),
      // which the cache file writes back as the bytes it was read from (src/live/cache-bytes.ts);
      // the reader gets a copy of its own.
      this.used[key] = this.snapshot[key];
      return copyOfAnswer(this.snapshot[key]) as T;
    }
    if (!(key in this.snapshot) && this.neverRead(key)) this.lacking.push(key);
    // Once a list is lacking a full read follows: the rest of this read only looks for more lists
    // the snapshot lacks (to name them), and spends no request.
    if (this.lacking.length > 0) return { results: [] } as T;
    try {
      this.readLive.push(key);
      if (!this.staleness.isStale(key)) this.readOnce = true;
      const body = await this.api.get<unknown>(path, query);
      if (this.recordLive) this.liveCanonical.set(key, canonical(body));
      return this.keep(key, body) as T;
    } catch (e) {
      // In a refresh, the reader asks for a list of an object the cache (and the events read) say
      // exists: gone (404) means the log did not record its removal (an event lost or late). The
      // run gives way to a full read, which says so; a full read's own 404 stays the run's error.
      if (Object.keys(this.snapshot).length > 0 && errorStatus(e) === 404) throw new Unexplained(goneAddress(key, this.snapshot), true);
      throw e;
    }
  }

  /**
   * A key of the rotation: its live read is sent now and compared later (settleVerified), and the
   * reader gets the cached answer at once. So the reader's walk does not wait for the rotation: its
   * reads go out together instead of one round trip per level of lists they sit at (a verified
   * environment list, then its services...). Nothing is returned to the caller before every one of
   * them equals the cache, and an answer that differs makes the run a full read: whenever the
   * refresh's records count, the walk from the cached answer was the walk from the live one.
   */
  private verifyLater(key: string, path: string, query: Query | undefined, unasked: boolean): unknown {
    // The live answer goes into the next snapshot once compared (keep).
    const check = this.verified(key, path, query);
    // Awaited by settleVerified; until then a failure is not an unhandled one.
    check.catch(() => undefined);
    const entry = { key, check, unasked };
    this.pending.push(entry);
    this.pendingByKey.set(key, entry);
    return copyOfAnswer(this.snapshot[key]);
  }

  /**
   * Reads (and so compares, ./verify.ts) each key of the rotation the reader did not ask for, all
   * at once. A list whose object is gone (404) is not a change the log failed to explain: this run
   * does not need it (the reader did not reach it), and the object's removal is what the log or a
   * parent's deletion says; its lists are forgotten (settleVerified), so a manifest that needs them
   * reads them again.
   */
  verifyUnasked(keys: readonly string[]): void {
    for (const key of keys) {
      if (key in this.used || this.pendingByKey.has(key)) continue;
      const { path, query } = splitKey(key);
      this.verifyLater(key, path, query, true);
    }
  }

  /**
   * Waits for every read of the rotation; the first that failed, in the order they were sent (a
   * difference, a list gone, an API error), or undefined. The owners of unasked lists gone are
   * added to `gone`.
   */
  async settleVerified(gone: Set<string>): Promise<{ error: unknown } | undefined> {
    const outcomes = await Promise.allSettled(this.pending.map((p) => p.check));
    let first: { error: unknown } | undefined;
    outcomes.forEach((o, i) => {
      if (o.status === 'fulfilled') return;
      const p = this.pending[i]!;
      if (p.unasked && o.reason instanceof Unexplained && o.reason.gone) {
        const owner = ownerIdOf(p.key);
        if (owner !== undefined) gone.add(owner);
        return;
      }
      first ??= { error: o.reason };
    });
    return first;
  }

  /** The live answer of a key of the rotation, once it is known to equal the cached one. */
  private async verified(key: string, path: string, query: Query | undefined): Promise<unknown> {
    let body: unknown;
    try {
      body = await this.api.get<unknown>(path, query);
    } catch (e) {
      // Gone, while the log said nothing of it (an event would have made the list stale).
      if (errorStatus(e) === 404) throw new Unexplained(goneAddress(key, this.snapshot), true);
      throw e;
    }
    const difference = differenceOf(key, keptAnswer(key, body), this.snapshot);
    if (difference !== undefined) throw new Unexplained(difference);
    return this.keep(key, body);
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

  private keep(key: string, body: unknown): unknown {
    this.used[key] = keptAnswer(key, body);
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

/** The path and query of a request key (./touched.ts requestKey). */
function splitKey(key: string): { path: string; query: Query | undefined } {
  const at = key.indexOf('?');
  return { path: at < 0 ? key : key.slice(0, at), query: at < 0 ? undefined : Object.fromEntries(new URLSearchParams(key.slice(at + 1))) };
}

/** The answer as the cache keeps it: a variable list without its BUILT_INs, which no reader uses and which grow with every sibling service. */
function keptAnswer(key: string, body: unknown): unknown {
  return shapeOf(key).kind === 'variables' ? withoutBuiltIns(body) : body;
}

function withoutBuiltIns(body: unknown): unknown {
  if (Array.isArray(body)) return body.filter((v) => (v as ApiRecord | null)?.scope !== 'BUILT_IN');
  if (body && typeof body === 'object' && Array.isArray((body as { results?: unknown }).results)) {
    return { ...(body as object), results: ((body as { results: ApiRecord[] }).results).filter((v) => v?.scope !== 'BUILT_IN') };
  }
  return body;
}
