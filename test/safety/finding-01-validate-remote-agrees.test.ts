/**
 * Finding 1, the class behind it: `validate` passed what `plan` then knew to be wrong. Every check
 * plan makes against the organization is also made by `validate --remote`, by the same code: the
 * names of what driftless cannot create, the clusters' maxima, and the listings (managed-database
 * instance types, terraform variables). Same errors, same places, same words.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;
afterEach(async () => h?.close());

const ENV = { TF_TOKEN: 'tf-SECRET-token-value' };

const manifest = `version: 1
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
            instance_type: db.t3.mediun
          - type: container
            name: web
            registry: dockerhubb
            image_name: library/nginx
            tag: "1.27"
            memory: 99999
          - type: terraform
            name: infra
            git_repository:
              url: https://github.com/acme/infra.git
              branch: main
            tf_vars:
              region: eu-west-1
              api_tokn: \${env:TF_TOKEN}
            sensitive_tf_vars: [api_tokn]
`;

/** The diagnostics' summary, place and advice lines, in the order printed. */
const diagnostics = (stderr: string) => stderr.split('\n').filter((l) => /^\s*(error\[|warning\[|-->|= )/.test(l));

describe('finding 1: validate --remote and plan agree', () => {
  it('finding 1: validate --remote reports exactly the organization errors plan reports (names, maxima, instance types, terraform variables)', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest });
    const plan = await h.run(['plan', 'm'], { env: ENV });
    const validate = await h.run(['validate', 'm', '--remote'], { env: ENV });
    expect(plan.code).toBe(1);
    expect(validate.code).toBe(1);
    const lines = diagnostics(plan.stderr);
    expect(lines.filter((l) => /^error\[/.test(l)).map((l) => /^error\[([^\]]+)\]/.exec(l)![1])).toEqual([
      'ref.unresolved',
      'limit.cluster-maximum',
      'check.instance-type',
      'check.tf-var-missing',
      'check.tf-var-unknown',
    ]);
    expect(diagnostics(validate.stderr)).toEqual(lines);
    expect(plan.stderr + validate.stderr).not.toContain('tf-SECRET-token-value');
  });
});
