import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import { fetchLiveState } from '../../src/live/fetch.js';
import { FakeApi } from '../apply/fake-api.js';

const ORG = 'org-1';

function manifest(): Manifest {
  return {
    version: 1,
    projects: [
      {
        name: 'shop',
        variables: [{ key: 'REGION', value: 'eu' }],
        environments: [
          {
            name: 'prod',
            cluster: 'production-cluster',
            services: [
              { type: 'application', name: 'api', git_repository: { url: 'https://github.com/x/api' }, variables: [{ key: 'LOG', value: 'info' }] },
              { type: 'application', name: 'worker', git_repository: { url: 'https://github.com/x/w' } },
              { type: 'database', name: 'db', database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' },
            ],
          },
          // Declared but not live yet: nothing to read below it.
          { name: 'staging', cluster: 'staging-cluster', services: [] },
        ],
      },
    ],
  } as Manifest;
}

function liveApi() {
  const rec = (id: string, extra: Record<string, unknown>) => ({ id, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', ...extra });
  return new FakeApi()
    .on('GET', '/organization', () => rec(ORG, { name: 'Acme' }))
    .on('GET', `/organization/${ORG}/project`, () => ({ results: [rec('p1', { name: 'shop' }), rec('p2', { name: 'other' })] }))
    .on('GET', `/organization/${ORG}/cluster`, () => ({ results: [rec('c1', { name: 'production-cluster' }), rec('c2', { name: 'staging-cluster' })] }))
    .on('GET', '/project/p1/environment', () => ({ results: [rec('e1', { name: 'prod', mode: 'PRODUCTION', cluster_id: 'c1' })] }))
    .on('GET', '/environment/e1/services', () => ({
      results: [
        rec('s1', { name: 'api', service_type: 'APPLICATION', git_repository: { url: 'https://github.com/x/api' } }),
        rec('s2', { name: 'worker', service_type: 'APPLICATION', git_repository: { url: 'https://github.com/x/w' } }),
        rec('s3', { name: 'db', service_type: 'DATABASE', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' }),
        rec('s4', { name: 'legacy', service_type: 'CONTAINER' }),
      ],
    }))
    .on('GET', '/environment/e1/statuses', () => ({
      environment: { id: 'e1', state: 'DEPLOYED' },
      applications: [{ id: 's1', state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE' }, { id: 's2', state: 'READY', service_deployment_status: 'NEVER_DEPLOYED' }],
      databases: [],
    }))
    .on('GET', '/variable', ({ query }) => {
      const inherited = rec('vp', { key: 'REGION', value: 'eu', scope: 'PROJECT', variable_type: 'VALUE', is_secret: false });
      if (query?.scope === 'PROJECT') return { results: [inherited] };
      return {
        results: [
          inherited,
          rec('vb', { key: 'QOVERY_X', value: 'x', scope: 'BUILT_IN', variable_type: 'BUILT_IN', is_secret: false }),
          rec('vs', { key: 'LOG', value: 'debug', scope: 'APPLICATION', variable_type: 'VALUE', is_secret: false }),
        ],
      };
    });
}

describe('fetchLiveState', () => {
  it('reads with list endpoints only: one per needed org list, per project, per environment, per service with variables', async () => {
    const { graph, diagnostics } = buildGraph(manifest());
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const api = liveApi();
    const { live } = await fetchLiveState(api, graph, { parallelism: 1 });
    const calls = api.calls.map((c) => `${c.method} ${c.path}${c.query ? ' ' + new URLSearchParams(c.query as Record<string, string>).toString() : ''}`);
    expect(calls.sort()).toEqual(
      [
        'GET /organization',
        `GET /organization/${ORG}/project`,
        `GET /organization/${ORG}/cluster`,
        'GET /project/p1/environment',
        'GET /environment/e1/services',
        'GET /environment/e1/statuses',
        // only `api` declares variables (`worker` does not, a database cannot have any); its list
        // also holds the project's variables, so the project's own list is not read
        'GET /variable parent_id=s1&scope=APPLICATION',
      ].sort(),
    );
    expect(live.requestCount).toBe(7);
    // formula: 1 per service with variables + 3 per environment + 2 per project + org-level lists
    expect(live.requestCount).toBeLessThanOrEqual(1 + 3 * 1 + 2 * 1 + 8);
  });

  it('normalises every record read under its address, keeping only each scope its own variables', async () => {
    const { graph } = buildGraph(manifest());
    const { live } = await fetchLiveState(liveApi(), graph);
    expect(live.organizationId).toBe(ORG);
    const addrs = [...live.resources.keys()].sort();
    expect(addrs).toEqual(
      [
        'cluster.production-cluster',
        'cluster.staging-cluster',
        'project.other',
        'project.shop',
        'project.shop/environment.prod',
        'project.shop/environment.prod/application.api',
        'project.shop/environment.prod/application.api/variable.LOG',
        'project.shop/environment.prod/application.worker',
        'project.shop/environment.prod/container.legacy',
        'project.shop/environment.prod/database.db',
        'project.shop/variable.REGION',
      ].sort(),
    );
    const v = live.resources.get('project.shop/environment.prod/application.api/variable.LOG')!;
    expect(v.id).toBe('vs');
    expect(v.attrs).toMatchObject({ key: 'LOG', value: 'debug', is_secret: false });
    expect(live.resources.get('project.shop/environment.prod')!.attrs).toMatchObject({ cluster: 'production-cluster' });
    // the project's variable comes from the service's list, under the project
    expect(live.resources.get('project.shop/variable.REGION')!.id).toBe('vp');
    expect(live.resources.get('project.shop/environment.prod/application.worker')!.status).toEqual({
      state: 'READY',
      service_deployment_status: 'NEVER_DEPLOYED',
    });
  });
});

describe('fetchLiveState: what goes with a deleted environment or project (issue 18)', () => {
  const rec = (id: string, extra: Record<string, unknown>) => ({ id, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', ...extra });
  /** shop (p1) holds prod (declared) and pr-1 (undeclared); p2 `other` is undeclared. */
  const api = () =>
    new FakeApi()
      .on('GET', '/organization', () => rec(ORG, { name: 'Acme' }))
      .on('GET', `/organization/${ORG}/project`, () => ({ results: [rec('p1', { name: 'shop' }), rec('p2', { name: 'other' })] }))
      .on('GET', `/organization/${ORG}/cluster`, () => ({ results: [rec('c1', { name: 'production-cluster' })] }))
      .on('GET', '/project/p1/environment', () => ({ results: [rec('e1', { name: 'prod', cluster_id: 'c1' }), rec('e2', { name: 'pr-1', cluster_id: 'c1' })] }))
      .on('GET', '/project/p2/environment', () => ({ results: [rec('e3', { name: 'qa', cluster_id: 'c1' })] }))
      .on('GET', '/environment/e1/services', () => ({ results: [] }))
      .on('GET', '/environment/e1/statuses', () => ({}))
      .on('GET', '/environment/e2/services', () => ({ results: [rec('s1', { name: 'api', service_type: 'APPLICATION' }), rec('s2', { name: 'db', service_type: 'DATABASE' })] }))
      .on('GET', '/environment/e2/statuses', () => ({ databases: [{ id: 's2', state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE' }] }))
      .on('GET', '/environment/e2/deploymentStage', () => ({ results: [rec('st1', { name: 'data', deployment_order: 1, services: [{ service_id: 's2' }] })] }))
      .on('GET', '/environment/e3/services', () => ({ results: [] }))
      .on('GET', '/environment/e3/statuses', () => ({}))
      .on('GET', '/environment/e3/deploymentStage', () => ({ results: [] }))
      .on('GET', '/variable', ({ query }) => {
        if (query?.parent_id === 's1') return { results: [rec('v1', { key: 'MODE', value: 'x', scope: 'APPLICATION', variable_type: 'VALUE', is_secret: false }), rec('v2', { key: 'GREETING', value: 'hi', scope: 'ENVIRONMENT', variable_type: 'VALUE', is_secret: false })] };
        if (query?.parent_id === 'e3') return { results: [rec('v3', { key: 'OWNER', value: 'b', scope: 'PROJECT', variable_type: 'VALUE', is_secret: false })] };
        return { results: [] };
      });
  const manifest = (prune: boolean): Manifest =>
    ({ version: 1, ...(prune ? { prune: { projects: true } } : {}), projects: [{ name: 'shop', ...(prune ? { prune: { environments: true } } : {}), environments: [{ name: 'prod', cluster: 'production-cluster', services: [] }] }] }) as Manifest;
  const callsOf = (a: FakeApi) => a.calls.map((c) => `${c.method} ${c.path}${c.query ? ' ' + new URLSearchParams(c.query as Record<string, string>).toString() : ''}`).sort();

  it('reads nothing below an undeclared environment or project that is not pruned', async () => {
    const a = api();
    await fetchLiveState(a, buildGraph(manifest(false)).graph, { parallelism: 1 });
    expect(callsOf(a).filter((c) => c.includes('e2') || c.includes('p2') || c.includes('e3'))).toEqual([]);
  });

  it('reads the lists of a pruned environment and project, few of them: services, statuses, stages, one variable list per service', async () => {
    const a = api();
    const { live } = await fetchLiveState(a, buildGraph(manifest(true)).graph, { parallelism: 1 });
    expect(callsOf(a).filter((c) => c.includes('e2') || c.includes('p2') || c.includes('e3') || c.includes('s1'))).toEqual(
      [
        'GET /environment/e2/services',
        'GET /environment/e2/statuses',
        'GET /environment/e2/deploymentStage',
        // api's list also holds its environment's variables: no list of the environment's own
        'GET /variable parent_id=s1&scope=APPLICATION',
        'GET /project/p2/environment',
        'GET /environment/e3/services',
        'GET /environment/e3/statuses',
        'GET /environment/e3/deploymentStage',
        // no service in qa: its environment list stands in, and holds the project's variables too
        'GET /variable parent_id=e3&scope=ENVIRONMENT',
      ].sort(),
    );
    const addrs = [...live.resources.keys()];
    for (const a of [
      'project.shop/environment.pr-1/application.api',
      'project.shop/environment.pr-1/application.api/variable.MODE',
      'project.shop/environment.pr-1/variable.GREETING',
      'project.shop/environment.pr-1/database.db',
      'project.shop/environment.pr-1/deployment_stage.data',
      'project.other/environment.qa',
      'project.other/variable.OWNER',
    ])
      expect(addrs, a).toContain(a);
    expect(live.resources.get('project.shop/environment.pr-1/database.db')!.status).toMatchObject({ service_deployment_status: 'UP_TO_DATE' });
  });
});
