/**
 * Contract test of the variables, operations and webhook-delivery routes: every request this
 * scenario sends and every response it gets (errors included) validates against the emulator's
 * own GET /openapi.json.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webhookDispatcher } from '../../src/emulator/webhooks/index.js';
import { startClient, type Client } from './helpers.js';
import { checkExchanges } from './contract-check.js';
import { createEnvironment, settle, world } from './ops-helpers.js';

let c: Client;
let doc: any;

beforeAll(async () => {
  c = await startClient({ deployDurationMs: 30, failDeployGlob: 'broken-*' });
  webhookDispatcher(c.em.ctx).config = { maxAttempts: 1, baseDelayMs: 1, timeoutMs: 500 };
  doc = (await c.get('/openapi.json')).body;
});
afterAll(async () => c.em.close());

async function scenario(): Promise<void> {
  const w = await world(c);
  const org = w.orgId;
  // Variables, unified and legacy, with their errors.
  const pv = (await c.post('/variable', { key: 'P', value: '1', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: w.projectId })).body;
  const sec = (await c.post('/variable', { key: 'S', value: 'x', is_secret: true, variable_scope: 'ENVIRONMENT', variable_parent_id: w.envId })).body;
  await c.post('/variable', { key: 'F', value: '{}', mount_path: '/etc/f.json', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id });
  await c.post('/variable', { key: 'P', value: '1', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: w.projectId });
  await c.post('/variable', { key: 'X', value: '1', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.db.id });
  await c.get(`/variable?parent_id=${w.app.id}&scope=APPLICATION`);
  await c.get(`/variable?parent_id=${w.envId}&scope=ENVIRONMENT&is_secret=true`);
  await c.put(`/variable/${pv.id}`, { key: 'P', value: '2', description: 'd' });
  await c.put(`/variable/${pv.id}`, { key: 'P', is_secret: true });
  const alias = (await c.post(`/variable/${pv.id}/alias`, { key: 'P_ALIAS', alias_scope: 'ENVIRONMENT', alias_parent_id: w.envId })).body;
  await c.post(`/variable/${alias.id}/alias`, { key: 'DEEP', alias_scope: 'APPLICATION', alias_parent_id: w.app.id });
  await c.post(`/variable/${sec.id}/override`, { value: 'y', override_scope: 'CONTAINER', override_parent_id: w.container.id });
  await c.get(`/variable?parent_id=${w.container.id}&scope=CONTAINER`);
  const ev = (await c.post(`/application/${w.app.id}/environmentVariable`, { key: 'E', value: 'v' })).body;
  await c.get(`/application/${w.app.id}/environmentVariable`);
  await c.put(`/application/${w.app.id}/environmentVariable/${ev.id}`, { key: 'E', value: 'w' });
  const ps = (await c.post(`/project/${w.projectId}/secret`, { key: 'PS', value: 'v' })).body;
  await c.get(`/job/${w.job.id}/secret`);
  await c.post(`/job/${w.job.id}/secret/${ps.id}/override`, { value: 'z' });
  await c.post(`/environment/${w.envId}/secret/${ps.id}/alias`, { key: 'PS_ALIAS' });
  const penv = (await c.post(`/project/${w.projectId}/environmentVariable`, { key: 'PE', value: 'v' })).body;
  await c.post(`/container/${w.container.id}/environmentVariable/${penv.id}/override`, { value: 'o' });
  await c.del(`/application/${w.app.id}/environmentVariable/${ev.id}`);
  await c.del(`/variable/${pv.id}`);
  // Variable import, unified and legacy, a secret (no value in the answer), an overwrite and a refusal.
  const importPath = `/variable/import?service_id=${w.app.id}&service_type=APPLICATION`;
  await c.post(importPath, { overwrite: false, vars: [{ name: 'I', value: 'i', scope: 'APPLICATION', is_secret: false }, { name: 'IS', value: 's', scope: 'ENVIRONMENT', is_secret: true }] });
  await c.post(importPath, { overwrite: true, vars: [{ name: 'I', value: 'j', scope: 'APPLICATION', is_secret: false }, { name: 'IS', value: 't', scope: 'ENVIRONMENT', is_secret: false }] });
  await c.post(`/variable/import?service_id=${w.helm.id}&service_type=HELM`, { overwrite: false, vars: [{ name: 'B', value: 'b', scope: 'BUILT_IN', is_secret: false }] });
  await c.post(`/container/${w.container.id}/environmentVariable/import`, { overwrite: false, vars: [{ name: 'CI', value: 'c', scope: 'PROJECT', is_secret: false }] });
  // Webhook deliveries.
  const hook = (await c.post(`/organization/${org}/webhook`, { target_url: 'http://127.0.0.1:9/nowhere', events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_FAILED'] })).body;
  // Actions, statuses, histories, logs.
  await c.post(`/application/${w.app.id}/deploy`, { git_commit_id: 'abc' });
  await c.post(`/application/${w.app.id}/deploy`, {});
  await c.post(`/container/${w.container.id}/deploy`, { image_tag: '2' });
  await c.post(`/job/${w.job.id}/deploy?forceEvent=CRON`, {});
  await c.post(`/job/${w.job.id}/deploy`, { image_tag: '2', git_commit_id: 'x' });
  await c.post(`/terraform/${w.terraform.id}/deploy`, { action: 'PLAN' });
  await c.post(`/helm/${w.helm.id}/deploy`, { chart_version: '1.0.0' });
  await c.get(`/application/${w.app.id}/status`);
  await c.get(`/container/${w.container.id}/status`);
  await c.get(`/environment/${w.envId}/statuses`);
  await settle(c);
  await c.post(`/environment/${w.envId}/service/deploy`, { databases: [w.db.id], containers: [{ id: w.container.id }] });
  await c.post(`/environment/${w.envId}/service/deploy`, {});
  await settle(c);
  await c.post(`/container/${w.container.id}/stop`);
  await c.post(`/database/${w.db.id}/restart-service`);
  await settle(c);
  await c.post(`/environment/${w.envId}/service/restart-service`, { container_ids: [w.container.id] });
  await settle(c);
  await c.get(`/environment/${w.envId}/status`);
  await c.get(`/environment/${w.envId}/deploymentHistoryV2?pageSize=2`);
  await c.get(`/database/${w.db.id}/deploymentHistoryV2`);
  await c.get(`/application/${w.app.id}/deploymentHistoryV2?startId=missing`);
  await c.get(`/application/${w.app.id}/log?tail=5`);
  await c.get(`/organization/${org}/webhook/${hook.id}/event`);
  // Database clone and backups.
  const other = await createEnvironment(c, w.projectId, 'contract-clone');
  await c.post(`/database/${w.db.id}/clone`, { name: 'copy', environment_id: other.id });
  await c.post(`/database/${w.db.id}/backup`, { name: 'b', message: 'm' });
  await c.get(`/database/${w.db.id}/backup`);
  // Billing refusal, busy service, deletion.
  c.em.state.organization = { ...c.em.state.organization, billing_deployment_restriction: 'NO_CREDIT_CARD' };
  await c.post(`/container/${w.container.id}/deploy`, {});
  c.em.state.organization = { ...c.em.state.organization, billing_deployment_restriction: null };
  await c.post(`/container/${w.container.id}/deploy`, {});
  await c.post(`/container/${w.container.id}/redeploy`, {});
  await settle(c);
  await c.post(`/environment/${w.envId}/service/stop`, { helm_ids: [w.helm.id] });
  await c.post(`/environment/${w.envId}/service/delete`, { terraform_ids: [w.terraform.id] });
  await c.post(`/environment/${w.envId}/deploy`);
  await settle(c);
  await c.post(`/environment/${w.envId}/stop`);
  await settle(c);
}

it('every request sent and response received by the ops and variables routes validates against /openapi.json', async () => {
  c.log.length = 0;
  await scenario();
  const { problems, statuses, covered } = checkExchanges(doc, c.log);
  expect(problems).toEqual([]);
  for (const op of ['POST /variable/import', 'POST /container/{containerId}/environmentVariable/import']) expect(covered.has(op), op).toBe(true);
  // The scenario covers successes and the documented refusals.
  for (const s of [200, 201, 202, 204, 400, 402, 409]) expect(statuses.has(s), `status ${s} exercised`).toBe(true);
});


