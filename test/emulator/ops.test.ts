/**
 * Asynchronous operations through the real emulator over HTTP: state sequences, failures, stage
 * order, busy services, OUT_OF_DATE marking, billing refusal, deletion, histories and logs, database
 * clone and backups.
 *
 * Sequences are checked without timing assumptions: the states a poller sees must appear in the
 * documented order (it may miss some), the log records one line per state, and transitions are
 * stamped with the time they were due, so "stage 2 started after stage 1 ended" compares
 * timestamps, not wall clocks.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { createApp, createContainer, createDatabase, createEnvironment, isTerminal, registryId, settle, watchStates, world, type World } from './ops-helpers.js';

const DURATION = 80;

/** `seen` appears in `expected` in the same order (a poller may skip states, never reorder them). */
function expectInOrder(seen: string[], expected: string[]): void {
  let at = -1;
  for (const s of seen) {
    const i = expected.indexOf(s, at + 1);
    expect(i, `state ${s} out of order in ${seen.join(' -> ')} (expected order ${expected.join(' -> ')})`).toBeGreaterThan(at);
    at = i;
  }
}

const messages = async (c: Client, path: string) => ((await c.get(path)).body.results as any[]).map((l) => l.message as string);

let c: Client;
let w: World;

beforeAll(async () => {
  c = await startClient({ deployDurationMs: DURATION, failDeployGlob: 'broken-*' });
  w = await world(c);
});
afterAll(async () => c.em.close());

