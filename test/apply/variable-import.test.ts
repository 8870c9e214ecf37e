/**
 * The plain variables a service gains are created with one import request, and every way that
 * request can go wrong ends as safely as one create each: no variable lost, none created twice.
 */
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply.js';
import type { DesiredGraph, DesiredResource, LiveState } from '../../src/model/resource.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { FakeApi, HttpError, virtualTiming } from './fake-api.js';
import { RateLimitWaitError } from '../../src/api/index.js';

const ENV = 'project.p/environment.e';
const services = { api: `${ENV}/application.api`, web: `${ENV}/container.web` };
const ids: Record<string, string> = { [services.api]: 'api-id', [services.web]: 'web-id' };

function variable(service: string, key: string): ResourceChange {
  return {
    address: `${service}/variable.${key}`,
    kind: 'variable',
    name: key,
    parent: service,
    actions: ['create'],
    status: 'planned',
    reasons: [],
    fields: [],
    depends_on: [service],
    after: { key, value: `v-${key}`, variable_type: 'VALUE', is_secret: false },
  };
}

function setup(vars: Array<[string, string]>) {
  const changes = vars.map(([svc, key]) => variable(svc, key));
  const plan: Plan = {
    format_version: '1.0',
    organization_id: 'org',
    changes,
    summary: { add: changes.length, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 },
    deploy_order: [],
    live_objects: {},
    request_count: 0,
    options: { allow_data_loss: false },
    applyable: true,
    diagnostics: [],
  };
  const live: LiveState = {
    organizationId: 'org',
    requestCount: 0,
    resources: new Map(
      Object.entries(ids).map(([address, id]) => [address, { address, id, kind: address.includes('application') ? 'application' : 'container', name: address.split('.').pop()!, attrs: {}, record: { id }, version: 'v1' }]),
    ),
  };
  const resources = new Map<string, DesiredResource>(
    changes.map((c) => [c.address, { address: c.address, kind: 'variable', name: c.name, parent: c.parent!, attrs: c.after!, dependsOn: [] }]),
  );
  const desired: DesiredGraph = { resources, order: [...resources.keys()] };
  return { plan, live, desired };
}

/** Creates one variable; the created keys are kept per parent so that look-ups see them. */
function withVariableRoutes(api: FakeApi, created: Array<{ parent: string; key: string; value: string }>) {
  return api
    .on('POST', '/variable', ({ body }) => {
      const b = body as { key: string; value: string; variable_parent_id: string };
      if (created.some((c) => c.parent === b.variable_parent_id && c.key === b.key)) throw new HttpError(409, `variable ${b.key} already exists`);
      created.push({ parent: b.variable_parent_id, key: b.key, value: b.value });
      return { id: `id-${b.key}`, key: b.key };
    })
    .on('GET', '/variable', ({ query }) => ({
      results: created.filter((c) => c.parent === query?.parent_id).map((c) => ({ id: `id-${c.key}`, key: c.key, value: c.value, scope: query?.scope })),
    }));
}

