/**
 * Deployments against the real emulator: stage order, one batch per stage, failure with logs,
 * skipped later stages, timeout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest, servicesByName } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const API = 'project.e2e/environment.dev/application.api';
const WEB = 'project.e2e/environment.dev/container.web';
const events = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
const lastLine = (s: string) => s.trimEnd().split('\n').pop();

describe('apply deploys', () => {
  it('deploys stage by stage, one batch request per stage, the next stage after the previous one is DEPLOYED', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ stages: true }) });
    const r = await h.run(['apply', 'm', '--auto-approve', '--json', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(0);
    const ev = events(r.stdout);
    const at = (type: string, address: string) => ev.findIndex((e) => e.type === type && e.address === address && e.action === 'deploy');
    expect(at('apply_complete', WEB)).toBeGreaterThan(-1);
    expect(at('apply_start', API)).toBeGreaterThan(at('apply_complete', WEB));
    const webStates = ev.filter((e) => e.type === 'apply_progress' && e.address === WEB).map((e) => e.state);
    expect(webStates.at(-1)).toBe('DEPLOYED');
    // one deployment request per stage
    const envId = Object.keys(h.emu.state.environments)[0]!;
    expect(h.emu.state.environmentHistory[envId]).toHaveLength(2);
    expect(ev.at(-1)).toMatchObject({ type: 'change_summary', operation: 'apply', deploy: 2, failed: 0 });
  });

  it('fails with the state and last log lines of a failed deployment, and skips the stages after it', async () => {
    h = await startHarness({ failDeployGlob: 'web' });
    h.write({ 'm/main.yaml': appManifest({ stages: true }) });
    const r = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${WEB}: Deployment failed after`);
    expect(r.stdout).toContain('deployment ended in DEPLOYMENT_ERROR');
    expect(r.stdout).toMatch(/last log lines:\n {4}\S/);
    // the table: the failure, and the deploy that depended on it
    expect(r.stdout).toMatch(new RegExp(`failed +deploy +${WEB.replace(/\./g, '\\.')} +deployment ended in DEPLOYMENT_ERROR`));
    expect(r.stdout).toMatch(new RegExp(`skipped +deploy +${API.replace(/\./g, '\\.')} +depends on ${WEB.replace(/\./g, '\\.')}`));
    expect(lastLine(r.stdout)).toBe('Apply failed: 1 step failed, 1 skipped, 0 not started. Resources: 9 added, 0 changed, 0 destroyed; 0 deployed.');
    const api = servicesByName(h).get('api')!;
    expect(h.emu.state.serviceStatuses[api.id]?.state).not.toBe('DEPLOYED');
  });

  it('an independent service still deploys when another one fails', async () => {
    h = await startHarness({ failDeployGlob: 'api' });
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${API}: Deployment failed`);
    expect(r.stdout).toContain('BUILD_ERROR');
    expect(r.stdout).toContain(`${WEB}: Deployed after`);
    expect(lastLine(r.stdout)).toMatch(/^Apply failed: 1 step failed, 0 skipped, 0 not started\. .* 1 deployed\.$/);
  });

  it('fails at --timeout instead of waiting forever, naming the last state', async () => {
    h = await startHarness({ deployDurationMs: 60_000 });
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['apply', 'm', '--auto-approve', '--timeout', '1s', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/timed out waiting for the deployment \(last state (DEPLOYMENT_QUEUED|BUILDING|DEPLOYING)\)/);
    expect(lastLine(r.stdout)).toMatch(/^Apply failed: 2 steps failed/);
  });

  it('reports a deployment refused by the billing restriction with what to do', async () => {
    h = await startHarness();
    // No API edits the billing restriction: set it in the emulator's state, as the platform would.
    h.emu.state.organization = { ...h.emu.state.organization, billing_deployment_restriction: 'BLOCKED' };
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('deploy refused');
    expect(r.stdout).toContain("hint: Deployments are blocked by the organization's billing restriction");
    // the configuration itself was applied
    expect(servicesByName(h).has('api')).toBe(true);
  });
});