describe('deploy state sequences', () => {
  test('an application builds from git: DEPLOYMENT_QUEUED -> BUILDING -> DEPLOYING -> DEPLOYED, then UP_TO_DATE', async () => {
    const r = await c.post(`/application/${w.app.id}/deploy`, { git_commit_id: 'a1b2c3d4e5f6' });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: w.app.id, application_id: w.app.id, state: 'DEPLOYMENT_QUEUED', status: 'DEPLOYMENT_QUEUED', service_deployment_status: 'NEVER_DEPLOYED' });
    expect(r.body.status_details).toEqual({ action: 'DEPLOY', status: 'QUEUED', sub_action: 'NONE' });
    expect(typeof r.body.deployment_request_id).toBe('string');

    const seen = await watchStates(c, `/application/${w.app.id}/status`, isTerminal);
    expectInOrder(seen, ['DEPLOYMENT_QUEUED', 'BUILDING', 'DEPLOYING', 'DEPLOYED']);
    const status = (await c.get(`/application/${w.app.id}/status`)).body;
    expect(status).toMatchObject({ id: w.app.id, state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE' });
    expect(typeof status.last_deployment_date).toBe('string');

    const log = await messages(c, `/application/${w.app.id}/log`);
    const order = ['queued', 'Cloning', 'Building image', 'Deploying', 'succeeded'].map((m) => log.findIndex((l) => l.includes(m)));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(log.find((l) => l.startsWith('Cloning'))).toContain('a1b2c3d4e5f6');

    const history = (await c.get(`/application/${w.app.id}/deploymentHistoryV2`)).body;
    expect(history.results).toHaveLength(1);
    expect(history.results[0]).toMatchObject({ status: 'DEPLOYED', identifier: { service_id: w.app.id, service_type: 'APPLICATION' }, status_details: { action: 'DEPLOY', status: 'SUCCESS' } });
    expect(history.results[0].details.commit.git_commit_id).toBe('a1b2c3d4e5f6');
  });

  test('redeploy deploys again the commit the application runs, not the branch head', async () => {
    expect((await c.post(`/application/${w.app.id}/redeploy`)).status).toBe(202);
    await watchStates(c, `/application/${w.app.id}/status`, isTerminal);
    const history = (await c.get(`/application/${w.app.id}/deploymentHistoryV2`)).body.results;
    expect(history).toHaveLength(2);
    expect(history[0].details.commit.git_commit_id).toBe('a1b2c3d4e5f6');
  });

  test('a container has no build step, and its image_tag is what gets deployed', async () => {
    const r = await c.post(`/container/${w.container.id}/deploy`, { image_tag: '1.26' });
    expect(r.status).toBe(202);
    const seen = await watchStates(c, `/container/${w.container.id}/status`, isTerminal);
    expect(seen).not.toContain('BUILDING');
    expectInOrder(seen, ['DEPLOYMENT_QUEUED', 'DEPLOYING', 'DEPLOYED']);
    expect((await messages(c, `/container/${w.container.id}/log`)).some((l) => l.includes('Building'))).toBe(false);
    expect((await c.get(`/container/${w.container.id}`)).body.tag).toBe('1.26');
  });

  test('--fail-deploy: a git build ends in BUILD_ERROR, an image deployment in DEPLOYMENT_ERROR; neither becomes UP_TO_DATE', async () => {
    const app = await createApp(c, w.envId, 'broken-api');
    const web = await createContainer(c, w.envId, 'broken-web');
    expect((await c.post(`/application/${app.id}/deploy`, {})).status).toBe(202);
    expect((await c.post(`/container/${web.id}/deploy`, {})).status).toBe(202);
    const appSeen = await watchStates(c, `/application/${app.id}/status`, isTerminal);
    expectInOrder(appSeen, ['DEPLOYMENT_QUEUED', 'BUILDING', 'BUILD_ERROR']);
    const webSeen = await watchStates(c, `/container/${web.id}/status`, isTerminal);
    expectInOrder(webSeen, ['DEPLOYMENT_QUEUED', 'DEPLOYING', 'DEPLOYMENT_ERROR']);
    const st = (await c.get(`/container/${web.id}/status`)).body;
    expect(st).toMatchObject({ state: 'DEPLOYMENT_ERROR', service_deployment_status: 'NEVER_DEPLOYED', status_details: { action: 'DEPLOY', status: 'ERROR' } });
    expect((await messages(c, `/application/${app.id}/log`)).at(-1)).toMatch(/Build of broken-api failed/);
    const history = (await c.get(`/container/${web.id}/deploymentHistoryV2`)).body;
    expect(history.results[0].status).toBe('DEPLOYMENT_ERROR');
  });

  test('stop and restart go through their queued and running states', async () => {
    const stop = await c.post(`/container/${w.container.id}/stop`, {});
    expect(stop.status).toBe(202);
    expect(stop.body).toMatchObject({ state: 'STOP_QUEUED', status_details: { action: 'STOP', status: 'QUEUED' } });
    expectInOrder(await watchStates(c, `/container/${w.container.id}/status`, isTerminal), ['STOP_QUEUED', 'STOPPING', 'STOPPED']);
    const restart = await c.post(`/container/${w.container.id}/restart-service`, {});
    expect(restart.status).toBe(202);
    expect(restart.body.state).toBe('RESTART_QUEUED');
    expectInOrder(await watchStates(c, `/container/${w.container.id}/status`, isTerminal), ['RESTART_QUEUED', 'RESTARTING', 'RESTARTED']);
  });

  test('a database deploys with no body and has its own deployment history', async () => {
    const r = await c.post(`/database/${w.db.id}/deploy`);
    expect(r.status).toBe(202);
    await watchStates(c, `/database/${w.db.id}/status`, isTerminal);
    const h = await c.get(`/database/${w.db.id}/deploymentHistoryV2`);
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ page: 1, page_size: 20 });
    expect(h.body.results[0]).toMatchObject({ status: 'DEPLOYED', identifier: { service_id: w.db.id, service_type: 'DATABASE' } });
  });
});

describe('scopes', () => {
  test('deploy needs the DEPLOY scope (or ADMIN); deleting needs WRITE', async () => {
    const { READ, DEPLOY, WRITE } = c.em.tokens;
    expect((await c.post(`/database/${w.db.id}/deploy`, undefined, READ)).status).toBe(403);
    expect((await c.post(`/database/${w.db.id}/deploy`, undefined, WRITE)).status).toBe(403);
    expect((await c.post(`/database/${w.db.id}/deploy`, undefined, DEPLOY)).status).toBe(202);
    await settle(c);
    expect((await c.post(`/environment/${w.envId}/service/delete`, { database_ids: [w.db.id] }, DEPLOY)).status).toBe(403);
    expect((await c.get(`/environment/${w.envId}/statuses`, READ)).status).toBe(200);
  });
});

