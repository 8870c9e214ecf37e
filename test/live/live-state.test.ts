/**
 * liveStateFromRecords: every record read becomes one live resource at the address plan shows
 * (organization-level objects, projects by name, environments, services with their deployment
 * status, variables under their owner), GHOST alert rules are left out, the first of two objects
 * at one address wins.
 */
import { describe, expect, it } from 'vitest';
import { liveStateFromRecords, fetchLiveState } from '../../src/live/fetch.js';
import type { LiveRecords } from '../../src/live/read.js';
import type { DesiredGraph } from '../../src/model/resource.js';
import { buildGraph } from '../../src/graph/build.js';

const empty = (): DesiredGraph => ({ resources: new Map(), order: [] });

function records(): LiveRecords {
  return {
    organization: { id: 'o1', name: 'Acme' },
    lists: {
      projects: [{ id: 'p1', name: 'shop' }],
      clusters: [{ id: 'c1', name: 'prod-cluster', kubernetes_version: '1.29' }, { id: 'c2', name: 'dev-cluster', kubernetes_version: '1.28' }],
      clusterStatuses: [{ cluster_id: 'c1', next_k8s_available_version: '1.30', status: 'DEPLOYED' }, { id: 'c2', next_k8s_available_version: '1.29', status: 'DEPLOYING' }],
      containerRegistries: [{ id: 'r1', name: 'hub', kind: 'DOCKER_HUB', url: 'https://docker.io' }],
      helmRepositories: [{ id: 'h1', name: 'charts', kind: 'HTTPS', url: 'https://charts.example' }],
      annotationsGroups: [{ id: 'a1', name: 'obs', annotations: [] }],
      labelsGroups: [{ id: 'l1', name: 'team', labels: [] }],
      alertReceivers: [{ id: 'ar1', name: 'ops', type: 'SLACK' }],
      alertRules: [{ id: 'rule1', name: 'cpu', source: 'MANAGED' }, { id: 'rule2', name: 'ghost', source: 'GHOST' }],
      webhooks: [{ id: 'w1', target_url: 'https://hooks.example/a' }, { id: 'w2', target_url: 'https://hooks.example/a' }],
    },
    environments: new Map([
      ['p1', [{ id: 'e1', name: 'prod' }]],
      ['p-unlisted', [{ id: 'e9', name: 'lost' }]],
    ]),
    services: new Map([
      ['e1', [{ id: 's1', name: 'api', service_type: 'APPLICATION' }, { id: 's2', name: 'web', service_type: 'CONTAINER' }, { id: 's3', name: 'thing', service_type: 'UNKNOWN_KIND' }]],
      ['e-unknown', [{ id: 's9', name: 'orphan', service_type: 'APPLICATION' }]],
    ]),
    variables: new Map([
      ['p1', [{ id: 'v1', key: 'REGION', value: 'eu', variable_type: 'VALUE' }]],
      ['e1', [{ id: 'v2', key: 'MODE', value: 'x', variable_type: 'VALUE' }]],
      ['s1', [{ id: 'v3', key: 'PORT', value: '80', variable_type: 'VALUE' }]],
    ]),
    stages: new Map([['e1', [{ id: 'st1', name: 'first' }]]]),
    statuses: new Map([
      [
        'e1',
        {
          environment: [{ id: 's1', state: 'SHOULD_NOT_BE_READ' }],
          applications: [{ id: 's1', state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE', last_deployment_date: '2026-01-02T00:00:00Z', extra: 'dropped' }],
          containers: [null, { id: 's2', state: 7 }],
          databases: 'not a list',
        },
      ],
    ]),
  } as unknown as LiveRecords;
}

describe('liveStateFromRecords', () => {
  it('makes one live resource per record read, at the address plan shows', () => {
    const state = liveStateFromRecords(records(), empty());
    expect(state.organizationId).toBe('o1');
    expect(state.requestCount).toBe(0);
    expect([...state.resources.keys()]).toEqual([
      'cluster.prod-cluster',
      'cluster.dev-cluster',
      'container_registry.hub',
      'helm_repository.charts',
      'annotations_group.obs',
      'labels_group.team',
      'alert_receiver.ops',
      'alert_rule.cpu',
      'webhook.https:%2F%2Fhooks.example%2Fa',
      'project.shop',
      'project.shop/variable.REGION',
      'project.shop/environment.prod',
      'project.shop/environment.prod/variable.MODE',
      'project.shop/environment.prod/deployment_stage.first',
      'project.shop/environment.prod/application.api',
      'project.shop/environment.prod/application.api/variable.PORT',
      'project.shop/environment.prod/container.web',
    ]);
    // The first webhook of one URL wins.
    expect(state.resources.get('webhook.https:%2F%2Fhooks.example%2Fa')!.id).toBe('w1');
    expect(state.resources.get('project.shop/environment.prod/application.api')!.parent).toBe('project.shop/environment.prod');
  });

  it('reads the organization only when the manifest declares it', () => {
    const g = buildGraph({ version: 1, organization: { name: 'Acme' } } as never).graph;
    expect(g.resources.has('organization')).toBe(true);
    expect(liveStateFromRecords(records(), g).resources.get('organization')!.id).toBe('o1');
    expect(liveStateFromRecords(records(), empty()).resources.has('organization')).toBe(false);
  });

  it("gives each cluster its own status (by cluster_id, or id): an upgrade in progress counts as done", () => {
    const state = liveStateFromRecords(records(), empty());
    expect(state.resources.get('cluster.prod-cluster')!.attrs).toMatchObject({ next_k8s_available_version: '1.30', upgrade_kubernetes: false });
    expect(state.resources.get('cluster.dev-cluster')!.attrs).toMatchObject({ next_k8s_available_version: '1.29', upgrade_kubernetes: true });
  });

  it("keeps a service's state, deployment status and last deployment date, nothing else of its status, and none for a service without one", () => {
    const state = liveStateFromRecords(records(), empty());
    expect(state.resources.get('project.shop/environment.prod/application.api')!.status).toEqual({ state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE', last_deployment_date: '2026-01-02T00:00:00Z' });
    expect(state.resources.get('project.shop/environment.prod/container.web')!.status).toEqual({});
  });

  it('makes nothing of a read with no lists', () => {
    const noLists = { ...records(), lists: {} } as unknown as LiveRecords;
    expect([...liveStateFromRecords(noLists, empty()).resources.keys()]).toEqual([]);
  });
});

describe('fetchLiveState', () => {
  it('counts the requests of this read only', async () => {
    let count = 5;
    const lists: Record<string, unknown> = { '/organization': { id: 'o1', name: 'Acme' }, '/organization/o1/project': { results: [] } };
    const api = {
      get requestCount() {
        return count;
      },
      get: async (path: string) => {
        count++;
        if (!(path in lists)) throw Object.assign(new Error('not found'), { status: 404 });
        return lists[path];
      },
      post: async () => ({}),
      put: async () => ({}),
      delete: async () => undefined,
    };
    const state = await fetchLiveState(api as never, buildGraph({ version: 1, projects: [{ name: 'shop' }] } as never).graph);
    expect(state.live.requestCount).toBe(count - 5);
    expect(state.live.requestCount).toBeGreaterThan(0);
  });
});
