/**
 * `driftless demo`, in-process with short deployments: every step happens (plan, apply with
 * progress, two console changes, drift finding both), it exits 0 without a terminal or any
 * configuration, and the generated secrets never reach the output.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../export/helpers.js';

describe('driftless demo', () => {
  it('plans, applies, changes two things outside Git and shows drift finding them; exit 0', async () => {
    // No DRIFTLESS_* variable, no terminal: the demo needs no configuration.
    const r = await run(['demo', '--deploy-duration', '40'], { NO_COLOR: '1' });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    const at = (s: string) => {
      const i = out.indexOf(s);
      expect(i, `missing: ${s}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    // The steps, in order.
    const steps = [at('1/4  plan'), at('2/4  apply'), at('3/4  a change in the console'), at('4/4  drift')];
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    // The plan creates the example; the apply completes; the drift names both console changes.
    expect(out.slice(steps[0], steps[1])).toMatch(/to add/);
    expect(out.slice(steps[1], steps[2])).toMatch(/Apply complete|applied/i);
    const drift = out.slice(steps[3]!);
    expect(drift).toContain('Drift detected');
    expect(drift).toContain('project.shop/variable.LOG_LEVEL');
    expect(drift).toContain('value: live "trace", Git "info"');
    expect(drift).toContain('project.shop/environment.production/application.api');
    expect(drift).toContain('cpu: live 2000, Git 1000');
    expect(drift).toContain('changed outside Git');
    // Who made the console edits: the console user of the emulator's audit log, not an inference.
    expect(drift).toMatch(/project\.shop\/variable\.LOG_LEVEL {2}\[changed outside Git\]\n.*\n {4}changed in the console by ops-oncall@example\.com at \d\d:\d\d UTC on \d{4}-\d\d-\d\d\n/);
    expect(drift).toMatch(/application\.api {2}\[changed outside Git\]\n.*\n {4}changed in the console by ops-oncall@example\.com at \d\d:\d\d UTC/);
    expect(drift).not.toContain('inferred');
    expect(drift).toContain('drift exited with 2');
    // Generated secrets are never shown.
    expect(out + r.stderr).not.toMatch(/sk_test_demo_|hooks\.slack\.com\/services\/DEMO/);
  }, 120_000);
});
