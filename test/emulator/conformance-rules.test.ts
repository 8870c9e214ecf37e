/**
 * Conformance audit of the rules of issue 2 (seed 2, 4.2, 5, 7): uniqueness and case, secrets never
 * served, scope rules, immutable fields, resource bounds, busy services, and above all: a refused
 * request (4xx) leaves every record exactly as it was. Real HTTP on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { clusters, registryId, appBody, databaseBody, jobBody, containerBody } from './fixtures.js';

let c: Client;
let org: string;
let prod: any;
let staging: any;
let projectId: string;
let envId: string;
let reg: string;

const SECRET = 'TOP-SECRET-VALUE-42';

/** Every 4xx leaves the record untouched: GET it before and after. */
async function refusedAndUnchanged(path: string, send: () => Promise<{ status: number; body: any }>, expected = 400): Promise<any> {
  const before = (await c.get(path)).body;
  const r = await send();
  expect(r.status, JSON.stringify(r.body)).toBe(expected);
  expect(Object.keys(r.body).sort()).toEqual(['error', 'message', 'status']);
  const after = (await c.get(path)).body;
  expect(after).toEqual(before);
  return r.body;
}

beforeAll(async () => {
  c = await startClient({ deployDurationMs: 400 });
  org = c.em.organizationId;
  ({ production: prod, staging } = await clusters(c));
  reg = await registryId(c);
  projectId = (await c.post(`/organization/${org}/project`, { name: 'rules', description: 'd' })).body.id;
  envId = (await c.post(`/project/${projectId}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: prod.id })).body.id;
});
afterAll(async () => {
  await c.em.close();
});

describe('names', () => {
  it('case-insensitive clashes are 409 for projects, environments, services across kinds, stages, groups', async () => {
    expect((await c.post(`/organization/${org}/project`, { name: 'RULES' })).status).toBe(409);
    expect((await c.post(`/project/${projectId}/environment`, { name: 'PROD', mode: 'STAGING', cluster_id: staging.id })).status).toBe(409);
    expect((await c.post(`/environment/${envId}/application`, appBody('Svc'))).status).toBe(201);
    expect((await c.post(`/environment/${envId}/database`, databaseBody('SVC'))).status).toBe(409);
    expect((await c.post(`/environment/${envId}/container`, containerBody(reg, 'svc'))).status).toBe(409);
    expect((await c.post(`/environment/${envId}/deploymentStage`, { name: 'default' })).status).toBe(409);
    expect((await c.post(`/organization/${org}/labelsGroups`, { name: 'L', labels: [] })).status).toBe(201);
    expect((await c.post(`/organization/${org}/labelsGroups`, { name: 'l', labels: [] })).status).toBe(409);
    const s = await c.post(`/environment/${envId}/application`, appBody('other'));
    const renamed = await refusedAndUnchanged(`/application/${s.body.id}`, () => c.put(`/application/${s.body.id}`, { ...appBody('SVC') }), 409);
    expect(renamed.message).toBeTruthy();
  });

  it('variable keys are case sensitive', async () => {
    const a = await c.post(`/project/${projectId}/environmentVariable`, { key: 'Mixed', value: '1' });
    const b = await c.post(`/project/${projectId}/environmentVariable`, { key: 'MIXED', value: '2' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect((await c.post(`/project/${projectId}/environmentVariable`, { key: 'Mixed', value: '3' })).status).toBe(409);
  });
});

describe('secrets are never served', () => {
  it('not by creation, lists, aliases, overrides, unified or legacy, webhooks, receivers', async () => {
    const app = (await c.post(`/environment/${envId}/application`, appBody('sec-app'))).body;
    const ps = await c.post(`/project/${projectId}/secret`, { key: 'PSEC', value: SECRET });
    expect(ps.status).toBe(201);
    const es = await c.post(`/environment/${envId}/secret`, { key: 'ESEC', value: SECRET });
    const alias = await c.post(`/application/${app.id}/secret/${ps.body.id}/alias`, { key: 'PSEC_ALIAS' });
    expect(alias.status).toBe(201);
    const ov = await c.post(`/application/${app.id}/secret/${es.body.id}/override`, { value: SECRET + '-ov' });
    expect(ov.status).toBe(201);
    const u = await c.post('/variable', { key: 'USEC', value: SECRET, is_secret: true, variable_scope: 'APPLICATION', variable_parent_id: app.id });
    expect(u.status).toBe(201);
    const ue = await c.post('/variable', { key: 'UENV', value: SECRET, is_secret: true, variable_scope: 'ENVIRONMENT', variable_parent_id: envId });
    expect(ue.status).toBe(201);
    const ua = await c.post(`/variable/${ue.body.id}/alias`, { key: 'X', alias_scope: 'APPLICATION', alias_parent_id: app.id });
    expect(ua.status).toBe(201);
    const uo = await c.post(`/variable/${ue.body.id}/override`, { value: SECRET, override_scope: 'APPLICATION', override_parent_id: app.id });
    expect(uo.status).toBe(201);
    const wh = await c.post(`/organization/${org}/webhook`, { kind: 'STANDARD', target_url: 'https://h.test/x', target_secret: SECRET, events: ['DEPLOYMENT_STARTED'], enabled: true });
    expect(wh.status).toBe(201);
    const rc = await c.post('/alert-receivers', { organization_id: org, name: 'r', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: `https://hooks.test/${SECRET}` });
    expect(rc.status).toBe(201);
    const answers = [ps, es, alias, ov, u, ue, ua, uo, wh, rc];
    for (const p of [
      `/application/${app.id}/secret`,
      `/application/${app.id}/environmentVariable`,
      `/environment/${envId}/secret`,
      `/project/${projectId}/secret`,
      `/variable?parent_id=${app.id}&scope=APPLICATION`,
      `/variable?parent_id=${envId}&scope=ENVIRONMENT`,
      `/variable?parent_id=${projectId}&scope=PROJECT`,
      `/variable?parent_id=${app.id}&scope=APPLICATION&is_secret=true`,
      `/organization/${org}/webhook`,
      `/organization/${org}/webhook/${wh.body.id}`,
      `/organization/${org}/alert-receivers`,
      `/alert-receivers/${rc.body.id}`,
      `/environment/${envId}/services`,
    ]) {
      const r = await c.get(p);
      expect(r.status, p).toBe(200);
      answers.push(r);
    }
    for (const a of answers) expect(JSON.stringify(a.body)).not.toContain(SECRET);
    expect(alias.body.aliased_secret).toMatchObject({ id: ps.body.id, key: 'PSEC' });
    expect(alias.body.aliased_secret).not.toHaveProperty('value');
    expect(ov.body.overridden_secret).not.toHaveProperty('value');
    expect(ov.body).not.toHaveProperty('value');
    expect(ua.body.value).toBeNull();
    expect(ua.body.aliased_variable.value).toBeNull();
    expect(uo.body.overridden_variable.value).toBeNull();
  });
});

