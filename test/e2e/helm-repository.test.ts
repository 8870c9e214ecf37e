/**
 * A helm service whose chart comes from an organization helm repository made by hand through the
 * API: the manifest names the repository, apply sends its id, the next plan is empty; moving to
 * another repository is an in-place update; a name the organization lacks fails the plan before
 * any write, listing the known repositories. And the other source, a chart kept in git, pinned to
 * a commit: the deployed commit is read back from `source.git.git_repository`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness, ONLY_USAGE_LINE, WARM_CACHE } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const manifest = (repository: string, version = '19.0.0') => `version: 1
projects:
  - name: charts
    environments:
      - name: dev
        cluster: staging-cluster
        services:
          - type: helm
            name: cache
            source:
              helm_repository:
                repository: ${repository}
                chart_name: redis
                chart_version: "${version}"
            values_override:
              set:
                replica.count: "2"
`;

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(h.emu.url + path, {
    method,
    headers: { authorization: `Token ${h.emu.tokens.ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed: any = await r.json();
  if (!r.ok) throw new Error(`${method} ${path} -> ${r.status}: ${parsed.message}`);
  return parsed;
}

const cache = () => Object.values(h.emu.state.services).find((s) => s.name === 'cache');

describe('helm service from an organization helm repository', () => {
  it('plans, applies by repository id, then plans no changes; another repository is an update', async () => {
    h = await startHarness();
    const org = h.emu.organizationId;
    const team = await api('POST', `/organization/${org}/helmRepository`, { name: 'team-charts', kind: 'HTTPS', url: 'https://charts.team.example.com', skip_tls_verification: false, config: {} });

    h.write({ 'm/main.yaml': manifest('team-charts') });
    const p = await h.run(['plan', 'm', '--json']);
    expect(p.code, p.stderr).toBe(0);
    const plan = JSON.parse(p.stdout);
    expect(plan.summary).toMatchObject({ add: 3, change: 0, destroy: 0 });
    // organization, projects, clusters, helm repositories (the manifest has a helm service); no
    // project lives yet, so nothing below it is read.
    // With a warm cache this first plan is the full read that fills it: one request more, for the audit-log cursor.
    expect(plan.request_count).toBe(WARM_CACHE ? 5 : 4);

    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(a.code, a.stderr).toBe(0);
    expect(cache()!.source).toEqual({ repository: { chart_name: 'redis', chart_version: '19.0.0', repository: { id: team.id } } });
    const served = await api('GET', `/helm/${cache()!.id}`);
    expect(served.source.repository.repository).toEqual({ id: team.id, name: 'team-charts', url: 'https://charts.team.example.com' });

    const again = await h.run(['plan', 'm', '--detailed-exitcode', '--json']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const clean = JSON.parse(again.stdout);
    expect(clean.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    // organization, projects, clusters, helm repositories; the project's environments; the
    // environment's services and statuses.
    // With a warm cache (npm run test:warm): the refresh's budget, at most 10 requests plus the
    // --verify-requests rotation (5), whichever lists the rotation picks this run.
    if (WARM_CACHE) expect(clean.request_count).toBeLessThanOrEqual(10 + 5);
    else expect(clean.request_count).toBe(7);

    h.write({ 'm/main.yaml': manifest('bitnami', '19.1.0') });
    const move = await h.run(['plan', 'm']);
    expect(move.code, move.stderr).toBe(0);
    expect(move.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy, 1 to deploy.');
    expect(move.stdout).toContain('~ source.helm_repository.repository: "team-charts" -> "bitnami"');
    expect(move.stdout).toContain('~ source.helm_repository.chart_version: "19.0.0" -> "19.1.0"');
    const b = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(b.code, b.stderr).toBe(0);
    const bitnami = Object.values(h.emu.state.helmRepositories).find((r) => r.name === 'bitnami')!;
    expect(cache()!.source.repository).toMatchObject({ chart_version: '19.1.0', repository: { id: bitnami.id } });
    expect((await h.run(['plan', 'm', '--detailed-exitcode'])).code).toBe(0);
    // The repository the service left is free again.
    expect((await api('GET', `/organization/${org}/helmRepository/${team.id}`)).associated_services_count).toBe(0);
  });

  it('an unknown repository name fails plan and apply before any write, with the known names', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest('bitnam') });
    const p = await h.run(['plan', 'm']);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain('helm repository `bitnam` does not exist in the organization');
    expect(p.stderr).toContain('Did you mean `bitnami`? Known: bitnami, prometheus-community.');
    expect(p.stderr).toContain('main.yaml');
    expect(p.stderr).not.toMatch(/\n\s+at /);
    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('helm repository `bitnam`');
    expect(Object.keys(h.emu.state.projects)).toEqual([]);
  });
});

describe('helm service from a chart kept in git', () => {
  it('pinned to a commit: deployed, then no changes; a new pin is a deploy only', async () => {
    h = await startHarness();
    const gitManifest = (commit: string) => `version: 1
projects:
  - name: charts
    environments:
      - name: dev
        cluster: staging-cluster
        services:
          - type: helm
            name: cache
            source:
              git_repository:
                url: https://github.com/acme/charts.git
                branch: main
              chart_path: /redis
            git_commit_id: ${commit}
`;
    h.write({ 'm/main.yaml': gitManifest('abcdef1') });
    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(a.code, a.stderr).toBe(0);
    expect(cache()!.source.git.git_repository).toMatchObject({ url: 'https://github.com/acme/charts.git', root_path: '/redis', deployed_commit_id: 'abcdef1' });
    const again = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
    h.write({ 'm/main.yaml': gitManifest('1234abc') });
    const p = await h.run(['plan', 'm']);
    expect(p.stderr).toMatch(ONLY_USAGE_LINE);
    expect(p.stdout).toContain('Plan: 0 to add, 0 to change, 0 to destroy, 1 to deploy.');
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    expect((await h.run(['plan', 'm', '--detailed-exitcode'])).code).toBe(0);
  });
});
