/**
 * The refresh cache file (`--cache DIR` / DRIFTLESS_CACHE_DIR): the snapshot a run leaves for the
 * next (src/live/refresh.ts), with the API URL and the driftless version it was made with.
 *
 * It holds API answers only: the API never returns a secret value, and no token, header or
 * manifest value is ever put in it. It is written to a temporary file in the same directory and
 * renamed over the old one, so a reader sees a whole file, the old or the new, never a mix; two
 * runs sharing the directory each rename a whole file of theirs and the last one wins. A checksum
 * over the content tells a whole file from a damaged one; a MAC keyed by the fingerprint key
 * (src/live/cache-seal.ts) tells a file driftless wrote from one edited since. The file is read
 * with a bound on its nesting (src/live/bounded-json.ts): whatever is in it, a bad file is a full
 * read with its reason, never a crash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LiveSnapshot } from './refresh.js';
import { parseBoundedJson } from './bounded-json.js';
import { cacheSealProblem, sealCache, type CacheKeyOf } from './cache-seal.js';
import { readFreshness } from './cursor.js';

export const CACHE_FILE_NAME = 'driftless-live-state.json';
export const CACHE_KIND = 'driftless-refresh-cache';
// 2: sealed (a MAC keyed by the fingerprint key).
const FORMAT = 2;

export interface CacheIdentity {
  apiUrl: string;
  driftlessVersion: string;
  /** The key the file is sealed with (this run's fingerprint key, or the fallback for the organization). */
  keyOf: CacheKeyOf;
}

interface CachePayload {
  kind: typeof CACHE_KIND;
  format_version: number;
  driftless_version: string;
  api_url: string;
  organization_id: string;
  cursor: LiveSnapshot['cursor'];
  read_at: string;
  responses: Record<string, unknown>;
  /** The overlap window, the server's clock and the verification's rotation (src/live/cursor.ts). */
  freshness?: LiveSnapshot['freshness'];
}

export function cacheFilePath(dir: string): string {
  return join(dir, CACHE_FILE_NAME);
}

/** The snapshot in DIR, or why it cannot be used (said to the user on one line). */
export function readCacheFile(dir: string, identity: CacheIdentity): LiveSnapshot | { unusable: string } {
  const file = cacheFilePath(dir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { unusable: code === 'ENOENT' ? `no cache in ${dir} yet` : `the cache ${file} cannot be read (${code ?? 'error'})` };
  }
  const corrupt = (why: string) => ({ unusable: `the cache ${file} is corrupt or partial (${why})` });
  const parsed = parseBoundedJson(text);
  if ('problem' in parsed) return corrupt(parsed.problem);
  const doc = parsed.value as { checksum?: unknown; seal?: unknown; payload?: unknown } | null;
  if (!doc || typeof doc !== 'object' || typeof doc.checksum !== 'string' || !doc.payload || typeof doc.payload !== 'object') return corrupt('no checksum or content');
  const payloadText = JSON.stringify(doc.payload);
  if (checksumOf(payloadText) !== doc.checksum) return corrupt('its checksum does not match its content');
  const p = doc.payload as Partial<CachePayload>;
  if (p.kind !== CACHE_KIND || p.format_version !== FORMAT) return corrupt(`not a driftless cache of format ${FORMAT}`);
  if (typeof p.driftless_version !== 'string' || typeof p.api_url !== 'string' || typeof p.organization_id !== 'string' || typeof p.read_at !== 'string' || !p.responses || typeof p.responses !== 'object' || Number.isNaN(Date.parse(p.read_at))) {
    return corrupt('a field is missing');
  }
  // Before anything in it is believed: a file edited by hand (its checksum recomputed) stops here.
  const key = identity.keyOf(p.organization_id);
  const sealProblem = key ? cacheSealProblem(payloadText, doc.seal, key) : 'cannot be checked without a fingerprint key';
  if (sealProblem) return { unusable: `the cache ${file} ${sealProblem}` };
  if (p.cursor !== null && !(p.cursor && typeof p.cursor.timestamp === 'string' && Array.isArray(p.cursor.ids))) return corrupt('its event cursor is unreadable');
  const freshness = readFreshness(p.freshness);
  if (freshness && 'unreadable' in freshness) return corrupt(freshness.unreadable);
  if (p.driftless_version !== identity.driftlessVersion) return { unusable: `the cache was written by driftless ${p.driftless_version}, this is ${identity.driftlessVersion}` };
  if (p.api_url !== identity.apiUrl) return { unusable: `the cache is of another API URL (${p.api_url})` };
  return { organizationId: p.organization_id, cursor: p.cursor ?? null, readAt: p.read_at, responses: p.responses, ...(freshness ? { freshness } : {}) };
}

/** Writes the snapshot atomically (temporary file + rename in DIR, created when missing). */
export function writeCacheFile(dir: string, snapshot: LiveSnapshot, identity: CacheIdentity): void {
  const payload: CachePayload = {
    kind: CACHE_KIND,
    format_version: FORMAT,
    driftless_version: identity.driftlessVersion,
    api_url: identity.apiUrl,
    organization_id: snapshot.organizationId,
    cursor: snapshot.cursor,
    read_at: snapshot.readAt,
    responses: snapshot.responses,
    ...(snapshot.freshness ? { freshness: snapshot.freshness } : {}),
  };
  const body = JSON.stringify(payload);
  mkdirSync(dir, { recursive: true });
  // Unique per writer: two runs never write into the same temporary file.
  const tmp = join(dir, `.${CACHE_FILE_NAME}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const key = identity.keyOf(snapshot.organizationId);
    if (!key) throw Object.assign(new Error('no fingerprint key to seal the cache with'), { code: 'ENOKEY' });
    writeFileSync(tmp, `{"checksum":"${checksumOf(body)}","seal":${JSON.stringify(sealCache(body, key))},"payload":${body}}\n`, { mode: 0o600 });
    renameSync(tmp, cacheFilePath(dir));
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

function checksumOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
