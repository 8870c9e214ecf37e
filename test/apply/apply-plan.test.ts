import { describe, expect, it } from 'vitest';
import { applyPlan, refusals } from '../../src/apply/apply.js';
import type { ApplyEvent } from '../../src/apply/events.js';
import type { DesiredGraph, DesiredResource, LiveResource, LiveState } from '../../src/model/resource.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { FakeApi, HttpError, virtualTiming } from './fake-api.js';

function change(address: string, kind: ResourceChange['kind'], actions: ResourceChange['actions'], extra: Partial<ResourceChange> = {}): ResourceChange {
  const i = address.lastIndexOf('/');
  return {
    address,
    kind,
    name: address.slice(address.lastIndexOf('.') + 1),
    ...(i > 0 ? { parent: address.slice(0, i) } : {}),
    actions,
    status: 'planned',
    reasons: [],
    fields: [],
    depends_on: i > 0 ? [address.slice(0, i)] : [],
    ...extra,
  };
}

function plan(changes: ResourceChange[], extra: Partial<Plan> = {}): Plan {
  return {
    format_version: '1.0',
    organization_id: 'org',
    changes,
    summary: { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 },
    deploy_order: [],
    live_objects: {},
    request_count: 0,
    options: { allow_data_loss: false },
    applyable: true,
    diagnostics: [],
    ...extra,
  };
}

function liveOf(list: Array<[string, string, LiveResource['kind']]>): LiveState {
  return {
    organizationId: 'org',
    requestCount: 0,
    resources: new Map(list.map(([address, id, kind]) => [address, { address, id, kind, name: address, attrs: {}, record: { id, name: address.split('.').pop() }, version: 'v1' }])),
  };
}

function desiredOf(list: Array<[string, DesiredResource['kind'], Record<string, unknown>]>): DesiredGraph {
  const resources = new Map<string, DesiredResource>();
  for (const [address, kind, attrs] of list) {
    const i = address.lastIndexOf('/');
    resources.set(address, { address, kind, name: String(attrs.name ?? attrs.key), attrs, dependsOn: [], ...(i > 0 ? { parent: address.slice(0, i) } : {}) });
  }
  return { resources, order: [...resources.keys()] };
}

