/**
 * apply against the real emulator over HTTP: create, converge, update, replace, prune, data loss.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness, ONLY_USAGE_LINE } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest, remainingRequests, servicesByName, variablesByKey } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const apply = (...extra: string[]) => h.run(['apply', 'm', '--auto-approve', ...FAST, ...extra], { env: SECRET_ENV });
const plan = (...extra: string[]) => h.run(['plan', 'm', ...extra], { env: SECRET_ENV });
const lastLine = (s: string) => s.trimEnd().split('\n').pop();

describe('apply', () => {
  it('creates everything from nothing, deploys it, and a second run changes nothing with no request beyond the reads', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const first = await apply();
    expect(first.stderr).toMatch(ONLY_USAGE_LINE);
    expect(first.code).toBe(0);
    expect(lastLine(first.stdout)).toBe('Apply complete! Resources: 7 added, 0 changed, 0 destroyed; 2 deployed.');

    const services = servicesByName(h);
    expect([...services.keys()].sort()).toEqual(['api', 'web']);
    for (const s of services.values()) expect(h.emu.state.serviceStatuses[s.id]?.state).toBe('DEPLOYED');
    const vars = variablesByKey(h);
    expect(vars.get('API_KEY')?.is_secret).toBe(true);
    expect(h.emu.state.secretValues[vars.get('API_KEY')!.id]).toBe(SECRET);

    const p = await plan('--detailed-exitcode');
    expect(p.code).toBe(0);
    expect(p.stdout).toContain('No changes.');

    const planJson = JSON.parse((await plan('--json')).stdout);
    const before = await remainingRequests(h);
    const second = await apply();
    const after = await remainingRequests(h);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('No changes.');
    expect(lastLine(second.stdout)).toBe('Apply complete! Resources: 0 added, 0 changed, 0 destroyed; 0 deployed.');
    // requests the second apply made = its plan's reads, nothing more
    expect(before - after - 1).toBe(planJson.request_count);

    for (const out of [first, p, second]) expect(out.stdout + out.stderr).not.toContain(SECRET);
  });

  it('updates in place from the live record, redeploys what it affects, and converges', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    expect((await apply()).code).toBe(0);
    const apiId = servicesByName(h).get('api')!.id;
    const portId = servicesByName(h).get('api')!.ports[0].id;

    h.write({ 'm/main.yaml': appManifest({ cpu: 500, logLevel: 'debug' }) });
    const p = await plan();
    expect(p.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy, 2 to deploy.');
    const r = await apply();
    expect(r.code).toBe(0);
    expect(lastLine(r.stdout)).toBe('Apply complete! Resources: 0 added, 2 changed, 0 destroyed; 2 deployed.');
    const api = servicesByName(h).get('api')!;
    expect(api.id).toBe(apiId);
    expect(api.cpu).toBe(500);
    // the full-replacement PUT kept the port (and its id) from the live record
    expect(api.ports).toHaveLength(1);
    expect(api.ports[0].id).toBe(portId);
    expect(variablesByKey(h).get('LOG_LEVEL')?.value).toBe('debug');
    expect((await plan()).stdout).toContain('No changes.');
  });

  it('replaces a variable that becomes secret (an immutable field) and converges', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    expect((await apply()).code).toBe(0);
    const oldId = variablesByKey(h).get('FEATURE_FLAG')!.id;
    h.write({ 'm/main.yaml': appManifest({ flagSecret: true }) });
    const p = await plan();
    expect(p.stdout).toMatch(/-\/\+ variable "FEATURE_FLAG"/);
    const r = await apply();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('project.e2e/environment.dev/application.api/variable.FEATURE_FLAG: Replacement complete');
    const v = variablesByKey(h).get('FEATURE_FLAG')!;
    expect(v.id).not.toBe(oldId);
    expect(v.is_secret).toBe(true);
    expect((await plan()).stdout).toContain('No changes.');
  });

  it('leaves unmanaged services alone, and deletes them (batched) only where the manifest opts into pruning', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ withWorker: true }) });
    expect((await apply()).code).toBe(0);
    h.write({ 'm/main.yaml': appManifest() });
    const unmanaged = await plan();
    expect(unmanaged.stdout).toContain('project.e2e/environment.dev/container.worker');
    expect(unmanaged.stdout).toContain('No changes.');
    expect((await apply()).code).toBe(0);
    expect(servicesByName(h).has('worker')).toBe(true);

    h.write({ 'm/main.yaml': appManifest({ pruneServices: true }) });
    expect((await plan()).stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy, 0 to deploy.');
    const r = await apply();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('project.e2e/environment.dev/container.worker: Destruction complete');
    expect(lastLine(r.stdout)).toBe('Apply complete! Resources: 0 added, 0 changed, 1 destroyed; 0 deployed.');
    const worker = servicesByName(h).get('worker');
    // deletion is asynchronous in the API: gone, or on its way out
    expect(worker === undefined || /DELET(E|ING)/.test(String(h.emu.state.serviceStatuses[worker.id]?.state))).toBe(true);
  });

  it('refuses to delete a database without --allow-data-loss, and takes a named backup first with it', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ withDatabase: true }) });
    expect((await apply()).code).toBe(0);
    const dbId = servicesByName(h).get('db')!.id;
    h.write({ 'm/main.yaml': appManifest({ pruneServices: true }) });

    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('project.e2e/environment.dev/database.db');
    expect(refused.stderr).toContain('--allow-data-loss');
    expect(servicesByName(h).get('db')?.id).toBe(dbId);
    expect(Object.keys(h.emu.state.backups)).toHaveLength(0);

    const r = await h.run(['apply', 'm', '--auto-approve', '--allow-data-loss', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(0);
    const backups = Object.values(h.emu.state.backups);
    expect(backups).toHaveLength(1);
    expect(r.stdout).toContain(`backup "${backups[0]!.name}" taken`);
    expect(r.stdout).toContain(`Backup of project.e2e/environment.dev/database.db before its deletion: "${backups[0]!.name}"`);
  });

  it('refuses a plan that destroys more than --max-destroy', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ withWorker: true }) });
    expect((await apply()).code).toBe(0);
    h.write({ 'm/main.yaml': appManifest({ pruneServices: true }) });
    const r = await apply('--max-destroy', '0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('more than --max-destroy 0');
    expect(servicesByName(h).has('worker')).toBe(true);
  });

  it('without a terminal and without --auto-approve, refuses and changes nothing', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const r = await h.run(['apply', 'm'], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--auto-approve');
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);
  });
});

describe('apply interrupted', () => {
  it('stops scheduling on Ctrl-C, reports what was and was not done, exits 130, and the next run converges without duplicates', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ withWorker: true }) });
    let interrupt!: () => void;
    const interrupted = new Promise<void>((res) => (interrupt = res));
    const r = await h.run(['apply', 'm', '--auto-approve', '--parallelism', '1', ...FAST], {
      env: SECRET_ENV,
      interrupted,
      // Ctrl-C as soon as the first object exists.
      onStdout: (s) => {
        if (s.includes('Creation complete')) interrupt();
      },
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/not started +create +project\.e2e\/environment\.dev/);
    expect(r.stdout).toContain('Apply interrupted:');
    expect(Object.values(h.emu.state.projects)).toHaveLength(1);
    expect(Object.values(h.emu.state.environments)).toHaveLength(0);

    const again = await apply();
    expect(again.code).toBe(0);
    expect(Object.values(h.emu.state.projects).map((p) => p.name)).toEqual(['e2e']);
    expect([...servicesByName(h).keys()].sort()).toEqual(['api', 'web', 'worker']);
    expect(Object.values(h.emu.state.services)).toHaveLength(3);
    expect((await plan()).stdout).toContain('No changes.');
  });
});

describe('apply on a terminal', () => {
  it('asks before changing anything: anything but "yes" cancels, "yes" applies with the live view', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const env = { ...SECRET_ENV, NO_COLOR: '1' };
    const no = await h.run(['apply', 'm', ...FAST], { env, terminalInput: 'no\n' });
    expect(no.code).toBe(1);
    expect(no.stdout).toContain('Do you want to perform these actions?');
    expect(no.stdout).toContain('Apply cancelled. Nothing was changed.');
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);

    const yes = await h.run(['apply', 'm', ...FAST], { env, terminalInput: 'yes\n' });
    expect(yes.code).toBe(0);
    // the live block of deploying services is drawn and erased in place
    expect(yes.stdout).toContain('\x1b[J');
    expect(yes.stdout).toMatch(/deploying, \d+s elapsed/);
    expect(yes.stdout.trimEnd().split('\n').pop()).toBe('Apply complete! Resources: 7 added, 0 changed, 0 destroyed; 2 deployed.');
  });
});

describe('apply structural changes', () => {
  it('moves services between deployment stages', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ stages: true }) });
    expect((await apply()).code).toBe(0);
    const swapped = appManifest({ stages: true }).replace('services: [web]', 'services: [@]').replace('services: [api]', 'services: [web]').replace('services: [@]', 'services: [api]');
    h.write({ 'm/main.yaml': swapped });
    const r = await apply();
    expect(r.code).toBe(0);
    expect(lastLine(r.stdout)).toBe('Apply complete! Resources: 0 added, 2 changed, 0 destroyed; 0 deployed.');
    const stageOf = (name: string) => {
      const id = servicesByName(h).get(name)!.id;
      return Object.values(h.emu.state.deploymentStages).find((s) => (s.services as Array<{ service_id: string }>).some((m) => m.service_id === id))?.name;
    };
    expect([stageOf('api'), stageOf('web')]).toEqual(['first', 'second']);
    expect((await plan()).stdout).toContain('No changes.');
  });

  it('replaces an environment whose cluster changed, with everything in it, and converges', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ stages: true }) });
    expect((await apply()).code).toBe(0);
    const oldEnv = Object.values(h.emu.state.environments)[0]!;
    h.write({ 'm/main.yaml': appManifest({ stages: true }).replace('cluster: staging-cluster', 'cluster: production-cluster') });
    const p = await plan();
    expect(p.stdout).toMatch(/-\/\+ environment "dev"/);
    // Replacing an environment is blocked unless asked for (--allow-replace).
    expect(p.stdout).toContain('BLOCKED: needs --allow-replace');
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(Object.values(h.emu.state.environments).map((e) => e.id)).toEqual([oldEnv.id]);
    const r = await apply('--allow-replace');
    expect(r.code).toBe(0);
    expect(lastLine(r.stdout)).toBe('Apply complete! Resources: 7 added, 0 changed, 7 destroyed; 2 deployed.');
    const envs = Object.values(h.emu.state.environments);
    expect(envs).toHaveLength(1);
    expect(envs[0]!.id).not.toBe(oldEnv.id);
    const prod = Object.values(h.emu.state.clusters).find((c) => c.name === 'production-cluster')!;
    expect(envs[0]!.cluster_id).toBe(prod.id);
    expect([...servicesByName(h).keys()].sort()).toEqual(['api', 'web']);
    expect((await plan()).stdout).toContain('No changes.');
  });
});

describe('apply alert receivers', () => {
  const receiverManifest = ['version: 1', 'alert_receivers:', '  - name: oncall', '    type: SLACK', '    webhook_url: ${env:SLACK_URL}', 'projects:', '  - name: other', ''].join('\n');

  it('validates a receiver through the API (a test message) before saving it, and never saves one that fails', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': receiverManifest });
    const bad = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: { SLACK_URL: 'http://hooks.example.com/not-https' } });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('alert_receiver.oncall: Creation failed');
    expect(bad.stdout).toContain('the alert receiver failed validation and was not saved');
    expect(Object.keys(h.emu.state.alertReceivers)).toHaveLength(0);
    // independent steps went on
    expect(Object.values(h.emu.state.projects).map((p) => p.name)).toEqual(['other']);

    const good = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: { SLACK_URL: 'https://hooks.slack.com/services/T0/B0/secret-part' } });
    expect(good.code).toBe(0);
    expect(h.emu.state.receiverValidations).toHaveLength(1);
    expect(Object.values(h.emu.state.alertReceivers).map((r) => r.name)).toEqual(['oncall']);
    expect(good.stdout + good.stderr + bad.stdout + bad.stderr).not.toContain('secret-part');
    const again = await h.run(['plan', 'm'], { env: { SLACK_URL: 'https://hooks.slack.com/services/T0/B0/secret-part' } });
    expect(again.stdout).toContain('No changes.');
  });
});

describe('apply database replacement', () => {
  it('replaces a deployed database whose type changed only with --allow-data-loss and --allow-replace, after a backup', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest({ withDatabase: true }) });
    expect((await apply()).code).toBe(0);
    const oldId = servicesByName(h).get('db')!.id;
    h.write({ 'm/main.yaml': appManifest({ withDatabase: true }).replace('database_type: POSTGRESQL', 'database_type: MYSQL').replace('version: "16"', 'version: "8.0"') });
    const blocked = await plan();
    expect(blocked.stdout).toContain('database.db');
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(servicesByName(h).get('db')!.id).toBe(oldId);
    // The database has been deployed: replacing it also needs --allow-replace.
    const dataLossOnly = await apply('--allow-data-loss');
    expect(dataLossOnly.code).toBe(1);
    expect(dataLossOnly.stderr).toContain('--allow-replace');
    expect(servicesByName(h).get('db')!.id).toBe(oldId);

    const r = await apply('--allow-data-loss', '--allow-replace');
    expect(r.code).toBe(0);
    const db = servicesByName(h).get('db')!;
    expect(db.id).not.toBe(oldId);
    expect(db.type).toBe('MYSQL');
    expect(Object.values(h.emu.state.backups)).toHaveLength(1);
    expect(r.stdout).toMatch(/database\.db: backup "driftless-db-\d{8}T\d{6}Z" taken/);
    expect((await plan()).stdout).toContain('No changes.');
  });
});

describe('apply organization settings and cluster upgrades', () => {
  it('edits the organization from its live record and asks a cluster for its next Kubernetes version', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': 'version: 1\nclusters:\n  - name: production-cluster\n    upgrade_kubernetes: true\norganization:\n  description: Managed by driftless\n  admin_emails: [ops@example.com]\n' });
    const orgName = h.emu.state.organization.name;
    const r = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(r.code).toBe(0);
    expect(lastLine(r.stdout)).toBe('Apply complete! Resources: 0 added, 2 changed, 0 destroyed; 0 deployed.');
    expect(h.emu.state.organization).toMatchObject({ name: orgName, description: 'Managed by driftless', admin_emails: ['ops@example.com'] });
    expect((await h.run(['plan', 'm'])).stdout).toContain('No changes.');
  });
});

describe('apply prunes variables where asked', () => {
  it('deletes a variable added in the console only when its scope prunes variables', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    expect((await apply()).code).toBe(0);
    const env = Object.values(h.emu.state.environments)[0]!;
    const res = await fetch(`${h.emu.url}/variable`, {
      method: 'POST',
      headers: { Authorization: `Token ${h.env.DRIFTLESS_API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'ADDED_BY_HAND', value: 'x', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id }),
    });
    expect(res.status).toBe(201);
    await res.arrayBuffer();

    const untouched = await plan();
    expect(untouched.stdout).toContain('environment.dev/variable.ADDED_BY_HAND');
    expect(untouched.stdout).toContain('No changes.');

    h.write({ 'm/main.yaml': appManifest().replace('        cluster: staging-cluster\n', '        cluster: staging-cluster\n        prune:\n          variables: true\n') });
    const r = await apply();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('project.e2e/environment.dev/variable.ADDED_BY_HAND: Destruction complete');
    expect(variablesByKey(h).has('ADDED_BY_HAND')).toBe(false);
    expect(variablesByKey(h).has('API_KEY')).toBe(true);
    expect((await plan()).stdout).toContain('No changes.');
  });
});
