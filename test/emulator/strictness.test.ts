/**
 * The emulator is as strict as the platform (issue 11, finding 13): a token acts only in its own
 * organization; numbers are finite and within range; text is well-formed Unicode; no route logs an
 * internal error; `Expect: 100-continue` is honoured. Real HTTP on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { startClient, type Client } from './helpers.js';
import { appBody, clusters, projectAndEnv } from './fixtures.js';

const FOREIGN_ORG = '0f0f0f0f-0000-4000-8000-00000000f0f0';
const FOREIGN_TOKEN = `dl_foreign_${'ab'.repeat(20)}`;
const logLines: string[] = [];
let c: Client;
let org: string;
let project: any;
let env: any;
let app: any;

beforeAll(async () => {
  const logger = { info: () => {}, warn: (m: string) => logLines.push(`warn ${m}`), error: (m: string) => logLines.push(`error ${m}`) };
  c = await startClient({ logger });
  org = c.em.organizationId;
  // A token of another organization, as another customer of the same platform would hold.
  c.em.state.tokens = [...c.em.state.tokens, { token: FOREIGN_TOKEN, scope: 'ADMIN', name: 'other customer', organization_id: FOREIGN_ORG }];
  ({ project, env } = await projectAndEnv(c, 'tenant'));
  app = (await c.post(`/environment/${env.id}/application`, appBody('api'))).body;
});
afterAll(async () => c.em.close());

describe('a token acts only in its own organization', () => {
  it('a token of another organization reads nothing and writes nothing here: 403 on every kind of route', async () => {
    const variable = (await c.post('/variable', { key: 'K', value: 'v', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: project.id })).body;
    const { production } = await clusters(c);
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', '/organization'],
      ['GET', `/organization/${org}`],
      ['PUT', `/organization/${org}`, { name: 'Taken over' }],
      ['GET', `/organization/${org}/project`],
      ['POST', `/organization/${org}/project`, { name: 'intruder' }],
      ['GET', `/organization/${org}/cluster`],
      ['GET', `/project/${project.id}`],
      ['PUT', `/project/${project.id}`, { name: 'renamed-by-intruder' }],
      ['DELETE', `/project/${project.id}`],
      ['GET', `/project/${project.id}/environment`],
      ['GET', `/environment/${env.id}`],
      ['POST', `/environment/${env.id}/application`, appBody('intruder')],
      ['GET', `/application/${app.id}`],
      ['POST', `/application/${app.id}/deploy`, {}],
      ['GET', `/variable?parent_id=${project.id}&scope=PROJECT`],
      ['PUT', `/variable/${variable.id}`, { key: 'K', value: 'stolen' }],
      ['POST', '/variable', { key: 'X', value: 'x', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: project.id }],
      ['POST', '/alert-receivers', { organization_id: FOREIGN_ORG, name: 'r', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/x' }],
      ['POST', '/alert-receivers/validate', { alert_receiver: { name: 'r', type: 'SLACK', webhook_url: 'https://hooks.slack.com/services/x' } }],
      ['GET', `/organization/${org}/cluster/${production.id}/status`],
    ];
    for (const [method, path, body] of attempts) {
      const r = await c.call(method, path, body, { token: FOREIGN_TOKEN });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.message, `${method} ${path}`).toContain('cannot act in another organization');
      expect(r.body.message, 'the refused organization is not revealed').not.toContain(org);
    }
    // Nothing changed: the same reads with this organization's token.
    expect((await c.get(`/project/${project.id}`)).body.name).toBe('tenant');
    expect((await c.get(`/organization/${org}/project`)).body.results.map((p: any) => p.name)).toEqual(['tenant']);
    expect((await c.get(`/environment/${env.id}/services`)).body.results.map((s: any) => s.name)).toEqual(['api']);
    expect((await c.get(`/organization/${org}`)).body.name).toBe('Acme');
    const kept = (await c.get(`/variable?parent_id=${project.id}&scope=PROJECT`)).body.results.find((v: any) => v.key === 'K');
    expect(kept.value).toBe('v');
  });

  it('the providers\' instance-type catalogs belong to no organization: any valid token reads them', async () => {
    const r = await c.call('GET', '/aws/eks/instanceType/eu-west-3', undefined, { token: FOREIGN_TOKEN });
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeGreaterThan(0);
  });

  it('an organization id the emulator does not host is a 404 for every token (it tells nothing)', async () => {
    for (const token of [FOREIGN_TOKEN, c.em.tokens.ADMIN]) {
      expect((await c.call('GET', `/organization/${FOREIGN_ORG}/project`, undefined, { token })).status).toBe(404);
    }
  });
});

describe('numbers are finite and within range', () => {
  it('an integer field beyond a 32-bit integer is a 400 naming the field and the allowed range', async () => {
    const r = await c.post(`/environment/${env.id}/application`, { ...appBody('huge'), max_running_instances: 1e308 });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("'max_running_instances'");
    expect(r.body.message).toContain('allowed: from 0 to 2147483647');
    const big = await c.post(`/environment/${env.id}/application`, { ...appBody('huge'), max_running_instances: 2 ** 31 });
    expect(big.status).toBe(400);
    const max = await c.post(`/environment/${env.id}/application`, { ...appBody('huge'), min_running_instances: 1, max_running_instances: 2 ** 31 - 1 });
    expect(max.status).toBe(201);
  });

  it('1e309 (Infinity once parsed) and a number field beyond 2^53 are refused; the ranges given by the schema still apply', async () => {
    const inf = await c.call('POST', `/environment/${env.id}/application`, undefined, { raw: JSON.stringify({ ...appBody('inf'), cpu: 0 }).replace('"cpu":0', '"cpu":1e309') });
    expect(inf.status).toBe(400);
    expect(inf.body.message).toContain("'cpu'");
    const port = await c.post(`/environment/${env.id}/application`, { ...appBody('port'), ports: [{ internal_port: 1e308 }] });
    expect(port.status).toBe(400);
    expect(port.body.message).toContain("'ports[0].internal_port' must be <= 65535 (allowed: from 1 to 65535)");
    const { production } = await clusters(c);
    const receiver = (await c.post('/alert-receivers', { organization_id: org, name: 'n-slack', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/n' })).body;
    const rule = {
      organization_id: org, cluster_id: production.id, name: 'huge-threshold', description: 'd', tag: 't',
      condition: { kind: 'CUSTOM', promql: 'up == 0', operator: 'NONE', threshold: 1e308, function: 'NONE' }, for_duration: 'PT5M', severity: 'LOW',
      presentation: {}, enabled: true, alert_receiver_ids: [receiver.id], target: { target_type: 'CLUSTER', target_id: production.id },
    };
    const r = await c.post('/alert-rules', rule);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("'condition.threshold'");
    expect(r.body.message).toContain(`allowed: from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`);
    expect((await c.post('/alert-rules', { ...rule, condition: { ...rule.condition, threshold: 0.75 } })).status).toBe(201);
  });

  it('a free-form part of a body (KEDA autoscaling) cannot carry a number beyond 2^53 either', async () => {
    const r = await c.post(`/environment/${env.id}/application`, { ...appBody('keda'), autoscaling: { mode: 'KEDA', polling_interval_seconds: 1e308 } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("'autoscaling.polling_interval_seconds'");
    expect((await c.get(`/environment/${env.id}/services`)).body.results.map((s: any) => s.name)).not.toContain('keda');
  });
});

describe('text is well-formed Unicode', () => {
  it('a name or value with a lone surrogate is a 400 naming the field; a real astral character is fine', async () => {
    const lone = await c.call('POST', `/organization/${org}/project`, undefined, { raw: '{"name":"shop\\ud800"}' });
    expect(lone.status).toBe(400);
    expect(lone.body.message).toBe("request body: field 'name' is not well-formed Unicode (it holds a lone UTF-16 surrogate); send valid UTF-8 text");
    const low = await c.call('POST', '/variable', undefined, {
      raw: `{"key":"K2","value":"x\\udc00y","is_secret":false,"variable_scope":"PROJECT","variable_parent_id":"${project.id}"}`,
    });
    expect(low.status).toBe(400);
    expect(low.body.message).toContain("field 'value' is not well-formed Unicode");
    const nested = await c.call('POST', `/environment/${env.id}/application`, undefined, { raw: JSON.stringify(appBody('nested')).replace('"main"', '"ma\\ud83din"') });
    expect(nested.status).toBe(400);
    expect(nested.body.message).toContain("field 'git_repository.branch'");
    expect((await c.get(`/organization/${org}/project`)).body.results.map((p: any) => p.name)).toEqual(['tenant']);
    const emoji = await c.post(`/organization/${org}/project`, { name: 'shop-😀', description: 'pair \ud83d\ude00' });
    expect(emoji.status).toBe(200); // api-notes: project creation answers 200
    expect(emoji.body.name).toBe('shop-😀');
  });
});

describe('no route logs an internal error', () => {
  it('validations and bodiless answers (200 and 204 without a body) are answered once, with nothing in the log', async () => {
    logLines.length = 0;
    const receiver = { name: 'ops-slack', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/ops' };
    const v1 = await c.post('/alert-receivers/validate', { alert_receiver: receiver, message: 'hello' });
    expect(v1.status).toBe(200);
    const created = (await c.post('/alert-receivers', { organization_id: org, ...receiver })).body;
    expect((await c.post(`/alert-receivers/${created.id}/validate`, { message: 'again' })).status).toBe(200);
    const variable = (await c.post('/variable', { key: 'GONE', value: 'g', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: project.id })).body;
    expect((await c.del(`/variable/${variable.id}`)).status).toBe(204);
    const legacy = (await c.post(`/application/${app.id}/environmentVariable`, { key: 'LEGACY', value: 'l' })).body;
    expect((await c.del(`/application/${app.id}/environmentVariable/${legacy.id}`)).status).toBe(204);
    const extra = (await c.post(`/environment/${env.id}/application`, appBody('to-delete'))).body;
    expect((await c.post(`/environment/${env.id}/service/delete`, { application_ids: [extra.id] })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50)); // a second reply would be logged after the first
    expect(logLines).toEqual([]);
  });
});

/** One POST over node:http that declares `Expect: 100-continue` and sends its body only when told. */
function expectContinue(url: string, token: string, body: string): Promise<{ status: number; gotContinue: boolean; error?: string; text: string }> {
  return new Promise((resolve) => {
    let gotContinue = false;
    let error: string | undefined;
    const req = httpRequest(url, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    });
    req.on('continue', () => {
      gotContinue = true;
      req.end(body);
    });
    req.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      // Let a late EPIPE / reset surface before resolving.
      res.on('end', () => setTimeout(() => resolve({ status: res.statusCode ?? 0, gotContinue, error, text }), 50));
    });
    req.on('close', () => setTimeout(() => resolve({ status: 0, gotContinue, error: error ?? 'closed without answer', text: '' }), 200));
  });
}

