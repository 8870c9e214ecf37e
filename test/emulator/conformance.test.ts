/**
 * Conformance audit against the seed (the seed specification, kept beside the repository: not read by any test), row by row of its
 * section 4.2, with the request bodies exactly as the seed gives them (no reference-only fields),
 * and the records of its section 2. Real HTTP on 127.0.0.1, one emulator, near-instant deployments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { clusters, registryId } from './fixtures.js';

let c: Client;
let org: string;
let prodCluster: any;
let stagingCluster: any;
let projectId: string;
let envId: string;
let env2Id: string;
let appId: string;
let dbId: string;
let jobId: string;
let containerId: string;
let terraformId: string;

const keys = (o: object) => Object.keys(o).sort();
const waitFor = async (fn: () => Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
};
const settled = (id: string, kind: string) =>
  waitFor(async () => {
    const s = (await c.get(`/${kind}/${id}/status`)).body.state;
    return !/QUEUED|ING$/.test(s);
  });

beforeAll(async () => {
  c = await startClient({ deployDurationMs: 20 });
  org = c.em.organizationId;
  const cl = await clusters(c);
  prodCluster = cl.production;
  stagingCluster = cl.staging;
});
afterAll(async () => {
  await c.em.close();
});

describe('seed 4.2, row by row, with the seed\'s own bodies', () => {
  it('GET /organization → the organization record 2.7 (seed: a record, not a list)', async () => {
    const r = await c.get('/organization');
    expect(r.status).toBe(200);
    const o = r.body;
    expect(o.id).toBe(org);
    for (const f of ['id', 'created_at', 'name', 'plan', 'admin_emails', 'billing_deployment_restriction', 'organization_plan']) expect(o).toHaveProperty(f);
    expect(keys(o.organization_plan)).toEqual(['audit_logs_retention_in_days', 'plan']);
  });

  it('PUT /organization/{id} takes the seed fields, needs ADMIN (WRITE → 403)', async () => {
    const body = { name: 'Acme', description: 'd', website_url: 'https://acme.test', repository: 'r', logo_url: 'l', icon_url: 'i', admin_emails: ['a@acme.test'] };
    const w = await c.put(`/organization/${org}`, body, c.em.tokens.WRITE);
    expect(w.status).toBe(403);
    expect(keys(w.body)).toEqual(['error', 'message', 'status']);
    const r = await c.put(`/organization/${org}`, body);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject(body);
  });

  it('project: list and create ({name, description}) → record with id', async () => {
    const r = await c.post(`/organization/${org}/project`, { name: 'conf', description: 'conformance' });
    expect([200, 201]).toContain(r.status);
    expect(r.body).toMatchObject({ name: 'conf', description: 'conformance' });
    projectId = r.body.id;
    const l = await c.get(`/organization/${org}/project`);
    expect(l.status).toBe(200);
    expect(l.body.results.map((p: any) => p.id)).toContain(projectId);
  });

  it('environment create with the seed body {name, mode, cluster_id}', async () => {
    const r = await c.post(`/project/${projectId}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: prodCluster.id });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'prod', mode: 'PRODUCTION', cluster_id: prodCluster.id });
    envId = r.body.id;
    const s = await c.post(`/project/${projectId}/environment`, { name: 'staging', mode: 'STAGING', cluster_id: stagingCluster.id });
    expect(s.status).toBe(201);
    env2Id = s.body.id;
  });

  it('application create with the seed body (no provider, no healthchecks)', async () => {
    const r = await c.post(`/environment/${envId}/application`, {
      name: 'api',
      git_repository: { url: 'https://github.com/acme/api.git', branch: 'main' },
      build_mode: 'DOCKER',
      dockerfile_path: 'Dockerfile',
      cpu: 500,
      memory: 512,
      min_running_instances: 1,
      max_running_instances: 2,
      ports: [{ internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true }],
    });
    expect(r.status).toBe(201);
    expect(r.body.id).toBeTruthy();
    appId = r.body.id;
  });

  it('application deploy: no body, {} and {git_commit_id} → deployment record {id, status, application_id, created_at}', async () => {
    const a = await c.call('POST', `/application/${appId}/deploy`);
    expect(a.status).toBe(202);
    for (const f of ['id', 'status', 'application_id', 'created_at']) expect(a.body).toHaveProperty(f);
    expect(a.body.application_id).toBe(appId);
    await settled(appId, 'application');
    const b = await c.post(`/application/${appId}/deploy`, {});
    expect(b.status).toBe(202);
    await settled(appId, 'application');
    const d = await c.post(`/application/${appId}/deploy`, { git_commit_id: 'abc123' });
    expect(d.status).toBe(202);
    await settled(appId, 'application');
  });

  it('application status → reduced record (id, state, service_deployment_status, last_deployment_date)', async () => {
    const r = await c.get(`/application/${appId}/status`);
    expect(r.status).toBe(200);
    expect(keys(r.body)).toEqual(['id', 'last_deployment_date', 'service_deployment_status', 'state']);
    expect(r.body.state).toBe('DEPLOYED');
    expect(r.body.service_deployment_status).toBe('UP_TO_DATE');
  });

  it('application environmentVariable: create {key, value} → variable record 2.2; list → {results}', async () => {
    const r = await c.post(`/application/${appId}/environmentVariable`, { key: 'PORT', value: '8080' });
    expect(r.status).toBe(201);
    for (const f of ['id', 'created_at', 'key', 'value', 'scope', 'variable_type', 'is_secret']) expect(r.body, f).toHaveProperty(f);
    expect(r.body).toMatchObject({ key: 'PORT', value: '8080', scope: 'APPLICATION', variable_type: 'VALUE', is_secret: false });
    const l = await c.get(`/application/${appId}/environmentVariable`);
    expect(l.status).toBe(200);
    expect(l.body.results.find((v: any) => v.key === 'PORT')).toMatchObject({ value: '8080' });
  });

  it('application secret: create {key, value} → secret record 2.3 without value', async () => {
    const r = await c.post(`/application/${appId}/secret`, { key: 'TOKEN', value: 'hunter2' });
    expect(r.status).toBe(201);
    for (const f of ['id', 'created_at', 'key', 'scope']) expect(r.body).toHaveProperty(f);
    expect(r.body).not.toHaveProperty('value');
    expect(JSON.stringify(r.body)).not.toContain('hunter2');
    const l = await c.get(`/application/${appId}/secret`);
    expect(JSON.stringify(l.body)).not.toContain('hunter2');
  });

  it('application log with tail', async () => {
    const r = await c.get(`/application/${appId}/log?tail=2`);
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBe(2);
    const all = await c.get(`/application/${appId}/log`);
    expect(all.body.results.length).toBeGreaterThan(2);
  });

  it('database create with the seed body → database record 2.4', async () => {
    const r = await c.post(`/environment/${envId}/database`, { name: 'pg', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', cpu: 250, memory: 256, storage: 10 });
    expect(r.status).toBe(201);
    for (const f of ['id', 'created_at', 'name', 'type', 'version', 'mode', 'environment', 'service_type', 'accessibility', 'cpu', 'memory', 'storage', 'host', 'port', 'maximum_cpu', 'maximum_memory', 'disk_encrypted', 'disk_type', 'instance_type', 'annotations_groups', 'labels_groups']) {
      expect(r.body, f).toHaveProperty(f);
    }
    expect(r.body.disk_type).toBeNull();
    expect(r.body.instance_type).toBeNull();
    expect(r.body.environment).toEqual({ id: envId });
    expect(r.body.service_type).toBe('DATABASE');
    dbId = r.body.id;
  });

  it('database deploy (no body) → status record 2.9; history → {page, page_size, results}', async () => {
    const r = await c.call('POST', `/database/${dbId}/deploy`);
    expect(r.status).toBe(202);
    for (const f of ['id', 'state', 'service_deployment_status', 'is_part_last_deployment', 'status_details', 'deployment_request_id', 'deployment_requests_count']) expect(r.body).toHaveProperty(f);
    expect(keys(r.body.status_details)).toEqual(['action', 'status', 'sub_action']);
    await settled(dbId, 'database');
    const h = await c.get(`/database/${dbId}/deploymentHistoryV2?pageSize=5`);
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ page: 1, page_size: 5 });
    const e = h.body.results[0];
    expect(keys(e.identifier)).toEqual(['execution_id', 'name', 'service_id', 'service_type']);
    for (const f of ['status', 'auditing_data', 'details', 'status_details', 'icon_uri', 'total_duration']) expect(e, f).toHaveProperty(f);
    expect(keys(e.status_details)).toEqual(['action', 'status', 'sub_action']);
    for (const f of ['created_at', 'updated_at', 'triggered_by', 'origin']) expect(e.auditing_data).toHaveProperty(f);
  });

  it('database clone {name, environment_id} → database record in the target environment, same configuration', async () => {
    const r = await c.post(`/database/${dbId}/clone`, { name: 'pg-copy', environment_id: env2Id });
    expect(r.status).toBeLessThan(300);
    expect(r.body).toMatchObject({ name: 'pg-copy', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', cpu: 250, memory: 256, storage: 10, environment: { id: env2Id } });
    expect(r.body.id).not.toBe(dbId);
  });

  it('database backup {name, message} → backup record 2.13; both required', async () => {
    const r = await c.post(`/database/${dbId}/backup`, { name: 'b1', message: 'before upgrade' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'b1', message: 'before upgrade' });
    for (const f of ['id', 'created_at', 'status']) expect(r.body).toHaveProperty(f);
    expect(r.body.status).toHaveProperty('state');
    for (const missing of ['name', 'message']) {
      const body: any = { name: 'b2', message: 'm' };
      delete body[missing];
      const bad = await c.post(`/database/${dbId}/backup`, body);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain(missing);
    }
  });

  it('environment deploymentHistoryV2 with pageSize and startId', async () => {
    const h = await c.get(`/environment/${envId}/deploymentHistoryV2`);
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ page: 1, page_size: 20 });
    expect(h.body.results.length).toBeGreaterThanOrEqual(4);
    const e = h.body.results[0];
    expect(keys(e.identifier)).toEqual(['environment_id', 'execution_id']);
    for (const f of ['auditing_data', 'status', 'trigger_action', 'total_duration', 'stages', 'action_status']) expect(e, f).toHaveProperty(f);
    const st = e.stages[0];
    for (const f of ['name', 'status', 'duration', 'services']) expect(st, f).toHaveProperty(f);
    const p1 = await c.get(`/environment/${envId}/deploymentHistoryV2?pageSize=2`);
    expect(p1.body.results.length).toBe(2);
    const p2 = await c.get(`/environment/${envId}/deploymentHistoryV2?pageSize=2&startId=${p1.body.results[1].identifier.execution_id}`);
    expect(p2.status).toBe(200);
    expect(p2.body.results[0].identifier.execution_id).not.toBe(p1.body.results[0].identifier.execution_id);
    expect(p2.body.results[0].identifier.execution_id).not.toBe(p1.body.results[1].identifier.execution_id);
  });

  it('job deploy: image_tag and git_commit_id together refused; forceEvent the job lacks does not deploy', async () => {
    const reg = await registryId(c);
    const j = await c.post(`/environment/${envId}/job`, { name: 'migrate', source: { image: { image_name: 'acme/migrate', tag: 'v1', registry_id: reg } }, schedule: { on_start: { arguments: ['go'] } } });
    expect(j.status).toBe(201);
    jobId = j.body.id;
    const both = await c.post(`/job/${jobId}/deploy`, { image_tag: 'v2', git_commit_id: 'abc' });
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/image_tag/);
    const before = (await c.get(`/job/${jobId}/status`)).body;
    const lacks = await c.post(`/job/${jobId}/deploy?forceEvent=CRON`, {});
    expect(lacks.status).toBeLessThan(300);
    const after = (await c.get(`/job/${jobId}/status`)).body;
    expect(after.state).toBe(before.state);
    expect(after.service_deployment_status).toBe('NEVER_DEPLOYED');
    const bad = await c.post(`/job/${jobId}/deploy?forceEvent=NOPE`, {});
    expect(bad.status).toBe(400);
    const ok = await c.post(`/job/${jobId}/deploy?forceEvent=START`, { image_tag: 'v2' });
    expect(ok.status).toBe(202);
    for (const f of ['id', 'state', 'service_deployment_status', 'status_details']) expect(ok.body).toHaveProperty(f);
    await settled(jobId, 'job');
  });

  it('terraform deploy {id, git_commit_id, action} → status record', async () => {
    const t = await c.post(`/environment/${envId}/terraform`, {
      name: 'infra',
      description: 'd',
      terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main' } },
      terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'api_token', value: 'tf-s3cret', secret: true }] },
    });
    expect(t.status).toBe(201);
    terraformId = t.body.id;
    expect(JSON.stringify(t.body)).not.toContain('tf-s3cret');
    const r = await c.post(`/terraform/${terraformId}/deploy`, { id: null, git_commit_id: 'abc', action: 'PLAN' });
    expect(r.status).toBe(202);
    expect(r.body).toHaveProperty('state');
    await settled(terraformId, 'terraform');
    const n = await c.post(`/terraform/${terraformId}/deploy`, { id: null, git_commit_id: 'abc', action: null });
    expect(n.status).toBe(202);
    await settled(terraformId, 'terraform');
    const bad = await c.post(`/terraform/${terraformId}/deploy`, { git_commit_id: 'abc', action: 'APPLY' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('action');
  });

  it('container environmentVariable override {value, description, enable_interpolation_in_file} → variable record', async () => {
    const reg = await registryId(c);
    const ct = await c.post(`/environment/${envId}/container`, { name: 'web', registry_id: reg, image_name: 'nginx', tag: '1.27' });
    expect(ct.status).toBe(201);
    containerId = ct.body.id;
    const envVar = await c.post(`/environment/${envId}/environmentVariable`, { key: 'LOG_LEVEL', value: 'info' });
    expect(envVar.status).toBe(201);
    const r = await c.post(`/container/${containerId}/environmentVariable/${envVar.body.id}/override`, { value: 'debug', description: 'x', enable_interpolation_in_file: false });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ key: 'LOG_LEVEL', value: 'debug', scope: 'CONTAINER', variable_type: 'OVERRIDE' });
    expect(r.body.overridden_variable).toMatchObject({ id: envVar.body.id, key: 'LOG_LEVEL', value: 'info', scope: 'ENVIRONMENT' });
    for (const f of ['id', 'key', 'value', 'mount_path', 'scope', 'variable_type']) expect(r.body.overridden_variable).toHaveProperty(f);
    const long = await c.post(`/container/${containerId}/environmentVariable/${envVar.body.id}/override`, { value: 'x', description: 'd'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.message).toContain('description');
  });

  it('PUT /variable/{id}: key required, other fields optional and nullable', async () => {
    const v = await c.post(`/application/${appId}/environmentVariable`, { key: 'A', value: '1' });
    const r = await c.put(`/variable/${v.body.id}`, { key: 'A', value: '2', description: null, enable_interpolation_in_file: null, secret_manager_access_id: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ key: 'A', value: '2' });
    const noKey = await c.put(`/variable/${v.body.id}`, { value: '3' });
    expect(noKey.status).toBe(400);
    expect(noKey.body.message).toContain('key');
    const nullValue = await c.put(`/variable/${v.body.id}`, { key: 'A', value: null });
    expect(nullValue.status).toBeLessThan(300);
  });

  it('POST /project/{id}/secret with mount_path, description, enable_interpolation_in_file → secret record', async () => {
    const r = await c.post(`/project/${projectId}/secret`, { key: 'CERT', value: 'pem-data', mount_path: '/etc/cert.pem', description: 'tls', enable_interpolation_in_file: false });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ key: 'CERT', scope: 'PROJECT', mount_path: '/etc/cert.pem', description: 'tls' });
    expect(r.body).not.toHaveProperty('value');
    const plain = await c.post(`/project/${projectId}/secret`, { key: 'cert', value: 'other' });
    expect(plain.status).toBe(201); // keys are case sensitive
  });

  it('annotations group create {name, annotations, scopes} → record 2.5', async () => {
    const r = await c.post(`/organization/${org}/annotationsGroups`, { name: 'ann', annotations: [{ key: 'a', value: 'b' }], scopes: ['DEPLOYMENTS', 'PODS'] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'ann', annotations: [{ key: 'a', value: 'b' }], scopes: ['DEPLOYMENTS', 'PODS'] });
    for (const f of ['id', 'created_at']) expect(r.body).toHaveProperty(f);
  });

  it('parseTerraformVariablesFromGitRepo → {results: [definition]}', async () => {
    const r = await c.post(`/organization/${org}/parseTerraformVariablesFromGitRepo`, {
      git_repository: { url: 'https://github.com/acme/infra', provider: 'GITHUB', branch: 'main', root_path: '/', git_token_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(r.status).toBe(200);
    const v = r.body.results.find((x: any) => x.key === 'api_token');
    expect(v).toMatchObject({ sensitive: true });
    for (const f of ['key', 'sensitive', 'source', 'nullable', 'default', 'description']) expect(r.body.results[0]).toHaveProperty(f);
  });

  it('alert receivers validate, alert rules create (≥1 receiver) and list', async () => {
    const receiver = { organization_id: org, name: 'ops', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.test/x', owner: 'me', severity: 'HIGH' };
    const v = await c.post('/alert-receivers/validate', { alert_receiver: receiver, message: 'hello' });
    expect(v.status).toBe(200);
    const rc = await c.post('/alert-receivers', { organization_id: org, name: 'ops', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.test/x' });
    expect(rc.status).toBe(201);
    expect(JSON.stringify(rc.body)).not.toContain('hooks.slack.test');
    const rule = {
      organization_id: org,
      cluster_id: prodCluster.id,
      name: 'cpu',
      description: 'cpu high',
      tag: 't',
      condition: { kind: 'CUSTOM', promql: 'up == 0', operator: 'NONE', threshold: 0, function: 'NONE' },
      for_duration: 'PT5M',
      severity: 'HIGH',
      presentation: { summary: 's', runbook_url: 'https://runbook.test' },
      enabled: true,
      alert_receiver_ids: [rc.body.id],
      target: { target_type: 'CLUSTER', target_id: prodCluster.id },
    };
    const none = await c.post('/alert-rules', { ...rule, alert_receiver_ids: [] });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('alert_receiver_ids');
    const r = await c.post('/alert-rules', rule);
    expect(r.status).toBe(201);
    for (const f of ['id', 'created_at', 'source', 'state', 'is_up_to_date', 'target', 'condition', 'for_duration', 'severity', 'presentation']) expect(r.body, f).toHaveProperty(f);
    expect(r.body.source).toBe('MANAGED');
    for (const drop of Object.keys(rule)) {
      const body: any = { ...rule, name: `cpu-${drop}` };
      delete body[drop];
      const bad = await c.post('/alert-rules', body);
      expect(bad.status, drop).toBe(400);
      expect(bad.body.message, drop).toContain(drop);
    }
    const l = await c.get(`/organization/${org}/alert-rules`);
    expect(l.status).toBe(200);
    expect(l.body.results.map((x: any) => x.id)).toContain(r.body.id);
  });

  it('GET /deploymentStage/{id} → stage record 2.8', async () => {
    const l = await c.get(`/environment/${envId}/deploymentStage`);
    const st = l.body.results[0];
    const r = await c.get(`/deploymentStage/${st.id}`);
    expect(r.status).toBe(200);
    for (const f of ['id', 'created_at', 'environment', 'name', 'description', 'deployment_order', 'services']) expect(r.body, f).toHaveProperty(f);
    const item = r.body.services[0];
    for (const f of ['id', 'created_at', 'service_id', 'service_type', 'is_skipped']) expect(item, f).toHaveProperty(f);
  });

  it('GET /gcp/instanceType/{region} → {results: [instance type]}', async () => {
    const r = await c.get('/gcp/instanceType/europe-west1');
    expect(r.status).toBe(200);
    const t = r.body.results[0];
    for (const f of ['type', 'name', 'cpu', 'ram_in_gb', 'bandwidth_in_gbps', 'bandwidth_guarantee', 'architecture', 'gpu_info', 'attributes']) expect(t, f).toHaveProperty(f);
    expect(keys(t.attributes)).toEqual(['instance_category', 'instance_family', 'instance_generation', 'instance_size', 'meets_resource_reqs']);
  });

  it('POST /cluster/{id}/upgrade (no body) → cluster upgrade status 2.13', async () => {
    const r = await c.call('POST', `/cluster/${stagingCluster.id}/upgrade`);
    expect(r.status).toBeLessThan(300);
    for (const f of ['cluster_id', 'status', 'is_deployed', 'next_k8s_available_version']) expect(r.body, f).toHaveProperty(f);
    expect(r.body.cluster_id).toBe(stagingCluster.id);
  });

  it('webhook create with the seed body {target_url, events, enabled}', async () => {
    const r = await c.post(`/organization/${org}/webhook`, { target_url: 'https://hooks.example.test/x', events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_FAILED'], enabled: true });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ target_url: 'https://hooks.example.test/x', enabled: true });
    const bad = await c.post(`/organization/${org}/webhook`, { target_url: 'https://h.test', events: ['DEPLOYMENT_SUCCESSFUL'], enabled: true });
    expect(bad.status).toBe(400);
  });

  it('POST /environment/{id}/service/delete with the id arrays deletes them (asynchronously)', async () => {
    const r = await c.post(`/environment/${envId}/service/delete`, { application_ids: [], container_ids: [containerId], database_ids: [], job_ids: [], helm_ids: [], terraform_ids: [] });
    expect(r.status).toBeLessThan(300);
    await waitFor(async () => (await c.get(`/container/${containerId}`)).status === 404);
  });

  it('GET /openapi.json and /api/v1 prefix', async () => {
    const r = await c.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\.0\./);
    const v1 = await c.get(`/api/v1/organization/${org}/project`);
    expect(v1.status).toBe(200);
    expect(v1.body.results.length).toBeGreaterThan(0);
  });
});

describe('seed 5, 7, 8, 4.1: auth, errors, rate-limit headers, generic pagination', () => {
  it('Bearer and Token both accepted; 401 on missing/invalid, 403 on scope; error body shape; headers on errors', async () => {
    const b = await c.call('GET', '/organization', undefined, { scheme: 'Bearer' });
    expect(b.status).toBe(200);
    const none = await c.call('GET', '/organization', undefined, { token: null });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ status: 401, error: 'Unauthorized', message: expect.any(String) });
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(none.headers.get(h), h).toBeTruthy();
    const bad = await c.call('GET', '/organization', undefined, { token: 'nope' });
    expect(bad.status).toBe(401);
    const ro = await c.post(`/organization/${org}/project`, { name: 'x' }, c.em.tokens.READ);
    expect(ro.status).toBe(403);
    expect(ro.body).toEqual({ status: 403, error: 'Forbidden', message: expect.any(String) });
    const dep = await c.post(`/organization/${org}/project`, { name: 'x' }, c.em.tokens.DEPLOY);
    expect(dep.status).toBe(403);
    const wdeploy = await c.post(`/application/${appId}/deploy`, {}, c.em.tokens.WRITE);
    expect(wdeploy.status).toBe(403);
    const nf = await c.get('/nowhere');
    expect(nf.status).toBe(404);
    expect(keys(nf.body)).toEqual(['error', 'message', 'status']);
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(nf.headers.get(h), h).toBeTruthy();
    const reset = Number(nf.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000 - 5);
    expect(reset).toBeLessThan(Date.now() / 1000 + 3700);
  });

  it('400 names the missing field', async () => {
    const r = await c.post(`/organization/${org}/project`, { description: 'no name' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: 400, error: 'Bad Request', message: expect.stringContaining('name') });
    const ro = await c.post(`/organization/${org}/project`, { name: 'ro', id: '00000000-0000-4000-8000-000000000000' });
    expect(ro.status).toBe(400);
    expect(ro.body.message).toContain('id');
  });

  it('page/page_size → pagination object beside results', async () => {
    const r = await c.get(`/organization/${org}/project?page=1&page_size=1`);
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBe(1);
    expect(keys(r.body.pagination)).toEqual(['page', 'page_size', 'total_count', 'total_pages']);
  });
});

describe('beyond the seed: shapes of the real API (reference)', () => {
  const statusKeys = ['id', 'state', 'service_deployment_status', 'is_part_last_deployment', 'status_details', 'deployment_request_id', 'deployment_requests_count'];

  it('POST /environment/{id}/deploy and /service/restart-service answer 202 with a Status record (deployEnvironment, rebootServices)', async () => {
    const env = (await c.post(`/project/${projectId}/environment`, { name: 'restarts', mode: 'STAGING', cluster_id: stagingCluster.id })).body;
    const db = (await c.post(`/environment/${env.id}/database`, { name: 'rdb', type: 'REDIS', version: '7', mode: 'CONTAINER' })).body;
    const d = await c.call('POST', `/environment/${env.id}/deploy`);
    expect(d.status).toBe(202);
    for (const f of statusKeys) expect(d.body, f).toHaveProperty(f);
    expect(d.body.id).toBe(env.id);
    expect(d.body.status_details).toMatchObject({ action: 'DEPLOY', sub_action: 'NONE' });
    await settled(db.id, 'database');
    const r = await c.post(`/environment/${env.id}/service/restart-service`, { database_ids: [db.id] });
    expect(r.status).toBe(202);
    for (const f of statusKeys) expect(r.body, f).toHaveProperty(f);
    expect(r.body.status_details).toMatchObject({ action: 'RESTART' });
    await settled(db.id, 'database');
  });

  it('the OpenAPI document declares only the codes a route answers: service/delete and service/stop 200 without body, restart-service 202', async () => {
    const doc = (await c.get('/openapi.json')).body;
    const codes = (p: string) => Object.keys(doc.paths[p].post.responses).filter((k) => k < '300');
    expect(codes('/environment/{environmentId}/service/delete')).toEqual(['200']);
    expect(codes('/environment/{environmentId}/service/stop')).toEqual(['200']);
    expect(codes('/environment/{environmentId}/service/restart-service')).toEqual(['202']);
    expect(codes('/environment/{environmentId}/deploy')).toEqual(['202']);
    for (const k of ['application/{applicationId}', 'container/{containerId}', 'database/{databaseId}', 'helm/{helmId}', 'terraform/{terraformId}']) expect(codes(`/${k}/deploy`), k).toEqual(['202']);
    expect(codes('/job/{jobId}/deploy')).toEqual(['200', '202']);
  });

  it('container and job records carry the real fields: registry_id, maximum_gpu; job ephemeral_storage_in_gib and cpu_architecture are kept', async () => {
    const reg = await registryId(c);
    const ct = await c.post(`/environment/${env2Id}/container`, { name: 'ref-web', registry_id: reg, image_name: 'nginx', tag: '1.27' });
    expect(ct.status).toBe(201);
    expect(ct.body).toMatchObject({ registry_id: reg, maximum_gpu: 0 });
    const body = { name: 'ref-job', cpu_architecture: 'ARM64', ephemeral_storage_in_gib: 5, source: { image: { image_name: 'acme/x', tag: 'v1', registry_id: reg } }, schedule: { on_start: { arguments: ['go'] } } };
    const j = await c.post(`/environment/${env2Id}/job`, body);
    expect(j.status).toBe(201);
    expect(j.body).toMatchObject({ cpu_architecture: 'ARM64', ephemeral_storage_in_gib: 5, maximum_gpu: 0 });
    const got = await c.get(`/job/${j.body.id}`);
    expect(got.body).toMatchObject({ cpu_architecture: 'ARM64', ephemeral_storage_in_gib: 5 });
    const bad = await c.post(`/environment/${env2Id}/job`, { ...body, name: 'ref-job2', cpu_architecture: 'RISCV' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('cpu_architecture');
  });

  it('records answer no null where the real document (and seed 2.4) says string: service description / icon_uri / entrypoint, project description', async () => {
    const p = await c.post(`/organization/${org}/project`, { name: 'no-desc' });
    expect(p.body).not.toHaveProperty('description');
    const reg = await registryId(c);
    const ct = await c.post(`/environment/${env2Id}/container`, { name: 'bare-web', registry_id: reg, image_name: 'nginx', tag: '1.27' });
    const db = await c.post(`/environment/${env2Id}/database`, { name: 'bare-db', type: 'REDIS', version: '7', mode: 'CONTAINER' });
    for (const r of [ct, db]) {
      expect(r.status).toBe(201);
      expect(r.body).not.toHaveProperty('description');
      expect(r.body).not.toHaveProperty('entrypoint');
      expect(typeof r.body.icon_uri).toBe('string');
    }
    expect(db.body.icon_uri).toBe('app://qovery-console/database');
    expect(db.body.instance_type).toBeNull(); // seed 2.4: null for container mode
  });

  it('job source and schedule: the unset alternative is left out (real oneOf), an image carries its registry; terraform carries auto_deploy; webhook description never null', async () => {
    const reg = await registryId(c);
    const j = await c.post(`/environment/${env2Id}/job`, { name: 'shape-job', source: { image: { image_name: 'acme/x', tag: 'v1', registry_id: reg } }, schedule: { on_start: { arguments: ['go'] } } });
    expect(j.status).toBe(201);
    expect(Object.keys(j.body.source)).toEqual(['image']);
    expect(j.body.source.image.registry).toMatchObject({ id: reg, name: 'docker-hub' });
    expect(j.body.schedule.on_start).toEqual({ arguments: ['go'] });
    for (const k of ['on_stop', 'on_delete', 'cronjob']) expect(j.body.schedule, k).not.toHaveProperty(k);
    const cron = await c.post(`/environment/${env2Id}/job`, { name: 'shape-cron', source: { image: { image_name: 'acme/x', tag: 'v1', registry_id: reg } }, schedule: { cronjob: { scheduled_at: '0 3 * * *' } } });
    expect(Object.keys(cron.body.schedule)).toEqual(['cronjob']);
    expect(cron.body.schedule.cronjob).not.toHaveProperty('entrypoint');
    const tf = await c.get(`/terraform/${terraformId}`);
    expect(tf.body.auto_deploy).toBe(false);
    const wh = await c.post(`/organization/${org}/webhook`, { target_url: 'https://hooks.example.test/y', events: ['DEPLOYMENT_FAILED'], enabled: true });
    expect(wh.body).not.toHaveProperty('description');
  });

  it('database clone answers the presented record (groups in full, limits, host, icon) and respects the target cluster bounds', async () => {
    const g = await c.post(`/organization/${org}/labelsGroups`, { name: 'clone-labels', labels: [{ key: 'team', value: 'data', propagate_to_cloud_provider: false }] });
    const src = await c.post(`/environment/${envId}/database`, { name: 'clone-src', type: 'MYSQL', version: '8', mode: 'CONTAINER', cpu: 250, memory: 512, labels_groups: [{ id: g.body.id }] });
    expect(src.status).toBe(201);
    const r = await c.post(`/database/${src.body.id}/clone`, { name: 'clone-dst', environment_id: env2Id });
    expect(r.status).toBe(202);
    expect(r.body.labels_groups[0]).toMatchObject({ id: g.body.id, name: 'clone-labels' });
    for (const f of ['maximum_cpu', 'maximum_memory', 'host', 'icon_uri']) expect(r.body, f).toHaveProperty(f);
    expect(r.body).toEqual((await c.get(`/database/${r.body.id}`)).body);
    const big = await c.post(`/environment/${envId}/database`, { name: 'clone-big', type: 'MYSQL', version: '8', mode: 'CONTAINER', cpu: 6000, memory: 512 });
    expect(big.status).toBe(201);
    const refused = await c.post(`/database/${big.body.id}/clone`, { name: 'clone-big2', environment_id: env2Id });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('cpu');
    expect((await c.get(`/environment/${env2Id}/database`)).body.results.some((d: any) => d.name === 'clone-big2')).toBe(false);
  });

  it('cluster status reason is a DeploymentInfraReason; stage description never null; variable pointers keep mount_path (seed 2.2 lists it)', async () => {
    const st = await c.get(`/organization/${org}/cluster/${prodCluster.id}/status`);
    expect(['UNSPECIFIED', 'MAINTENANCE']).toContain(st.body.reason);
    const stage = await c.post(`/environment/${env2Id}/deploymentStage`, { name: 'no-desc-stage' });
    expect(stage.body).not.toHaveProperty('description');
    const pv = await c.post(`/project/${projectId}/environmentVariable`, { key: 'PTR', value: 'x' });
    const ov = await c.post(`/application/${appId}/environmentVariable/${pv.body.id}/override`, { value: 'y' });
    expect(ov.status).toBe(201);
    expect(ov.body.overridden_variable).toHaveProperty('mount_path', null);
  });

  it('service summaries (ServiceLightResponse) carry description and icon_uri as strings', async () => {
    const r = await c.get(`/organization/${org}/services?environment_id=${env2Id}`);
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeGreaterThan(0);
    for (const s of r.body.results) {
      expect(typeof s.description, s.name).toBe('string');
      expect(typeof s.icon_uri, s.name).toBe('string');
    }
  });

  it('an alert rule on a service shows target.service like a service summary (description, icon_uri strings)', async () => {
    const rc = (await c.post('/alert-receivers', { organization_id: org, name: 'svc-target-rc', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.test/t' })).body;
    const r = await c.post('/alert-rules', {
      organization_id: org, cluster_id: prodCluster.id, name: 'svc-target', description: 'd', tag: 't',
      condition: { kind: 'CUSTOM', promql: 'up == 0', operator: 'NONE', threshold: 0, function: 'NONE' },
      for_duration: 'PT5M', severity: 'LOW', presentation: {}, enabled: true, alert_receiver_ids: [rc.id],
      target: { target_type: 'APPLICATION', target_id: appId },
    });
    expect(r.status).toBe(201);
    expect(r.body.target.service).toMatchObject({ id: appId, description: expect.any(String), icon_uri: 'app://qovery-console/application' });
  });
});
