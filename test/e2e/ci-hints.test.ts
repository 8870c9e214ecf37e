/**
 * With CI=true in the environment, next-step hints ("To perform exactly these actions, run ...")
 * are left out: the workflow decides what runs next. Facts and error remedies stay, and so does a
 * usage error's pointer to --help (whoever fixes the workflow file needs it). Each test runs the
 * same command without CI too, so that it proves the switch and not a missing hint.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest } from './fixtures.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(): Promise<Harness> {
  h = await startHarness();
  h.write({ 'm/main.yaml': appManifest() });
  return h;
}

const CI = { ...SECRET_ENV, CI: 'true' };

describe('CI=true', () => {
  it('plan --out says where the plan is, without "To perform exactly these actions, run"', async () => {
    await harness();
    const local = await h!.run(['plan', 'm', '--out', 'local.json'], { env: SECRET_ENV });
    expect(local.stderr).toContain('To perform exactly these actions, run:\n  driftless apply local.json');
    const ci = await h!.run(['plan', 'm', '--out', 'ci.json'], { env: CI });
    expect(ci.code).toBe(0);
    expect(ci.stderr).toContain('Saved the plan to ci.json.');
    expect(ci.stdout + ci.stderr).not.toContain('To perform');
    expect(ci.stdout + ci.stderr).not.toContain('driftless apply');
  });

  it('plan --out --format json: the note on stderr loses its hint too', async () => {
    await harness();
    const ci = await h!.run(['plan', 'm', '--out', 'ci.json', '--format', 'json'], { env: CI });
    expect(ci.code).toBe(0);
    expect(ci.stderr).toContain('Saved the plan to ci.json.');
    expect(ci.stderr).not.toContain('To perform');
  });

  it('preview up --out says where the plan is as plan --out does: the hint to apply it, but not in CI', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': previewManifest({ services: [] }) });
    const up = ['preview', 'up', 'm', '--project', 'shop', '--number', '3', '--out'];
    const local = await h.run([...up, 'local.json']);
    expect(local.code, local.stderr).toBe(0);
    expect(local.stderr).toContain('Saved the plan of preview pr-3 to local.json. To perform exactly these actions, run:\n  driftless apply local.json');
    const ci = await h.run([...up, 'ci.json'], { env: { CI: 'true' } });
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stderr).toContain('Saved the plan of preview pr-3 to ci.json.');
    expect(ci.stdout + ci.stderr).not.toContain('driftless apply');
  });

  it('drift keeps the facts but not "review and run: driftless apply" nor "To keep a change"', async () => {
    await harness();
    const local = await h!.run(['drift', 'm'], { env: SECRET_ENV });
    expect(local.code).toBe(2);
    expect(local.stdout).toContain('review and run:  driftless apply m');
    expect(local.stdout).toContain('To keep a change made outside Git instead');
    const ci = await h!.run(['drift', 'm'], { env: CI });
    expect(ci.code).toBe(2);
    expect(ci.stdout).toContain('Drift detected:');
    expect(ci.stdout).toContain('Fingerprint:');
    expect(ci.stdout).not.toContain('review and run');
    expect(ci.stdout).not.toContain('To keep a change');
    // The JSON report's reconcile_command is data for the workflow, not a hint: it stays.
    const json = await h!.run(['drift', 'm', '--format', 'json'], { env: CI });
    expect(JSON.parse(json.stdout).reconcile_command).toBe('driftless apply m');
  });

  it("a usage error keeps its pointer to --help", async () => {
    await harness();
    const r = await h!.run(['plan', 'm', '--bogus'], { env: CI });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Run 'driftless plan --help'");
  });
});