const run = (s: ReturnType<typeof setup>, api: FakeApi) => applyPlan(s.plan, { api, live: s.live, desired: s.desired, fingerprintKey: 'k', probeToken: false, timing: virtualTiming() }, { parallelism: 1 });
const writes = (api: FakeApi) => api.calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`);

describe('variable import', () => {
  it('creates the plain variables of a service with one request, with the service id, type and scope', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'B'], [services.api, 'C']]);
    const api = new FakeApi().on('POST', '/variable/import', ({ body }) => {
      const vars = (body as { vars: Array<{ name: string; value: string }> }).vars;
      return { total_variables_to_import: vars.length, successful_imported_variables: vars.map((v) => ({ name: v.name, value: v.value, scope: 'APPLICATION', is_secret: false })) };
    });
    const r = await run(s, api);
    expect(r.status).toBe('applied');
    expect(r.summary.add).toBe(3);
    expect(api.calls).toEqual([
      {
        method: 'POST',
        path: '/variable/import',
        query: { service_id: 'api-id', service_type: 'APPLICATION' },
        body: {
          overwrite: false,
          vars: ['A', 'B', 'C'].map((k) => ({ name: k, value: `v-${k}`, scope: 'APPLICATION', is_secret: false })),
        },
      },
    ]);
  });

  it('falls back to one create each when the server has no import route, and stops trying it for the rest of the apply', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'B'], [services.web, 'X'], [services.web, 'Y']]);
    const created: Array<{ parent: string; key: string; value: string }> = [];
    const api = withVariableRoutes(new FakeApi(), created); // no import route: 404
    const r = await run(s, api);
    expect(r.status).toBe('applied');
    expect(writes(api).filter((w) => w === 'POST /variable/import')).toHaveLength(1);
    expect(created.map((c) => `${c.parent}:${c.key}`).sort()).toEqual(['api-id:A', 'api-id:B', 'web-id:X', 'web-id:Y']);
  });

  it('creates one by one when the import is refused, so that the error names the variable at fault', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'BAD']]);
    const created: Array<{ parent: string; key: string; value: string }> = [];
    const api = new FakeApi()
      .on('POST', '/variable/import', () => {
        throw new HttpError(400, 'vars[1].name: invalid');
      })
      .on('POST', '/variable', ({ body }) => {
        const b = body as { key: string; value: string; variable_parent_id: string };
        if (b.key === 'BAD') throw new HttpError(400, "field 'key': BAD is reserved");
        created.push({ parent: b.variable_parent_id, key: b.key, value: b.value });
        return { id: `id-${b.key}`, key: b.key };
      });
    const r = await run(s, api);
    expect(r.status).toBe('failed');
    expect(created.map((c) => c.key)).toEqual(['A']);
    expect(r.steps.find((x) => x.address === `${services.api}/variable.A`)).toMatchObject({ status: 'applied' });
    expect(r.steps.find((x) => x.address === `${services.api}/variable.BAD`)).toMatchObject({ status: 'failed', error: "field 'key': BAD is reserved" });
  });

  it('after an import whose answer was lost, keeps what it did and creates only what is missing (no duplicate)', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'B'], [services.api, 'C']]);
    const created: Array<{ parent: string; key: string; value: string }> = [];
    const api = withVariableRoutes(new FakeApi(), created).on('POST', '/variable/import', ({ body }) => {
      // The server committed the first two, then the connection dropped.
      for (const v of (body as { vars: Array<{ name: string; value: string }> }).vars.slice(0, 2)) created.push({ parent: 'api-id', key: v.name, value: v.value });
      throw new HttpError(503, 'upstream reset');
    });
    const r = await run(s, api);
    expect(r.status).toBe('applied');
    expect(created.map((c) => c.key).sort()).toEqual(['A', 'B', 'C']);
    expect(writes(api)).toEqual(['POST /variable/import', 'POST /variable']);
  });

  it('fails a variable found with another value after a lost answer, rather than overwrite or ignore it', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'B']]);
    const created = [{ parent: 'api-id', key: 'B', value: 'someone-else' }];
    const api = withVariableRoutes(new FakeApi(), created).on('POST', '/variable/import', () => {
      throw new HttpError(502, 'bad gateway');
    });
    const r = await run(s, api);
    expect(r.status).toBe('failed');
    expect(r.steps.find((x) => x.address === `${services.api}/variable.B`)).toMatchObject({ status: 'failed', error: expect.stringContaining('already has a variable B with another value') });
    expect(created.find((c) => c.key === 'A')).toMatchObject({ value: 'v-A' });
  });

  it('creates on its own a variable the import left out (it existed by then), which fails loudly instead of keeping another value', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'B']]);
    const created = [{ parent: 'api-id', key: 'B', value: 'someone-else' }];
    const api = withVariableRoutes(new FakeApi(), created).on('POST', '/variable/import', () => ({
      total_variables_to_import: 2,
      successful_imported_variables: [{ name: 'A', value: 'v-A', scope: 'APPLICATION', is_secret: false }],
    }));
    const r = await run(s, api);
    expect(r.status).toBe('failed');
    expect(r.steps.find((x) => x.address === `${services.api}/variable.A`)).toMatchObject({ status: 'applied' });
    expect(r.steps.find((x) => x.address === `${services.api}/variable.B`)).toMatchObject({ status: 'failed', error: 'variable B already exists' });
  });

  it('does not fall back on an authorization error: every variable of the batch fails with it', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'B']]);
    const api = new FakeApi().on('POST', '/variable/import', () => {
      throw new HttpError(403, 'the token may not write variables');
    });
    const r = await run(s, api);
    expect(r.status).toBe('failed');
    expect(r.steps.filter((x) => x.status === 'failed')).toHaveLength(2);
    expect(writes(api)).toEqual(['POST /variable/import']);
  });
  it('starts no further step once the token is refused (every later request would be refused too)', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'B'], [services.web, 'X'], [services.web, 'Y']]);
    const api = new FakeApi().on('POST', '/variable/import', () => {
      throw new HttpError(401, 'invalid or expired token');
    });
    const r = await run(s, api);
    expect(r.status).toBe('failed');
    expect(writes(api)).toEqual(['POST /variable/import']);
    expect(r.steps.filter((x) => x.status === 'not_started').map((x) => x.address)).toEqual([`${services.web}/variable.X`, `${services.web}/variable.Y`]);
  });

  it('starts no further step once a rate-limit wait would exceed --max-wait, and says why', async () => {
    const s = setup([[services.api, 'A'], [services.api, 'B'], [services.web, 'X'], [services.web, 'Y']]);
    const capped = new RateLimitWaitError('POST', '/variable/import', { waitMs: 3_000_000, maxWaitMs: 60_000, resetAt: Date.UTC(2026, 0, 1, 13), limit: 100, remaining: 0, sent: 100 }, Date.UTC(2026, 0, 1, 12, 10), 'UTC');
    const api = new FakeApi().on('POST', '/variable/import', () => {
      throw capped;
    });
    const r = await run(s, api);
    expect(r.status).toBe('failed');
    expect(r.stoppedBy).toBe(capped.message);
    expect(r.stoppedBy).toContain('The window resets at 2026-01-01T13:00:00Z');
    expect(r.steps.filter((x) => x.status === 'failed').map((x) => x.error)).toEqual([capped.message, capped.message]);
    expect(r.steps.filter((x) => x.status === 'not_started').map((x) => x.address)).toEqual([`${services.web}/variable.X`, `${services.web}/variable.Y`]);
  });
});
