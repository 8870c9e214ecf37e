/**
 * Helpers of the manifest tests that check where things are: where a needle is in a YAML text,
 * how a source range reads, and every hidden source position of a loaded value made visible.
 */
import { KEY_SOURCES } from '../../src/manifest/source-map.js';
import { FIELD_SOURCES, SOURCE, type Manifest } from '../../src/manifest/types.js';

type Range = { file: string; start: { line: number; col: number } };

/** 1-based line and column of the `nth` occurrence of `needle` in `text` (where a diagnostic should point). */
export function at(text: string, needle: string, nth = 1): { line: number; col: number } {
  let i = -1;
  for (let k = 0; k < nth; k++) {
    i = text.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`${needle} #${nth} not in text`);
  }
  const before = text.slice(0, i).split('\n');
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}

/** `file:line:col` of a range. */
export const where = (r: Range | undefined) => (r ? `${r.file}:${r.start.line}:${r.start.col}` : undefined);

/** `line:col` of a range. */
export const lineCol = (r: Range | undefined) => (r ? `${r.start.line}:${r.start.col}` : undefined);

/** The environment `name` of the manifest's first project. */
export const environmentOf = (m: Manifest | undefined, name: string) => m!.projects![0]!.environments!.find((e) => e.name === name)!;

/** A value with every source position it carries (hidden symbol properties made visible). */
export function withSources(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string | symbol, unknown>;
  const children = Array.isArray(v) ? v.map(withSources) : Object.fromEntries(Object.keys(v).map((k) => [k, withSources(o[k])]));
  return { children, source: o[SOURCE], fields: { ...(o[FIELD_SOURCES] as object) }, keys: { ...(o[KEY_SOURCES] as object) } };
}
