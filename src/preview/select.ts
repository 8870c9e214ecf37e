/**
 * Which previews `driftless preview prune` deletes: those older than the age limit (`--older-than`,
 * else the declaration's `ttl`), and, with `--keep N,...` (the open pull requests' numbers), every
 * preview whose number is not kept. A kept number is never deleted, whatever its age. Pure.
 */
import type { LivePreview } from './live.js';

interface PruneSelection {
  /** Milliseconds; undefined: no age limit. */
  olderThanMs?: number;
  /** undefined: no keep list. */
  keep?: readonly number[];
}

interface PruneVerdict {
  preview: LivePreview;
  reason: string;
}

export function previewsToPrune(previews: readonly LivePreview[], sel: PruneSelection, now: Date): PruneVerdict[] {
  const kept = sel.keep ? new Set(sel.keep) : undefined;
  const out: PruneVerdict[] = [];
  for (const p of previews) {
    if (kept?.has(p.number)) continue;
    if (kept) {
      out.push({ preview: p, reason: `pull request ${p.number} is not in --keep` });
      continue;
    }
    if (sel.olderThanMs === undefined) continue;
    const age = now.getTime() - Date.parse(p.created_at);
    if (Number.isFinite(age) && age > sel.olderThanMs) out.push({ preview: p, reason: `older than ${formatAge(sel.olderThanMs)} (${formatAge(age)})` });
  }
  return out;
}

/** `3d4h`, `5h12m`, `42s`: the two largest units. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const units: Array<[string, number]> = [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]];
  const parts: string[] = [];
  let rest = s;
  for (const [u, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${u}`);
    if (parts.length === 2) break;
  }
  return parts.length === 0 ? '0s' : parts.filter((p) => !/^0/.test(p) || parts.length === 1).join('');
}
