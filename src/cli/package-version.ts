/** The installed package's version: `--version`, and the `driftless_version` of the JSON plan. */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** package.json sits two levels above both src/cli and dist/cli. */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  try {
    cached = String(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  } catch {
    cached = 'unknown';
  }
  return cached;
}