describe('deployment status', () => {
  test('a configuration change of a deployed service makes it OUT_OF_DATE; a redeploy makes it UP_TO_DATE again', async () => {
    const web = await createContainer(c, w.envId, 'configured');
    expect((await c.get(`/container/${web.id}/status`)).body.service_deployment_status).toBe('NEVER_DEPLOYED');
    await c.post(`/container/${web.id}/deploy`, {});
    await watchStates(c, `/container/${web.id}/status`, isTerminal);
    expect((await c.get(`/container/${web.id}/status`)).body.service_deployment_status).toBe('UP_TO_DATE');
    const current = (await c.get(`/container/${web.id}`)).body;
    const put = await c.put(`/container/${web.id}`, { name: current.name, registry_id: registryId(c), image_name: current.image_name, tag: current.tag, cpu: 750 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await c.get(`/container/${web.id}/status`)).body.service_deployment_status).toBe('OUT_OF_DATE');
    const statuses = (await c.get(`/environment/${w.envId}/statuses`)).body;
    expect(statuses.environment.deployment_status).toBe('OUT_OF_DATE');
    await c.post(`/container/${web.id}/redeploy`, {});
    await watchStates(c, `/container/${web.id}/status`, isTerminal);
    expect((await c.get(`/container/${web.id}/status`)).body.service_deployment_status).toBe('UP_TO_DATE');
  });

  test('GET /environment/{id}/statuses returns the environment and every service status by kind in one call', async () => {
    const r = await c.get(`/environment/${w.envId}/statuses`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['applications', 'containers', 'databases', 'environment', 'helms', 'jobs', 'terraforms']);
    expect(r.body.environment).toMatchObject({ id: w.envId, origin: 'API' });
    expect(r.body.applications.map((s: any) => s.id)).toContain(w.app.id);
    expect(r.body.databases.map((s: any) => s.id)).toEqual([w.db.id]);
    expect(r.body.helms.map((s: any) => s.id)).toEqual([w.helm.id]);
    for (const s of r.body.containers) expect(s).toHaveProperty('service_deployment_status');
    expect((await c.get('/environment/00000000-0000-4000-8000-000000000000/statuses')).status).toBe(404);
  });
});

