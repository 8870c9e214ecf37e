/**
 * `plan` against the real emulator: formats, exit codes, saved plan, and clear errors for bad
 * configuration (never the token, never a stack trace).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('plan', () => {
  it('prints the plan as human text, JSON or markdown; --detailed-exitcode is 2 when there are changes', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const human = await h.run(['plan', 'm', '--detailed-exitcode'], { env: SECRET_ENV });
    expect(human.code).toBe(2);
    expect(human.stdout).toContain('Plan: 7 to add, 0 to change, 0 to destroy, 2 to deploy.');

    const json = await h.run(['plan', 'm', '--json'], { env: SECRET_ENV });
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.summary).toMatchObject({ add: 7, change: 0, destroy: 0, deploy: 2 });
    expect(doc.request_count).toBeGreaterThan(0);

    const md = await h.run(['plan', 'm', '--format', 'markdown'], { env: SECRET_ENV });
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('|');
    for (const out of [human, json, md]) expect(out.stdout + out.stderr).not.toContain(SECRET);
    // plan is read-only
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);
  });

  it('says what is wrong with the configuration, and never prints the token', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const badToken = await h.run(['plan', 'm'], { env: { ...SECRET_ENV, DRIFTLESS_API_TOKEN: 'not-a-valid-token-XYZ' } });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toContain('DRIFTLESS_API_TOKEN');
    expect(badToken.stdout + badToken.stderr).not.toContain('not-a-valid-token-XYZ');
    expect(badToken.stderr).not.toMatch(/\n\s+at /);

    const noUrl = await h.run(['plan', 'm'], { env: { ...SECRET_ENV, DRIFTLESS_API_URL: '' } });
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toContain('Set DRIFTLESS_API_URL or pass --api-url');

    const down = await h.run(['plan', 'm', '--api-url', 'http://127.0.0.1:9'], { env: SECRET_ENV });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('Reading the live state failed');
    expect(down.stdout + down.stderr).not.toContain(h.env.DRIFTLESS_API_TOKEN);
  });
});
