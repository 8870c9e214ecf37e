/**
 * The refresh cache as the commands use it: where it is (--cache DIR, else DRIFTLESS_CACHE_DIR),
 * reading the live records through it (src/live/refresh.ts), and leaving the snapshot for the next
 * run (src/live/cache-file.ts). Without a cache directory the full read runs as it always did.
 */
import { warning, type Diagnostic } from '../diag/diagnostic.js';
import type { ApiPort } from '../live/api-port.js';
import { loadCacheFile, readCacheFile, writeCacheFile } from '../live/cache-file.js';
import { responsesAfterOwnWrites } from '../live/own-writes.js';
import type { Plan } from '../plan/types.js';
import type { LiveState } from '../model/resource.js';
import { resolveApiConfig } from './config.js';
import { readLiveRecordsCached, type RecordsReader, type ReuseProbe } from '../live/refresh.js';
import type { LiveRecords } from '../live/read.js';
import type { AuditEvent } from '../live/audit-log.js';
import type { RefreshReport } from './api-usage.js';
import { packageVersion } from './package-version.js';
import type { CacheKeyOf } from '../live/cache-seal.js';
import { resolveFingerprintKey } from '../plan/fingerprint.js';
import type { RefreshMode } from './shared-options.js';
import { cacheDirOf } from './cache-dir.js';

export interface CacheSettings {
  /** Absolute. */
  dir: string;
  refresh: RefreshMode;
  apiUrl: string;
  /** The key the cache file is sealed with: the run's DRIFTLESS_FINGERPRINT_KEY, else the organization's fallback. */
  keyOf: CacheKeyOf;
  /** Whether that is the fallback key (a seal anyone who knows the organization id can forge). */
  fallbackKey: boolean;
  /** `--verify-requests` (default 5 in src/live/verify.ts). */
  verifyRequests?: number;
  /** `--max-cache-age`, milliseconds (default 24h in src/live/refresh.ts). */
  maxCacheAgeMs?: number;
}

/** The cache directory of a run, or undefined when none is asked for. */
export function cacheSettingsOf(args: { cache?: string; refresh?: RefreshMode; verifyRequests?: number; maxCacheAge?: number }, env: NodeJS.ProcessEnv, cwd: string, apiUrl: string): CacheSettings | undefined {
  const dir = cacheDirOf(args.cache, env, cwd);
  if (dir === undefined) return undefined;
  const keyOf: CacheKeyOf = (organizationId) => {
    const k = resolveFingerprintKey(env, organizationId);
    return k.key === undefined ? undefined : { key: k.key, source: k.source };
  };
  return {
    dir,
    refresh: args.refresh ?? 'auto',
    apiUrl,
    keyOf,
    fallbackKey: env.DRIFTLESS_FINGERPRINT_KEY === undefined,
    ...(args.verifyRequests !== undefined ? { verifyRequests: args.verifyRequests } : {}),
    ...(args.maxCacheAge !== undefined ? { maxCacheAgeMs: args.maxCacheAge } : {}),
  };
}

export interface CachedRecords {
  records: LiveRecords;
  report: RefreshReport;
  diagnostics: Diagnostic[];
  /** The audit-log events a refresh read (every event since the cache's cursor); none after a full read. */
  events?: AuditEvent[];
  /** Request keys answered from the cache rather than read in this run (empty after a full read). */
  cachedKeys: string[];
  /** See CachedReadResult.quiet and .reused (src/live/refresh.ts). */
  quiet?: { answers: Map<string, string> };
  reused?: true;
  /** The seal of the cache file this run wrote (unset when it could not write it). */
  seal?: string;
}

