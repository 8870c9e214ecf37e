/**
 * The refresh cache as the commands use it: where it is (--cache DIR, else DRIFTLESS_CACHE_DIR),
 * reading the live records through it (src/live/refresh.ts), and leaving the snapshot for the next
 * run (src/live/cache-file.ts). Without a cache directory the full read runs as it always did.
 */
import { isAbsolute, resolve } from 'node:path';
import { warning, type Diagnostic } from '../diag/diagnostic.js';
import type { ApiPort } from '../live/api-port.js';
import { readCacheFile, writeCacheFile } from '../live/cache-file.js';
import { readLiveRecordsCached, type RecordsReader } from '../live/refresh.js';
import type { LiveRecords } from '../live/read.js';
import type { AuditEvent } from '../live/audit-log.js';
import type { RefreshReport } from './api-usage.js';
import { packageVersion } from './package-version.js';
import type { RefreshMode } from './shared-options.js';

export interface CacheSettings {
  /** Absolute. */
  dir: string;
  refresh: RefreshMode;
  apiUrl: string;
  /** `--verify-requests` (default 5 in src/live/verify.ts). */
  verifyRequests?: number;
  /** `--max-cache-age`, milliseconds (default 24h in src/live/refresh.ts). */
  maxCacheAgeMs?: number;
}

/** The cache directory of a run, or undefined when none is asked for. */
export function cacheSettingsOf(args: { cache?: string; refresh?: RefreshMode; verifyRequests?: number; maxCacheAge?: number }, env: NodeJS.ProcessEnv, cwd: string, apiUrl: string): CacheSettings | undefined {
  const dir = args.cache ?? (env.DRIFTLESS_CACHE_DIR?.trim() || undefined);
  if (dir === undefined || dir === '') return undefined;
  return {
    dir: isAbsolute(dir) ? dir : resolve(cwd, dir),
    refresh: args.refresh ?? 'auto',
    apiUrl,
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
}

/** Reads through the cache and writes the snapshot the next run starts from. */
export async function readThroughCache(port: ApiPort, read: RecordsReader, settings: CacheSettings, opts: { neededBy?: string } = {}): Promise<CachedRecords> {
  const identity = { apiUrl: settings.apiUrl, driftlessVersion: packageVersion() };
  const previous = readCacheFile(settings.dir, identity);
  const r = await readLiveRecordsCached(port, read, {
    previous,
    forceFull: settings.refresh === 'full',
    ...(opts.neededBy !== undefined ? { neededBy: opts.neededBy } : {}),
    ...(settings.verifyRequests !== undefined ? { verifyRequests: settings.verifyRequests } : {}),
    ...(settings.maxCacheAgeMs !== undefined ? { maxCacheAgeMs: settings.maxCacheAgeMs } : {}),
  });
  const diagnostics: Diagnostic[] = [];
  try {
    // Written now, right after the read: it is the state at the cursor, whatever the run does next
    // (an apply's own writes are events the next run replays).
    writeCacheFile(settings.dir, r.snapshot, identity);
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
  };
}
