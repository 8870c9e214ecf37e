/**
 * The routes the reconciler sends through the client (src/api/routes.ts): a POST that changes
 * nothing (alert receiver validation) is retried like a read on the path the writers use, a create
 * is not; ids are encoded on the wire. nock answers, and `scope.isDone()` proves each request
 * arrived as expected. (Replaces the tests of the unused InfraApi facade, removed in issue 22.)
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { routes } from '../../src/api/routes.js';
import { BASE, fakeTime, half } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

function client() {
  const time = fakeTime();
  return createApiClient({ baseUrl: BASE, token: 't', now: time.clock, sleep: time.sleep, random: half });
}

describe('requests on the route table', () => {
  it('alert receiver validation is retried; a create is not (its outcome is unknown)', async () => {
    const scope = nock(BASE).post('/alert-receivers/validate').reply(502).post('/alert-receivers/validate').reply(200).post('/alert-receivers').reply(502);
    const c = client();
    await c.post(routes.alertReceiverValidate(), { body: { alert_receiver: { name: 'r' }, message: 'test' } });
    await expect(c.post(routes.alertReceivers(), { body: { name: 'r' } })).rejects.toMatchObject({ kind: 'ambiguous' });
    expect(scope.isDone()).toBe(true);
    expect(c.stats().total).toBe(3);
    await c.close();
  });

  it('ids are encoded on the wire, so that none can forge a path', async () => {
    const scope = nock(BASE).delete('/project/..%2Forganization%2Fo1').reply(204);
    const c = client();
    await c.delete(routes.projectItem('../organization/o1'));
    expect(scope.isDone()).toBe(true);
    await c.close();
  });
});