describe('variable scope rules', () => {
  it('an override of the same or a lower scope is refused; BUILT_IN is read-only; nothing changes', async () => {
    const app = (await c.post(`/environment/${envId}/application`, appBody('scope-app'))).body;
    const own = await c.post(`/application/${app.id}/environmentVariable`, { key: 'OWN', value: 'v' });
    const same = await c.post(`/variable/${own.body.id}/override`, { value: 'x', override_scope: 'APPLICATION', override_parent_id: app.id });
    expect(same.status).toBe(400);
    const up = await c.post(`/variable/${own.body.id}/override`, { value: 'x', override_scope: 'ENVIRONMENT', override_parent_id: envId });
    expect(up.status).toBe(400);
    const list = await c.get(`/variable?parent_id=${app.id}&scope=APPLICATION`);
    const builtIn = (list.body.results as any[]).find((v) => v.variable_type === 'BUILT_IN');
    expect(builtIn).toBeTruthy();
    const listPath = `/variable?parent_id=${app.id}&scope=APPLICATION`;
    await refusedAndUnchanged(listPath, () => c.put(`/variable/${builtIn.id}`, { key: builtIn.key, value: 'hacked' }));
    await refusedAndUnchanged(listPath, () => c.del(`/variable/${builtIn.id}`));
    await refusedAndUnchanged(listPath, () => c.put(`/application/${app.id}/environmentVariable/${builtIn.id}`, { key: builtIn.key, value: 'hacked' }));
  });
});

