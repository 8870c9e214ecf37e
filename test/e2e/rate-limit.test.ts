/**
 * An apply that needs more requests than the rate limit allows in a window waits the window out,
 * using the rate-limit headers, says so, and completes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('apply under a tight rate limit', () => {
  it('paces itself with X-RateLimit-* instead of failing, shows the wait, and converges', async () => {
    h = await startHarness({ rateLimit: 12, rateWindowS: 1 });
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/rate limit.*waiting \d+s/i);
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('Apply complete! Resources: 7 added, 0 changed, 0 destroyed; 2 deployed.');
  });
});
