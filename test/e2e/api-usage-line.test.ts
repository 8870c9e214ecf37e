/**
 * Every command that calls the API ends with one stderr line of what it used, from the
 * X-RateLimit-* headers: `N API requests; L of LIMIT left in this window`. Checked against the
 * emulator's own count, and kept out of machine-readable stdout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest, remainingRequests } from './fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LIMIT = 1000;
// With a refresh cache (npm run test:warm) the line also gives the refresh's share.
const USAGE = /^(\d+) API requests?(?: \(\d+ of them the refresh\))?; (\d+) of (\d+) left in this window$/;

async function harness(): Promise<Harness> {
  h = await startHarness({ rateLimit: LIMIT, rateWindowS: 3600 });
  h.write({ 'm/main.yaml': appManifest() });
  return h;
}

/** The last stderr line, parsed, checked against what the emulator counted for the token. */
async function expectUsageLine(stderr: string): Promise<number> {
  const last = stderr.trimEnd().split('\n').pop()!;
  const m = USAGE.exec(last);
  expect(m, `last stderr line: ${last}`).not.toBeNull();
  const [sent, left, limit] = [Number(m![1]), Number(m![2]), Number(m![3])];
  expect(sent).toBeGreaterThan(0);
  expect(limit).toBe(LIMIT);
  expect(left).toBe(LIMIT - sent);
  // remainingRequests itself costs one request.
  expect(await remainingRequests(h!)).toBe(LIMIT - sent - 1);
  return sent;
}

describe('the closing usage line', () => {
  it('plan: on stderr, the same count as the JSON plan, and not in --format json stdout', async () => {
    await harness();
    const r = await h!.run(['plan', 'm', '--format', 'json'], { env: SECRET_ENV });
    expect(r.code, r.stderr).toBe(0);
    const sent = await expectUsageLine(r.stderr);
    const plan = JSON.parse(r.stdout);
    expect(plan.request_count).toBe(sent);
    expect(r.stdout).not.toContain('left in this window');
  });

  it('apply --json: every stdout line stays JSON; the line counts the plan and the apply', async () => {
    await harness();
    const r = await h!.run(['apply', 'm', '--auto-approve', '--json', ...FAST], { env: SECRET_ENV });
    expect(r.code, r.stderr).toBe(0);
    for (const line of r.stdout.trimEnd().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
    const sent = await expectUsageLine(r.stderr);
    const summary = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l)).find((e) => e.type === 'change_summary' && e.operation === 'apply');
    expect(sent).toBeGreaterThan(summary.requests);
  });

  for (const argv of [['drift', 'm'], ['drift', 'm', '--format', 'json'], ['export'], ['graph', 'm'], ['validate', '--remote', 'm']]) {
    it(`${argv.join(' ')} ends with it`, async () => {
      await harness();
      const r = await h!.run(argv, { env: SECRET_ENV });
      // drift exits 2: nothing of the manifest is live yet.
      expect([0, 2], r.stderr).toContain(r.code);
      await expectUsageLine(r.stderr);
      expect(r.stdout).not.toContain('left in this window');
    });
  }

  it('is not printed by a command that called no API: validate, graph --offline, a plan of an invalid manifest', async () => {
    await harness();
    h!.write({ 'bad/main.yaml': 'projects: 3\n' });
    for (const argv of [['validate', 'm'], ['graph', 'm', '--offline'], ['plan', 'bad']]) {
      const r = await h!.run(argv, { env: SECRET_ENV });
      expect(r.stderr, argv.join(' ')).not.toMatch(/API requests?(;|$)/m);
    }
    expect(await remainingRequests(h!)).toBe(LIMIT - 1);
  });
});
