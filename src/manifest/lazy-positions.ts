/**
 * A manifest file parsed fast, its source positions built only when first asked for (issue 21).
 *
 * `parseYamlFileLazily` runs the fast parse (fast-yaml.ts); when it declines, the positioned parse
 * (parse-yaml.ts) as before. A fast-parsed file's objects carry, instead of their positions
 * (source-map.ts: the hidden `SOURCE`, `FIELD_SOURCES` and `KEY_SOURCES` properties), accessors
 * that on first use run the positioned parse of that one file and give every object of the file
 * the positions the positioned parse built for its counterpart (the two parses build their objects
 * in the same order). A load without a diagnostic asks for none, and parses each file once, fast;
 * a diagnostic's `file:line:col` is the one the positioned parse has always given.
 */
import { fastParseYaml } from './fast-yaml.js';
import { DEFAULT_PARSE_LIMITS, parseYamlFile, reparseForPositions, type ParsedFile, type ParseLimits } from './parse-yaml.js';
import { KEY_SOURCES } from './source-map.js';
import { lineIndexOf } from './line-counter.js';
import { FIELD_SOURCES, SOURCE } from './types.js';

const POSITION_KEYS = [SOURCE, FIELD_SOURCES, KEY_SOURCES] as const;

export function parseYamlFileLazily(text: string, file: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ParsedFile {
  const fast = fastParseYaml(text, limits);
  if (!fast) return parseYamlFile(text, file, limits);
  attachLazyPositions(fast.objects, () => {
    const built: object[] = [];
    reparseForPositions(text, file, limits, built);
    return built;
  });
  // The line index the positioned parse's LineCounter would hold, without loading the `yaml` package.
  return { file, value: fast.value, diagnostics: [], lineCounter: lineIndexOf(text) };
}

/**
 * Gives each of `objects` accessors for its positions that, on the first read or write of any of
 * them, take the positions of every object from `positioned()` (the same objects, in the same
 * order, built with positions). A position written before that (attachSource...) is kept.
 */
export function attachLazyPositions(objects: readonly object[], positioned: () => readonly object[]): void {
  let done = false;
  const accessors = new Map<symbol, PropertyDescriptor & { get(): unknown }>();
  const materialize = () => {
    if (done) return;
    done = true;
    const built = positioned();
    // Never expected (fast-yaml.ts declines whatever the positioned parse could build otherwise);
    // if it happened, the file would have no positions rather than wrong ones.
    const paired = built.length === objects.length;
    for (let i = 0; i < objects.length; i++) {
      const o = objects[i] as Record<symbol, unknown>;
      const from = paired ? (built[i] as Record<symbol, unknown>) : undefined;
      for (const key of POSITION_KEYS) {
        if (Object.getOwnPropertyDescriptor(o, key)?.get !== accessors.get(key)!.get) continue;
        const value = from?.[key];
        if (value === undefined) delete o[key];
        else Object.defineProperty(o, key, { value, enumerable: false, writable: true, configurable: true });
      }
    }
  };
  for (const key of POSITION_KEYS) {
    accessors.set(key, {
      enumerable: false,
      configurable: true,
      get(this: Record<symbol, unknown>) {
        materialize();
        return this[key];
      },
      set(this: Record<symbol, unknown>, value: unknown) {
        materialize();
        Object.defineProperty(this, key, { value, enumerable: false, writable: true, configurable: true });
      },
    });
  }
  // The same three descriptors for every object (one transition of the objects' hidden classes
  // each), without a lookup per object and key: tens of thousands of objects in a large file.
  const [sourceAccessor, fieldsAccessor, keysAccessor] = POSITION_KEYS.map((key) => accessors.get(key)!);
  for (let i = 0; i < objects.length; i++) {
    const o = objects[i]!;
    Object.defineProperty(o, SOURCE, sourceAccessor!);
    Object.defineProperty(o, FIELD_SOURCES, fieldsAccessor!);
    Object.defineProperty(o, KEY_SOURCES, keysAccessor!);
  }
}

const pendingFills = new WeakMap<object, Array<() => void>>();

/**
 * Runs `fill` (which attaches positions to `obj`, an object a later stage made, such as merge.ts's
 * merged lists) when a position of `obj` is first read or written, after the fills registered
 * before it, in order: copying the positions of a whole manifest would ask every file for all of
 * its positions. An object that already holds positions of its own is filled at once.
 */
export function deferPositions(obj: object, fill: () => void): void {
  const pending = pendingFills.get(obj);
  if (pending) {
    pending.push(fill);
    return;
  }
  if (POSITION_KEYS.some((key) => Object.prototype.hasOwnProperty.call(obj, key))) {
    fill();
    return;
  }
  const fills = [fill];
  pendingFills.set(obj, fills);
  const run = () => {
    if (pendingFills.get(obj) !== fills) return;
    pendingFills.delete(obj);
    for (const key of POSITION_KEYS) delete (obj as Record<symbol, unknown>)[key];
    for (const f of fills) f();
  };
  for (const key of POSITION_KEYS) {
    Object.defineProperty(obj, key, {
      enumerable: false,
      configurable: true,
      get(this: Record<symbol, unknown>) {
        run();
        return this[key];
      },
      set(this: Record<symbol, unknown>, value: unknown) {
        run();
        Object.defineProperty(this, key, { value, enumerable: false, writable: true, configurable: true });
      },
    });
  }
}
