/**
 * Finding 13: cpu or memory above the cluster's maximum passed plan and failed at apply, after the
 * project and the environment were created (plan had read the cluster and its maximum). Now it is
 * an error of plan (and of validate --remote: one check), naming the service, the value and the
 * maximum, at the place it is written, before anything is created.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { previewManifest } from './guards-support.js';

let h: Harness;
afterEach(async () => h?.close());

const lines = (stderr: string) => stderr.split('\n').filter((l) => /^\s*(error\[|-->|= )/.test(l));

describe('finding 13: cpu and memory against the cluster maximum', () => {
  it('finding 13: cpu above the cluster maximum is a plan error naming the service, the value and the maximum; apply creates nothing', async () => {
    h = await startHarness();
    const cluster = Object.values(h.emu.state.clusters).find((c) => c.name === 'staging-cluster')!;
    const max = Number(cluster.maximum_cpu);
    const cpu = max + 500;
    h.write({ 'm/main.yaml': previewManifest('staging-cluster', { cpu }) });

    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(1);
    expect(lines(plan.stderr)).toEqual([
      `error[limit.cluster-maximum]: application \`api\`: cpu ${cpu} millicores is above the maximum_cpu ${max} of cluster \`staging-cluster\``,
      '  --> m/main.yaml:19:18',
      `   = The API refuses a cpu above ${max} millicores on this cluster. Lower it to ${max} or less, or run the environment on a larger cluster.`,
      '   = at project.shop/environment.preview/application.api',
    ]);

    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(`cpu ${cpu} millicores is above the maximum_cpu ${max}`);
    expect(Object.keys(h.emu.state.projects)).toEqual([]);
    expect(Object.keys(h.emu.state.environments)).toEqual([]);

    const v = await h.run(['validate', 'm', '--remote']);
    expect(v.code).toBe(1);
    expect(lines(v.stderr)).toEqual(lines(plan.stderr));

    // At the maximum it is fine.
    h.write({ 'm/main.yaml': previewManifest('staging-cluster', { cpu: max }) });
    expect((await h.run(['plan', 'm'])).code).toBe(0);
  });

  it('finding 13: memory above the maximum of an existing environment\'s cluster fails plan before any write', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': previewManifest('staging-cluster') });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    const max = Number(Object.values(h.emu.state.clusters).find((c) => c.name === 'staging-cluster')!.maximum_memory);
    const api = Object.values(h.emu.state.services).find((s) => s.name === 'api')!;
    const before = JSON.stringify(api);
    h.write({ 'm/main.yaml': previewManifest('staging-cluster').replace('            cpu: 500\n', `            cpu: 500\n            memory: ${max * 2}\n`) });
    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`application \`api\`: memory ${max * 2} MB is above the maximum_memory ${max} of cluster \`staging-cluster\``);
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(1);
    expect(JSON.stringify(h.emu.state.services[api.id])).toBe(before);
  });
});