describe('immutable fields and bounds: refused, and the record unchanged', () => {
  it('database type and mode', async () => {
    const db = (await c.post(`/environment/${envId}/database`, databaseBody('imm-db'))).body;
    await refusedAndUnchanged(`/database/${db.id}`, () => c.put(`/database/${db.id}`, { name: 'renamed', type: 'MYSQL' }));
    await refusedAndUnchanged(`/database/${db.id}`, () => c.put(`/database/${db.id}`, { name: 'renamed', mode: 'MANAGED' }));
    await refusedAndUnchanged(`/database/${db.id}`, () => c.put(`/database/${db.id}`, { name: 'renamed', cpu: db.maximum_cpu + 1 }));
    await refusedAndUnchanged(`/database/${db.id}`, () => c.put(`/database/${db.id}`, { name: 'renamed', memory: db.maximum_memory + 1 }));
    expect((await c.post(`/environment/${envId}/database`, { ...databaseBody('big-db'), cpu: db.maximum_cpu + 1 })).status).toBe(400);
    expect((await c.post(`/environment/${envId}/database`, { ...databaseBody('big-db'), memory: db.maximum_memory + 1 })).status).toBe(400);
    expect((await c.get(`/environment/${envId}/database`)).body.results.some((d: any) => d.name === 'big-db')).toBe(false);
  });

  it('application, container, job cpu/memory bounds', async () => {
    const app = (await c.post(`/environment/${envId}/application`, appBody('bound-app'))).body;
    const max = app.maximum_cpu;
    expect(max).toBeGreaterThan(0);
    await refusedAndUnchanged(`/application/${app.id}`, () => c.put(`/application/${app.id}`, { ...appBody('bound-app2'), cpu: max + 1 }));
    await refusedAndUnchanged(`/application/${app.id}`, () => c.put(`/application/${app.id}`, { ...appBody('bound-app2'), memory: app.maximum_memory + 1 }));
    expect((await c.post(`/environment/${envId}/container`, { ...containerBody(reg, 'big-ct'), cpu: max + 1 })).status).toBe(400);
    expect((await c.post(`/environment/${envId}/job`, { ...jobBody(reg, 'big-job'), cpu: max + 1 })).status).toBe(400);
  });

  it('environment cluster', async () => {
    await refusedAndUnchanged(`/environment/${envId}`, () => c.put(`/environment/${envId}`, { name: 'prod2', cluster_id: staging.id }));
  });

  it('alert rule needs at least one receiver on edit too', async () => {
    const rc = (await c.post('/alert-receivers', { organization_id: org, name: 'rr', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.test/r' })).body;
    const rule = {
      organization_id: org,
      cluster_id: prod.id,
      name: 'mem',
      description: 'd',
      tag: 't',
      condition: { kind: 'CUSTOM', promql: 'up == 0', operator: 'NONE', threshold: 0, function: 'NONE' },
      for_duration: 'PT5M',
      severity: 'LOW',
      presentation: { summary: 's' },
      enabled: true,
      alert_receiver_ids: [rc.id],
      target: { target_type: 'CLUSTER', target_id: prod.id },
    };
    const r = await c.post('/alert-rules', rule);
    expect(r.status).toBe(201);
    const { organization_id, cluster_id, target, ...edit } = rule;
    await refusedAndUnchanged(`/alert-rules/${r.body.id}`, () => c.put(`/alert-rules/${r.body.id}`, { ...edit, name: 'mem2', alert_receiver_ids: [] }));
    await refusedAndUnchanged(`/alert-rules/${r.body.id}`, () => c.put(`/alert-rules/${r.body.id}`, { ...edit, name: 'mem2', severity: 'URGENT' }));
    const unknownReceiver = await c.post('/alert-rules', { ...rule, name: 'ghost-rc', alert_receiver_ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(unknownReceiver.status).toBeGreaterThanOrEqual(400);
    expect(unknownReceiver.status).toBeLessThan(500);
  });

  it('read-only fields, long descriptions, wrong types: refused, unchanged', async () => {
    const p = `/project/${projectId}`;
    await refusedAndUnchanged(p, () => c.put(p, { name: 'x', id: projectId }));
    await refusedAndUnchanged(p, () => c.put(p, { name: 'x', created_at: '2020-01-01T00:00:00Z' }));
    await refusedAndUnchanged(p, () => c.put(p, { name: 5 }));
    const v = await c.post(`/project/${projectId}/environmentVariable`, { key: 'DESC', value: 'v' });
    await refusedAndUnchanged(`/project/${projectId}/environmentVariable`, () => c.put(`/variable/${v.body.id}`, { key: 'DESC2', value: 'w', description: 'd'.repeat(256) }));
    await refusedAndUnchanged(`/project/${projectId}/environmentVariable`, () => c.put(`/project/${projectId}/environmentVariable/${v.body.id}`, { key: 'DESC2', value: 'w', description: 'd'.repeat(256) }));
  });
});

describe('operations', () => {
  it('busy service: 409 and the status is unchanged; config change after deploy → OUT_OF_DATE; delete states', async () => {
    const app = (await c.post(`/environment/${envId}/application`, appBody('busy-app'))).body;
    const d = await c.post(`/application/${app.id}/deploy`, {});
    expect(d.status).toBe(202);
    for (const [m, p] of [
      ['POST', `/application/${app.id}/deploy`],
      ['POST', `/application/${app.id}/stop`],
      ['POST', `/application/${app.id}/restart-service`],
      ['POST', `/application/${app.id}/redeploy`],
      ['DELETE', `/application/${app.id}`],
    ] as const) {
      const r = await c.call(m, p, m === 'POST' ? {} : undefined);
      expect(r.status, p).toBe(409);
      expect(Object.keys(r.body).sort()).toEqual(['error', 'message', 'status']);
    }
    const batch = await c.post(`/environment/${envId}/service/deploy`, { applications: [{ application_id: app.id }] });
    expect(batch.status).toBe(409);
    const end = Date.now() + 5000;
    while ((await c.get(`/application/${app.id}/status`)).body.state !== 'DEPLOYED' && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect((await c.get(`/application/${app.id}/status`)).body).toMatchObject({ state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE' });
    expect((await c.put(`/application/${app.id}`, { ...appBody('busy-app'), cpu: 750 })).status).toBe(200);
    expect((await c.get(`/application/${app.id}/status`)).body.service_deployment_status).toBe('OUT_OF_DATE');
    // A variable change marks it too.
    const app2 = (await c.post(`/environment/${envId}/application`, appBody('var-app'))).body;
    await c.post(`/application/${app2.id}/deploy`, {});
    while ((await c.get(`/application/${app2.id}/status`)).body.state !== 'DEPLOYED' && Date.now() < end + 5000) await new Promise((r) => setTimeout(r, 20));
    await c.post(`/application/${app2.id}/environmentVariable`, { key: 'NEW', value: '1' });
    expect((await c.get(`/application/${app2.id}/status`)).body.service_deployment_status).toBe('OUT_OF_DATE');
    // Deletion goes through DELETE_QUEUED / DELETING, then 404.
    expect((await c.del(`/application/${app.id}`)).status).toBe(204);
    const seen = new Set<string>();
    const end2 = Date.now() + 5000;
    for (;;) {
      const s = await c.get(`/application/${app.id}/status`);
      if (s.status === 404) break;
      seen.add(s.body.state);
      if (Date.now() > end2) throw new Error('not deleted');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect([...seen].every((s) => ['DELETE_QUEUED', 'DELETING'].includes(s))).toBe(true);
    expect(seen.size).toBeGreaterThan(0);
    expect((await c.get(`/application/${app.id}`)).status).toBe(404);
  });

  it('billing restriction refuses deployments with the error body and changes nothing', async () => {
    const app = (await c.post(`/environment/${envId}/application`, appBody('billing-app'))).body;
    c.em.state.organization = { ...c.em.state.organization, billing_deployment_restriction: 'SOME_REASON' };
    try {
      const before = (await c.get(`/application/${app.id}/status`)).body;
      const r = await c.post(`/application/${app.id}/deploy`, {});
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(Object.keys(r.body).sort()).toEqual(['error', 'message', 'status']);
      expect((await c.get(`/application/${app.id}/status`)).body).toEqual(before);
      const h = await c.get(`/environment/${envId}/deploymentHistoryV2`);
      expect(JSON.stringify(h.body)).not.toContain(app.id);
    } finally {
      c.em.state.organization = { ...c.em.state.organization, billing_deployment_restriction: null };
    }
  });
});

describe('no input produces a 500', () => {
  it('odd bodies and parameters on every kind of route', async () => {
    const app = (await c.post(`/environment/${envId}/application`, appBody('fuzz-app'))).body;
    const odd: unknown[] = [null, [], 'str', 0, true, { name: null }, { name: {} }, { name: [] }, { __proto__: { x: 1 } }, { constructor: { prototype: {} } }, { name: 'x'.repeat(10000) }];
    const paths: Array<[string, string]> = [
      ['POST', `/organization/${org}/project`],
      ['PUT', `/project/${projectId}`],
      ['POST', `/project/${projectId}/environment`],
      ['PUT', `/environment/${envId}`],
      ['POST', `/environment/${envId}/application`],
      ['PUT', `/application/${app.id}`],
      ['POST', `/environment/${envId}/database`],
      ['POST', `/environment/${envId}/job`],
      ['POST', `/environment/${envId}/helm`],
      ['POST', `/environment/${envId}/terraform`],
      ['POST', `/application/${app.id}/deploy`],
      ['POST', `/application/${app.id}/environmentVariable`],
      ['POST', '/variable'],
      ['POST', '/alert-rules'],
      ['POST', '/alert-receivers/validate'],
      ['POST', `/organization/${org}/webhook`],
      ['POST', `/organization/${org}/parseTerraformVariablesFromGitRepo`],
      ['POST', `/environment/${envId}/service/deploy`],
      ['POST', `/environment/${envId}/service/delete`],
      ['PUT', `/organization/${org}`],
    ];
    for (const [m, p] of paths) {
      for (const b of odd) {
        const r = await c.call(m, p, undefined, { raw: JSON.stringify(b) });
        expect(r.status, `${m} ${p} ${JSON.stringify(b)}`).toBeLessThan(500);
      }
    }
    for (const q of ['/environment/not-a-uuid', `/variable?parent_id=${app.id}`, '/variable?scope=APPLICATION', `/environment/${envId}/deploymentHistoryV2?pageSize=-1`, `/environment/${envId}/deploymentHistoryV2?startId=zzz`, `/application/${app.id}/log?tail=-5`, `/organization/${org}/project?page=0`, `/organization/${org}/project?page_size=abc`, '/gcp/instanceType/%00', '/%E0%A4%A']) {
      const r = await c.get(q);
      expect(r.status, q).toBeGreaterThanOrEqual(400);
      expect(r.status, q).toBeLessThan(500);
    }
  });
});
