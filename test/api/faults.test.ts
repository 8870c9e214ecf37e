/**
 * Fault handling of the client, with nock intercepting the global fetch the client uses.
 * Every test checks that nock really saw the requests (scope.isDone / request counts), so a test
 * cannot pass by talking to something else.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, type ApiClientOptions } from '../../src/api/index.js';
import { BASE, fakeTime, half, recorder } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

function client(extra: Partial<ApiClientOptions> = {}) {
  const time = fakeTime();
  const rec = recorder();
  const c = createApiClient({
    baseUrl: BASE,
    token: 'tok',
    now: time.clock,
    sleep: time.sleep,
    random: half,
    onEvent: rec.onEvent,
    retries: 3,
    ...extra,
  });
  return { c, time, events: rec.events };
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected the call to fail');
}

describe('request counting', () => {
  it('counts per endpoint, with UUIDs of ready-made paths folded into {id}', async () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    nock(BASE).get(`/environment/${id}/services`).times(2).reply(200, { results: [] }).get('/organization').reply(200, {});
    const { c } = client();
    await c.get(`/environment/${id}/services`);
    await c.get('/environment/{environmentId}/services', { params: { environmentId: id } });
    await c.get('/organization');
    expect(c.stats()).toMatchObject({
      total: 3,
      byMethod: { GET: 3 },
      byEndpoint: { 'GET /environment/{id}/services': 1, 'GET /environment/{environmentId}/services': 1, 'GET /organization': 1 },
    });
    c.resetStats();
    expect(c.stats().total).toBe(0);
  });
});

describe('interception is real', () => {
  it('nock sees the request the client sends', async () => {
    const scope = nock(BASE).get('/organization').reply(200, { results: [] });
    const { c } = client();
    expect(await c.get('/organization')).toEqual({ results: [] });
    expect(scope.isDone()).toBe(true);
  });
});

describe('5xx', () => {
  it('retries a GET with jittered exponential backoff and reports each retry', async () => {
    const scope = nock(BASE).get('/project/p1').reply(503).get('/project/p1').reply(502).get('/project/p1').reply(200, { id: 'p1' });
    const { c, time, events } = client();
    expect(await c.get('/project/{projectId}', { params: { projectId: 'p1' } })).toEqual({ id: 'p1' });
    expect(scope.isDone()).toBe(true);
    expect(time.sleeps).toEqual([188, 375]); // 250/2 + 0.5*125, then 500/2 + 0.5*250
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      { type: 'retry', method: 'GET', path: '/project/p1', attempt: 2, reason: 'HTTP 503', delayMs: 188 },
      { type: 'retry', method: 'GET', path: '/project/p1', attempt: 3, reason: 'HTTP 502', delayMs: 375 },
    ]);
    expect(c.stats()).toMatchObject({ total: 3, retries: 2, byEndpoint: { 'GET /project/{projectId}': 3 } });
  });

  it('honours a 503 Retry-After when it is longer than the backoff', async () => {
    const scope = nock(BASE).get('/organization').reply(503, '', { 'Retry-After': '5' }).get('/organization').reply(200, {});
    const { c, time } = client();
    await c.get('/organization');
    expect(scope.isDone()).toBe(true);
    expect(time.sleeps).toEqual([5000]);
  });

  it('gives up after the configured retries with a server error', async () => {
    const scope = nock(BASE).put('/variable/v1').times(3).reply(500, { status: 500, error: 'Internal Server Error', message: 'db down' });
    const { c } = client({ retries: 2 });
    const err = await failure(c.put('/variable/{variableId}', { params: { variableId: 'v1' }, body: { key: 'A' } }));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'server', status: 500, method: 'PUT', path: '/variable/v1', attempts: 3, serverMessage: 'db down' });
    expect(err.message).toBe('PUT /variable/v1 (HTTP 500): server error: db down');
  });

  it('by default retries a 5xx 6 times: a flaky API fails several times in a row, and a 5xx costs little to repeat', async () => {
    const time = fakeTime();
    const scope = nock(BASE).get('/project/p1').times(7).reply(503, { message: 'busy' });
    const c = createApiClient({ baseUrl: BASE, token: 'tok', now: time.clock, sleep: time.sleep, random: half });
    const err = await failure(c.get('/project/{projectId}', { params: { projectId: 'p1' } }));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'server', status: 503, attempts: 7 });
  });

  it('does not retry a POST: a 5xx after a create is ambiguous', async () => {
    const scope = nock(BASE).post('/organization/o1/project').reply(500, { message: 'oops' });
    const { c, events } = client();
    const err = await failure(c.post('/organization/{organizationId}/project', { params: { organizationId: 'o1' }, body: { name: 'shop' } }));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'ambiguous', reason: 'server', status: 500, method: 'POST', attempts: 1 });
    expect(c.stats().total).toBe(1);
    expect(events.some((e) => e.type === 'retry')).toBe(false);
  });

  it('retries a POST that opted in (an action with no side effect on failure)', async () => {
    const scope = nock(BASE).post('/alert-receivers/validate').reply(503).post('/alert-receivers/validate').reply(200);
    const { c } = client();
    expect(await c.post('/alert-receivers/validate', { body: { message: 'hi' }, retry: true })).toBeUndefined();
    expect(scope.isDone()).toBe(true);
    expect(c.stats().retries).toBe(1);
  });
});

describe('dropped connections', () => {
  it('retries a GET after the connection was reset', async () => {
    const scope = nock(BASE)
      .get('/environment/e1/services')
      .replyWithError({ code: 'ECONNRESET', message: 'socket hang up' })
      .get('/environment/e1/services')
      .reply(200, { results: [{ id: 's1' }] });
    const { c, events } = client();
    expect(await c.get('/environment/{environmentId}/services', { params: { environmentId: 'e1' } })).toEqual({ results: [{ id: 's1' }] });
    expect(scope.isDone()).toBe(true);
    expect(events).toContainEqual(expect.objectContaining({ type: 'retry', reason: 'connection failed (ECONNRESET)', attempt: 2 }));
  });

  it('a POST whose connection dropped after sending is ambiguous, not retried', async () => {
    const scope = nock(BASE).post('/environment/e1/application').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    const { c } = client();
    const err = await failure(c.post('/environment/{environmentId}/application', { params: { environmentId: 'e1' }, body: { name: 'api' } }));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'ambiguous', reason: 'network', code: 'ECONNRESET', status: 0 });
    expect(err.message).toBe('POST /environment/e1/application: the request may or may not have been applied (connection dropped ECONNRESET)');
    expect(c.stats().total).toBe(1);
  });

  it('alert receiver validation changes nothing, so a dropped connection is retried without an opt-in (new and existing receiver, as apply sends them)', async () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const scope = nock(BASE)
      .post('/alert-receivers/validate')
      .replyWithError({ code: 'ECONNRESET', message: 'socket hang up' })
      .post('/alert-receivers/validate')
      .reply(503, { status: 503, error: 'Service Unavailable', message: 'busy' })
      .post('/alert-receivers/validate')
      .reply(200)
      .post(`/alert-receivers/${id}/validate`)
      .replyWithError({ code: 'ECONNRESET', message: 'socket hang up' })
      .post(`/alert-receivers/${id}/validate`)
      .reply(200);
    const { c, events } = client();
    // The path apply's ApiPort sends (filled in, no `retry` option).
    await c.post('/alert-receivers/validate', { body: { alert_receiver: { name: 'ops', type: 'SLACK' }, message: 'hi' } });
    await c.post(`/alert-receivers/${id}/validate`, { body: { message: 'hi' } });
    expect(scope.isDone()).toBe(true);
    expect(c.stats().total).toBe(5);
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { reason: string }).reason)).toEqual([
      'connection failed (ECONNRESET)',
      expect.stringContaining('503'),
      'connection failed (ECONNRESET)',
    ]);
  });

  it('a POST whose path only resembles a validation (an alert receiver create) is still ambiguous', async () => {
    const scope = nock(BASE).post('/alert-receivers').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    const { c } = client();
    const err = await failure(c.post('/alert-receivers', { body: { name: 'validate' } }));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'ambiguous', reason: 'network' });
  });

  it('a POST refused before connecting was never sent, so it is retried', async () => {
    const scope = nock(BASE)
      .post('/alert-rules')
      .replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' })
      .post('/alert-rules')
      .reply(201, { id: 'r1' });
    const { c } = client();
    expect(await c.post('/alert-rules', { body: { name: 'cpu' } })).toEqual({ id: 'r1' });
    expect(scope.isDone()).toBe(true);
  });

  it('reports a network error once the retries are spent', async () => {
    const scope = nock(BASE).get('/organization').times(2).replyWithError({ code: 'ECONNRESET', message: 'reset' });
    const { c } = client({ retries: 1 });
    const err = await failure(c.get('/organization'));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'network', code: 'ECONNRESET', attempts: 2 });
  });
});

describe('timeouts', () => {
  it('times out a slow GET and retries it', async () => {
    const scope = nock(BASE).get('/organization').delay(5_000).reply(200, {}).get('/organization').reply(200, { results: [] });
    const { c, events } = client({ timeoutMs: 30 });
    expect(await c.get('/organization')).toEqual({ results: [] });
    expect(scope.isDone()).toBe(true);
    expect(events).toContainEqual(expect.objectContaining({ type: 'retry', reason: 'timeout', method: 'GET', attempt: 2 }));
  });

  it('a timed-out POST is ambiguous', async () => {
    const scope = nock(BASE).post('/project/p1/environment').delay(5_000).reply(201, {});
    const { c } = client({ timeoutMs: 30 });
    const err = await failure(c.post('/project/{projectId}/environment', { params: { projectId: 'p1' }, body: { name: 'prod' } }));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'ambiguous', reason: 'timeout', status: 0 });
  });

  it('a per-call timeout overrides the client default', async () => {
    const scope = nock(BASE).get('/organization').times(2).delay(5_000).reply(200, {});
    const { c } = client({ timeoutMs: 60_000, retries: 1 });
    const err = await failure(c.get('/organization', { timeoutMs: 20 }));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'timeout', attempts: 2 });
  });
});

describe('typed 4xx errors', () => {
  const cases: Array<[number, string]> = [
    [400, 'validation'],
    [401, 'unauthorized'],
    [402, 'billing'],
    [403, 'forbidden'],
    [404, 'not-found'],
    [409, 'conflict'],
    [422, 'validation'],
  ];
  for (const [status, kind] of cases) {
    it(`${status} is ${kind}, not retried`, async () => {
      const scope = nock(BASE).delete('/project/p1').reply(status, { status, error: 'x', message: `m${status}` });
      const { c } = client();
      const err = await failure(c.delete('/project/{projectId}', { params: { projectId: 'p1' } }));
      expect(scope.isDone()).toBe(true);
      expect(err).toMatchObject({ kind, status, serverMessage: `m${status}`, attempts: 1 });
      expect(c.stats().total).toBe(1);
    });
  }

  it('a 403 is never reported as not-found', async () => {
    nock(BASE).get('/project/p1').reply(403, { message: 'Forbidden' });
    const { c } = client();
    const err = await failure(c.get('/project/{projectId}', { params: { projectId: 'p1' } }));
    expect(err.kind).toBe('forbidden');
    expect(err.message).toBe('GET /project/p1 (HTTP 403): the API token lacks the permission for this operation: Forbidden');
  });

  it('a deployment refused for billing is its own kind', async () => {
    nock(BASE).post('/environment/e1/service/deploy').reply(400, { message: 'Deployment blocked by the billing restriction NO_CREDIT_CARD' });
    const { c } = client();
    const err = await failure(c.post('/environment/{environmentId}/service/deploy', { params: { environmentId: 'e1' }, body: {} }));
    expect(err.kind).toBe('billing');
  });

  it('errors and events carry the path without its query string', async () => {
    nock(BASE).get('/variable').query({ parent_id: 'a1', scope: 'APPLICATION' }).reply(404, { message: 'gone' });
    const { c, events } = client();
    const err = await failure(c.get('/variable', { query: { parent_id: 'a1', scope: 'APPLICATION' } }));
    expect(err.path).toBe('/variable');
    expect(err.message).not.toContain('parent_id');
    expect(events.every((e) => !('path' in e) || !e.path.includes('?'))).toBe(true);
  });

  it('a redirect is not followed (the token would go elsewhere) and points at the API URL', async () => {
    const scope = nock(BASE).get('/organization').reply(301, '', { Location: 'https://api.test/organization?x=1' });
    const { c } = client();
    const err = await failure(c.get('/organization'));
    expect(scope.isDone()).toBe(true);
    expect(err).toMatchObject({ kind: 'validation', status: 301, attempts: 1 });
    expect(err.message).toBe(
      'GET /organization (HTTP 301): the API rejected the request: the API answered with a redirect to https://api.test/organization: check the API URL (DRIFTLESS_API_URL)',
    );
  });

  it('a non-JSON error body is summarised on one line', async () => {
    nock(BASE).get('/organization').reply(400, '<html>\n<body>Bad\nrequest</body></html>');
    const { c } = client();
    const err = await failure(c.get('/organization'));
    expect(err.serverMessage).toBe('<html> <body>Bad request</body></html>');
  });
});