describe('applyPlan', () => {
  it('deletes children before their parents', async () => {
    const api = new FakeApi().on('DELETE', '/deploymentStage/:id', () => undefined).on('DELETE', '/environment/:id', () => undefined);
    const p = plan([
      change('project.p/environment.old', 'environment', ['delete'], { id: 'env-1', depends_on: [] }),
      change('project.p/environment.old/deployment_stage.s', 'deployment_stage', ['delete'], { id: 'st-1' }),
    ]);
    const live = liveOf([
      ['project.p', 'p-1', 'project'],
      ['project.p/environment.old', 'env-1', 'environment'],
      ['project.p/environment.old/deployment_stage.s', 'st-1', 'deployment_stage'],
    ]);
    const r = await applyPlan(p, { api, live, desired: desiredOf([]), fingerprintKey: 'k', probeToken: false, timing: virtualTiming() }, { parallelism: 8 });
    expect(r.status).toBe('applied');
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['DELETE /deploymentStage/st-1', 'DELETE /environment/env-1']);
    expect(r.summary.destroy).toBe(2);
  });

  it('skips what depends on a failed step, goes on with the rest, and reports each step', async () => {
    const api = new FakeApi()
      .on('POST', '/project/:id/environment', () => {
        throw new HttpError(400, "field 'mode': must be one of: DEVELOPMENT, PRODUCTION, STAGING");
      })
      .on('POST', '/variable', ({ body }) => ({ id: 'var-1', ...(body as object) }));
    const p = plan([
      change('project.p/environment.e', 'environment', ['create']),
      change('project.p/environment.e/variable.X', 'variable', ['create']),
      change('project.p/variable.Y', 'variable', ['create']),
    ]);
    const desired = desiredOf([
      ['project.p/environment.e', 'environment', { name: 'e', mode: 'WRONG', cluster: 'c' }],
      ['project.p/environment.e/variable.X', 'variable', { key: 'X', value: '1', variable_type: 'VALUE', is_secret: false }],
      ['project.p/variable.Y', 'variable', { key: 'Y', value: '2', variable_type: 'VALUE', is_secret: false }],
    ]);
    const live = liveOf([
      ['project.p', 'p-1', 'project'],
      ['cluster.c', 'cl-1', 'cluster'],
    ]);
    const events: ApplyEvent[] = [];
    const r = await applyPlan(p, { api, live, desired, fingerprintKey: 'k', probeToken: false, timing: virtualTiming(), onEvent: (e) => events.push(e) }, { parallelism: 1 });
    expect(r.status).toBe('failed');
    expect(r.steps).toEqual([
      { address: 'project.p/environment.e', action: 'create', status: 'failed', error: "field 'mode': must be one of: DEVELOPMENT, PRODUCTION, STAGING" },
      { address: 'project.p/environment.e/variable.X', action: 'create', status: 'skipped', because: 'project.p/environment.e' },
      { address: 'project.p/variable.Y', action: 'create', status: 'applied' },
    ]);
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /project/p-1/environment', 'POST /variable']);
    expect(events.at(-1)).toEqual({ type: 'change_summary', add: 1, change: 0, destroy: 0, deploy: 0, failed: 1, skipped: 1, not_started: 0, requests: 2 });
  });

  it('refuses before any request: a blocked change, a database delete without --allow-data-loss, too many deletions', async () => {
    const db = change('project.p/environment.e/database.db', 'database', ['delete'], { id: 'db-1' });
    expect(refusals(plan([db]), {}).map((d) => d.code)).toEqual(['apply.data-loss']);
    expect(refusals(plan([db]), { allowDataLoss: true })).toEqual([]);
    expect(refusals(plan([{ ...db, status: 'blocked' }], { applyable: false }), { allowDataLoss: true }).map((d) => d.code)).toEqual(['apply.blocked']);
    const two = [change('webhook.a', 'webhook', ['delete'], { id: 'w1' }), change('webhook.b', 'webhook', ['delete'], { id: 'w2' })];
    expect(refusals(plan(two), { maxDestroy: 1 })[0]!.summary).toBe('The plan destroys 2 resources, more than --max-destroy 1 allows.');

    const api = new FakeApi();
    const r = await applyPlan(plan([db]), { api, live: liveOf([]), desired: desiredOf([]), fingerprintKey: 'k', probeToken: false });
    expect(r.status).toBe('refused');
    expect(api.calls).toEqual([]);
  });

  it('refuses a plan made with --no-secret-values before any request, naming why (its secrets were never read)', async () => {
    const v = change('project.p/variable.TOKEN', 'variable', ['create']);
    const secretless = plan([v], { options: { allow_data_loss: false, no_secret_values: true }, applyable: false });
    const refused = refusals(secretless, {});
    expect(refused.map((d) => d.code)).toEqual(['apply.no-secret-values']);
    expect(refused[0]!.summary).toBe('the plan was planned with --no-secret-values: re-plan with the secrets');
    const api = new FakeApi();
    const r = await applyPlan(secretless, { api, live: liveOf([]), desired: desiredOf([]), fingerprintKey: 'k', probeToken: false });
    expect(r.status).toBe('refused');
    expect(api.calls).toEqual([]);
  });

  it('refuses a guarded replacement unless this apply was given its flag, whatever the plan says', () => {
    const requires = [{ guard: 'allow_replace' as const, reason: 'replaces environment "e" with everything in it' }];
    const env = change('project.p/environment.e', 'environment', ['delete', 'create'], { id: 'env-1', requires });
    const refused = refusals(plan([env]), {});
    expect(refused.map((d) => d.code)).toEqual(['apply.guarded']);
    expect(refused[0]!.summary).toBe('project.p/environment.e: the plan replaces it and --allow-replace was not given');
    expect(refusals(plan([env]), { allowReplace: true })).toEqual([]);
    // Blocked in the plan: refused even with the flag (plan again with it), naming the flag.
    const blocked = refusals(plan([{ ...env, status: 'blocked' }], { applyable: false }), {});
    expect(blocked.map((d) => d.code)).toEqual(['apply.blocked']);
    expect(blocked[0]!.detail).toContain('--allow-replace');
    expect(blocked[0]!.detail).not.toContain('--allow-data-loss');
  });

  it('counts as destroyed what a replacement deleted, with its children, even when the re-creation fails', async () => {
    const api = new FakeApi()
      .on('DELETE', '/environment/:id', () => undefined)
      .on('GET', '/project/:id/environment', () => ({ results: [] }))
      .on('POST', '/project/:id/environment', () => {
        throw new HttpError(400, "field 'cluster_id': no such cluster");
      });
    const requires = [{ guard: 'allow_replace' as const, reason: 'replaces environment "e" with everything in it' }];
    const p = plan([
      change('project.p/environment.e', 'environment', ['delete', 'create'], { id: 'env-1', requires }),
      change('project.p/environment.e/variable.X', 'variable', ['delete', 'create'], { id: 'var-1', reasons: ['replaced with its parent project.p/environment.e'] }),
      change('project.p/environment.e/variable.STRAY', 'variable', ['delete'], { id: 'var-2', via_parent: 'project.p/environment.e' }),
    ]);
    const desired = desiredOf([
      ['project.p/environment.e', 'environment', { name: 'e', mode: 'DEVELOPMENT', cluster: 'c' }],
      ['project.p/environment.e/variable.X', 'variable', { key: 'X', value: '1', variable_type: 'VALUE', is_secret: false }],
    ]);
    const live = liveOf([
      ['project.p', 'p-1', 'project'],
      ['cluster.c', 'cl-1', 'cluster'],
      ['project.p/environment.e', 'env-1', 'environment'],
    ]);
    const r = await applyPlan(p, { api, live, desired, fingerprintKey: 'k', probeToken: false, timing: virtualTiming() }, { allowReplace: true, parallelism: 1 });
    expect(r.status).toBe('failed');
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['DELETE /environment/env-1', 'GET /project/p-1/environment', 'POST /project/p-1/environment']);
    // The environment, its replaced variable and its undeclared one are gone; nothing was created.
    expect(r.summary).toMatchObject({ add: 0, destroy: 3, failed: 1 });
  });

  it('resolves an ambiguous create by looking the object up by name instead of creating it twice', async () => {
    let posts = 0;
    const api = new FakeApi()
      .on('POST', '/organization/:org/project', () => {
        posts++;
        throw Object.assign(new Error('POST /organization/org/project: the request may or may not have been applied'), { kind: 'ambiguous' });
      })
      .on('GET', '/organization/:org/project', () => ({ results: [{ id: 'p-9', name: 'shop' }] }));
    const r = await applyPlan(
      plan([change('project.shop', 'project', ['create'])]),
      { api, live: liveOf([]), desired: desiredOf([['project.shop', 'project', { name: 'shop' }]]), fingerprintKey: 'k', probeToken: false, timing: virtualTiming() },
    );
    expect(r.status).toBe('applied');
    expect(posts).toBe(1);
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /organization/org/project', 'GET /organization/org/project']);
  });

  it('after a lost answer to a batched delete, asks again only for the services still there and not being deleted', async () => {
    let posts = 0;
    const api = new FakeApi()
      .on('POST', '/environment/:id/service/delete', ({ body }) => {
        posts++;
        if (posts === 1) throw Object.assign(new Error('connection dropped'), { kind: 'ambiguous' });
        return body;
      })
      .on('GET', '/environment/:id/services', () => ({ results: [{ id: 'a' }, { id: 'b' }] }))
      .on('GET', '/environment/:id/statuses', () => ({ containers: [{ id: 'a', state: 'DELETE_QUEUED' }, { id: 'b', state: 'DEPLOYED' }] }));
    const env = 'project.p/environment.e';
    const r = await applyPlan(
      plan([change(`${env}/container.a`, 'container', ['delete'], { id: 'a' }), change(`${env}/container.b`, 'container', ['delete'], { id: 'b' }), change(`${env}/container.c`, 'container', ['delete'], { id: 'c' })]),
      { api, live: liveOf([[env, 'env-1', 'environment']]), desired: desiredOf([]), fingerprintKey: 'k', probeToken: false, timing: virtualTiming() },
    );
    expect(r.status).toBe('applied');
    expect(r.summary.destroy).toBe(3);
    const deletes = api.calls.filter((c) => c.path.endsWith('/service/delete'));
    expect(deletes).toHaveLength(2);
    expect((deletes[1]!.body as Record<string, string[]>).container_ids).toEqual(['b']);
  });
});
