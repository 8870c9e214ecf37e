/**
 * Against an API that fails a fifth of its requests (500, 503, dropped connections, some after the
 * write was committed), repeated applies converge to the manifest with no duplicate objects:
 * ambiguous creates are resolved by looking the object up by name before trying again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('apply under faults', () => {
  it('converges with --fault-rate 0.2 and creates nothing twice', async () => {
    h = await startHarness({ faultRate: 0.2, faultSeed: 42 });
    h.write({ 'm/main.yaml': appManifest({ withWorker: true, stages: true }) });
    const codes: number[] = [];
    for (let i = 0; i < 6 && codes.at(-1) !== 0; i++) {
      const r = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
      expect(r.stdout + r.stderr).not.toMatch(/\n\s+at .*\.js:\d+/); // never a stack trace
      // an ambiguous create is looked up, never blindly sent again into a "name taken" conflict
      expect(r.stdout + r.stderr).not.toContain('already exists');
      codes.push(r.code);
    }
    expect(codes.at(-1)).toBe(0);

    const names = (o: Record<string, Record<string, unknown>>) => Object.values(o).map((x) => String(x.name ?? x.key)).sort();
    expect(names(h.emu.state.projects)).toEqual(['e2e']);
    expect(names(h.emu.state.environments)).toEqual(['dev']);
    expect(names(h.emu.state.services)).toEqual(['api', 'web', 'worker']);
    expect(names(h.emu.state.variables).filter((k) => !k.startsWith('QOVERY'))).toEqual(['API_KEY', 'FEATURE_FLAG', 'LOG_LEVEL']);
    expect(names(h.emu.state.deploymentStages).filter((n) => n !== 'DEFAULT')).toEqual(['first', 'second']);

    h.emu.ctx.options.faultRate = 0;
    const p = await h.run(['plan', 'm'], { env: SECRET_ENV });
    expect(p.stdout).toContain('No changes.');
  });
});
