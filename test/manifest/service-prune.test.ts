/**
 * Finding 5 (issue 11): a service prunes its variables with the same opt-in as a project or an
 * environment, `prune: {variables: true}`, on every kind of service that has variables; a database
 * has none, so the key is refused there, and a key that deletes nothing on a service is pointed out.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { load, manifestWith, tempTree } from './helpers.js';

const KINDS_WITH_VARIABLES = {
  application: `
          - type: application
            name: svc
            git_repository: { url: "https://github.com/acme/api.git" }
            dockerfile_path: Dockerfile`,
  container: `
          - type: container
            name: svc
            registry: docker-hub
            image_name: nginx
            tag: "1.27"`,
  job: `
          - type: job
            name: svc
            source: { image: { registry: docker-hub, image_name: busybox, tag: "1" } }
            schedule: { cron: { scheduled_at: "0 3 * * *" } }`,
  helm: `
          - type: helm
            name: svc
            source: { helm_repository: { repository: bitnami, chart_name: redis, chart_version: "1.0.0" } }`,
  terraform: `
          - type: terraform
            name: svc
            git_repository: { url: "https://github.com/acme/infra.git" }`,
};

const withPrune = (service: string, prune: string) => `${service}
            variables: [{ key: KEPT, value: "1" }]
            prune: ${prune}`;

describe('finding 5: service `prune: {variables: true}`', () => {
  for (const [kind, service] of Object.entries(KINDS_WITH_VARIABLES)) {
    it(`is accepted on a ${kind} and makes it prune its variables, and only its variables`, async () => {
      const r = await load(tempTree({ 'm.yaml': manifestWith(withPrune(service, '{ variables: true }')) }));
      expect(r.diagnostics).toEqual([]);
      const { graph } = buildGraph(r.manifest!);
      expect(graph.resources.get(`project.shop/environment.prod/${kind}.svc`)!.prune).toEqual(['variable']);
      // Without the key, the service prunes nothing (its variables are owned, not pruned).
      const off = await load(tempTree({ 'm.yaml': manifestWith(`${service}\n            variables: []`) }));
      expect(buildGraph(off.manifest!).graph.resources.get(`project.shop/environment.prod/${kind}.svc`)!.prune).toEqual([]);
    });
  }

  it('is refused on a database, which has no variables, at the key', async () => {
    const db = `
          - type: database
            name: db
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            prune: { variables: true }`;
    const r = await load(tempTree({ 'm.yaml': manifestWith(db) }));
    expect(r.diagnostics).toMatchObject([{ severity: 'error', code: 'schema.unknown-key', range: { file: 'm.yaml', start: { line: 13 } } }]);
    expect(r.diagnostics[0]!.summary).toContain('`prune`');
  });

  it('warns about a key that deletes nothing on a service, and says where it takes effect', async () => {
    const r = await load(tempTree({ 'm.yaml': manifestWith(withPrune(KINDS_WITH_VARIABLES.application, '{ services: true, variables: true }')) }));
    expect(r.diagnostics).toMatchObject([{ severity: 'warning', code: 'manifest.prune-level', summary: 'prune key `services` has no effect on a service', range: { file: 'm.yaml', start: { line: 13 } } }]);
    expect(r.diagnostics[0]!.detail).toContain("in an environment's `prune`");
  });
});
