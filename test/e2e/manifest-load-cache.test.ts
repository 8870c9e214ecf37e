/**
 * The manifest load cache (issue 21): a warm `plan --cache DIR` whose manifest files did not change
 * reuses what the last run built, plans exactly what a fresh load plans, never stores a secret
 * value in the cache directory, and loads afresh a manifest changed in any byte.
 */
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MANIFEST_CACHE_FILE_NAME } from '../../src/cli/manifest-load-cache.js';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Every byte of every file under `dir`. */
function allBytes(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out += statSync(p).isDirectory() ? allBytes(p) : readFileSync(p, 'latin1');
  }
  return out;
}

describe('plan --cache: the manifest load cache', () => {
  it('a warm plan of unchanged files plans what a fresh load plans; the cache holds no secret value; a changed byte is loaded afresh', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const env = SECRET_ENV;
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env });
    expect(applied.code, applied.stderr).toBe(0);

    const cold = await h.run(['plan', 'm', '--cache', 'c', '--detailed-exitcode'], { env });
    expect(cold.code, cold.stderr).toBe(0);
    const entry = join(h.dir, 'c', MANIFEST_CACHE_FILE_NAME);
    expect(existsSync(entry)).toBe(true);
    const stored = readFileSync(entry, 'utf8');
    // The manifest's `${env:}` name is there, its value nowhere in the directory.
    expect(stored).toContain('${env:E2E_API_KEY}');
    expect(allBytes(join(h.dir, 'c'))).not.toContain(SECRET);

    const warm = await h.run(['plan', 'm', '--cache', 'c', '--detailed-exitcode'], { env });
    expect(warm.code, warm.stderr).toBe(0);
    const fresh = await h.run(['plan', 'm', '--detailed-exitcode'], { env });
    // The same plan; only the count of reads differs (the refresh cache reads 3, a full read more).
    const plan = (out: string) => out.replace(/read with \d+ API requests?/, 'read with N API requests');
    expect(plan(warm.stdout)).toBe(plan(fresh.stdout));
    // The entry was read, not rewritten (same bytes), and still holds no secret value.
    expect(readFileSync(entry, 'utf8')).toBe(stored);
    expect(allBytes(join(h.dir, 'c'))).not.toContain(SECRET);

    // One byte changed in the manifest: the change is planned (the cached load is not used).
    const text = readFileSync(join(h.dir, 'm/main.yaml'), 'utf8');
    const changed = text.replace('value: info', 'value: infO');
    expect(changed).not.toBe(text);
    h.write({ 'm/main.yaml': changed });
    const after = await h.run(['plan', 'm', '--cache', 'c', '--detailed-exitcode'], { env });
    expect(after.code, after.stdout + after.stderr).toBe(2);
    expect(after.stdout).toContain('infO');
    expect(readFileSync(entry, 'utf8')).not.toBe(stored);

    // A secret value changed in the environment (the files did not): the plan sees the new value.
    const rotated = await h.run(['plan', 'm', '--cache', 'c', '--detailed-exitcode'], { env: { E2E_API_KEY: `${SECRET}-rotated` } });
    expect(rotated.code, rotated.stdout + rotated.stderr).toBe(2);
    expect(allBytes(join(h.dir, 'c'))).not.toContain(SECRET);
  });
});
