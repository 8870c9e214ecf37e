/**
 * `--max-wait SECONDS` / DRIFTLESS_MAX_WAIT cap a wait for the API rate limit: past the cap the
 * command fails at once (exit 1) with the reset time and the window's requests used and left,
 * instead of sleeping until the window resets (a plan once waited 3,449 s behind one stderr line).
 * The emulator's window here is an hour: a run that finishes in seconds did not wait it out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest, servicesByName } from './fixtures.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const HOUR = 3600;
/** Far below the hour a run would wait without the cap, far above what a run takes. */
const GENEROUS_MS = 60_000;
const RESET = /The window resets at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) \(([^)]+), in (\d+ h|\d+ min[^)]*)\)/;
const NO_STACK = /\n\s+at .+:\d+:\d+/;

async function harness(rateLimit: number, rateWindowS = HOUR): Promise<Harness> {
  // The full read's own requests are measured here: no refresh cache, even in `npm run test:warm`.
  h = await startHarness({ refreshCache: false, rateLimit, rateWindowS });
  h.write({ 'm/main.yaml': appManifest() });
  return h;
}

/** What `plan` costs on this manifest, read from its own usage line on a fresh emulator. */
async function planRequests(): Promise<number> {
  const probe = await startHarness({ refreshCache: false });
  try {
    probe.write({ 'm/main.yaml': appManifest() });
    const r = await probe.run(['plan', 'm'], { env: SECRET_ENV });
    expect(r.code).toBe(0);
    return Number(/^(\d+) API requests;/m.exec(r.stderr)![1]);
  } finally {
    await probe.close();
  }
}

