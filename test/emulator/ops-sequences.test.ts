/**
 * Exact state sequences, stepped with a clock the test holds: the emulator cannot move past a
 * phase boundary until the test advances its clock there, so every intermediate state is observed
 * deterministically, whatever the machine's load.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { createApp, createContainer, createDatabase, createEnvironment, sleep } from './ops-helpers.js';

const D = 200; // --deploy-duration: stop, restart and delete take D/2

const clock = {
  ms: Date.now(),
  now: () => new Date(clock.ms),
};

let c: Client;
let projectId: string;

beforeAll(async () => {
  c = await startClient({ deployDurationMs: D, failDeployGlob: 'broken-*', clock });
  projectId = (await c.post(`/organization/${c.em.organizationId}/project`, { name: 'sequences' })).body.id;
});
afterAll(async () => c.em.close());

async function stateOf(path: string): Promise<string | 404> {
  const r = await c.get(path);
  if (r.status === 404) return 404;
  expect(r.status).toBe(200);
  return r.body.state;
}

/** Moves the clock by `ms`, then waits for the emulator's timer to catch up and leave `from`. */
async function step(ms: number, path: string, from: string): Promise<string | 404> {
  clock.ms += ms;
  const end = Date.now() + 10_000;
  for (;;) {
    const s = await stateOf(path);
    if (s !== from) return s;
    if (Date.now() > end) throw new Error(`${path} stayed ${from}`);
    await sleep(5);
  }
}