describe('batch deploys and deployment stages', () => {
  async function stagedEnvironment(name: string, dbName: string) {
    const env = await createEnvironment(c, w.projectId, name);
    const db = await createDatabase(c, env.id, dbName);
    const app = await createApp(c, env.id, 'api');
    const stages = (await c.get(`/environment/${env.id}/deploymentStage`)).body.results as any[];
    const second = await c.post(`/environment/${env.id}/deploymentStage`, { name: 'apps' });
    expect(second.status).toBe(200);
    expect((await c.put(`/deploymentStage/${second.body.id}/service/${app.id}`, {})).status).toBe(200);
    return { env, db, app, firstStage: stages[0], secondStage: second.body };
  }

  test('services deploy stage by stage: the second stage starts only once the first is terminal', async () => {
    const { env, db, app, firstStage, secondStage } = await stagedEnvironment('staged', 'main-db');
    const r = await c.post(`/environment/${env.id}/service/deploy`, { applications: [{ application_id: app.id, git_commit_id: 'cafe1234' }], databases: [db.id] });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: env.id });
    await settle(c);

    const dbLog = (await c.get(`/database/${db.id}/log`)).body.results as any[];
    const appLog = (await c.get(`/application/${app.id}/log`)).body.results as any[];
    const dbDone = dbLog.find((l) => l.message.includes('succeeded')).created_at;
    const appQueued = appLog.find((l) => l.message.includes('queued')).created_at;
    const appBuild = appLog.find((l) => l.message.startsWith('Cloning')).created_at;
    // Queued with the request, built only after the database stage ended (timestamps are the
    // times the transitions were due, so this holds whatever the machine's load).
    expect(Date.parse(appQueued)).toBeLessThan(Date.parse(dbDone));
    expect(Date.parse(appBuild)).toBeGreaterThanOrEqual(Date.parse(dbDone));

    const history = (await c.get(`/environment/${env.id}/deploymentHistoryV2`)).body;
    expect(history.results).toHaveLength(1);
    const entry = history.results[0];
    expect(entry).toMatchObject({ status: 'DEPLOYED', trigger_action: 'DEPLOY', action_status: 'SUCCESS', identifier: { environment_id: env.id } });
    expect(entry.stages.map((s: any) => s.name)).toEqual([firstStage.name, secondStage.name]);
    expect(entry.stages.map((s: any) => s.status)).toEqual(['DONE', 'DONE']);
    expect(entry.stages[0].services.map((s: any) => s.identifier.service_id)).toEqual([db.id]);
    expect(entry.stages[1].services.map((s: any) => s.identifier.service_id)).toEqual([app.id]);
    expect(entry.stages[1].services[0].details.commit.git_commit_id).toBe('cafe1234');
    const statuses = (await c.get(`/environment/${env.id}/statuses`)).body;
    expect(statuses.environment).toMatchObject({ state: 'DEPLOYED', last_deployment_state: 'DEPLOYED', deployment_status: 'UP_TO_DATE', last_deployment_id: entry.identifier.execution_id });
  });

  test('when a stage fails, later stages are CANCELED', async () => {
    const { env, db, app } = await stagedEnvironment('staged-failing', 'broken-db');
    expect((await c.post(`/environment/${env.id}/service/deploy`, { applications: [{ application_id: app.id }], databases: [db.id] })).status).toBe(202);
    await settle(c);
    expect((await c.get(`/database/${db.id}/status`)).body.state).toBe('DEPLOYMENT_ERROR');
    const appStatus = ((await c.get(`/environment/${env.id}/statuses`)).body.applications as any[]).find((s) => s.id === app.id);
    expect(appStatus).toMatchObject({ state: 'CANCELED', service_deployment_status: 'NEVER_DEPLOYED', status_details: { status: 'CANCELED' } });
    const entry = (await c.get(`/environment/${env.id}/deploymentHistoryV2`)).body.results[0];
    expect(entry.status).toBe('DEPLOYMENT_ERROR');
    expect(entry.action_status).toBe('ERROR');
    expect(entry.stages[0].status).toBe('ERROR');
    expect(entry.stages[1].status).toBe('CANCELED');
    expect((await messages(c, `/application/${app.id}/log`)).some((l) => l.includes('canceled'))).toBe(true);
  });

  test('batch requests are checked: unknown, foreign or duplicate ids and empty batches are 400s naming the field', async () => {
    const other = await createEnvironment(c, w.projectId, 'elsewhere');
    const foreign = await createApp(c, other.id, 'foreign');
    const unknown = await c.post(`/environment/${w.envId}/service/deploy`, { applications: [{ application_id: '00000000-0000-4000-8000-000000000000' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('applications[0].application_id');
    const wrongEnv = await c.post(`/environment/${w.envId}/service/deploy`, { applications: [{ application_id: foreign.id }] });
    expect(wrongEnv.status).toBe(400);
    expect(wrongEnv.body.message).toMatch(/not in environment/);
    const wrongKind = await c.post(`/environment/${w.envId}/service/deploy`, { containers: [{ id: w.app.id }] });
    expect(wrongKind.status).toBe(400);
    const dup = await c.post(`/environment/${w.envId}/service/deploy`, { databases: [w.db.id, w.db.id] });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toMatch(/twice/);
    expect((await c.post(`/environment/${w.envId}/service/deploy`, {})).status).toBe(400);
    const bothJob = await c.post(`/environment/${w.envId}/service/deploy`, { jobs: [{ id: w.job.id, image_tag: '2', git_commit_id: 'abc' }] });
    expect(bothJob.status).toBe(400);
    expect(Object.keys(c.em.state.operations)).toHaveLength(0);
  });
});

describe('job, helm and terraform deploy rules', () => {
  test('a job deploy with both image_tag and git_commit_id is refused', async () => {
    const r = await c.post(`/job/${w.job.id}/deploy`, { image_tag: '2.0', git_commit_id: 'abc123' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/image_tag.*git_commit_id.*cannot both be set/);
    const wrongSource = await c.post(`/job/${w.job.id}/deploy`, { git_commit_id: 'abc123' });
    expect(wrongSource.status).toBe(400);
    expect(wrongSource.body.message).toContain('git_commit_id');
  });

  test('a forceEvent the job lacks does not deploy it; one it has does', async () => {
    const before = (await c.get(`/job/${w.job.id}/status`)).body;
    const lacking = await c.post(`/job/${w.job.id}/deploy?forceEvent=CRON`, {});
    expect(lacking.status).toBe(200);
    expect(lacking.body.state).toBe(before.state);
    expect((await c.get(`/job/${w.job.id}/deploymentHistoryV2`)).body.results).toHaveLength(0);
    expect((await c.post(`/job/${w.job.id}/deploy?forceEvent=NOPE`, {})).status).toBe(400);
    const has = await c.post(`/job/${w.job.id}/deploy?forceEvent=START`, { image_tag: '2.0' });
    expect(has.status).toBe(202);
    expect(has.body.state).toBe('DEPLOYMENT_QUEUED');
    await settle(c);
    expect((await c.get(`/job/${w.job.id}/deploymentHistoryV2`)).body.results).toHaveLength(1);
  });

  test('terraform deploy actions map to sub-actions; helm takes a chart version', async () => {
    const tf = await c.post(`/terraform/${w.terraform.id}/deploy`, { id: w.terraform.id, action: 'PLAN' });
    expect(tf.status).toBe(202);
    expect(tf.body.status_details).toEqual({ action: 'DEPLOY', status: 'QUEUED', sub_action: 'TERRAFORM_PLAN_ONLY' });
    await settle(c);
    // The seed's body: id and action may be null (a full plan and apply).
    const nulls = await c.post(`/terraform/${w.terraform.id}/deploy`, { id: null, git_commit_id: 'abc', action: null });
    expect(nulls.status).toBe(202);
    expect(nulls.body.status_details.sub_action).toBe('TERRAFORM_PLAN_AND_APPLY');
    const otherId = await c.post(`/terraform/${w.terraform.id}/deploy`, { id: w.app.id });
    expect(otherId.status).toBe(400);
    const badAction = await c.post(`/terraform/${w.terraform.id}/deploy`, { action: 'DESTROY_EVERYTHING' });
    expect(badAction.status).toBe(400);
    const helm = await c.post(`/helm/${w.helm.id}/deploy`, { chart_version: '18.1.0' });
    expect(helm.status).toBe(202);
    await settle(c);
    expect((await c.get(`/terraform/${w.terraform.id}/status`)).body.state).toBe('DEPLOYED');
    expect((await c.get(`/helm/${w.helm.id}/status`)).body.state).toBe('DEPLOYED');
  });
});

describe('billing restriction', () => {
  const setRestriction = (value: string | null) => {
    c.em.state.organization = { ...c.em.state.organization, billing_deployment_restriction: value };
  };
  const setDemo = (clusterId: string, isDemo: boolean) => {
    c.em.state.clusters[clusterId] = { ...c.em.state.clusters[clusterId], is_demo: isDemo };
  };

  test('NO_CREDIT_CARD refuses deployments on managed clusters with 402, allows demo clusters; other values block everything', async () => {
    const web = await createContainer(c, w.envId, 'billing-web');
    try {
      setRestriction('NO_CREDIT_CARD');
      const refused = await c.post(`/container/${web.id}/deploy`, {});
      expect(refused.status).toBe(402);
      expect(refused.body).toMatchObject({ status: 402, error: 'Payment Required' });
      expect(refused.body.message).toMatch(/NO_CREDIT_CARD/);
      expect((await c.post(`/environment/${w.envId}/service/deploy`, { containers: [{ id: web.id }] })).status).toBe(402);
      expect((await c.get(`/container/${web.id}/status`)).body.state).toBe('READY');
      // Stopping is not a deployment.
      expect((await c.post(`/container/${web.id}/stop`, {})).status).toBe(202);
      await settle(c);

      setDemo(w.clusterId, true);
      expect((await c.post(`/container/${web.id}/deploy`, {})).status).toBe(202);
      await settle(c);

      setRestriction('PAYMENT_OVERDUE');
      const blocked = await c.post(`/container/${web.id}/deploy`, {});
      expect(blocked.status).toBe(402);
      expect(blocked.body.message).toMatch(/PAYMENT_OVERDUE/);
    } finally {
      setRestriction(null);
      setDemo(w.clusterId, false);
    }
    expect((await c.post(`/container/${web.id}/deploy`, {})).status).toBe(202);
    await settle(c);
  });
});

describe('deletion', () => {
  test('POST /environment/{id}/service/delete removes the services in the background, with their stage membership and variables', async () => {
    const app = await createApp(c, w.envId, 'doomed');
    const v = await c.post(`/application/${app.id}/environmentVariable`, { key: 'DOOMED', value: '1' });
    expect(v.status).toBe(201);
    const r = await c.post(`/environment/${w.envId}/service/delete`, { application_ids: [app.id] });
    expect(r.status).toBe(200);
    expect(r.body).toBeUndefined();
    await settle(c);
    expect((await c.get(`/application/${app.id}`)).status).toBe(404);
    expect((await c.get(`/application/${app.id}/status`)).status).toBe(404);
    const stages = (await c.get(`/environment/${w.envId}/deploymentStage`)).body.results as any[];
    expect(stages.some((st) => st.services.some((m: any) => m.service_id === app.id))).toBe(false);
    expect(c.em.state.variables[v.body.id]).toBeUndefined();
    const envHistory = (await c.get(`/environment/${w.envId}/deploymentHistoryV2`)).body.results[0];
    expect(envHistory).toMatchObject({ trigger_action: 'DELETE', status: 'DELETED' });
    expect(envHistory.stages[0].services[0].identifier.service_id).toBe(app.id);
  });

  test('DELETE /container/{id} answers 204 and deletes asynchronously', async () => {
    const web = await createContainer(c, w.envId, 'short-lived');
    expect((await c.del(`/container/${web.id}`)).status).toBe(204);
    // (The exact DELETE_QUEUED -> DELETING -> gone sequence is in ops-sequences.test.ts.)
    await settle(c);
    expect((await c.get(`/container/${web.id}`)).status).toBe(404);
  });
});

describe('histories and logs', () => {
  test('deployment history pages with pageSize and startId, newest first', async () => {
    const web = await createContainer(c, w.envId, 'paged');
    for (let i = 1; i <= 5; i++) {
      expect((await c.post(`/container/${web.id}/deploy`, { image_tag: `v${i}` })).status).toBe(202);
      await settle(c);
    }
    const all = (await c.get(`/container/${web.id}/deploymentHistoryV2`)).body;
    expect(all.page_size).toBe(20);
    expect(all.results.map((e: any) => e.details.tag)).toEqual(['v5', 'v4', 'v3', 'v2', 'v1']);
    const p1 = (await c.get(`/container/${web.id}/deploymentHistoryV2?pageSize=2`)).body;
    expect(p1).toMatchObject({ page: 1, page_size: 2 });
    expect(p1.results.map((e: any) => e.details.tag)).toEqual(['v5', 'v4']);
    const p2 = (await c.get(`/container/${web.id}/deploymentHistoryV2?pageSize=2&startId=${p1.results[1].identifier.execution_id}`)).body;
    expect(p2).toMatchObject({ page: 2, page_size: 2 });
    expect(p2.results.map((e: any) => e.details.tag)).toEqual(['v3', 'v2']);
    const p3 = (await c.get(`/container/${web.id}/deploymentHistoryV2?pageSize=2&startId=${p2.results[1].identifier.execution_id}`)).body;
    expect(p3.results.map((e: any) => e.details.tag)).toEqual(['v1']);
    const bad = await c.get(`/container/${web.id}/deploymentHistoryV2?startId=nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('startId');
    expect((await c.get(`/container/${web.id}/deploymentHistoryV2?pageSize=0`)).status).toBe(400);
    const env = (await c.get(`/environment/${w.envId}/deploymentHistoryV2?pageSize=3`)).body;
    expect(env.results).toHaveLength(3);
    expect(env.results[0].stages[0].services[0].identifier.service_id).toBe(web.id);
  });

  test('the log endpoint returns the deployment\'s lines and honours tail', async () => {
    const all = (await c.get(`/application/${w.app.id}/log`)).body.results as any[];
    expect(all.length).toBeGreaterThan(3);
    for (const l of all) expect(Object.keys(l).sort()).toEqual(expect.arrayContaining(['created_at', 'id', 'message']));
    const last2 = (await c.get(`/application/${w.app.id}/log?tail=2`)).body.results as any[];
    expect(last2.map((l) => l.id)).toEqual(all.slice(-2).map((l) => l.id));
    expect((await c.get(`/application/${w.app.id}/log?tail=0`)).body.results).toEqual([]);
    const bad = await c.get(`/application/${w.app.id}/log?tail=-1`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('tail');
  });
});

describe('database clone and backups', () => {
  test('a clone is a new database with the same configuration in the target environment', async () => {
    const target = await createEnvironment(c, w.projectId, 'clone-target', 'staging-cluster');
    const source = (await c.get(`/database/${w.db.id}`)).body;
    const r = await c.post(`/database/${w.db.id}/clone`, { name: 'db-copy', environment_id: target.id });
    expect(r.status).toBe(202);
    expect(r.body.id).not.toBe(w.db.id);
    expect(r.body).toMatchObject({ name: 'db-copy', environment: { id: target.id }, type: source.type, version: source.version, mode: source.mode, storage: source.storage });
    const listed = (await c.get(`/environment/${target.id}/services`)).body.results as any[];
    expect(listed.map((s) => s.id)).toContain(r.body.id);
    expect((await c.get(`/database/${r.body.id}/status`)).body.service_deployment_status).toBe('NEVER_DEPLOYED');
    expect((await c.post(`/database/${w.db.id}/clone`, { name: 'DB-COPY', environment_id: target.id })).status).toBe(409);
    const missingEnv = await c.post(`/database/${w.db.id}/clone`, { name: 'x', environment_id: '00000000-0000-4000-8000-000000000000' });
    expect(missingEnv.status).toBe(400);
    expect(missingEnv.body.message).toContain('environment_id');
    expect((await c.post(`/database/${w.db.id}/clone`, { name: 'no-env' })).status).toBe(400);
  });

  test('backups are records that can be listed, newest first', async () => {
    const fresh = await createDatabase(c, w.envId, 'never-deployed');
    const early = await c.post(`/database/${fresh.id}/backup`, { name: 'b0', message: 'too early' });
    expect(early.status).toBe(400);
    expect(early.body.message).toMatch(/never been deployed/);
    const b1 = await c.post(`/database/${w.db.id}/backup`, { name: 'nightly-1', message: 'before migration' });
    expect(b1.status).toBe(201);
    expect(b1.body).toMatchObject({ name: 'nightly-1', message: 'before migration' });
    expect(b1.body.status).toMatchObject({ state: 'DEPLOYED' });
    const b2 = await c.post(`/database/${w.db.id}/backup`, { name: 'nightly-2', message: 'after migration' });
    expect(b2.status).toBe(201);
    const list = (await c.get(`/database/${w.db.id}/backup`)).body;
    expect(list.results.map((b: any) => b.name)).toEqual(['nightly-2', 'nightly-1']);
    expect((await c.get(`/database/${w.db.id}/backup?pageSize=1&startId=${b2.body.id}`)).body.results.map((b: any) => b.name)).toEqual(['nightly-1']);
    expect((await c.post(`/database/${w.db.id}/backup`, { name: 'no-message' })).status).toBe(400);
    expect((await c.get(`/database/${w.app.id}/backup`)).status).toBe(404);
  });
});

describe('environment-wide actions', () => {
  test('deploy and stop a whole environment', async () => {
    const env = await createEnvironment(c, w.projectId, 'whole');
    const a = await createApp(c, env.id, 'a');
    const b = await createContainer(c, env.id, 'b');
    const r = await c.post(`/environment/${env.id}/deploy`, {});
    expect(r.status).toBe(202);
    await settle(c);
    const st = (await c.get(`/environment/${env.id}/statuses`)).body;
    expect([...st.applications, ...st.containers].map((s: any) => s.state)).toEqual(['DEPLOYED', 'DEPLOYED']);
    expect(st.environment.state).toBe('DEPLOYED');
    expect((await c.post(`/environment/${env.id}/stop`, {})).status).toBe(202);
    await settle(c);
    expect((await c.get(`/application/${a.id}/status`)).body.state).toBe('STOPPED');
    expect((await c.get(`/container/${b.id}/status`)).body.state).toBe('STOPPED');
    expect((await c.get(`/environment/${env.id}/status`)).body.state).toBe('STOPPED');
  });
});