describe('connections', () => {
  it('an idle keep-alive connection is closed by the keep-alive timeout, never cut by the headers timeout when reused', () => {
    const server = c.em.app.server;
    expect(server.keepAliveTimeout).toBeGreaterThan(5_000);
    expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
  });
});

describe('Expect: 100-continue', () => {
  const bigBody = (bytes: number) => JSON.stringify({ name: `big-${bytes}`, description: 'd', padding: 'x'.repeat(bytes) });

  it('a large body within the limit is asked for and served', async () => {
    const r = await expectContinue(`${c.em.url}/organization/${org}/project`, c.em.tokens.ADMIN, bigBody(900_000));
    expect(r).toMatchObject({ status: 200, gotContinue: true, error: undefined });
    expect(JSON.parse(r.text).name).toBe('big-900000');
  });

  it('a body declared larger than the limit is refused with 413 before it is sent: no broken pipe', async () => {
    for (const bytes of [2_000_000, 8_000_000]) {
      const r = await expectContinue(`${c.em.url}/organization/${org}/project`, c.em.tokens.ADMIN, bigBody(bytes));
      expect(r, `${bytes} bytes`).toMatchObject({ status: 413, gotContinue: false, error: undefined });
      expect(JSON.parse(r.text).message).toContain('at most 1048576');
    }
  });

  it('a request refused before its body is needed (bad token) is answered without asking for the body', async () => {
    const r = await expectContinue(`${c.em.url}/organization/${org}/project`, `dl_admin_${randomUUID()}`, bigBody(500_000));
    expect(r).toMatchObject({ status: 401, gotContinue: false, error: undefined });
    // The connection was closed, not left waiting for a body: the next request works.
    expect((await c.get(`/organization/${org}/project`)).status).toBe(200);
  });
});
