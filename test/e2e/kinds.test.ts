/**
 * Helm, terraform and git-built job services: created, deployed, updated in place (a chart value,
 * a sensitive terraform variable compared by fingerprint), converged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const manifest = (replicas: string) => `version: 1
projects:
  - name: k
    environments:
      - name: dev
        cluster: staging-cluster
        services:
          - type: helm
            name: chart
            source:
              helm_repository:
                repository: bitnami
                chart_name: redis
                chart_version: "18.0.0"
            values_override:
              set:
                replicas: "${replicas}"
            arguments: ["--wait"]
          - type: terraform
            name: infra
            git_repository:
              url: https://github.com/x/infra.git
              branch: main
            engine: TERRAFORM
            provider_version: "1.5.0"
            tf_vars:
              region: eu-west-1
              password: \${env:TF_PASSWORD}
            sensitive_tf_vars: [password]
          - type: job
            name: migrate
            source:
              git_repository:
                url: https://github.com/x/migrate.git
                branch: main
              dockerfile_path: Dockerfile
            schedule:
              on_start:
                arguments: ["migrate"]
`;

describe('helm, terraform and job services', () => {
  it('are created, deployed, updated in place and converge, with the terraform secret never shown', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest('2') });
    const first = { TF_PASSWORD: 'tf-SECRET-one' };
    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: first });
    expect(a.code).toBe(0);
    expect(a.stdout.trimEnd().split('\n').pop()).toBe('Apply complete! Resources: 5 added, 0 changed, 0 destroyed; 3 deployed.');
    expect((await h.run(['plan', 'm'], { env: first })).stdout).toContain('No changes.');

    h.write({ 'm/main.yaml': manifest('3') });
    const second = { TF_PASSWORD: 'tf-SECRET-two' };
    const p = await h.run(['plan', 'm'], { env: second });
    expect(p.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy, 2 to deploy.');
    const b = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: second });
    expect(b.code).toBe(0);
    const helm = Object.values(h.emu.state.services).find((s) => s.name === 'chart')!;
    expect(helm.values_override.set).toEqual([['replicas', '3']]);
    expect((await h.run(['plan', 'm'], { env: second })).stdout).toContain('No changes.');
    for (const out of [a, p, b]) expect(out.stdout + out.stderr).not.toMatch(/tf-SECRET/);
  });
});
