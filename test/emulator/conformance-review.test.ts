/**
 * Adversarial conformance review: what the seed (the seed specification, kept beside the repository: not read by any test) says, and,
 * where it is silent, what the real API's OpenAPI document (qovery-openapi.yaml, vendored in test/fixtures/reference/)
 * says, checked over real HTTP. Each case below failed before its fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { startClient, type Client } from './helpers.js';
import { resolveRefs } from './contract-check.js';
import { loadReference } from './reference-check.js';
import { appBody, clusters, cronBody, databaseBody, jobBody, projectAndEnv, registryId, terraformBody } from './fixtures.js';

let c: Client;
let org: string;
let envId: string;
let production: any;

beforeAll(async () => {
  c = await startClient({ deployDurationMs: 20 });
  org = c.em.organizationId;
  production = (await clusters(c)).production;
  envId = (await projectAndEnv(c, 'review')).env.id;
});
afterAll(async () => {
  await c.em.close();
});

describe('seed 4.1: "Query parameter pageSize is a number or null, default 20"', () => {
  it('pageSize=null is the default page of 20, on the environment and database histories and backups', async () => {
    const db = (await c.post(`/environment/${envId}/database`, databaseBody('paged'))).body;
    for (const path of [`/environment/${envId}/deploymentHistoryV2`, `/database/${db.id}/deploymentHistoryV2`, `/database/${db.id}/backup`]) {
      const r = await c.get(`${path}?pageSize=null`);
      expect(r.status, path).toBe(200);
      expect(r.body.page_size, path).toBe(20);
      expect(Array.isArray(r.body.results), path).toBe(true);
    }
    // A non-number is still refused, by name.
    const bad = await c.get(`/environment/${envId}/deploymentHistoryV2?pageSize=many`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('pageSize');
  });
});

describe('seed 2.4: database cpu and memory are "ignored for managed mode, where instance_type is used"', () => {
  it('a MANAGED database is not bounded by maximum_cpu / maximum_memory; a CONTAINER one still is (400, nothing created)', async () => {
    const managed = await c.post(`/environment/${envId}/database`, { ...databaseBody('managed-big'), mode: 'MANAGED', cpu: production.maximum_cpu + 1000, memory: production.maximum_memory + 1024 });
    expect(managed.status).toBe(201);
    expect(managed.body.instance_type).toEqual(expect.any(String));
    const before = (await c.get(`/environment/${envId}/database`)).body.results.length;
    const container = await c.post(`/environment/${envId}/database`, { ...databaseBody('container-big'), cpu: production.maximum_cpu + 1000 });
    expect(container.status).toBe(400);
    expect(container.body.message).toContain("'cpu'");
    expect(container.body.message).toContain('maximum_cpu');
    expect((await c.get(`/environment/${envId}/database`)).body.results.length).toBe(before);
    // Its clone into the same environment is accepted too (same rule).
    const clone = await c.post(`/database/${managed.body.id}/clone`, { name: 'managed-big-clone', environment_id: envId });
    expect(clone.status).toBe(202);
  });
});

describe('seed 4.2: git_repository {url, branch}: a 4xx says what, where and what is allowed', () => {
  it('a url that is no git repository URL is a 400 naming the field, for every kind built from git; nothing is created', async () => {
    const names = async () => (await c.get(`/environment/${envId}/services`)).body.results.map((s: any) => s.name);
    const before = await names();
    const app = await c.post(`/environment/${envId}/application`, { ...appBody('bad-url'), git_repository: { url: 'not-a-url', branch: 'main' } });
    expect(app.status).toBe(400);
    expect(app.body.message).toContain("'git_repository.url'");
    expect(app.body.message).toContain('https://<host>/<owner>/<name>');
    const tf = await c.post(`/environment/${envId}/terraform`, { ...terraformBody('bad-tf'), terraform_files_source: { git_repository: { url: 'https://github.com/', branch: 'main' } } });
    expect(tf.status).toBe(400);
    expect(tf.body.message).toContain("'terraform_files_source.git_repository.url'");
    expect(await names()).toEqual(before);
    for (const url of ['https://github.com/acme/api.git', 'https://gitlab.com/group/sub/project', 'git@github.com:acme/api.git']) {
      const ok = await c.post(`/environment/${envId}/application`, { ...appBody(`ok-${before.length}-${url.length}`), git_repository: { url, branch: 'main' } });
      expect(ok.status, url).toBe(201);
      expect(ok.body.git_repository.url).toBe(url);
    }
  });
});

describe('seed 4.2: PUT /organization/{id} with the seed fields; the reference makes the urls and admin_emails nullable', () => {
  it('null url fields and null admin_emails are accepted (admin_emails then empty); a plan sent by a real client is ignored', async () => {
    const r = await c.put(`/organization/${org}`, { name: 'Acme', description: 'd', website_url: null, repository: null, logo_url: null, icon_url: null, admin_emails: null, plan: 'FREE' });
    expect(r.status).toBe(200);
    expect(r.body.admin_emails).toEqual([]);
    expect(r.body.plan).toBe('TEAM_2025');
    const back = await c.put(`/organization/${org}`, { name: 'Acme', admin_emails: ['admin@example.com'] });
    expect(back.body.admin_emails).toEqual(['admin@example.com']);
  });
});

describe('seed 2.11: for_duration is "ISO 8601 duration"', () => {
  it('a refusal says so in words (not a regular expression), names the field, and creates nothing', async () => {
    const receiver = (await c.post('/alert-receivers', { organization_id: org, name: 'duration-slack', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/d' })).body;
    const body = {
      organization_id: org, cluster_id: production.id, name: 'duration-rule', description: 'd', tag: 't',
      condition: { kind: 'CUSTOM', promql: 'up == 0', operator: 'NONE', threshold: 0, function: 'NONE' }, for_duration: '5 minutes', severity: 'LOW',
      presentation: {}, enabled: true, alert_receiver_ids: [receiver.id], target: { target_type: 'CLUSTER', target_id: production.id },
    };
    const r = await c.post('/alert-rules', body);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("request body: field 'for_duration' must be an ISO 8601 duration of days, hours, minutes and seconds such as PT30S, PT5M, PT1H30M or P1D");
    expect((await c.get(`/organization/${org}/alert-rules`)).body.results.map((x: any) => x.name)).not.toContain('duration-rule');
    for (const ok of ['PT30S', 'PT1H30M', 'P1D']) expect((await c.post('/alert-rules', { ...body, name: `duration-${ok}`, for_duration: ok })).status, ok).toBe(201);
  });
});

describe('no null where the real document says string or object (an unset optional field is left out)', () => {
  it('application ports, instance types, alert rules, service summaries, terraform secrets, managed database types', async () => {
    const noNull = (what: string, v: unknown) => expect(v, what).not.toBeNull();
    const app = (await c.post(`/environment/${envId}/application`, appBody('ports-app'))).body;
    for (const p of app.ports) {
      noNull('public_path', p.public_path);
      noNull('public_path_rewrite', p.public_path_rewrite);
    }
    const withPath = await c.put(`/application/${app.id}`, { ...appBody('ports-app'), ports: [{ ...app.ports[0], public_path: '/api', public_path_rewrite: '/' }] });
    expect(withPath.status).toBe(200);
    expect(withPath.body.ports[0]).toMatchObject({ public_path: '/api', public_path_rewrite: '/' });

    // seed 2.13 lists gpu_info {count, ...}: an instance without a GPU has a count of 0.
    const types = (await c.get('/gcp/instanceType/europe-west1')).body.results;
    for (const t of types) expect(t.gpu_info, t.type).toEqual(expect.objectContaining({ count: expect.any(Number) }));

    // The real ManagedDatabaseTypeResponse is {name} (required).
    const dbTypes = (await c.get('/aws/managedDatabase/type')).body.results;
    expect(dbTypes.map((t: any) => t.name).sort()).toEqual(['MONGODB', 'MYSQL', 'POSTGRESQL', 'REDIS']);

    const reg = await registryId(c);
    await c.post(`/environment/${envId}/job`, jobBody(reg, 'review-job'));
    await c.post(`/environment/${envId}/job`, cronBody(reg, 'review-cron'));
    const summaries = (await c.get(`/organization/${org}/services`)).body.results;
    for (const s of summaries) {
      if (s.service_type === 'JOB') expect(['CRON', 'LIFECYCLE']).toContain(s.job_type);
      else expect(s, s.name).not.toHaveProperty('job_type');
    }

    const receiver = (await c.post('/alert-receivers', { organization_id: org, name: 'review-slack', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/review' })).body;
    const rule = await c.post('/alert-rules', {
      organization_id: org, cluster_id: production.id, name: 'review-cluster-rule', description: 'd', tag: 't',
      condition: { kind: 'CUSTOM', promql: 'up == 0', operator: 'NONE', threshold: 0, function: 'NONE' }, for_duration: 'PT5M', severity: 'HIGH',
      presentation: { summary: 's' }, enabled: true, alert_receiver_ids: [receiver.id], target: { target_type: 'CLUSTER', target_id: production.id },
    });
    expect(rule.status).toBe(201);
    // seed 2.11: target.service "appears in responses only" for a service target; starts_at is when it fires.
    expect(rule.body.target).not.toHaveProperty('service');
    noNull('starts_at', rule.body.starts_at);
    const onApp = await c.post('/alert-rules', {
      organization_id: org, cluster_id: production.id, name: 'review-app-rule', description: 'd', tag: 't',
      condition: { kind: 'CUSTOM', promql: 'up == 0', operator: 'NONE', threshold: 0, function: 'NONE' }, for_duration: 'PT5M', severity: 'LOW',
      presentation: {}, enabled: true, alert_receiver_ids: [receiver.id], target: { target_type: 'APPLICATION', target_id: app.id },
    });
    expect(onApp.status).toBe(201);
    expect(onApp.body.target.service).toMatchObject({ id: app.id, service_type: 'APPLICATION' });
    expect(onApp.body.target.service).not.toHaveProperty('job_type');

    const tf = await c.post(`/environment/${envId}/terraform`, terraformBody('review-tf'));
    expect(tf.status).toBe(201);
    const secret = tf.body.terraform_variables_source.tf_vars.find((v: any) => v.key === 'token');
    expect(secret).toEqual({ key: 'token', secret: true });
    expect(JSON.stringify(tf.body)).not.toContain('s3cr3t-tf');
  });
});


/** OpenAPI 3.0 `nullable` beside a `$ref`/`allOf` (no `type`), as JSON Schema; property maps are left alone. */
function typelessNullable(node: any, inProperties = false): any {
  if (Array.isArray(node)) return node.map((n) => typelessNullable(n));
  if (!node || typeof node !== 'object') return node;
  const out: any = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, typelessNullable(v, k === 'properties' && !inProperties)]));
  if (!inProperties && 'nullable' in out && out.type === undefined) {
    const { nullable, ...rest } = out;
    return nullable ? { anyOf: [rest, { type: 'null' }] } : rest;
  }
  return out;
}

