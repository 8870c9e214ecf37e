/**
 * Finding 3: an empty secret was written. `SENDGRID_API_KEY= driftless plan` (set but empty, the
 * usual sign of a CI secret that was not configured) planned a secret change and apply deployed it;
 * only an unset variable was an error. Now an empty `${env:NAME}` is an error naming the variable
 * and the file:line:col that reads it, nothing is planned or written, and `${env:NAME:-}` is the
 * explicit opt-in for an intentionally empty value.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { appManifest, remainingRequests, SECRET_ENV, variablesByKey } from '../e2e/fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** file:line:col of the first `${env:NAME` in `text`, computed from the text itself. */
function whereRead(file: string, text: string, name: string): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.includes(`\${env:${name}`));
  return `${file}:${i + 1}:${lines[i]!.indexOf('${') + 1}`;
}

describe('finding 3: an empty ${env:...} value is an error', () => {
  it('finding 3: plan and apply refuse an empty secret, name it and where it is read, and write nothing', async () => {
    h = await startHarness();
    const manifest = appManifest();
    h.write({ 'm/main.yaml': manifest });
    const where = whereRead('m/main.yaml', manifest, 'E2E_API_KEY');
    const empty = { E2E_API_KEY: '' };

    const before = await remainingRequests(h);
    const plan = await h.run(['plan', 'm', '--out', 'plan.bin', '--detailed-exitcode'], { env: empty });
    // Not one API request: the only one counted is the probe that reads the counter.
    expect(before - (await remainingRequests(h))).toBe(1);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('environment variable `E2E_API_KEY` is set but empty');
    expect(plan.stderr).toContain(where);
    expect(plan.stderr).toContain('${env:E2E_API_KEY:-}');
    expect(plan.stdout).not.toMatch(/to add/);
    expect(existsSync(path.join(h.dir, 'plan.bin'))).toBe(false);

    const apply = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: empty });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('environment variable `E2E_API_KEY` is set but empty');
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);
    expect(Object.keys(h.emu.state.variables)).toHaveLength(0);
  });

  it('finding 3: an empty value never replaces a secret that is live', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    const before = structuredClone(variablesByKey(h).get('API_KEY'));
    expect(before).toBeDefined();

    const apply = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: { E2E_API_KEY: '' } });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('`E2E_API_KEY` is set but empty');
    expect(variablesByKey(h).get('API_KEY')).toEqual(before);
  });

  it('finding 3: ${env:NAME:-} opts in to an intentionally empty value, ${env:NAME:-default} to a default', async () => {
    h = await startHarness();
    const manifest = appManifest()
      .replace('${env:E2E_API_KEY}', '"${env:E2E_API_KEY:-}"')
      .replace('value: "on"', 'value: "${env:E2E_FLAG:-off}"');
    h.write({ 'm/main.yaml': manifest });
    for (const env of [{}, { E2E_API_KEY: '', E2E_FLAG: '' }] as Array<Record<string, string>>) {
      const plan = await h.run(['plan', 'm'], { env });
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stderr).not.toContain('E2E_API_KEY');
    }
    const apply = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: { E2E_API_KEY: '' } });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const vars = variablesByKey(h);
    expect(vars.get('API_KEY')).toMatchObject({ is_secret: true });
    expect(vars.get('FEATURE_FLAG')).toMatchObject({ value: 'off' });
    // Applied as planned: the next plan has nothing to do.
    const again = await h.run(['plan', 'm', '--detailed-exitcode'], { env: { E2E_API_KEY: '' } });
    expect(again.code, again.stdout).toBe(0);
  });
});
