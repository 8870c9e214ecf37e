/**
 * The manifest load cache: what loading built from manifest files that have not changed since the
 * last run, so that a warm `plan --cache DIR` parses nothing (issue 21).
 *
 * What is cached is the manifest as the file-only stages leave it (parse, schema, numbers,
 * completeness, merge, duplicates, shapes), before `${env:}` / `${file:}` resolution: resolution,
 * the reference checks and the checks of resolved values run on every load, so that neither an
 * environment value nor a referenced file is ever stored or served stale. The key is a hash of the
 * driftless version, the parse limits, and every file's path and bytes: a file changed in any byte
 * is a miss, and is loaded afresh.
 *
 * Only a clean load is stored: no diagnostic at all (a diagnostic's excerpt and relations need the
 * parsed text), no environment template (their relations live on hidden properties), and no secret
 * written in clear in a file (a value marked secret, a webhook secret...: the cache holds only what
 * a manifest without secrets in clear holds, names and `${env:NAME}` placeholders).
 *
 * The source positions every object carries (source-map.ts: hidden symbol properties) are stored
 * with it, so that a diagnostic of a later stage (the graph, the plan) points where it always did.
 */
import type { SourceRange } from '../diag/diagnostic.js';
import { LOAD_CACHE_FORMAT as FORMAT } from './load-cache-key.js';
import { KEY_SOURCES } from './source-map.js';
import { FIELD_SOURCES, SOURCE, type Manifest } from './types.js';

export { loadCacheKey } from './load-cache-key.js';

/** Where a load cache entry is kept; the loader's core does no file access itself. */
export interface LoadCacheStore {
  /** What makes a cached load unusable besides the files (the driftless version). */
  identity: string;
  /** The stored entry, if any (any failure to read: undefined). */
  read(): string | undefined;
  /** Replaces the stored entry; a failure is ignored by the caller (the cache is an optimisation). */
  write(data: string): void;
}

/** Encoded range: [file index, line, col] or [file index, line, col, end line, end col]. */
type EncRange = [number, number, number] | [number, number, number, number, number];

/**
 * An encoded value: a primitive as itself; an object {o: [key, value, ...], s?, f?, k?, i?}; an
 * array {a: [...], s?, f?, i?}; a value seen before {r: id} (a mapping merged into several places
 * stays one object, as the parser built it). `f` and `k` (field -> EncRange) are JSON text inside
 * the entry's JSON: parsing one string is far cheaper than parsing a million small arrays (at 5,000
 * services: 0.3 s instead of 1 s for the whole entry), and a plan without a diagnostic asks for
 * few of them.
 */
type Enc = string | number | boolean | null | EncNode;
interface EncNode {
  o?: unknown[] | undefined;
  a?: Enc[] | undefined;
  s?: EncRange | undefined;
  f?: string;
  k?: string;
  i?: number;
  r?: number;
}

type Sourced = { [SOURCE]?: SourceRange; [FIELD_SOURCES]?: Record<string, SourceRange>; [KEY_SOURCES]?: Record<string, SourceRange> };

/** The entry for `key`: the manifest with its source positions, as JSON text. */
export function encodeLoadCacheEntry(key: string, manifest: Manifest): string {
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const range = (r: SourceRange): EncRange => {
    let i = fileIndex.get(r.file);
    if (i === undefined) fileIndex.set(r.file, (i = files.push(r.file) - 1));
    return r.end ? [i, r.start.line, r.start.col, r.end.line, r.end.col] : [i, r.start.line, r.start.col];
  };
  const ranges = (m: Record<string, SourceRange> | undefined): string | undefined => {
    if (!m) return undefined;
    const out: Record<string, EncRange> = {};
    for (const k of Object.keys(m)) out[k] = range(m[k]!);
    return JSON.stringify(out);
  };
  const seen = new Map<object, { node: EncNode; id?: number }>();
  let nextId = 0;
  const enc = (v: unknown): Enc => {
    if (v === null || typeof v !== 'object') {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') throw new Error('not cacheable');
      return v as string | number | boolean;
    }
    const before = seen.get(v);
    if (before) {
      before.id ??= nextId++;
      before.node.i = before.id;
      return { r: before.id };
    }
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) throw new Error('not cacheable');
    const node: EncNode = {};
    seen.set(v, { node });
    const src = v as Sourced;
    if (Array.isArray(v)) node.a = v.map(enc);
    else {
      const o: unknown[] = [];
      for (const k of Object.keys(v)) o.push(k, enc((v as Record<string, unknown>)[k]));
      node.o = o;
    }
    if (src[SOURCE]) node.s = range(src[SOURCE]);
    const f = ranges(src[FIELD_SOURCES]);
    if (f) node.f = f;
    const k = ranges(src[KEY_SOURCES]);
    if (k) node.k = k;
    return node;
  };
  const value = enc(manifest);
  return JSON.stringify({ format: FORMAT, key, files, value });
}

