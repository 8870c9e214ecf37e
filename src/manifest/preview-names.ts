/**
 * The names of preview environments: `pr-{number}` and back. Pure and dependency-free, so that the plan (which leaves previews alone) can use
 * it without the manifest loader.
 */

export const NUMBER_PLACEHOLDER = '{number}';

/** The environment name of pull request `n`: `pr-{number}` -> `pr-42`. */
export function previewNameOf(pattern: string, n: number): string {
  return pattern.split(NUMBER_PLACEHOLDER).join(String(n));
}

/**
 * Matches the names the pattern makes (any number, letter case ignored, as environment names are
 * unique), and only those: a number as `previewNameOf` writes it (no leading zero: `pr-007` is not
 * pull request 7's, and `preview down --number 7` must not delete it), the same number at every
 * `{number}`.
 */
export function previewPatternRegExp(pattern: string): RegExp {
  const parts = pattern.split(NUMBER_PLACEHOLDER).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts[0]}${parts.slice(1).map((p, i) => `${i === 0 ? '([1-9]\\d*)' : '\\1'}${p}`).join('')}$`, 'i');
}

/** The pull request number of a preview environment's name, or undefined when the name is not one. */
export function previewNumberOf(pattern: string, environmentName: string): number | undefined {
  const m = previewPatternRegExp(pattern).exec(environmentName);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? n : undefined;
}
