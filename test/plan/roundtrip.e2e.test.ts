/**
 * Normalisation against the real emulator: after apply, a plan of the same manifest shows no
 * change for any kind (helm, terraform, job, database, groups, webhook, organization, variables of
 * every type, stages), and a changed secret shows as changed without its value. This is the
 * "no phantom diff" guarantee end to end; the unit tests cover the same shapes in memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, FAST, type Harness } from '../e2e/helpers.js';

const SECRETS = { SEC: 'secret-value-DO-NOT-PRINT-1', WH: 'wh-secret-DO-NOT-PRINT-2' };

describe('plan after apply against the emulator', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  h.write({ 'm/driftless.yaml': `
version: 1
organization:
  description: Org desc
  admin_emails: [b@x.io, a@x.io]
clusters:
  - name: production-cluster
label_groups:
  - name: team
    labels:
      - key: team
        value: shop
annotation_groups:
  - name: mon
    annotations: { "a/b": "1" }
    scopes: [PODS]
webhooks:
  - target_url: https://x.example.com/h
    events: [DEPLOYMENT_STARTED]
    secret: \${env:WH}
    project_names_filter: [shop]
projects:
  - name: shop
    variables:
      - key: A
        value: "1"
      - key: S
        value: \${env:SEC}
        secret: true
        description: hello
    environments:
      - name: prod
        cluster: production-cluster
        deployment_stages:
          - name: first
            services: [chart]
          - name: second
            services: [infra, worker]
        services:
          - type: helm
            name: chart
            source:
              helm_repository:
                repository: bitnami
                chart_name: redis
                chart_version: "19.0.0"
            values_override:
              file: |
                replicas: 2
              set:
                a.b: "x"
            arguments: ["--wait"]
            auto_deploy: false
          - type: terraform
            name: infra
            description: tf
            git_repository:
              url: https://github.com/acme/infra.git
              branch: main
            engine: TERRAFORM
            provider_version: "1.9.0"
            tf_vars:
              region: eu-west-3
              password: \${env:SEC}
            sensitive_tf_vars: [password]
            job_resources: { cpu_milli: 500, ram_mib: 512, storage_gib: 1 }
          - type: job
            name: worker
            source:
              git_repository:
                url: https://github.com/acme/w.git
                branch: main
              dockerfile_path: Dockerfile
            schedule:
              on_start:
                arguments: ["run"]
            label_groups: [team]
            annotation_groups: [mon]
            variables:
              - key: F
                value: "x=1"
                mount_path: /etc/f
              - key: AL
                alias: A
              - key: A
                value: "2"
                override: true
          - type: database
            name: cache
            database_type: REDIS
            version: "7"
            mode: CONTAINER
` });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('applies, then plans no change for any kind', async () => {
    const v = await h.run(['validate', 'm'], { env: SECRETS });
    expect(v.code, v.stderr).toBe(0);
    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRETS });
    expect(a.code, a.stderr).toBe(0);
    const p = await h.run(['plan', 'm', '--detailed-exitcode'], { env: SECRETS });
    expect(p.stdout.trimEnd().split('\n').pop()).toMatch(/^No changes\. Live state read with \d+ API requests\.$/);
    expect(p.code).toBe(0);
    const j = await h.run(['plan', 'm', '--json'], { env: SECRETS });
    expect(JSON.parse(j.stdout).summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    for (const out of [a, p, j]) for (const s of Object.values(SECRETS)) expect(out.stdout + out.stderr).not.toContain(s);
  });

  it('shows a rotated secret as changed, without its value, and deploys what sees it', async () => {
    const env = { ...SECRETS, SEC: 'rotated-DO-NOT-PRINT-3' };
    const p = await h.run(['plan', 'm', '--detailed-exitcode'], { env });
    expect(p.code).toBe(2);
    expect(p.stdout).toContain('~ value: (sensitive value) -> (sensitive value)');
    expect(p.stdout).toContain('~ terraform_variables_source: (sensitive value) -> (sensitive value)');
    expect(p.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy, 3 to deploy.');
    expect(p.stdout + p.stderr).not.toContain('rotated-DO-NOT-PRINT-3');
  });
});