describe('--max-wait', () => {
  it('plan: a rate-limit wait beyond the cap fails at once, exit 1, with the reset time (ISO and local) and the budget', async () => {
    await harness(2);
    const started = Date.now();
    const r = await h!.run(['plan', 'm', '--max-wait', '5'], { env: { ...SECRET_ENV, TZ: 'Asia/Tokyo' } });
    expect(Date.now() - started).toBeLessThan(GENEROUS_MS);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error[api.rate-limit-wait]: Reading the live state stopped: the API rate limit is spent');
    expect(r.stderr).toContain('more than the maximum wait of 5 s');
    const m = RESET.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    // The reset is about an hour away, and the local wording is on the reader's clock (TZ).
    const resetAt = Date.parse(m![1]!);
    expect(resetAt - Date.now()).toBeGreaterThan((HOUR - 120) * 1000);
    expect(resetAt - Date.now()).toBeLessThanOrEqual((HOUR + 5) * 1000);
    expect(m![2]).toMatch(/GMT\+9$/);
    expect(r.stderr).toContain('2 of 2 requests of this window used, 0 left');
    expect(r.stderr).not.toMatch(NO_STACK);
  });

  it('within the cap it waits for the reset, says so, and succeeds', async () => {
    await harness(2, 2);
    // DRIFTLESS_MAX_WAIT=0 would fail at the first wait: the flag wins over the variable.
    const r = await h!.run(['plan', 'm', '--max-wait', '30'], { env: { ...SECRET_ENV, DRIFTLESS_MAX_WAIT: '0' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/API rate limit: waiting \d+s/);
    expect(r.stdout).toContain('Plan: 7 to add');
  });

  it('DRIFTLESS_MAX_WAIT caps the wait when no flag is given', async () => {
    await harness(2);
    const started = Date.now();
    const r = await h!.run(['drift', 'm'], { env: { ...SECRET_ENV, DRIFTLESS_MAX_WAIT: '3' } });
    expect(Date.now() - started).toBeLessThan(GENEROUS_MS);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('more than the maximum wait of 3 s');
    expect(r.stderr).toMatch(RESET);
  });

  it('a DRIFTLESS_MAX_WAIT that is not a whole number of seconds is a clear error before any request', async () => {
    await harness(1000);
    const r = await h!.run(['plan', 'm'], { env: { ...SECRET_ENV, DRIFTLESS_MAX_WAIT: '5m' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[config.max-wait-invalid]: DRIFTLESS_MAX_WAIT must be a whole number of seconds from 0 to 86400 (got "5m")');
    expect(r.stderr).not.toMatch(/API requests?;/);
  });

  it('a bad --max-wait is a usage error naming what is allowed', async () => {
    await harness(1000);
    const r = await h!.run(['plan', 'm', '--max-wait', '1.5']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--max-wait must be an integer from 0 to 86400, got 1.5');
  });

  for (const argv of [['drift', 'm'], ['export'], ['graph', 'm'], ['validate', '--remote', 'm']]) {
    it(`${argv.join(' ')} takes --max-wait too`, async () => {
      await harness(1);
      const started = Date.now();
      const r = await h!.run([...argv, '--max-wait', '2'], { env: SECRET_ENV });
      expect(Date.now() - started).toBeLessThan(GENEROUS_MS);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('the API rate limit is spent and the next request would wait');
      expect(r.stderr).toMatch(RESET);
      expect(r.stderr).not.toMatch(NO_STACK);
    });
  }
});

describe('--max-wait in the plan-time checks', () => {
  const withDatabase = `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: production-cluster
        services:
          - type: database
            name: pg
            database_type: POSTGRESQL
            version: "16"
            mode: MANAGED
            instance_type: db.t3.micro
`;

  it('a wait beyond the cap while reading a listing fails the plan (exit 1), not a warning that the check was skipped', async () => {
    const probe = await startHarness({ refreshCache: false });
    probe.write({ 'm/main.yaml': withDatabase });
    const full = await probe.run(['plan', 'm']);
    await probe.close();
    expect(full.code, full.stderr).toBe(0);
    const needed = Number(/^(\d+) API requests;/m.exec(full.stderr)![1]);
    // The instance-type listing is read after the live state: one request short, it is the one capped.
    h = await startHarness({ refreshCache: false, rateLimit: needed - 1, rateWindowS: HOUR });
    h.write({ 'm/main.yaml': withDatabase });
    const r = await h.run(['plan', 'm', '--max-wait', '5']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error[api.rate-limit-wait]: Checking the manifest against the organization stopped: the API rate limit is spent');
    expect(r.stderr).not.toContain('could not be checked');
    expect(r.stderr).toMatch(RESET);
  });
});

describe('--max-wait with apply', () => {
  it('refuses cleanly before the first write when that write would wait beyond the cap: nothing changed', async () => {
    await harness(await planRequests());
    const started = Date.now();
    const r = await h!.run(['apply', 'm', '--auto-approve', '--max-wait', '5', ...FAST], { env: SECRET_ENV });
    expect(Date.now() - started).toBeLessThan(GENEROUS_MS);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[apply.rate-limit-wait]: apply refused before its first write: the API rate limit is spent');
    expect(r.stderr).toContain('Nothing was changed.');
    expect(r.stderr).toMatch(RESET);
    expect(servicesByName(h!).size).toBe(0);
    expect(r.stdout).not.toContain('Apply failed');
  });

  it('a wait met during the apply stops scheduling new steps and reports what was done', async () => {
    await harness((await planRequests()) + 3);
    const started = Date.now();
    const r = await h!.run(['apply', 'm', '--auto-approve', '--max-wait', '5', ...FAST], { env: SECRET_ENV });
    expect(Date.now() - started).toBeLessThan(GENEROUS_MS);
    expect(r.code).toBe(1);
    const added = Number(/Apply failed: .*Resources: (\d+) added/.exec(r.stdout)?.[1]);
    // Some steps ran (the budget allowed three writes), the rest were not started or skipped.
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThan(7);
    expect(r.stdout).toMatch(/No further step was started: the API rate limit is spent .*The window resets at/);
    expect(r.stdout).toMatch(/^\s+(skipped|not started)\s/m);
    expect(r.stdout + r.stderr).not.toMatch(NO_STACK);
  });
});

describe('--max-wait with preview up', () => {
  const withPreviews = previewManifest({ services: [] });
  const up = ['preview', 'up', 'm', '--project', 'shop', '--number', '7'];

  it('refuses as apply does, before the first write, when that write would wait beyond the cap: no preview made', async () => {
    // What the preview's plan costs: `up --out` plans and saves, writing nothing.
    const probe = await startHarness({ refreshCache: false });
    probe.write({ 'm/main.yaml': withPreviews });
    const planned = await probe.run([...up, '--out', 'pr.plan']);
    await probe.close();
    expect(planned.code, planned.stderr).toBe(0);
    const needed = Number(/^(\d+) API requests;/m.exec(planned.stderr)![1]);

    h = await startHarness({ refreshCache: false, rateLimit: needed, rateWindowS: HOUR });
    h.write({ 'm/main.yaml': withPreviews });
    const started = Date.now();
    const r = await h.run([...up, '--max-wait', '5', ...FAST]);
    expect(Date.now() - started).toBeLessThan(GENEROUS_MS);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[apply.rate-limit-wait]: preview up refused before its first write: the API rate limit is spent');
    expect(r.stderr).toContain('Nothing was changed. Run preview up again after the reset');
    expect(r.stderr).toMatch(RESET);
    expect(r.stdout).not.toContain('Apply failed');
    expect(Object.values(h.emu.state.environments).map((e) => e.name)).not.toContain('pr-7');
  });
});
