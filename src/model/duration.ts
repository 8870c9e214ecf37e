/**
 * Durations as users write them, in flags (`--timeout 30m`, `--older-than 7d`) and in the manifest
 * (a preview's `ttl: 72h`): one or more of a number and a unit, d, h, m, s or ms (`1h30m`, `1.5h`,
 * `500ms`). One parser for all, so that a duration means the same wherever it is written.
 *
 * A bare number is seconds for the options that always took one (`--timeout 90`); where a unit
 * must be said (`unit: 'required'`: a preview's ttl and `--older-than`, by which prune deletes),
 * `72` is refused rather than read as 72 seconds when 72 hours was likely meant.
 */

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** Milliseconds; undefined when the text is not a duration. Pure. */
export function parseDuration(text: string, o: { unit?: 'required' } = {}): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return o.unit === 'required' ? undefined : Math.round(Number(t) * 1000);
  // `ms` before `m`, else `500ms` would read as 500 minutes and a stray `s`.
  const re = /(\d+(?:\.\d+)?)(ms|d|h|m|s)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed = re.lastIndex;
  }
  return consumed === t.length && consumed > 0 ? Math.round(total) : undefined;
}
