/**
 * Finding 5 of issue 11, against the emulator over HTTP: a variable removed from a service's
 * manifest stayed live, `prune` was refused on a service, and `drift` then exited 2 every night
 * telling the user to run apply, which did nothing.
 *
 * Now: without the opt-in, plan says the variable is kept and which key deletes it; drift reports
 * it (the service lists its variables, so it owns them) with advice that works, never "run apply"
 * alone; with `prune: {variables: true}` on the service, plan shows the delete, apply deletes it
 * (read back from the emulator), and the next plan and drift are clean.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const SECRET = 'sk_live_FINDING5-secret-value-never-printed';
const ENV = { E2E_API_KEY: SECRET };
const API = 'project.e2e/environment.dev/application.api';

/** One application with the given variable entries (YAML lines under `variables:`), and an optional prune block. */
function manifest(o: { variables: string[]; prune?: boolean; container?: string[] }): string {
  return [
    'version: 1',
    'projects:',
    '  - name: e2e',
    '    variables:',
    '      - key: LOG_LEVEL',
    '        value: info',
    '    environments:',
    '      - name: dev',
    '        mode: STAGING',
    '        cluster: staging-cluster',
    '        services:',
    '          - type: application',
    '            name: api',
    '            git_repository:',
    '              url: https://github.com/driftless-examples/api.git',
    '              branch: main',
    '            dockerfile_path: Dockerfile',
    ...(o.prune ? ['            prune:', '              variables: true'] : []),
    '            variables:',
    ...o.variables,
    ...(o.container
      ? ['          - type: container', '            name: web', '            registry: docker-hub', '            image_name: library/nginx', '            tag: "1.27"', ...o.container]
      : []),
  ].join('\n') + '\n';
}

const BOTH = ['              - key: API_KEY', '                value: ${env:E2E_API_KEY}', '                secret: true', '              - key: FEATURE_FLAG', '                value: "on"'];
const FLAG_ONLY = BOTH.slice(3);

/** The variables the emulator holds at the api service's own scope, by key (what the API would list). */
function serviceVariables(): Map<string, Record<string, any>> {
  const api = Object.values(h.emu.state.services).find((s) => s.name === 'api')!;
  return new Map(Object.values(h.emu.state.variables).filter((v) => v.variable_parent_id === api.id || v.service_id === api.id).map((v) => [String(v.key), v as Record<string, any>]));
}

const run = (cmd: string, ...extra: string[]) => h.run([cmd, 'm', ...(cmd === 'apply' ? ['--auto-approve', ...FAST] : []), ...extra], { env: ENV });

