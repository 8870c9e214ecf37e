/**
 * Source locations attached to loaded manifest values.
 *
 * Every object and array built from YAML carries, as non-enumerable symbol properties (so that they
 * never reach JSON, ajv or a deep-equal), where it was written (`SOURCE`), where each of its values
 * was written (`FIELD_SOURCES`) and where each of its keys was written (`KEY_SOURCES`). Arrays use
 * the element index as the field name. Later stages call `sourceOf` (types.ts) or `locate` to point a
 * diagnostic at `file:line:col`.
 */
import type { SourceRange } from '../diag/diagnostic.js';
import { FIELD_SOURCES, SOURCE, type Located } from './types.js';

/** Where each key of an object was written (key -> range of the key itself). */
export const KEY_SOURCES: unique symbol = Symbol('driftless.keySources');

type Sourced = Located & { [KEY_SOURCES]?: Record<string, SourceRange> };

function hide(obj: object, sym: symbol, value: unknown): void {
  Object.defineProperty(obj, sym, { value, enumerable: false, writable: true, configurable: true });
}

export function attachSource(obj: object, range: SourceRange): void {
  hide(obj, SOURCE, range);
}

export function attachFieldSource(obj: object, field: string, valueRange: SourceRange, keyRange?: SourceRange): void {
  const o = obj as Sourced;
  if (!o[FIELD_SOURCES]) hide(obj, FIELD_SOURCES, Object.create(null));
  o[FIELD_SOURCES]![field] = valueRange;
  if (keyRange) {
    if (!o[KEY_SOURCES]) hide(obj, KEY_SOURCES, Object.create(null));
    o[KEY_SOURCES]![field] = keyRange;
  }
}

export function keySourceOf(obj: unknown, field: string): SourceRange | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  return (obj as Sourced)[KEY_SOURCES]?.[field];
}

export function fieldSourceOf(obj: unknown, field: string): SourceRange | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  return (obj as Sourced)[FIELD_SOURCES]?.[field];
}

/**
 * The range of the value at a JSON pointer-like path (`['projects', 0, 'name']`) inside `root`,
 * falling back to the closest enclosing object that has one. `key: true` asks for the range of the
 * last segment's key rather than its value (an unknown key is reported on the key).
 */
export function locate(root: unknown, path: ReadonlyArray<string | number>, opts: { key?: boolean } = {}): SourceRange | undefined {
  let node: unknown = root;
  let best = sourceOfObject(root);
  for (let i = 0; i < path.length; i++) {
    const seg = String(path[i]);
    if (node === null || typeof node !== 'object') break;
    const isLast = i === path.length - 1;
    const here = isLast && opts.key ? keySourceOf(node, seg) ?? fieldSourceOf(node, seg) : fieldSourceOf(node, seg);
    if (here) best = here;
    node = Object.prototype.hasOwnProperty.call(node, seg) ? (node as Record<string, unknown>)[seg] : undefined;
  }
  return best;
}

function sourceOfObject(obj: unknown): SourceRange | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  return (obj as Located)[SOURCE];
}

/** Parses an ajv instancePath (`/projects/0/name`, RFC 6901 escaped) into segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
