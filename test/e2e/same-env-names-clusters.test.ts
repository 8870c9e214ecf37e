/**
 * Two projects whose environments have the same name but run on different clusters: each
 * environment's services are checked against ITS cluster (the cluster maxima of `plan` and
 * `validate --remote`, the managed-database instance-type listing of the cluster's provider), never
 * against the other project's same-named environment's cluster, whichever project comes first,
 * end to end (a planted lookup by environment name went unnoticed by the suite).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// production-cluster: AWS, maximum_cpu 8000, a managed-database listing; staging-cluster: GCP,
// maximum_cpu 4000, no listing (nothing to check a managed instance type against).
const project = (name: string, cluster: string, instanceType: string) => `  - name: ${name}
    environments:
      - name: prod
        cluster: ${cluster}
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            cpu: 6000
          - type: database
            name: db
            database_type: POSTGRESQL
            version: "16"
            mode: MANAGED
            instance_type: ${instanceType}
            accessibility: PRIVATE
            storage: 10
`;
const big = (name: string) => project(name, 'production-cluster', 'db.t3.micro');
const small = (name: string) => project(name, 'staging-cluster', 'db.not-an-aws-type');

describe('same-named environments of two projects on different clusters', () => {
  for (const order of [['alpha-big', 'beta-small'], ['alpha-small', 'beta-big']] as const) {
    it(`each is checked against its own cluster (${order.join(' before ')})`, async () => {
      h = await startHarness();
      const projects = order.map((n) => (n.endsWith('-big') ? big(n) : small(n))).join('');
      h.write({ 'm/main.yaml': `version: 1\nprojects:\n${projects}` });
      const smallName = order.find((n) => n.endsWith('-small'))!;
      for (const argv of [['plan', 'm', '--format', 'json'], ['validate', 'm', '--remote', '--format', 'json']]) {
        const r = await h.run(argv);
        expect(r.code, argv.join(' ')).toBe(1);
        const diags = (JSON.parse(r.stdout).diagnostics as Array<{ code: string; severity: string; address?: string; summary: string }>).filter((d) => d.severity === 'error');
        // Exactly one error: the 6000 millicores of the small project's web, above staging's 4000.
        // The big project's 6000 fits production's 8000; the GCP database's instance type has no
        // listing to be checked against, and the AWS database's db.t3.micro is offered.
        expect(diags.map((d) => `${d.code} ${d.address}`), `${argv.join(' ')}: ${r.stdout}`).toEqual([
          `limit.cluster-maximum project.${smallName}/environment.prod/container.web`,
        ]);
        expect(diags[0]!.summary).toContain('cluster `staging-cluster`');
      }
    });
  }
});
