/**
 * DRIFTLESS_LOG_LEVEL=debug: one stderr line per API exchange, for whoever has to find out why a
 * CI run is slow or failing; never a header, a body or a secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('DRIFTLESS_LOG_LEVEL', () => {
  it('debug logs every API exchange on stderr, without the token or any secret', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['plan', 'm'], { env: { ...SECRET_ENV, DRIFTLESS_LOG_LEVEL: 'debug' } });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('debug: API '));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toContainEqual(expect.stringMatching(/^debug: API GET \/organization -> 200 in \d+ms \(attempt 1\)$/));
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain(h.env.DRIFTLESS_API_TOKEN!);
      expect(text).not.toContain(SECRET);
    }
  });

  it('the default level logs no exchange', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['plan', 'm'], { env: SECRET_ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('debug: API');
  });
});
