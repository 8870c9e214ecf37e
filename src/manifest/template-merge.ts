/**
 * The merge of a template and its overrides, and the copies that keep the hidden source ranges of
 * a manifest's objects: used by the template expansion (./templates.ts) and the preview
 * declarations (./previews.ts): were it in one of them, the two would import each other (an import cycle).
 */
import type { SourceRange } from '../diag/diagnostic.js';
import { attachFieldSource, attachSource, fieldSourceOf, keySourceOf, KEY_SOURCES } from './source-map.js';
import { FIELD_SOURCES, SOURCE } from './types.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Lists merged item by item, by this field of their items (scripts/gen-override-schema.mjs says the same). */
export const MERGE_KEYS: Readonly<Record<string, string>> = { variables: 'key', ports: 'name', storage: 'mount_point' };

/** `base` with `patch` merged in by the rule above, as a new object; every value keeps the range it was written at. */
export function mergeObjects(base: Obj, patch: Obj): Obj {
  const out = cloneDeep(base);
  for (const [k, pv] of Object.entries(patch)) {
    const bv = out[k];
    const keyed = MERGE_KEYS[k] !== undefined && Array.isArray(bv) && Array.isArray(pv) && pv.every((x) => isObject(x) && x[MERGE_KEYS[k]!] !== undefined);
    setOwn(out, k, isObject(bv) && isObject(pv) ? mergeObjects(bv, pv) : keyed ? mergeKeyed(bv as unknown[], pv as unknown[], MERGE_KEYS[k]!) : cloneDeep(pv));
    const vr = fieldSourceOf(patch, k);
    if (vr) attachFieldSource(out, k, vr, keySourceOf(patch, k));
  }
  return out;
}

/** A keyed list merged item by item: matching items merge, new ones are appended. */
function mergeKeyed(base: unknown[], patch: unknown[], key: string): unknown[] {
  const out = cloneDeep(base) as unknown[];
  patch.forEach((p, i) => {
    const item = p as Obj;
    const at = out.findIndex((b) => isObject(b) && b[key] === item[key]);
    if (at >= 0) out[at] = mergeObjects(out[at] as Obj, item);
    else {
      const r = fieldSourceOf(patch, String(i));
      if (r) attachFieldSource(out, String(out.length), r);
      out.push(cloneDeep(item));
    }
  });
  return out;
}

/** A deep copy that keeps the hidden source ranges of every object and list. */
export function cloneDeep<T>(v: T): T {
  if (Array.isArray(v)) {
    const out = v.map(cloneDeep);
    copySources(v, out);
    return out as T;
  }
  if (isObject(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, cloneDeep(x));
    copySources(v, out);
    return out as T;
  }
  return v;
}

/** An own property even for a key like `__proto__` (free-form maps such as helm values may hold one). */
function setOwn(o: Obj, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

export function copyShallow(v: Obj): Obj {
  const out: Obj = { ...v };
  copySources(v, out);
  return out;
}

export function mapList(list: Obj[], f: (x: Obj) => Obj): Obj[] {
  const out = list.map(f);
  copySources(list, out);
  return out;
}

function copySources(from: object, to: object): void {
  const f = from as { [SOURCE]?: SourceRange; [FIELD_SOURCES]?: Record<string, SourceRange>; [KEY_SOURCES]?: Record<string, SourceRange> };
  if (f[SOURCE]) attachSource(to, f[SOURCE]);
  for (const [field, range] of Object.entries(f[FIELD_SOURCES] ?? {})) attachFieldSource(to, field, range, f[KEY_SOURCES]?.[field]);
}
