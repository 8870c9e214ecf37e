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
import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { LiveSnapshot } from './refresh.js';
import { MAX_JSON_DEPTH, parseBoundedJson } from './bounded-json.js';
import { pieceBytes, rememberAnswers, responsesPieces, scanPayload, splitCacheBytes, writePieces, type Piece } from './cache-bytes.js';
import { cacheSealProblem, sealCache, type CacheKeyOf, type CacheSeal } from './cache-seal.js';
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

/** The seal (MAC) of the file each snapshot read here was read from. */
const sealOfSnapshot = new WeakMap<LiveSnapshot, string>();

/**
 * The seal of the file a snapshot was read from, undefined for one not read from a file: which
 * snapshot it is, byte for byte (a plan made from it may be reused: src/cli/plan-memo.ts).
 */
export function sealOf(snapshot: LiveSnapshot): string | undefined {
  return sealOfSnapshot.get(snapshot);
}

export function cacheFilePath(dir: string): string {
  return join(dir, CACHE_FILE_NAME);
}

/** The snapshot in DIR, or why it cannot be used (said to the user on one line). */
export function readCacheFile(dir: string, identity: CacheIdentity): LiveSnapshot | { unusable: string } {
  const file = cacheFilePath(dir);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    return cannotRead(dir, file, e);
  }
  return judgeCacheBytes(file, bytes, identity);
}

/**
 * readCacheFile, with the file read off the main thread: what a run calls while its first request
 * (the organization) is on its way, so that the read and the checks overlap its latency. The
 * event loop gets a turn before the checks, which hold the thread, so that the request goes out.
 */
export async function loadCacheFile(dir: string, identity: CacheIdentity): Promise<LiveSnapshot | { unusable: string }> {
  const file = cacheFilePath(dir);
  let bytes: Buffer;
  try {
    bytes = await readWholeFile(file);
  } catch (e) {
    return cannotRead(dir, file, e);
  }
  await new Promise((resolve) => setImmediate(resolve));
  return judgeCacheBytes(file, bytes, identity);
}

/** One read of the whole file (fs.promises.readFile reads it in 512 KiB turns of the thread pool). */
async function readWholeFile(file: string): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const buf = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await fh.read(buf, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    // A file cut while being read (it is renamed over, never written in place): what was read.
    return at === size ? buf : buf.subarray(0, at);
  } finally {
    await fh.close();
  }
}

function cannotRead(dir: string, file: string, e: unknown): { unusable: string } {
  const code = (e as NodeJS.ErrnoException).code;
  return { unusable: code === 'ENOENT' ? `no cache in ${dir} yet` : `the cache ${file} cannot be read (${code ?? 'error'})` };
}

function judgeCacheBytes(file: string, bytes: Buffer, identity: CacheIdentity): LiveSnapshot | { unusable: string } {
  // The file as driftless wrote it, checked over its bytes; anything else is judged from its text.
  return readWrittenBytes(bytes, identity) ?? readText(file, bytes.toString('utf8'), identity);
}

/**
 * The snapshot of a file whose seal holds over the payload's exact bytes (what writeCacheFile
 * writes), or undefined: the text path then judges the file and says why.
 *
 * The checksum is not computed here: the seal (an HMAC over the same bytes) holding proves them
 * whole and as driftless wrote them, which is all the checksum could add; a file that fails the
 * seal, damaged or edited, goes to the text path, which checks the checksum first and so still
 * tells "corrupt or partial" from "edited after driftless wrote it". (A SHA-256 of 46 MB less at
 * 5,000 services.)
 */
function readWrittenBytes(bytes: Buffer, identity: CacheIdentity): LiveSnapshot | { unusable: string } | undefined {
  const split = splitCacheBytes(bytes);
  if (!split) return undefined;
  const scan = scanPayload(split.payload, MAX_JSON_DEPTH);
  if (!scan) return undefined;
  let p: Partial<CachePayload>;
  try {
    p = JSON.parse(Buffer.from(split.payload.buffer, split.payload.byteOffset, split.payload.length).toString('utf8')) as Partial<CachePayload>;
  } catch {
    return undefined;
  }
  if (!p || typeof p !== 'object') return undefined;
  const checked = checkPayload(p, identity, (key) => cacheSealProblem(split.payload, split.seal, key));
  if ('problem' in checked) return undefined;
  if ('unusable' in checked) return checked;
  rememberAnswers(split.payload, scan, checked.responses);
  sealOfSnapshot.set(checked, (split.seal as CacheSeal).mac);
  return checked;
}

