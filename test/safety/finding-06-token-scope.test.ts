/**
 * Finding 6: `apply` with the WRITE token (no Deploy scope) wrote the configuration, then every
 * deploy got a 403, and the next plan listed secrets driftless had written as "value unknown: not
 * written by driftless".
 *
 * Now apply establishes before its first write that the token can write and deploy what the plan
 * needs (refusing with the missing scope named), and every secret is written with its keyed
 * fingerprint in the same request (checked here against an HMAC computed by the test).
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { SECRET, SECRET_ENV, appManifest, variablesByKey } from '../e2e/fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Everything apply could write or start. */
function snapshot(): string {
  const s = h.emu.state;
  return JSON.stringify([s.projects, s.environments, s.services, s.variables, s.secretValues, s.deploymentStages, s.operations, s.serviceStatuses]);
}

async function applyWith(scope: 'WRITE' | 'DEPLOY' | 'READ') {
  return h.run(['apply', 'm', '--auto-approve', ...FAST], { env: { ...SECRET_ENV, DRIFTLESS_API_TOKEN: h.emu.tokens[scope] } });
}

describe('finding 6: never a half-done apply that is then misreported', () => {
  it('finding 6: a WRITE token is refused before any write, naming the missing Deploy scope; the emulator is unchanged', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const before = snapshot();
    const r = await applyWith('WRITE');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The API token lacks the Deploy scope this plan needs. Nothing was changed.');
    expect(r.stderr).toContain('Missing: Deploy (the plan deploys 2 services)');
    expect(snapshot()).toBe(before);
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(r.stdout + r.stderr).not.toContain(h.emu.tokens.WRITE);
  });

  it('finding 6: a DEPLOY token and a READ token are refused naming Write (and Deploy), nothing written', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const before = snapshot();
    const deploy = await applyWith('DEPLOY');
    expect(deploy.code).toBe(1);
    expect(deploy.stderr).toContain('The API token lacks the Write scope this plan needs.');
    const read = await applyWith('READ');
    expect(read.code).toBe(1);
    expect(read.stderr).toContain('The API token lacks the Write and Deploy scopes this plan needs.');
    expect(snapshot()).toBe(before);
  });

  it('finding 6: a plan that deploys nothing needs no Deploy scope: the WRITE token applies it', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
    h.write({ 'm/main.yaml': appManifest().replace('description: end-to-end test project', 'description: edited in Git') });
    const r = await applyWith('WRITE');
    expect(r.code).toBe(0);
    expect(Object.values(h.emu.state.projects)[0]!.description).toBe('edited in Git');
  });

  it('finding 6: secrets written by an apply that then fails carry their fingerprint; the next plan does not call them "not written by driftless"', async () => {
    h = await startHarness({ failDeployGlob: 'api' });
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('project.e2e/environment.dev/application.api: Deployment failed');
    // The fingerprint went with the value, in the record the API keeps.
    const expected = createHmac('sha256', h.env.DRIFTLESS_FINGERPRINT_KEY).update(SECRET).digest('base64url').slice(0, 16);
    const secret = variablesByKey(h).get('API_KEY')!;
    expect(secret.description).toBe(`[driftless:v1 value=${expected}]`);
    const p = await h.run(['plan', 'm'], { env: SECRET_ENV });
    expect(p.code).toBe(0);
    expect(p.stdout).not.toContain('not written by driftless');
    expect(p.stdout).not.toContain('variable.API_KEY');
    expect(p.stdout).toContain('application.api will be deployed');
  });
});