describe('answers against the real API document (qovery-openapi.yaml, vendored in test/fixtures/reference), path by path', () => {
  it('application, instance types, managed database types, service summaries, alert rules, terraform: the 2xx schema of the reference', async () => {
    const real = typelessNullable(loadReference());
    // The reference spells the first AlertTargetType ' CLUSTER' (leading space); seed 2.11 observed CLUSTER.
    const targetTypes: string[] = real.components.schemas.AlertTargetType.enum;
    real.components.schemas.AlertTargetType.enum = targetTypes.map((t) => t.trim());
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const problems: string[] = [];
    const check = async (path: string, template: string, status = 200) => {
      const r = await c.get(path);
      expect(r.status, path).toBe(status);
      const schema = real.paths[template].get.responses[String(status)].content['application/json'].schema;
      const v = ajv.compile(resolveRefs(schema, real));
      if (!v(r.body)) problems.push(`GET ${template}: ${ajv.errorsText(v.errors)}`);
    };
    const app = (await c.get(`/environment/${envId}/application`)).body.results[0];
    const tf = (await c.get(`/environment/${envId}/terraform`)).body.results[0];
    const rules = (await c.get(`/organization/${org}/alert-rules`)).body.results;
    expect(app && tf && rules.length).toBeTruthy();
    await check(`/application/${app.id}`, '/application/{applicationId}');
    await check(`/terraform/${tf.id}`, '/terraform/{terraformId}');
    await check('/gcp/instanceType/europe-west1', '/gcp/instanceType/{region}');
    await check('/aws/eks/instanceType/eu-west-3', '/aws/eks/instanceType/{region}');
    await check('/aws/managedDatabase/type', '/aws/managedDatabase/type');
    // The reference has GET of one container registry (the emulator served only the list).
    const reg = await registryId(c);
    await check(`/organization/${org}/containerRegistry/${reg}`, '/organization/{organizationId}/containerRegistry/{containerRegistryId}');
    const missing = await c.get(`/organization/${org}/containerRegistry/00000000-0000-4000-8000-000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain("container registry '00000000-0000-4000-8000-000000000000' not found");
    await check(`/organization/${org}/services`, '/organization/{organizationId}/services');
    for (const rule of rules) {
      // AlertRuleResponse alone: the reference's oneOf with GhostAlertRuleResponse matches any managed rule twice.
      const v = ajv.compile(resolveRefs(real.components.schemas.AlertRuleResponse, real));
      const got = (await c.get(`/alert-rules/${rule.id}`)).body;
      if (!v(got)) problems.push(`GET /alert-rules/${rule.name}: ${ajv.errorsText(v.errors)}`);
    }
    expect(problems).toEqual([]);
  });

  it('deployment statuses and histories: step names and stage statuses are the reference enumerations', async () => {
    const real = typelessNullable(loadReference());
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const reg = await registryId(c);
    const { env } = await projectAndEnv(c, 'review-history');
    const ct = (await c.post(`/environment/${env.id}/container`, { name: 'web', registry_id: reg, image_name: 'nginx', tag: '1.27' })).body;
    const app = (await c.post(`/environment/${env.id}/application`, appBody('built'))).body;
    expect((await c.post(`/environment/${env.id}/job`, jobBody(reg, 'hist-job'))).status).toBe(201);
    expect((await c.post(`/environment/${env.id}/deploy`)).status).toBe(202);
    const end = Date.now() + 5000;
    while (Date.now() < end && (await c.get(`/container/${ct.id}/status`)).body.state !== 'DEPLOYED') await new Promise((r) => setTimeout(r, 10));
    while (Date.now() < end && (await c.get(`/environment/${env.id}/status`)).body.state !== 'DEPLOYED') await new Promise((r) => setTimeout(r, 10));
    expect((await c.post(`/container/${ct.id}/stop`)).status).toBe(202);
    while (Date.now() < end && (await c.get(`/container/${ct.id}/status`)).body.state !== 'STOPPED') await new Promise((r) => setTimeout(r, 10));
    const problems: string[] = [];
    const check = async (path: string, template: string) => {
      const r = await c.get(path);
      expect(r.status, path).toBe(200);
      const v = ajv.compile(resolveRefs(real.paths[template].get.responses['200'].content['application/json'].schema, real));
      if (!v(r.body)) problems.push(`GET ${template}: ${ajv.errorsText(v.errors)}`);
      return r.body;
    };
    // The reference's DeploymentHistoryServiceDetails is a oneOf whose helm branch requires nothing,
    // so every entry matches two branches: check the envelope with any details, then each entry's
    // details against the branch of its service type.
    const branches: any[] = real.components.schemas.DeploymentHistoryServiceDetails.oneOf;
    real.components.schemas.DeploymentHistoryServiceDetails = { type: 'object' };
    const branchOf: Record<string, number> = { APPLICATION: 0, CONTAINER: 1, JOB: 2, HELM: 3 };
    const checkDetails = (entries: any[]) => {
      for (const e of entries) {
        const v = ajv.compile(resolveRefs(branches[branchOf[e.identifier.service_type]!], real));
        if (!v(e.details)) problems.push(`${e.identifier.service_type} details: ${ajv.errorsText(v.errors)}`);
      }
    };
    const stopped = await check(`/container/${ct.id}/status`, '/container/{containerId}/status');
    expect(stopped.steps.details.map((d: any) => d.step_name)).toEqual(['REGISTRY_CREATE_REPOSITORY', 'DEPLOYMENT']);
    await check(`/environment/${env.id}/statuses`, '/environment/{environmentId}/statuses');
    const history = await check(`/environment/${env.id}/deploymentHistoryV2`, '/environment/{environmentId}/deploymentHistoryV2');
    const deploy = history.results.find((e: any) => e.trigger_action === 'DEPLOY');
    expect(deploy.stages.map((s: any) => s.status)).toEqual(['DONE']);
    checkDetails(history.results.flatMap((e: any) => e.stages.flatMap((st: any) => st.services)));
    expect(deploy.stages[0].services.find((x: any) => x.identifier.service_id === ct.id).details).toMatchObject({ image_name: 'nginx', tag: '1.27', arguments: [] });
    expect(deploy.stages[0].services.find((x: any) => x.identifier.name === 'hist-job').details).toMatchObject({ image_name: 'acme/migrate', tag: 'v1', job_type: 'LIFECYCLE' });
    checkDetails((await check(`/application/${app.id}/deploymentHistoryV2`, '/application/{applicationId}/deploymentHistoryV2')).results);
    expect(problems).toEqual([]);
  });
});
