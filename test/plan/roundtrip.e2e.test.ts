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
alert_receivers:
  - name: mail
    type: EMAIL
    description: On-call mailbox
    send_resolved: true
    to: oncall@example.com
    from: alerts@example.com
    smarthost: smtp.example.com:587
    auth_username: alerts
    auth_password: \${env:WH}
    require_tls: true
alert_rules:
  - name: cluster-down
    target:
      cluster: production-cluster
    condition:
      kind: CUSTOM
      promql: up == 0
      operator: BELOW
      threshold: 1
      function: NONE
    for_duration: PT2M
    severity: CRITICAL
    enabled: true
    receivers: [mail]
    presentation:
      summary: Cluster is down
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
              api_token: \${env:SEC}
            sensitive_tf_vars: [api_token]
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
          - type: helm
            name: from-git
            source:
              git_repository:
                url: https://github.com/acme/charts.git
                branch: main
              chart_path: /charts/app
            values_override:
              set_string:
                image.tag: "1.0"
            arguments: []
            auto_deploy: true
          - type: container
            name: web
            registry: docker-hub
            image_name: nginx
            tag: "1.27"
            cpu: 250
            memory: 256
            min_running_instances: 1
            max_running_instances: 2
            arguments: ["-g", "daemon off;"]
            ports:
              - internal_port: 80
                external_port: 443
                protocol: HTTP
                publicly_accessible: true
              - internal_port: 9090
                publicly_accessible: false
          - type: application
            name: api
            description: The API
            git_repository:
              url: https://github.com/acme/api.git
              branch: main
              root_path: /api
            build_mode: DOCKER
            dockerfile_path: Dockerfile
            git_commit_id: 0123456789abcdef0123456789abcdef01234567
            auto_deploy: false
            ports:
              - internal_port: 8080
                publicly_accessible: true
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
    expect(p.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy, 6 to deploy.');
    expect(p.stdout + p.stderr).not.toContain('rotated-DO-NOT-PRINT-3');
  });
});
