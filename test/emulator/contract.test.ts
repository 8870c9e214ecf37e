/**
 * Contract test: every request this scenario sends and every response it gets validates against
 * the emulator's own GET /openapi.json (ajv), and the document itself is well-formed OpenAPI 3.0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startClient, type Client } from './helpers.js';
import { checkExchanges, resolveRefs } from './contract-check.js';
import { appBody, clusters, containerBody, cronBody, databaseBody, helmBody, helmRepositoryId, jobBody, projectAndEnv, registryId, terraformBody } from './fixtures.js';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: Ajv) => Ajv;
let c: Client;
let doc: any;

beforeAll(async () => {
  c = await startClient({ deployDurationMs: 50 });
  doc = (await c.get('/openapi.json')).body;
});
afterAll(async () => {
  await c.em.close();
});

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The operations of the CRUD half of the emulator: the scenario must exercise every one. */
const CRUD_OPERATIONS = [
  'GET /openapi.json',
  'GET /organization',
  'GET /organization/{organizationId}',
  'PUT /organization/{organizationId}',
  'GET /organization/{organizationId}/project',
  'POST /organization/{organizationId}/project',
  'GET /project/{projectId}',
  'PUT /project/{projectId}',
  'DELETE /project/{projectId}',
  'GET /project/{projectId}/environment',
  'GET /organization/{organizationId}/environments',
  'GET /organization/{organizationId}/services',
  'POST /project/{projectId}/environment',
  'GET /environment/{environmentId}',
  'PUT /environment/{environmentId}',
  'DELETE /environment/{environmentId}',
  'GET /environment/{environmentId}/services',
  'GET /environment/{environmentId}/application',
  'POST /environment/{environmentId}/application',
  'GET /application/{applicationId}',
  'PUT /application/{applicationId}',
  'DELETE /application/{applicationId}',
  'GET /environment/{environmentId}/container',
  'POST /environment/{environmentId}/container',
  'GET /container/{containerId}',
  'PUT /container/{containerId}',
  'DELETE /container/{containerId}',
  'GET /environment/{environmentId}/database',
  'POST /environment/{environmentId}/database',
  'GET /database/{databaseId}',
  'PUT /database/{databaseId}',
  'DELETE /database/{databaseId}',
  'GET /environment/{environmentId}/job',
  'POST /environment/{environmentId}/job',
  'GET /job/{jobId}',
  'PUT /job/{jobId}',
  'DELETE /job/{jobId}',
  'GET /environment/{environmentId}/helm',
  'POST /environment/{environmentId}/helm',
  'GET /helm/{helmId}',
  'PUT /helm/{helmId}',
  'DELETE /helm/{helmId}',
  'GET /environment/{environmentId}/terraform',
  'POST /environment/{environmentId}/terraform',
  'GET /terraform/{terraformId}',
  'PUT /terraform/{terraformId}',
  'DELETE /terraform/{terraformId}',
  'GET /environment/{environmentId}/deploymentStage',
  'POST /environment/{environmentId}/deploymentStage',
  'GET /deploymentStage/{deploymentStageId}',
  'PUT /deploymentStage/{deploymentStageId}',
  'DELETE /deploymentStage/{deploymentStageId}',
  'PUT /deploymentStage/{deploymentStageId}/service/{serviceId}',
  'PUT /deploymentStage/{deploymentStageId}/moveBefore/{stageId}',
  'PUT /deploymentStage/{deploymentStageId}/moveAfter/{stageId}',
  'GET /service/{serviceId}/deploymentStage',
  'GET /organization/{organizationId}/annotationsGroups',
  'POST /organization/{organizationId}/annotationsGroups',
  'GET /organization/{organizationId}/annotationsGroups/{annotationsGroupId}',
  'PUT /organization/{organizationId}/annotationsGroups/{annotationsGroupId}',
  'DELETE /organization/{organizationId}/annotationsGroups/{annotationsGroupId}',
  'GET /organization/{organizationId}/labelsGroups',
  'POST /organization/{organizationId}/labelsGroups',
  'GET /organization/{organizationId}/labelsGroups/{labelsGroupId}',
  'PUT /organization/{organizationId}/labelsGroups/{labelsGroupId}',
  'DELETE /organization/{organizationId}/labelsGroups/{labelsGroupId}',
  'GET /organization/{organizationId}/cluster',
  'GET /organization/{organizationId}/cluster/status',
  'GET /organization/{organizationId}/cluster/{clusterId}/status',
  'POST /cluster/{clusterId}/upgrade',
  'GET /organization/{organizationId}/containerRegistry',
  'GET /organization/{organizationId}/containerRegistry/{containerRegistryId}',
  'GET /organization/{organizationId}/helmRepository',
  'POST /organization/{organizationId}/helmRepository',
  'GET /organization/{organizationId}/helmRepository/{helmRepositoryId}',
  'PUT /organization/{organizationId}/helmRepository/{helmRepositoryId}',
  'DELETE /organization/{organizationId}/helmRepository/{helmRepositoryId}',
  'GET /gcp/instanceType/{region}',
  'GET /aws/eks/instanceType/{region}',
  'GET /scaleway/instanceType/{zone}',
  'GET /aws/managedDatabase/type',
  'GET /aws/managedDatabase/instanceType/{region}/{databaseType}',
  'POST /organization/{organizationId}/parseTerraformVariablesFromGitRepo',
  'GET /organization/{organizationId}/alert-receivers',
  'POST /alert-receivers',
  'GET /alert-receivers/{alertReceiverId}',
  'PUT /alert-receivers/{alertReceiverId}',
  'DELETE /alert-receivers/{alertReceiverId}',
  'POST /alert-receivers/validate',
  'POST /alert-receivers/{alertReceiverId}/validate',
  'GET /organization/{organizationId}/alert-rules',
  'POST /alert-rules',
  'GET /alert-rules/{alertRuleId}',
  'PUT /alert-rules/{alertRuleId}',
  'DELETE /alert-rules/{alertRuleId}',
  'GET /organization/{organizationId}/webhook',
  'POST /organization/{organizationId}/webhook',
  'GET /organization/{organizationId}/webhook/{webhookId}',
  'PUT /organization/{organizationId}/webhook/{webhookId}',
  'DELETE /organization/{organizationId}/webhook/{webhookId}',
];



