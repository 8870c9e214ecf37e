/**
 * `--cache DIR` on the command line wins over DRIFTLESS_CACHE_DIR (the environment is the default a
 * CI job sets once; a flag is what this run asked for), for every command that takes it, end to end
 * (a planted swap of the two went unnoticed by the suite).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheFilePath } from '../../src/live/cache-file.js';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('--cache over DRIFTLESS_CACHE_DIR', () => {
  it('each command writes the cache where --cache says, never into DRIFTLESS_CACHE_DIR', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const env = { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: join(h.dir, 'from-env') };
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST, '--cache', 'from-flag-apply'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    for (const [cmd, ...rest] of [['plan', 'm'], ['drift', 'm'], ['graph', 'm'], ['export']] as const) {
      const dir = `from-flag-${cmd}`;
      const r = await h.run([cmd, ...rest, '--cache', dir], { env });
      expect([0, 2], `${cmd}: ${r.stderr}`).toContain(r.code);
      expect(r.stderr, cmd).toContain(`Full read of the live state: no cache in ${join(h.dir, dir)} yet.`);
      expect(existsSync(cacheFilePath(join(h.dir, dir))), cmd).toBe(true);
    }
    expect(existsSync(cacheFilePath(join(h.dir, 'from-flag-apply')))).toBe(true);
    expect(existsSync(join(h.dir, 'from-env'))).toBe(false);
  });

  it('without --cache, DRIFTLESS_CACHE_DIR is used', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['plan', 'm'], { env: { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: join(h.dir, 'from-env') } });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(cacheFilePath(join(h.dir, 'from-env')))).toBe(true);
  });
});
