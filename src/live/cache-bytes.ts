/**
 * The refresh cache file handled as the bytes driftless wrote (issue 21): at 5,000 services the
 * file is about 45 MB, and reading it as text, parsing it, stringifying it again for its checksum
 * and seal, then stringifying the next snapshot and writing it was most of a warm run's CPU and
 * memory. Here:
 *
 * - the file is split into its header (checksum, seal) and the payload's bytes, which the checksum
 *   and the seal are checked over as they are (the seal is "HMAC over the payload text as written",
 *   src/live/cache-seal.ts); one pass over the bytes checks the nesting bound and finds where each
 *   answer of `responses` is written;
 * - each answer parsed from such a file is remembered with the bytes it was parsed from, so that a
 *   snapshot that keeps the very same answer object writes those bytes back instead of
 *   stringifying it again; everything else is stringified as before.
 *
 * Anything unexpected (whitespace outside strings, a header of another shape) makes the caller use
 * the text path, which judges the file as it always did: the bytes path only ever accepts a file
 * whose checksum and seal hold over its exact bytes, which JSON.stringify wrote.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** A run of bytes of a file read earlier, written back as they are. */
export interface ByteRun {
  buf: Uint8Array;
  start: number;
  end: number;
}

export type Piece = string | ByteRun;

/**
 * Where an answer object was read from: the run of `"key":value` in the file's bytes, and where its
 * value starts. Only objects straight from JSON.parse of a file whose seal held are registered,
 * and only as long as nobody holds them but the snapshot (SnapshotPort hands the reader a copy).
 */
interface ReadFrom {
  buf: Uint8Array;
  entryStart: number;
  valueStart: number;
  end: number;
}
const readFrom = new WeakMap<object, ReadFrom>();

