/**
 * The plan-time checks end to end: `driftless plan` and `apply` against the emulator over HTTP.
 * An instance type the cluster's region does not offer and a terraform variable the repository
 * does not declare fail the plan (exit 1) at their file:line:col, naming the allowed values,
 * before anything is written; valid ones pass, and the checks' requests (one per listing, one per
 * repository) are in the plan's request count.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness, ONLY_USAGE_LINE } from '../e2e/helpers.js';
import { remainingRequests } from '../e2e/fixtures.js';
import { lineOf } from './support.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const ENV = { TF_TOKEN: 'tf-SECRET-token-value' };

function manifest(o: { pgType: string; tokenKey: string }): string {
  return `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: production-cluster
        services:
          - type: database
            name: pg
            database_type: POSTGRESQL
            version: "16"
            mode: MANAGED
            instance_type: ${o.pgType}
          - type: database
            name: reports
            database_type: POSTGRESQL
            version: "16"
            mode: MANAGED
            instance_type: db.t3.micro
          - type: terraform
            name: infra
            git_repository:
              url: https://github.com/acme/infra.git
              branch: main
            tf_vars:
              region: eu-west-1
              ${o.tokenKey}: \${env:TF_TOKEN}
            sensitive_tf_vars: [${o.tokenKey}]
          - type: terraform
            name: infra-eu
            git_repository:
              url: https://github.com/acme/infra.git
              branch: main
            tf_vars:
              api_token: \${env:TF_TOKEN}
            sensitive_tf_vars: [api_token]
`;
}

describe('plan-time checks against the emulator', () => {
  it('fail plan and apply at the manifest location, naming the allowed values, before any write', async () => {
    h = await startHarness();
    const yaml = manifest({ pgType: 'db.t3.mediun', tokenKey: 'api_tokn' });
    h.write({ 'm/main.yaml': yaml });

    const p = await h.run(['plan', 'm'], { env: ENV });
    expect(p.code).toBe(1);
    expect(p.stdout).toBe('');
    const typeAt = `m/main.yaml:${lineOf(yaml, 'db.t3.mediun')}:28`;
    expect(p.stderr).toContain(typeAt);
    expect(p.stderr).toContain('instance_type "db.t3.mediun" is not offered for POSTGRESQL in AWS region eu-west-3 (cluster production-cluster)');
    // The emulator's own listing for PostgreSQL in eu-west-3, in its order.
    expect(p.stderr).toContain('Allowed: db.t3.micro, db.t3.small, db.t3.medium, db.t3.large, db.m5.large, db.m5.xlarge, db.r5.large, db.r5.xlarge.');
    expect(p.stderr).toContain('Did you mean "db.t3.medium"?');
    expect(p.stderr).toContain(`m/main.yaml:${lineOf(yaml, 'api_tokn: ${env')}:`);
    expect(p.stderr).toContain('tf_vars sets "api_tokn", which https://github.com/acme/infra.git (branch main) does not declare');
    expect(p.stderr).toContain('Declared variables: tags, region, api_token, instance_count.');
    expect(p.stderr).toContain('Did you mean "api_token"?');
    // api_token is required (not nullable, no default) and the first service does not set it.
    expect(p.stderr).toContain('requires "api_token"');

    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: ENV });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(typeAt);
    expect(Object.values(h.emu.state.projects)).toEqual([]);
    expect(Object.values(h.emu.state.services)).toEqual([]);
    for (const out of [p, a]) expect(out.stdout + out.stderr).not.toContain('tf-SECRET');
  });

  it('pass when valid, with one request per listing and per repository in the plan count, and apply converges', async () => {
    h = await startHarness();
    h.write({
      'base/main.yaml': 'version: 1\nprojects:\n  - name: shop\n    environments:\n      - name: prod\n        cluster: production-cluster\n',
      'm/main.yaml': manifest({ pgType: 'db.t3.medium', tokenKey: 'api_token' }),
    });
    const base = JSON.parse((await h.run(['plan', 'base', '--json'])).stdout).request_count as number;

    const before = await remainingRequests(h);
    const p = await h.run(['plan', 'm', '--json'], { env: ENV });
    const after = await remainingRequests(h);
    expect(p.stderr).toMatch(ONLY_USAGE_LINE);
    expect(p.code).toBe(0);
    const plan = JSON.parse(p.stdout);
    expect(plan.summary).toMatchObject({ add: 6, change: 0, destroy: 0 });
    // Two databases on one listing (AWS, eu-west-3, POSTGRESQL), two services on one repository.
    expect(plan.request_count).toBe(base + 2);
    expect(before - after - 1).toBe(plan.request_count);

    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: ENV });
    expect(a.code, a.stderr).toBe(0);
    const pg = Object.values(h.emu.state.services).find((s) => s.name === 'pg')!;
    expect(pg.instance_type).toBe('db.t3.medium');
    const again = await h.run(['plan', 'm'], { env: ENV });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
    expect(again.stderr).toMatch(ONLY_USAGE_LINE);
    for (const out of [p, a, again]) expect(out.stdout + out.stderr).not.toContain('tf-SECRET');
  });
});