/**
 * Where an object keeps the JSON texts of its positions until they are asked for: a hidden data
 * property of its own holding its encoded node, whose values are dropped once decoded (a WeakMap
 * from each object to a new {text, range} per kind was a quarter of the decoding time at 1,000
 * services: two entries and two objects per object, and the ephemeron tables the garbage collector
 * walks). A copy made with the object's property descriptors (graph/target.ts) shares the node, so
 * it builds the same ranges.
 */
const PENDING: unique symbol = Symbol('driftless.pendingSources');

/** An object's encoded node, its values dropped once decoded: the texts still to be built. */
type Pending = { [PENDING]?: { f?: string; k?: string } };

/**
 * The getter of `sym` for the objects of one entry (`range` reads that entry's file list). One
 * getter per symbol and entry, shared by every object of the entry: V8 gives objects whose
 * accessors are different functions a slow dictionary representation each, which every later read
 * of the manifest paid for. The first read, on the object or through an object inheriting from it,
 * builds the positions and replaces the getter, on the object that holds the text, with their value.
 */
function positionAccessor(sym: symbol, stash: 'f' | 'k', range: (r: EncRange) => SourceRange): PropertyDescriptor {
  return {
    enumerable: false,
    configurable: true,
    get(this: object): unknown {
      let holder: object | null = this;
      while (holder !== null && !Object.prototype.hasOwnProperty.call(holder, PENDING)) holder = Object.getPrototypeOf(holder) as object | null;
      if (holder === null) return undefined;
      const pending = (holder as Pending)[PENDING]!;
      const text = pending[stash];
      const out: Record<string, SourceRange> = Object.create(null);
      try {
        const m = JSON.parse(text ?? '{}') as Record<string, EncRange>;
        for (const k of Object.keys(m)) out[k] = range(m[k]!);
      } catch {
        // Only an entry edited by hand gets here (driftless wrote JSON): fewer positions, not a crash.
      }
      // The text stays: a copy made with this object's descriptors shares it, and reads it later.
      Object.defineProperty(holder, sym, { value: out, enumerable: false, writable: true, configurable: true });
      return out;
    },
  };
}

/** Hidden, as the parser's positions are (source-map.ts): never in JSON, a deep-equal or a spread. */
function hideData(obj: object, sym: symbol, value: unknown): void {
  Object.defineProperty(obj, sym, { value, enumerable: false, writable: true, configurable: true });
}

/** The manifest of an entry stored for `key`, or undefined (another key, another format, damaged). */
export function decodeLoadCacheEntry(data: string, key: string): Manifest | undefined {
  let entry: { format?: unknown; key?: unknown; files?: unknown; value?: unknown };
  try {
    entry = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (entry === null || typeof entry !== 'object' || entry.format !== FORMAT || entry.key !== key || !Array.isArray(entry.files)) return undefined;
  const files = entry.files as string[];
  const range = (r: EncRange): SourceRange => {
    const file = files[r[0]]!;
    return r.length === 5 ? { file, start: { line: r[1], col: r[2] }, end: { line: r[3], col: r[4] } } : { file, start: { line: r[1], col: r[2] } };
  };
  // The positions of an object's fields and keys are built when first asked for: a plan without
  // a diagnostic asks for few of them, and building all (a million ranges at 5,000 services) was
  // most of the decoding time and memory. The first read replaces the getter with the value, as
  // the parser attached it (source-map.ts).
  const fieldsAccessor = positionAccessor(FIELD_SOURCES, 'f', range);
  const keysAccessor = positionAccessor(KEY_SOURCES, 'k', range);
  const byId = new Map<number, object>();
  const dec = (e: Enc): unknown => {
    if (e === null || typeof e !== 'object') return e;
    if (e.r !== undefined) {
      const v = byId.get(e.r);
      if (!v) throw new Error('damaged');
      return v;
    }
    let out: object;
    if (e.a) {
      const arr: unknown[] = [];
      if (e.i !== undefined) byId.set(e.i, arr);
      for (const x of e.a) arr.push(dec(x));
      out = arr;
    } else if (e.o) {
      const obj: Record<string, unknown> = {};
      if (e.i !== undefined) byId.set(e.i, obj);
      for (let j = 0; j < e.o.length; j += 2) {
        const k = e.o[j] as string;
        const v = dec(e.o[j + 1] as Enc);
        // As the parser does: `__proto__` stays an ordinary key.
        if (k === '__proto__') Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[k] = v;
      }
      out = obj;
    } else throw new Error('damaged');
    if (e.s) hideData(out, SOURCE, range(e.s));
    const f = typeof e.f === 'string';
    const k = typeof e.k === 'string';
    if (f || k) {
      // The node itself, without its values (decoded above) and range: no allocation per object.
      // Only properties it has are cleared: adding one would change its shape (and grow it).
      if (e.a !== undefined) e.a = undefined;
      if (e.o !== undefined) e.o = undefined;
      if (e.s !== undefined) e.s = undefined;
      hideData(out, PENDING, e);
      if (f) Object.defineProperty(out, FIELD_SOURCES, fieldsAccessor);
      if (k) Object.defineProperty(out, KEY_SOURCES, keysAccessor);
    }
    return out;
  };
  try {
    return dec(entry.value as Enc) as Manifest;
  } catch {
    return undefined;
  }
}