describe('exact sequences', () => {
  test('application (built from git): DEPLOYMENT_QUEUED -> BUILDING -> DEPLOYING -> DEPLOYED', async () => {
    const env = await createEnvironment(c, projectId, 'git');
    const app = await createApp(c, env.id, 'api');
    const path = `/application/${app.id}/status`;
    const r = await c.post(`/application/${app.id}/deploy`, {});
    expect(r.body.state).toBe('DEPLOYMENT_QUEUED');
    expect(await stateOf(path)).toBe('DEPLOYMENT_QUEUED');
    expect(await step(0.1 * D, path, 'DEPLOYMENT_QUEUED')).toBe('BUILDING');
    expect(await step(0.4 * D, path, 'BUILDING')).toBe('DEPLOYING');
    expect(await step(0.5 * D, path, 'DEPLOYING')).toBe('DEPLOYED');
  });

  test('container failing (--fail-deploy): DEPLOYMENT_QUEUED -> DEPLOYING -> DEPLOYMENT_ERROR', async () => {
    const env = await createEnvironment(c, projectId, 'failing');
    const web = await createContainer(c, env.id, 'broken-web');
    const path = `/container/${web.id}/status`;
    expect((await c.post(`/container/${web.id}/deploy`, {})).body.state).toBe('DEPLOYMENT_QUEUED');
    expect(await step(0.2 * D, path, 'DEPLOYMENT_QUEUED')).toBe('DEPLOYING');
    expect(await step(0.8 * D, path, 'DEPLOYING')).toBe('DEPLOYMENT_ERROR');
  });

  test('application failing: DEPLOYMENT_QUEUED -> BUILDING -> BUILD_ERROR', async () => {
    const env = await createEnvironment(c, projectId, 'failing-build');
    const app = await createApp(c, env.id, 'broken-api');
    const path = `/application/${app.id}/status`;
    await c.post(`/application/${app.id}/deploy`, {});
    expect(await step(0.1 * D, path, 'DEPLOYMENT_QUEUED')).toBe('BUILDING');
    expect(await step(0.4 * D, path, 'BUILDING')).toBe('BUILD_ERROR');
  });

  test('delete: DELETE_QUEUED -> DELETING -> gone', async () => {
    const env = await createEnvironment(c, projectId, 'deleting');
    const web = await createContainer(c, env.id, 'web');
    const path = `/container/${web.id}/status`;
    expect((await c.del(`/container/${web.id}`)).status).toBe(204);
    expect(await stateOf(path)).toBe('DELETE_QUEUED');
    expect((await c.get(`/container/${web.id}`)).status).toBe(200);
    expect(await step(0.1 * (D / 2), path, 'DELETE_QUEUED')).toBe('DELETING');
    expect(await step(0.4 * (D / 2), path, 'DELETING')).toBe(404);
    expect((await c.get(`/container/${web.id}`)).status).toBe(404);
  });

  test('stage order: the second stage waits, queued, until the first is terminal', async () => {
    const env = await createEnvironment(c, projectId, 'staged');
    const db = await createDatabase(c, env.id, 'db');
    const app = await createApp(c, env.id, 'api');
    const apps = await c.post(`/environment/${env.id}/deploymentStage`, { name: 'apps' });
    expect((await c.put(`/deploymentStage/${apps.body.id}/service/${app.id}`, {})).status).toBe(200);
    expect((await c.post(`/environment/${env.id}/service/deploy`, { databases: [db.id], applications: [{ application_id: app.id }] })).status).toBe(202);
    const both = async () => {
      const st = (await c.get(`/environment/${env.id}/statuses`)).body;
      return [st.databases[0].state, st.applications[0].state];
    };
    expect(await both()).toEqual(['DEPLOYMENT_QUEUED', 'DEPLOYMENT_QUEUED']);
    expect(await step(0.2 * D, `/database/${db.id}/status`, 'DEPLOYMENT_QUEUED')).toBe('DEPLOYING');
    expect(await both()).toEqual(['DEPLOYING', 'DEPLOYMENT_QUEUED']);
    expect(await step(0.8 * D, `/database/${db.id}/status`, 'DEPLOYING')).toBe('DEPLOYED');
    // The database is done; the app's own work starts now, with its queue phase.
    expect(await both()).toEqual(['DEPLOYED', 'DEPLOYMENT_QUEUED']);
    expect((await c.get(`/environment/${env.id}/statuses`)).body.environment.state).toBe('DEPLOYMENT_QUEUED');
    expect(await step(0.1 * D, `/application/${app.id}/status`, 'DEPLOYMENT_QUEUED')).toBe('BUILDING');
    expect((await c.get(`/environment/${env.id}/statuses`)).body.environment.state).toBe('BUILDING');
    expect(await step(0.4 * D, `/application/${app.id}/status`, 'BUILDING')).toBe('DEPLOYING');
    expect(await step(0.5 * D, `/application/${app.id}/status`, 'DEPLOYING')).toBe('DEPLOYED');
    const env2 = (await c.get(`/environment/${env.id}/statuses`)).body.environment;
    expect(env2).toMatchObject({ state: 'DEPLOYED', last_deployment_state: 'DEPLOYED', total_deployment_duration_in_seconds: 0 });
  });

  test('an action on a busy service is a 409 until its operation is terminal', async () => {
    const env = await createEnvironment(c, projectId, 'busy');
    const app = await createApp(c, env.id, 'busy-api');
    const path = `/application/${app.id}/status`;
    expect((await c.post(`/application/${app.id}/deploy`, {})).status).toBe(202);
    // The clock is held: the deployment cannot finish while these requests run.
    const again = await c.post(`/application/${app.id}/deploy`, {});
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 409, error: 'Conflict' });
    expect(again.body.message).toMatch(/busy-api.*busy.*DEPLOY/);
    expect((await c.post(`/application/${app.id}/stop`, {})).status).toBe(409);
    expect((await c.post(`/application/${app.id}/restart-service`, {})).status).toBe(409);
    expect((await c.post(`/environment/${env.id}/service/deploy`, { applications: [{ application_id: app.id }] })).status).toBe(409);
    expect((await c.post(`/environment/${env.id}/service/delete`, { application_ids: [app.id] })).status).toBe(409);
    expect((await c.del(`/application/${app.id}`)).status).toBe(409);
    expect(await step(D, path, 'DEPLOYMENT_QUEUED')).toBe('DEPLOYED');
    expect((await c.post(`/application/${app.id}/redeploy`, {})).status).toBe(202);
  });
});