function readText(file: string, text: string, identity: CacheIdentity): LiveSnapshot | { unusable: string } {
  const corrupt = (why: string) => ({ unusable: `the cache ${file} is corrupt or partial (${why})` });
  const parsed = parseBoundedJson(text);
  if ('problem' in parsed) return corrupt(parsed.problem);
  const doc = parsed.value as { checksum?: unknown; seal?: unknown; payload?: unknown } | null;
  if (!doc || typeof doc !== 'object' || typeof doc.checksum !== 'string' || !doc.payload || typeof doc.payload !== 'object') return corrupt('no checksum or content');
  const payloadText = JSON.stringify(doc.payload);
  if (checksumOf([payloadText]) !== doc.checksum) return corrupt('its checksum does not match its content');
  const checked = checkPayload(doc.payload as Partial<CachePayload>, identity, (key) => cacheSealProblem(payloadText, doc.seal, key));
  if ('problem' in checked) return checked.problem.corrupt ? corrupt(checked.problem.why) : { unusable: `the cache ${file} ${checked.problem.why}` };
  if (!('unusable' in checked)) sealOfSnapshot.set(checked, (doc.seal as CacheSeal).mac);
  return checked;
}

/** The checks after the checksum, in order: format, fields, the seal (before anything is believed), cursor, identity. */
function checkPayload(
  p: Partial<CachePayload>,
  identity: CacheIdentity,
  sealProblem: (key: NonNullable<ReturnType<CacheKeyOf>>) => string | undefined,
): LiveSnapshot | { unusable: string } | { problem: { corrupt: boolean; why: string } } {
  const corrupt = (why: string) => ({ problem: { corrupt: true, why } });
  if (p.kind !== CACHE_KIND || p.format_version !== FORMAT) return corrupt(`not a driftless cache of format ${FORMAT}`);
  if (typeof p.driftless_version !== 'string' || typeof p.api_url !== 'string' || typeof p.organization_id !== 'string' || typeof p.read_at !== 'string' || !p.responses || typeof p.responses !== 'object' || Number.isNaN(Date.parse(p.read_at))) {
    return corrupt('a field is missing');
  }
  // Before anything in it is believed: a file edited by hand (its checksum recomputed) stops here.
  const key = identity.keyOf(p.organization_id);
  const seal = key ? sealProblem(key) : 'cannot be checked without a fingerprint key';
  if (seal) return { problem: { corrupt: false, why: seal } };
  if (p.cursor !== null && !(p.cursor && typeof p.cursor.timestamp === 'string' && Array.isArray(p.cursor.ids))) return corrupt('its event cursor is unreadable');
  const freshness = readFreshness(p.freshness);
  if (freshness && 'unreadable' in freshness) return corrupt(freshness.unreadable);
  if (p.driftless_version !== identity.driftlessVersion) return { unusable: `the cache was written by driftless ${p.driftless_version}, this is ${identity.driftlessVersion}` };
  if (p.api_url !== identity.apiUrl) return { unusable: `the cache is of another API URL (${p.api_url})` };
  return { organizationId: p.organization_id, cursor: p.cursor ?? null, readAt: p.read_at, responses: p.responses, ...(freshness ? { freshness } : {}) };
}

/**
 * Writes the snapshot atomically (temporary file + rename in DIR, created when missing). The
 * payload is JSON.stringify's text of it, written in pieces: an answer kept as it was read from
 * the previous file is its bytes there (src/live/cache-bytes.ts), so a warm run does not
 * stringify the whole snapshot again.
 */
export function writeCacheFile(dir: string, snapshot: LiveSnapshot, identity: CacheIdentity): { seal: string } {
  // The fields of CachePayload in its order, responses and freshness last.
  const head = JSON.stringify({
    kind: CACHE_KIND,
    format_version: FORMAT,
    driftless_version: identity.driftlessVersion,
    api_url: identity.apiUrl,
    organization_id: snapshot.organizationId,
    cursor: snapshot.cursor,
    read_at: snapshot.readAt,
  } satisfies Omit<CachePayload, 'responses' | 'freshness'>);
  const body: Piece[] = [`${head.slice(0, -1)},"responses":`, ...responsesPieces(snapshot.responses), snapshot.freshness ? `,"freshness":${JSON.stringify(snapshot.freshness)}}` : '}'];
  const bodyBytes = body.map(pieceBytes);
  mkdirSync(dir, { recursive: true });
  // Unique per writer: two runs never write into the same temporary file.
  const tmp = join(dir, `.${CACHE_FILE_NAME}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const key = identity.keyOf(snapshot.organizationId);
    if (!key) throw Object.assign(new Error('no fingerprint key to seal the cache with'), { code: 'ENOKEY' });
    const seal = sealCache(bodyBytes, key);
    writePieces(tmp, [`{"checksum":"${checksumOf(bodyBytes)}","seal":${JSON.stringify(seal)},"payload":`, ...body, '}\n']);
    renameSync(tmp, cacheFilePath(dir));
    return { seal: seal.mac };
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

function checksumOf(parts: ReadonlyArray<string | Uint8Array>): string {
  const h = createHash('sha256');
  for (const p of parts) {
    if (typeof p === 'string') h.update(p, 'utf8');
    else h.update(p);
  }
  return `sha256:${h.digest('hex')}`;
}