/** The checksum, seal and payload bytes of a file as driftless writes it, or undefined. */
export function splitCacheBytes(buf: Uint8Array): { checksum: string; seal: unknown; payload: Uint8Array } | undefined {
  // `{"checksum":"sha256:<64 hex>","seal":{"key_id":"<hex>","mac":"<hex>"},"payload":` ... `}\n`
  const head = Buffer.from(buf.buffer, buf.byteOffset, Math.min(buf.length, 256)).toString('latin1');
  const m = /^\{"checksum":"(sha256:[0-9a-f]{64})","seal":(\{"key_id":"[0-9a-f]{1,64}","mac":"[0-9a-f]{1,128}"\}),"payload":\{/.exec(head);
  if (!m || buf.length < m[0].length + 2 || buf[buf.length - 1] !== 0x0a || buf[buf.length - 2] !== 0x7d) return undefined;
  return { checksum: m[1]!, seal: JSON.parse(m[2]!) as unknown, payload: buf.subarray(m[0].length - 1, buf.length - 2) };
}

export interface PayloadScan {
  /** Each entry of the payload's `responses` object: where `"key"` starts, where the value starts and ends. */
  entries: Array<{ entryStart: number; valueStart: number; end: number }>;
}

/**
 * One pass over canonical JSON bytes (JSON.stringify's: no whitespace outside strings): undefined
 * when nested deeper than maxDepth or not canonical, else where each answer of the top-level
 * object's `responses` is. Brackets inside strings do not count (as src/live/bounded-json.ts).
 */
export function scanPayload(b: Uint8Array, maxDepth: number): PayloadScan | undefined {
  const entries: PayloadScan['entries'] = [];
  const n = b.length;
  let depth = 0;
  /** Inside the value of `responses` (which opened at depth 2). */
  let inResponses = false;
  /** The next string at depth 2 of `responses` is a key. */
  let expectKey = false;
  let lastKeyAt = -1;
  let entryStart = -1;
  let valueStart = -1;
  for (let i = 0; i < n; i++) {
    const c = b[i]!;
    if (c === 0x22 /* " */) {
      const s = i;
      for (i++; i < n; i++) {
        const d = b[i]!;
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
      if (inResponses && depth === 2 && expectKey) {
        entryStart = s;
        valueStart = i + 2;
        expectKey = false;
      } else if (depth === 1) lastKeyAt = s;
      continue;
    }
    if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return undefined;
      if (depth === 2 && c === 0x7b && lastKeyAt >= 0 && i === lastKeyAt + 12 && isResponsesKey(b, lastKeyAt)) {
        inResponses = true;
        expectKey = true;
      }
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      if (depth === 2 && inResponses) {
        if (entryStart >= 0) entries.push({ entryStart, valueStart, end: i });
        entryStart = -1;
        inResponses = false;
      }
      if (depth > 0) depth--;
    } else if (c === 0x2c /* , */) {
      if (depth === 2 && inResponses) {
        if (entryStart >= 0) entries.push({ entryStart, valueStart, end: i });
        entryStart = -1;
        expectKey = true;
      }
    } else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) return undefined;
  }
  return { entries };
}

const RESPONSES_KEY = Buffer.from('"responses":', 'latin1');
function isResponsesKey(b: Uint8Array, at: number): boolean {
  for (let j = 0; j < RESPONSES_KEY.length; j++) if (b[at + j] !== RESPONSES_KEY[j]) return false;
  return true;
}

/** Remembers where each answer object of `responses` was read from (see scanPayload). */
export function rememberAnswers(buf: Uint8Array, scan: PayloadScan, responses: Record<string, unknown>): void {
  for (const e of scan.entries) {
    const keyText = Buffer.from(buf.buffer, buf.byteOffset + e.entryStart, e.valueStart - 1 - e.entryStart).toString('utf8');
    let key: string;
    try {
      key = JSON.parse(keyText) as string;
    } catch {
      continue;
    }
    const v = Object.prototype.hasOwnProperty.call(responses, key) ? responses[key] : undefined;
    if (v !== null && typeof v === 'object') readFrom.set(v, { buf, entryStart: e.entryStart, valueStart: e.valueStart, end: e.end });
  }
}

/**
 * `{"key":value,...}` of `responses` as JSON.stringify writes it, as pieces: an answer read from a
 * file and kept as it was is its bytes (runs of consecutive answers in one piece), anything else
 * is stringified.
 */
export function responsesPieces(responses: Record<string, unknown>): Piece[] {
  const pieces: Piece[] = [];
  // What follows the pieces pushed so far: text, or a run of bytes (never both).
  let text = '{';
  let run: ByteRun | undefined;
  let first = true;
  const endRun = () => {
    if (run) pieces.push(run);
    run = undefined;
  };
  for (const key of Object.keys(responses)) {
    const v = responses[key];
    const from = v !== null && typeof v === 'object' ? readFrom.get(v) : undefined;
    const keyJson = JSON.stringify(key);
    const sep = first ? '' : ',';
    if (from && sameBytes(from.buf, from.entryStart, from.valueStart - 1, keyJson)) {
      first = false;
      // The entry right after the run's last one in the same file: the run takes in the comma and it.
      if (run && sep === ',' && run.buf === from.buf && run.end + 1 === from.entryStart && from.buf[run.end] === 0x2c) {
        run.end = from.end;
        continue;
      }
      endRun();
      text += sep;
      if (text !== '') pieces.push(text);
      text = '';
      run = { buf: from.buf, start: from.entryStart, end: from.end };
      continue;
    }
    const json = JSON.stringify(v);
    if (json === undefined) continue;
    first = false;
    endRun();
    text += `${sep}${keyJson}:${json}`;
  }
  endRun();
  pieces.push(`${text}}`);
  return pieces;
}

function sameBytes(buf: Uint8Array, start: number, end: number, ascii: string): boolean {
  if (end - start !== ascii.length) return false;
  for (let j = 0; j < ascii.length; j++) if (buf[start + j] !== ascii.charCodeAt(j)) return false;
  return true;
}

export function pieceBytes(p: Piece): string | Uint8Array {
  return typeof p === 'string' ? p : p.buf.subarray(p.start, p.end);
}

/** Writes the pieces to `file` (created, mode 0600), few system calls: small strings are gathered. */
export function writePieces(file: string, pieces: readonly Piece[]): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    let pending = '';
    for (const p of pieces) {
      if (typeof p === 'string') {
        pending += p;
        if (pending.length < 1 << 16) continue;
      }
      if (pending !== '') writeAll(fd, Buffer.from(pending, 'utf8'));
      pending = '';
      if (typeof p !== 'string') writeAll(fd, p.buf.subarray(p.start, p.end));
    }
    if (pending !== '') writeAll(fd, Buffer.from(pending, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
}

/**
 * A copy of a held answer, for a reader that may change it. An answer read from a file (it has
 * bytes: JSON.parse made it, and nobody but the snapshot holds it) is copied as the JSON value it
 * is, which gives what parsing its bytes again would, in about half the time (5,164 answers at
 * 5,000 services: 85 ms against 170 ms); anything else with structuredClone. Both give a fresh
 * value equal to the answer.
 */
export function copyOfAnswer<T>(answer: T): T {
  const from = answer !== null && typeof answer === 'object' ? readFrom.get(answer) : undefined;
  if (!from) return structuredClone(answer);
  return copyOfJsonValue(answer);
}

/**
 * A deep copy of a value JSON.parse made (plain objects, arrays, strings, numbers, booleans,
 * null), equal to parsing its text again: own keys in the same order, `__proto__` kept as an
 * ordinary key, -0 kept.
 */
export function copyOfJsonValue<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyOfJsonValue(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = copyOfJsonValue((value as Record<string, unknown>)[k]);
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out as T;
}