describe('finding 5: a service prunes its variables with prune: {variables: true}', () => {
  it('finding 5: a secret removed from a service is kept with advice that works, then deleted with the opt-in, and plan and drift come back clean', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest({ variables: BOTH }) });
    expect((await run('apply')).code).toBe(0);
    const secretId = serviceVariables().get('API_KEY')?.id;
    expect(serviceVariables().get('API_KEY')).toMatchObject({ is_secret: true });
    expect(h.emu.state.secretValues[secretId!]).toBe(SECRET);
    expect(serviceVariables().has('FEATURE_FLAG')).toBe(true);

    // The secret is removed from the manifest; the service still lists its variables, so it owns them.
    h.write({ 'm/main.yaml': manifest({ variables: FLAG_ONLY }) });
    const kept = await run('plan', '--detailed-exitcode');
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain(`? ${API}/variable.API_KEY`);
    expect(kept.stdout).toContain(`# not in the manifest; kept: add \`prune: {variables: true}\` on ${API} to delete it`);
    expect(kept.stdout).toContain('No changes.');
    // Apply indeed leaves it: that is why drift must not send the user to apply.
    expect((await run('apply')).code).toBe(0);
    expect(serviceVariables().get('API_KEY')?.id).toBe(secretId);

    const drift = await run('drift');
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout).toContain(`+ ${API}/variable.API_KEY`);
    expect(drift.stdout).toContain(`apply would leave it (no \`prune: {variables: true}\` on ${API})`);
    expect(drift.stdout).toContain(
      `to fix it: declare it in the manifest under ${API} (declared at m/main.yaml:12), add \`prune: {variables: true}\` on ${API} so that apply deletes it, or delete it in the console`,
    );
    expect(drift.stdout).toContain('Running apply leaves this drift as it is');
    expect(drift.stdout).not.toContain('driftless apply');
    const json = JSON.parse((await run('drift', '--format', 'json')).stdout);
    expect(json).not.toHaveProperty('reconcile_command');
    expect(json.summary).toMatchObject({ drifted: 1, not_fixed_by_apply: 1 });
    expect(json.items).toMatchObject([{ address: `${API}/variable.API_KEY`, drift: 'unmanaged', apply_fixes: false }]);
    expect((await run('drift', '--format', 'markdown')).stdout).not.toContain('driftless apply');

    // The opt-in: plan shows the delete (and the redeploy it needs), apply deletes it.
    h.write({ 'm/main.yaml': manifest({ variables: FLAG_ONLY, prune: true }) });
    expect((await run('validate')).code).toBe(0);
    const pruning = await run('plan', '--detailed-exitcode');
    expect(pruning.code, pruning.stderr).toBe(2);
    expect(pruning.stdout).toContain(`# ${API}/variable.API_KEY will be destroyed`);
    expect(pruning.stdout).toContain(`# (not in the manifest, and ${API} prunes variable resources)`);
    expect(pruning.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy, 1 to deploy.');
    const applied = await run('apply');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`${API}/variable.API_KEY: Destruction complete`);
    expect(applied.stdout.trimEnd().split('\n').pop()).toBe('Apply complete! Resources: 0 added, 0 changed, 1 destroyed; 1 deployed.');
    expect(serviceVariables().has('API_KEY')).toBe(false);
    expect(h.emu.state.variables[secretId!]).toBeUndefined();
    expect(h.emu.state.secretValues[secretId!]).toBeUndefined();
    expect(serviceVariables().get('FEATURE_FLAG')).toMatchObject({ value: 'on' });

    const clean = await run('plan', '--detailed-exitcode');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('No changes.');
    const inSync = await run('drift');
    expect(inSync.code, inSync.stdout).toBe(0);
    expect(inSync.stdout).toContain('No drift.');

    for (const out of [kept, drift, pruning, applied, clean, inSync]) expect(out.stdout + out.stderr).not.toContain(SECRET);
  });

  it('finding 5: an alias and an override removed from a container go with its prune opt-in, and only its own', async () => {
    h = await startHarness();
    const aliasAndOverride = ['            variables:', '              - key: LOG_ALIAS', '                alias: LOG_LEVEL', '              - key: LOG_LEVEL', '                value: debug', '                override: true'];
    h.write({ 'm/main.yaml': manifest({ variables: FLAG_ONLY, container: aliasAndOverride }) });
    expect((await run('apply')).code).toBe(0);
    const web = Object.values(h.emu.state.services).find((s) => s.name === 'web')!;
    const webRecords = () => Object.values(h.emu.state.variables).filter((v) => v.variable_parent_id === web.id || v.service_id === web.id);
    const webVariables = () => webRecords().filter((v) => v.variable_type !== 'BUILT_IN').map((v) => `${v.key}:${v.variable_type}`).sort();
    const builtIn = webRecords().filter((v) => v.variable_type === 'BUILT_IN').map((v) => v.id).sort();
    expect(builtIn.length).toBeGreaterThan(0);
    expect(webVariables()).toEqual(['LOG_ALIAS:ALIAS', 'LOG_LEVEL:OVERRIDE']);

    // Both removed; the api service's opt-in does not reach the container's variables.
    h.write({ 'm/main.yaml': manifest({ variables: FLAG_ONLY, prune: true, container: ['            variables: []'] }) });
    const kept = await run('plan');
    expect(kept.stdout).toContain('? project.e2e/environment.dev/container.web/variable.LOG_ALIAS');
    expect(kept.stdout).toContain('? project.e2e/environment.dev/container.web/variable.LOG_LEVEL');
    expect(kept.stdout).toContain('kept: add `prune: {variables: true}` on project.e2e/environment.dev/container.web to delete it');

    h.write({ 'm/main.yaml': manifest({ variables: FLAG_ONLY, container: ['            prune: { variables: true }', '            variables: []'] }) });
    const applied = await run('apply');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Resources: 0 added, 0 changed, 2 destroyed; 1 deployed.');
    expect(webVariables()).toEqual([]);
    // The platform's built-in variables are not the manifest's to prune.
    expect(webRecords().filter((v) => v.variable_type === 'BUILT_IN').map((v) => v.id).sort()).toEqual(builtIn);
    // The project's LOG_LEVEL they referred to is untouched.
    expect(Object.values(h.emu.state.variables).filter((v) => v.key === 'LOG_LEVEL').map((v) => v.variable_type)).toEqual(['VALUE']);
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
    expect((await run('drift')).code).toBe(0);
  });
});