/** Reads through the cache and writes the snapshot the next run starts from. */
export async function readThroughCache(port: ApiPort, read: RecordsReader, settings: CacheSettings, opts: { neededBy?: string; reuse?: ReuseProbe } = {}): Promise<CachedRecords> {
  const identity = { apiUrl: settings.apiUrl, driftlessVersion: packageVersion(), keyOf: settings.keyOf };
  const r = await readLiveRecordsCached(port, read, {
    // Loaded once the organization's request is sent (every path starts with it): the file is read
    // and checked while its answer is on the way.
    previous: () => loadCacheFile(settings.dir, identity),
    forceFull: settings.refresh === 'full',
    ...(opts.neededBy !== undefined ? { neededBy: opts.neededBy } : {}),
    ...(settings.verifyRequests !== undefined ? { verifyRequests: settings.verifyRequests } : {}),
    ...(settings.maxCacheAgeMs !== undefined ? { maxCacheAgeMs: settings.maxCacheAgeMs } : {}),
    ...(opts.reuse ? { reuse: opts.reuse } : {}),
  });
  const diagnostics: Diagnostic[] = [];
  if (settings.fallbackKey) {
    diagnostics.push(
      warning('cache.fallback-key', `DRIFTLESS_FINGERPRINT_KEY is not set: the refresh cache in ${settings.dir} is sealed with a key derived from the organization id`, {
        detail: 'Anyone who can write the cache file and knows the organization id could edit it and re-seal it (deletions are still confirmed by a live read). Set DRIFTLESS_FINGERPRINT_KEY to a long random string kept in your CI secrets.',
      }),
    );
  }
  let seal: string | undefined;
  try {
    // Written now, right after the read: it is the state at the cursor, whatever the run does next
    // (an apply's own writes are events the next run replays).
    seal = writeCacheFile(settings.dir, r.snapshot, identity).seal;
  } catch (e) {
    diagnostics.push(
      warning('cache.write-failed', `cannot write the refresh cache in ${settings.dir} (${(e as NodeJS.ErrnoException).code ?? 'error'}): the next run reads the whole live state`, {
        detail: 'Check that --cache (or DRIFTLESS_CACHE_DIR) names a writable directory.',
      }),
    );
  }
  return {
    records: r.records,
    report: { reader: r.reader, requests: r.refreshRequests, ...(r.fullReadReason !== undefined ? { reason: r.fullReadReason } : {}) },
    diagnostics,
    ...(r.reader === 'refresh' ? { events: r.events } : {}),
    cachedKeys: r.cachedKeys,
    ...(r.quiet ? { quiet: r.quiet } : {}),
    ...(r.reused ? { reused: r.reused } : {}),
    ...(seal !== undefined ? { seal } : {}),
  };
}

/**
 * After an apply's writes: marks stale, in the cache the apply left (the state before its writes),
 * what they may have changed (src/live/own-writes.ts), so that the next run reads it again even
 * when the audit log shows the apply's events late. A cache that cannot be used is left alone (the
 * next run reads everything anyway); one that cannot be written again is a warning.
 */
export function markOwnWritesStale(settings: CacheSettings, plan: Pick<Plan, 'changes' | 'deploy_order'>, idOf: (address: string) => string | undefined): Diagnostic[] {
  const identity = { apiUrl: settings.apiUrl, driftlessVersion: packageVersion(), keyOf: settings.keyOf };
  const snapshot = readCacheFile(settings.dir, identity);
  if ('unusable' in snapshot) return [];
  try {
    writeCacheFile(settings.dir, { ...snapshot, responses: responsesAfterOwnWrites(snapshot.responses, plan, idOf) }, identity);
    return [];
  } catch (e) {
    return [
      warning('cache.write-failed', `cannot write the refresh cache in ${settings.dir} after the apply (${(e as NodeJS.ErrnoException).code ?? 'error'}): the next run may not see this apply's writes until the audit log shows them`, {
        detail: 'Check that --cache (or DRIFTLESS_CACHE_DIR) names a writable directory, or run the next plan with --refresh full.',
      }),
    ];
  }
}

/**
 * After `apply` or `preview up` has written: marks stale, in the refresh cache the run used (when
 * it used one), what the writes of `plan` changed.
 */
export function ownWritesInCache(
  args: { apiUrl?: string; authScheme?: string; maxWait?: number; cache?: string; refresh?: RefreshMode; verifyRequests?: number; maxCacheAge?: number },
  io: { env: NodeJS.ProcessEnv; cwd: string },
  plan: Pick<Plan, 'changes' | 'deploy_order'>,
  live: Pick<LiveState, 'resources'>,
): Diagnostic[] {
  const cfg = resolveApiConfig({ apiUrl: args.apiUrl, authScheme: args.authScheme, maxWait: args.maxWait }, io.env);
  const settings = cfg.config ? cacheSettingsOf(args, io.env, io.cwd, cfg.config.baseUrl) : undefined;
  return settings ? markOwnWritesStale(settings, plan, (address) => live.resources.get(address)?.id) : [];
}
