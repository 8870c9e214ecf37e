/** Organization, groups, alert receivers and rules, webhooks, clusters, registries, instance types, Terraform parsing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { appBody, clusters, cronBody, projectAndEnv, registryId } from './fixtures.js';

let c: Client;
let org: string;
beforeAll(async () => {
  c = await startClient({ deployDurationMs: 1000 });
  org = c.em.organizationId;
});
afterAll(async () => {
  await c.em.close();
});

const slack = (name = 'ops-slack') => ({ organization_id: org, name, description: 'team channel', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/T0/B0/xyzSECRET' });

describe('organization', () => {
  it('GET /organization returns the seeded organization; PUT needs ADMIN and keeps the plan', async () => {
    const o = await c.get('/organization');
    expect(o.body).toMatchObject({ id: org, name: 'Acme', plan: 'TEAM_2025', billing_deployment_restriction: null });
    const put = await c.put(`/organization/${org}`, { name: 'Acme Corp', admin_emails: ['a@b.c'], plan: 'FREE' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Acme Corp', plan: 'TEAM_2025', admin_emails: ['a@b.c'] });
    expect((await c.put(`/organization/${org}`, { name: 'x' }, c.em.tokens.WRITE)).status).toBe(403);
    expect((await c.get(`/organization/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });
});

describe('annotation and label groups', () => {
  it('CRUD with full-replacement PUT, unique names, and no deletion while a service uses the group', async () => {
    const a = await c.post(`/organization/${org}/annotationsGroups`, { name: 'team', annotations: [{ key: 'team', value: 'core' }], scopes: ['DEPLOYMENTS', 'PODS'] });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ name: 'team', scopes: ['DEPLOYMENTS', 'PODS'] });
    expect((await c.post(`/organization/${org}/annotationsGroups`, { name: 'TEAM', annotations: [], scopes: [] })).status).toBe(409);
    const badScope = await c.post(`/organization/${org}/annotationsGroups`, { name: 'x', annotations: [], scopes: ['NOPE'] });
    expect(badScope.status).toBe(400);
    expect(badScope.body.message).toContain("'scopes[0]' must be one of: DEPLOYMENTS");
    const put = await c.put(`/organization/${org}/annotationsGroups/${a.body.id}`, { name: 'team', annotations: [{ key: 'owner', value: 'me' }], scopes: ['SERVICES'] });
    expect(put.body).toMatchObject({ annotations: [{ key: 'owner', value: 'me' }], scopes: ['SERVICES'] });

    const l = await c.post(`/organization/${org}/labelsGroups`, { name: 'cost', labels: [{ key: 'cc', value: '42', propagate_to_cloud_provider: true }] });
    expect(l.status).toBe(201);
    const { env } = await projectAndEnv(c, 'groups');
    const app = await c.post(`/environment/${env.id}/application`, { ...appBody(), annotations_groups: [{ id: a.body.id }], labels_groups: [{ id: l.body.id }] });
    expect(app.body.annotations_groups).toEqual([put.body]);
    expect(app.body.labels_groups[0]).toMatchObject({ id: l.body.id, name: 'cost' });
    expect((await c.get(`/organization/${org}/labelsGroups/${l.body.id}`)).body.associated_items_count).toBe(1);
    const inUse = await c.del(`/organization/${org}/annotationsGroups/${a.body.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toContain('api');
    await c.put(`/application/${app.body.id}`, { annotations_groups: [] });
    expect((await c.del(`/organization/${org}/annotationsGroups/${a.body.id}`)).status).toBe(204);
    expect((await c.get(`/organization/${org}/annotationsGroups`)).body.results).toEqual([]);
  });
});

describe('alert receivers and rules', () => {
  it('keeps webhook_url write-only and validates receivers, recording the test message', async () => {
    const r = await c.post('/alert-receivers', slack());
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'ops-slack', type: 'SLACK', send_resolved: true, organization_id: org });
    expect(JSON.stringify(r.body)).not.toContain('xyzSECRET');
    const all = await c.get(`/organization/${org}/alert-receivers`);
    expect(JSON.stringify(all.body)).not.toContain('xyzSECRET');

    const v = await c.post('/alert-receivers/validate', { alert_receiver: slack('new'), message: 'hello from CI' });
    expect(v.status).toBe(200);
    const v2 = await c.post(`/alert-receivers/${r.body.id}/validate`, { message: 'ping' });
    expect(v2.status).toBe(200);
    expect(c.em.state.receiverValidations.map((x) => [x.receiver_name, x.message])).toEqual([['new', 'hello from CI'], ['ops-slack', 'ping']]);
    expect(JSON.stringify(c.em.state.receiverValidations)).not.toContain('xyzSECRET');
    const bad = await c.post('/alert-receivers/validate', { alert_receiver: { ...slack('x'), webhook_url: 'http://insecure' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("field 'alert_receiver.webhook_url'");
    const email = await c.post('/alert-receivers', { organization_id: org, name: 'mail', type: 'EMAIL', to: 'not-an-email', from: 'a@b.c', smarthost: 'smtp:25', auth_password: 'p' });
    expect(email.status).toBe(400);
    expect(email.body.message).toContain("field 'to'");

    // PUT without webhook_url keeps the stored one.
    const put = await c.put(`/alert-receivers/${r.body.id}`, { name: 'ops-slack', type: 'SLACK', description: 'renamed channel' });
    expect(put.status).toBe(200);
    expect(c.em.state.alertReceiverSecrets[r.body.id].webhook_url).toContain('xyzSECRET');
  });

  it('rules need existing receivers, an existing cluster and target; target is immutable', async () => {
    const { production } = await clusters(c);
    const recv = (await c.post('/alert-receivers', slack('rules-slack'))).body;
    const body = {
      organization_id: org, cluster_id: production.id, name: 'high-cpu', description: 'CPU above 90%', tag: 'cpu',
      condition: { kind: 'CUSTOM', promql: 'avg(cpu) > 0.9', operator: 'ABOVE', threshold: 0.9, function: 'AVG' },
      for_duration: 'PT5M', severity: 'HIGH', presentation: { summary: 'CPU high' }, enabled: true,
      alert_receiver_ids: [recv.id], target: { target_type: 'CLUSTER', target_id: production.id },
    };
    const none = await c.post('/alert-rules', { ...body, alert_receiver_ids: [] });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain("'alert_receiver_ids' must have at least 1 item");
    const unknown = await c.post('/alert-rules', { ...body, alert_receiver_ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain("field 'alert_receiver_ids[0]'");
    const badDuration = await c.post('/alert-rules', { ...body, for_duration: '5 minutes' });
    expect(badDuration.status).toBe(400);
    expect(badDuration.body.message).toContain("'for_duration'");
    const missing = await c.post('/alert-rules', { ...body, tag: undefined });
    expect(missing.body.message).toContain("'tag' is required");

    const rule = await c.post('/alert-rules', body);
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({ name: 'high-cpu', source: 'MANAGED', state: 'OK', is_up_to_date: true, alert_receiver_ids: [recv.id], target: { target_type: 'CLUSTER', target_id: production.id } });
    const { organization_id: _o, cluster_id: _c, target: _t, ...edit } = body;
    const moved = await c.put(`/alert-rules/${rule.body.id}`, { ...edit, target: { target_type: 'ENVIRONMENT', target_id: production.id } });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toContain("field 'target'");
    const edited = await c.put(`/alert-rules/${rule.body.id}`, { ...edit, severity: 'CRITICAL' });
    expect(edited.status).toBe(200);
    expect(edited.body.severity).toBe('CRITICAL');
    expect((await c.get(`/organization/${org}/alert-rules`)).body.results.map((x: any) => x.name)).toContain('high-cpu');
    expect((await c.del(`/alert-receivers/${recv.id}`)).status).toBe(409);
    expect((await c.del(`/alert-rules/${rule.body.id}`)).status).toBe(204);
    expect((await c.del(`/alert-receivers/${recv.id}`)).status).toBe(204);

    // A service target: the response describes the service.
    const reg = await registryId(c);
    const { env } = await projectAndEnv(c, 'alerting');
    const cron = (await c.post(`/environment/${env.id}/job`, cronBody(reg))).body;
    const recv2 = (await c.post('/alert-receivers', slack('svc-slack'))).body;
    const svcRule = await c.post('/alert-rules', { ...body, name: 'cron-fail', alert_receiver_ids: [recv2.id], target: { target_type: 'CRONJOB', target_id: cron.id } });
    expect(svcRule.status).toBe(201);
    expect(svcRule.body.target.service).toMatchObject({ id: cron.id, name: 'nightly', service_type: 'JOB', environment_id: env.id, project_name: 'alerting', job_type: 'CRON' });
  });
});

describe('webhooks', () => {
  it('CRUD with the seed events, write-only target_secret and target_secret_set', async () => {
    const w = await c.post(`/organization/${org}/webhook`, { target_url: 'https://hooks.example.com/x', events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_FAILED'], enabled: true, target_secret: 'hmac-key-123' });
    expect(w.status).toBe(201);
    expect(w.body).toMatchObject({ kind: 'STANDARD', target_url: 'https://hooks.example.com/x', target_secret_set: true, enabled: true });
    expect(JSON.stringify(w.body)).not.toContain('hmac-key-123');
    const realEvent = await c.post(`/organization/${org}/webhook`, { target_url: 'https://h.example.com', events: ['DEPLOYMENT_SUCCESSFUL'] });
    expect(realEvent.status).toBe(400);
    expect(realEvent.body.message).toContain('DEPLOYMENT_STARTED, DEPLOYMENT_SUCCEEDED, DEPLOYMENT_FAILED');
    const badUrl = await c.post(`/organization/${org}/webhook`, { target_url: 'ftp://x', events: ['DEPLOYMENT_STARTED'] });
    expect(badUrl.body.message).toContain("field 'target_url'");
    const put = await c.put(`/organization/${org}/webhook/${w.body.id}`, { target_url: 'https://hooks.example.com/x', events: ['DEPLOYMENT_SUCCEEDED'], enabled: false });
    expect(put.body).toMatchObject({ events: ['DEPLOYMENT_SUCCEEDED'], enabled: false, target_secret_set: true });
    const cleared = await c.put(`/organization/${org}/webhook/${w.body.id}`, { target_url: 'https://hooks.example.com/x', events: ['DEPLOYMENT_SUCCEEDED'], target_secret: null });
    expect(cleared.body.target_secret_set).toBe(false);
    expect((await c.get(`/organization/${org}/webhook`)).body.results).toHaveLength(1);
    expect((await c.del(`/organization/${org}/webhook/${w.body.id}`)).status).toBe(204);
    expect((await c.get(`/organization/${org}/webhook/${w.body.id}`)).status).toBe(404);
  });
});

describe('clusters, registries, instance types, terraform variables', () => {
  it('lists the seeded clusters and registry', async () => {
    const { production, staging } = await clusters(c);
    expect(production).toMatchObject({ cloud_provider: 'AWS', region: 'eu-west-3' });
    expect(staging).toMatchObject({ cloud_provider: 'GCP', region: 'europe-west1' });
    const statuses = await c.get(`/organization/${org}/cluster/status`);
    expect(statuses.body.results.map((x: any) => x.cluster_id).sort()).toEqual([production.id, staging.id].sort());
    expect((await c.get(`/organization/${org}/containerRegistry`)).body.results.map((r: any) => r.name)).toEqual(['docker-hub']);
  });

  it('upgrades a cluster to next_k8s_available_version through upgrade states', async () => {
    const { staging } = await clusters(c);
    const before = (await c.get(`/organization/${org}/cluster/${staging.id}/status`)).body;
    expect(before).toMatchObject({ status: 'DEPLOYED', next_k8s_available_version: '1.31' });
    const up = await c.post(`/cluster/${staging.id}/upgrade`, undefined, c.em.tokens.DEPLOY);
    expect(up.status).toBe(201);
    expect(up.body.status).toBe('DEPLOYMENT_QUEUED');
    expect((await c.post(`/cluster/${staging.id}/upgrade`)).status).toBe(409);
    const seen = new Set<string>();
    let st = up.body;
    for (let i = 0; i < 1000 && st.status !== 'DEPLOYED'; i++) {
      await new Promise((r) => setTimeout(r, 5));
      st = (await c.get(`/organization/${org}/cluster/${staging.id}/status`)).body;
      seen.add(st.status);
    }
    expect(st.status).toBe('DEPLOYED');
    expect(seen.has('DEPLOYING')).toBe(true);
    expect(st.next_k8s_available_version).toBeNull();
    expect((await clusters(c)).staging.version).toBe('1.31');
    expect((await c.post(`/cluster/${staging.id}/upgrade`, undefined, c.em.tokens.WRITE)).status).toBe(403);
  });

  it('lists instance types per provider and region', async () => {
    const gcp = await c.get('/gcp/instanceType/europe-west1');
    expect(gcp.status).toBe(200);
    expect(gcp.body.results.map((t: any) => t.type)).toContain('e2-standard-4');
    expect(gcp.body.results[0]).toMatchObject({ name: expect.any(String), cpu: expect.any(Number), ram_in_gb: expect.any(Number) });
    const aws = await c.get('/aws/eks/instanceType/eu-west-3');
    expect(aws.body.results.map((t: any) => t.type)).toContain('t3.xlarge');
    expect((await c.get('/scaleway/instanceType/fr-par-1')).body.results.length).toBeGreaterThan(0);
    const rds = await c.get('/aws/managedDatabase/instanceType/eu-west-3/POSTGRESQL');
    expect(rds.body.results).toContainEqual({ name: 'db.t3.medium' });
    expect((await c.get('/aws/managedDatabase/instanceType/eu-west-3/REDIS')).body.results[0].name).toMatch(/^cache\./);
    expect((await c.get('/aws/managedDatabase/instanceType/eu-west-3/ORACLE')).status).toBe(400);
    expect((await c.get('/aws/managedDatabase/type')).body.results.map((t: any) => t.name).sort()).toEqual(['MONGODB', 'MYSQL', 'POSTGRESQL', 'REDIS']);
    const unknown = await c.get('/gcp/instanceType/mars-north1');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('europe-west1');
  });

  it('parses Terraform variables from the fixture repositories', async () => {
    const r = await c.post(`/organization/${org}/parseTerraformVariablesFromGitRepo`, { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main', provider: 'GITHUB' } }, c.em.tokens.READ);
    expect(r.status).toBe(200);
    const byKey = Object.fromEntries(r.body.results.map((v: any) => [v.key, v]));
    expect(Object.keys(byKey).sort()).toEqual(['api_token', 'instance_count', 'region', 'tags']);
    expect(byKey.region).toMatchObject({ default: 'eu-west-3', description: 'Cloud region of the resources', sensitive: false, nullable: true, source: 'variables.tf' });
    expect(byKey.api_token).toMatchObject({ sensitive: true, nullable: false, default: null });
    expect(byKey.instance_count.default).toBe('2');
    const sub = await c.post(`/organization/${org}/parseTerraformVariablesFromGitRepo`, { git_repository: { url: 'https://gitlab.com/acme/network', root_path: '/modules/vpc' } });
    expect(sub.body.results.map((v: any) => v.key)).toEqual(['cidr_block', 'enable_nat']);
    const unknown = await c.post(`/organization/${org}/parseTerraformVariablesFromGitRepo`, { git_repository: { url: 'https://github.com/nobody/nothing' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('https://github.com/acme/infra');
  });
});
