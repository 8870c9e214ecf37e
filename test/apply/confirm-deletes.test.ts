import { describe, expect, it } from 'vitest';
import { listRequestOf, unconfirmedDeletes } from '../../src/apply/confirm-deletes.js';
import type { ApiPort } from '../../src/live/api-port.js';
import type { LiveResource, LiveState, ResourceKind } from '../../src/model/resource.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';

const live = (address: string, kind: ResourceKind, id: string, record: Record<string, unknown>, parent?: string): LiveResource => ({
  address,
  kind,
  name: String(record.name ?? record.key ?? ''),
  id,
  attrs: {},
  record: { id, ...record },
  version: '1',
  ...(parent ? { parent } : {}),
});

const P = 'project.shop';
const E = `${P}/environment.dev`;
const state: LiveState = {
  organizationId: 'org',
  requestCount: 0,
  resources: new Map(
    [
      live(P, 'project', 'p1', { name: 'shop' }),
      live(E, 'environment', 'e1', { name: 'dev' }, P),
      live(`${E}/application.api`, 'application', 's1', { name: 'api', service_type: 'APPLICATION' }, E),
      live(`${E}/container.web`, 'container', 's2', { name: 'web', service_type: 'CONTAINER' }, E),
      live(`${E}/variable.LOG`, 'variable', 'v1', { key: 'LOG' }, E),
      live('webhook.hooks', 'webhook', 'w1', { target_url: 'https://hooks.example/x' }),
    ].map((l) => [l.address, l]),
  ),
};

const del = (address: string, id: string, kind: ResourceKind, actions: ResourceChange['actions'] = ['delete']): ResourceChange =>
  ({ address, kind, name: address.split('.').pop()!, actions, status: 'planned', reasons: [], id, fields: [], depends_on: [] }) as unknown as ResourceChange;
const planOf = (...changes: ResourceChange[]) => ({ changes }) as unknown as Plan;

/** A port answering GETs from `answers` by path?query, counting them. */
function port(answers: Record<string, unknown>): ApiPort & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    get requestCount() {
      return seen.length;
    },
    async get<T>(path: string, query?: Record<string, string | number | boolean | undefined>): Promise<T> {
      const key = query ? `${path}?${new URLSearchParams(query as Record<string, string>).toString()}` : path;
      seen.push(key);
      if (!(key in answers)) throw new Error(`unexpected GET ${key}`);
      return answers[key] as T;
    },
    post: () => Promise.reject(new Error('no writes')),
    put: () => Promise.reject(new Error('no writes')),
    delete: () => Promise.reject(new Error('no writes')),
  } as ApiPort & { seen: string[] };
}

describe('unconfirmedDeletes', () => {
  it('reads each list holding a delete target once, and confirms targets there under their id, name and kind', async () => {
    const api = port({
      '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'APPLICATION' }, { id: 's2', name: 'web', service_type: 'CONTAINER' }] },
      '/variable?parent_id=e1&scope=ENVIRONMENT': { results: [{ id: 'v1', key: 'LOG', scope: 'ENVIRONMENT' }] },
      '/organization/org/webhook': { results: [{ id: 'w1', target_url: 'https://hooks.example/x' }] },
    });
    const plan = planOf(del(`${E}/application.api`, 's1', 'application'), del(`${E}/container.web`, 's2', 'container', ['delete', 'create']), del(`${E}/variable.LOG`, 'v1', 'variable'), del('webhook.hooks', 'w1', 'webhook'));
    expect(await unconfirmedDeletes(plan, state, api)).toEqual([]);
    expect(api.seen.sort()).toEqual(['/environment/e1/services', '/organization/org/webhook', '/variable?parent_id=e1&scope=ENVIRONMENT']);
  });

  it('refuses an id that is gone, renamed, or of another kind, naming the object', async () => {
    const api = port({ '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'CONTAINER' }, { id: 's2', name: 'web2', service_type: 'CONTAINER' }] }, '/project/p1/environment': { results: [] } });
    const d = await unconfirmedDeletes(planOf(del(`${E}/application.api`, 's1', 'application'), del(`${E}/container.web`, 's2', 'container'), del(E, 'e1', 'environment')), state, api);
    expect(d.map((x) => x.summary)).toEqual([
      'project.shop/environment.dev: not deleted: a live read of its list has no object with id e1',
      'project.shop/environment.dev/application.api: not deleted: the live object with id s1 is of kind container, not application',
      'project.shop/environment.dev/container.web: not deleted: the live object with id s2 is named "web2", not "web"',
    ]);
    expect(d.every((x) => x.severity === 'error' && x.code === 'apply.delete-unconfirmed')).toBe(true);
    expect(d[0]!.detail).toContain('Nothing was changed');
  });

  it('asks nothing when the plan deletes nothing; a change that goes with its parent is its parent\'s', async () => {
    const api = port({});
    const withParent = { ...del(`${E}/container.web`, 's2', 'container'), via_parent: E } as ResourceChange;
    expect(await unconfirmedDeletes(planOf(withParent), state, api)).toEqual([]);
    expect(api.seen).toEqual([]);
  });

  it('knows the list of every kind it can delete', () => {
    expect(listRequestOf(state.resources.get(P)!, state)).toEqual({ path: '/organization/org/project' });
    expect(listRequestOf(state.resources.get(E)!, state)).toEqual({ path: '/project/p1/environment' });
    expect(listRequestOf(live(`${E}/deployment_stage.first`, 'deployment_stage', 'd1', { name: 'first' }, E), state)).toEqual({ path: '/environment/e1/deploymentStage' });
    expect(listRequestOf(live(`${E}/application.api/variable.X`, 'variable', 'v9', { key: 'X' }, `${E}/application.api`), state)).toEqual({ path: '/variable', query: { parent_id: 's1', scope: 'APPLICATION' } });
  });
});
