/**
 * The names of preview environments: `pr-{number}` and back, and the durations of `ttl` and
 * `--older-than`. Pure and dependency-free, so that the plan (which leaves previews alone) can use
 * it without the manifest loader.
 */

export const NUMBER_PLACEHOLDER = '{number}';

/** The environment name of pull request `n`: `pr-{number}` -> `pr-42`. */
export function previewNameOf(pattern: string, n: number): string {
  return pattern.split(NUMBER_PLACEHOLDER).join(String(n));
}

/** Matches the names the pattern makes (any number, letter case ignored, as environment names are unique). */
export function previewPatternRegExp(pattern: string): RegExp {
  const parts = pattern.split(NUMBER_PLACEHOLDER).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('(\\d+)')}$`, 'i');
}

/** The pull request number of a preview environment's name, or undefined when the name is not one. */
export function previewNumberOf(pattern: string, environmentName: string): number | undefined {
  const m = previewPatternRegExp(pattern).exec(environmentName);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `72h`, `7d`, `1h30m`, `90s` -> milliseconds; undefined when not a duration. */
export function parsePreviewDuration(text: string): number | undefined {
  const t = text.trim();
  if (!/^(\d+(d|h|m|s))+$/.test(t)) return undefined;
  const unit: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };
  let total = 0;
  for (const m of t.matchAll(/(\d+)(d|h|m|s)/g)) total += Number(m[1]) * unit[m[2]];
  return total;
}