async function scenario(): Promise<void> {
  const org = c.em.organizationId;
  const reg = await registryId(c);
  const { production } = await clusters(c);
  await c.get('/organization');
  await c.put(`/organization/${org}`, { name: 'Acme', description: 'contract' });
  const { project, env } = await projectAndEnv(c, 'contract');
  await c.get(`/project/${project.id}`);
  await c.put(`/project/${project.id}`, { name: 'contract', description: 'x' });
  await c.get(`/project/${project.id}/environment`);
  await c.get(`/organization/${org}/environments`);
  await c.put(`/environment/${env.id}`, { mode: 'STAGING' });
  const ann = (await c.post(`/organization/${org}/annotationsGroups`, { name: 'a', annotations: [{ key: 'k', value: 'v' }], scopes: ['PODS'] })).body;
  const lab = (await c.post(`/organization/${org}/labelsGroups`, { name: 'l', labels: [{ key: 'k', value: 'v', propagate_to_cloud_provider: false }] })).body;
  await c.get(`/organization/${org}/annotationsGroups`);
  await c.get(`/organization/${org}/labelsGroups/${lab.id}`);
  const charts = (await c.post(`/organization/${org}/helmRepository`, { name: 'charts', kind: 'OCI_GITHUB_CR', url: 'oci://ghcr.io/acme/charts', skip_tls_verification: false, config: { username: 'bot', password: 'helm-repo-password' } })).body;
  await c.put(`/organization/${org}/helmRepository/${charts.id}`, { name: 'acme-charts', kind: 'OCI_GITHUB_CR', url: 'oci://ghcr.io/acme/charts', skip_tls_verification: true, config: { username: 'bot' } });
  await c.get(`/organization/${org}/helmRepository/${charts.id}`);
  await c.get(`/organization/${org}/helmRepository`);
  const bodies: Record<string, unknown> = {
    application: { ...appBody(), annotations_groups: [{ id: ann.id }], labels_groups: [{ id: lab.id }], healthchecks: { readiness_probe: { type: { http: { path: '/health', port: 8080 } }, period_seconds: 5 } } },
    container: containerBody(reg), database: databaseBody(), job: jobBody(reg), helm: helmBody(await helmRepositoryId(c)), terraform: terraformBody(),
  };
  for (const [kind, body] of Object.entries(bodies)) {
    const made = (await c.post(`/environment/${env.id}/${kind}`, body)).body;
    await c.get(`/${kind}/${made.id}`);
    await c.get(`/environment/${env.id}/${kind}`);
    await c.put(`/${kind}/${made.id}`, kind === 'database' ? { storage: 30 } : body);
  }
  await c.post(`/environment/${env.id}/job`, cronBody(reg));
  // The other helm source: a chart kept in git (the response's `git` alternative).
  await c.post(`/environment/${env.id}/helm`, { ...helmBody(charts.id, 'git-chart'), source: { git_repository: { url: 'https://github.com/acme/charts.git', root_path: '/redis' } } });
  await c.get(`/environment/${env.id}/services`);
  await c.get(`/environment/${env.id}/services?page=1&page_size=2`);
  await c.get(`/organization/${org}/services?environment_id=${env.id}`);
  const stage = (await c.post(`/environment/${env.id}/deploymentStage`, { name: 'late' })).body;
  const stages = (await c.get(`/environment/${env.id}/deploymentStage`)).body.results;
  const someService = stages[0].services[0].service_id;
  await c.put(`/deploymentStage/${stage.id}/service/${someService}`, { is_skipped: false });
  await c.put(`/deploymentStage/${stage.id}/moveBefore/${stages[0].id}`);
  await c.put(`/deploymentStage/${stage.id}`, { name: 'later', description: 'd' });
  await c.get(`/service/${someService}/deploymentStage`);
  await c.get(`/deploymentStage/${stage.id}`);
  const recv = (await c.post('/alert-receivers', { organization_id: org, name: 'r', description: 'd', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/x' })).body;
  await c.post('/alert-receivers', { organization_id: org, name: 'mail', type: 'EMAIL', to: 'a@b.co', from: 'c@d.co', smarthost: 'smtp.d.co:587', auth_password: 'email-pw-value' });
  await c.post('/alert-receivers/validate', { alert_receiver: { name: 'n', type: 'SLACK', webhook_url: 'https://hooks.slack.com/x' }, message: 'm' });
  await c.post(`/alert-receivers/${recv.id}/validate`, { message: 'm' });
  await c.get(`/organization/${org}/alert-receivers`);
  await c.put(`/alert-receivers/${recv.id}`, { name: 'r', type: 'SLACK', description: 'e' });
  const rule = (await c.post('/alert-rules', {
    organization_id: org, cluster_id: production.id, name: 'cpu', description: 'd', tag: 't',
    condition: { kind: 'CUSTOM', promql: 'up == 0' }, for_duration: 'PT1M', severity: 'LOW', presentation: {}, enabled: true,
    alert_receiver_ids: [recv.id], target: { target_type: 'APPLICATION', target_id: Object.values(c.em.state.services).find((s) => s.service_type === 'APPLICATION')!.id },
  })).body;
  await c.get(`/alert-rules/${rule.id}`);
  await c.get(`/organization/${org}/alert-rules`);
  const hook = (await c.post(`/organization/${org}/webhook`, { target_url: 'https://h.example/x', events: ['DEPLOYMENT_STARTED'], target_secret: 'hook-signing-secret' })).body;
  await c.put(`/organization/${org}/webhook/${hook.id}`, { target_url: 'https://h.example/y', events: ['DEPLOYMENT_FAILED'] });
  await c.get(`/organization/${org}/webhook`);
  await c.get(`/organization/${org}/cluster`);
  await c.get(`/organization/${org}/cluster/status`);
  await c.get(`/organization/${org}/cluster/${production.id}/status`);
  await c.post(`/cluster/${production.id}/upgrade`);
  await c.get(`/organization/${org}/containerRegistry`);
  await c.get(`/organization/${org}/containerRegistry/${reg}`);
  await c.get('/gcp/instanceType/europe-west1');
  await c.get('/aws/eks/instanceType/eu-west-3');
  await c.get('/scaleway/instanceType/fr-par-2');
  await c.post(`/organization/${org}/parseTerraformVariablesFromGitRepo`, { git_repository: { url: 'https://github.com/driftless/demo-terraform' } });
  await c.get('/openapi.json');
  await c.get(`/organization/${org}`);
  await c.get(`/organization/${org}/project`);
  await c.get(`/environment/${env.id}`);
  await c.put(`/deploymentStage/${stage.id}/moveAfter/${stages[0].id}`);
  await c.get(`/organization/${org}/annotationsGroups/${ann.id}`);
  await c.get(`/organization/${org}/labelsGroups`);
  await c.get('/aws/managedDatabase/type');
  await c.get('/aws/managedDatabase/instanceType/eu-west-3/MYSQL');
  await c.get(`/alert-receivers/${recv.id}`);
  const { organization_id: _o, cluster_id: _c, target: _t, ...ruleEdit } = { ...rule, description: 'edited', presentation: {} };
  await c.put(`/alert-rules/${rule.id}`, {
    name: ruleEdit.name, description: ruleEdit.description, tag: ruleEdit.tag, condition: { kind: 'CUSTOM', promql: 'up == 0' },
    for_duration: ruleEdit.for_duration, severity: 'HIGH', presentation: {}, enabled: false, alert_receiver_ids: [recv.id],
  });
  await c.get(`/organization/${org}/webhook/${hook.id}`);
  // Errors too: they are part of the contract.
  await c.post(`/organization/${org}/project`, { name: 5 });
  await c.get(`/project/00000000-0000-4000-8000-000000000000`);
  await c.post(`/organization/${org}/project`, { name: 'CONTRACT' });
  await c.get('/organization', null);
  await c.put(`/organization/${org}`, { name: 'x' }, c.em.tokens.READ);
  await c.del(`/alert-rules/${rule.id}`);
  await c.del(`/organization/${org}/webhook/${hook.id}`);
  await c.del(`/deploymentStage/${stage.id}`);
  for (const svc of (await c.get(`/environment/${env.id}/services`)).body.results) {
    await c.del(`/${String(svc.service_type).toLowerCase()}/${svc.id}`);
  }
  await c.put(`/organization/${org}/annotationsGroups/${ann.id}`, { name: 'a', annotations: [], scopes: [] });
  await c.put(`/organization/${org}/labelsGroups/${lab.id}`, { name: 'l', labels: [] });
  for (let i = 0; i < 200 && (await c.get(`/environment/${env.id}/services`)).body.results.length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  await c.del(`/organization/${org}/helmRepository/${charts.id}`);
  await c.del(`/organization/${org}/annotationsGroups/${ann.id}`);
  await c.del(`/organization/${org}/labelsGroups/${lab.id}`);
  await c.del(`/alert-receivers/${recv.id}`);
  await c.del(`/environment/${env.id}`);
  await c.del(`/project/${project.id}`);
  await c.get('/api/v1/organization');
}

describe('OpenAPI contract', () => {
  it('is a well-formed OpenAPI 3.0 document', () => {
    expect(doc.openapi).toMatch(/^3\.0\.\d+$/);
    expect(doc.info.title).toBeTruthy();
    expect(doc.components.securitySchemes).toHaveProperty('bearerAuth');
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      expect(path.startsWith('/')).toBe(true);
      for (const [method, op] of Object.entries<any>(item)) {
        expect(METHODS).toContain(method);
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
        for (const p of (path.match(/\{([^}]+)\}/g) ?? []).map((x) => x.slice(1, -1))) {
          expect(op.parameters?.some((q: any) => q.in === 'path' && q.name === p && q.required), `${method} ${path} declares ${p}`).toBe(true);
        }
        for (const r of Object.values<any>(op.responses)) {
          expect(typeof r.description).toBe('string');
          const s = r.content?.['application/json']?.schema;
          if (s) ajv.compile(resolveRefs(s, doc));
        }
      }
    }
    // OpenAPI 3.0 has no "null" type and no type arrays: nullable is the way.
    const text = JSON.stringify(doc);
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs)) {
      expect(ref.startsWith('#/components/schemas/'), ref).toBe(true);
      expect(doc.components.schemas[ref.split('/').pop()!], ref).toBeTruthy();
    }
    expect(text).not.toMatch(/"type":\s*\[/);
    expect(text).not.toContain('"type":"null"');
  });

  it('every request sent and response received in a broad scenario validates against it', async () => {
    c.log.length = 0;
    await scenario();
    expect(c.log.length).toBeGreaterThan(60);
    const { problems, covered } = checkExchanges(doc, c.log, { ignoreUnknown404: true });
    expect(problems).toEqual([]);
    // Write-only values sent in the scenario never come back in any answer.
    const answers = JSON.stringify(c.log.map((ex) => ex.res.body));
    for (const secret of ['s3cr3t-tf', 'hooks.slack.com/services/x', 'email-pw-value', 'hook-signing-secret', 'helm-repo-password']) expect(answers).not.toContain(secret);
    expect(CRUD_OPERATIONS.filter((op) => !covered.has(op))).toEqual([]);
    // The list above is the document's, not a wish list.
    const documented = new Set(Object.entries<any>(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`)));
    expect(CRUD_OPERATIONS.filter((op) => !documented.has(op))).toEqual([]);
  });
});

