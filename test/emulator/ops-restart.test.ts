/**
 * Operations survive an emulator restart with --data: an in-flight deployment is resumed from
 * `state.operations`, and transitions that fell due while the emulator was down are caught up
 * with the times they were due.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { createApp, isTerminal, settle, watchStates } from './ops-helpers.js';

let dir: string;
const open: Client[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'driftless-ops-'));
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.em.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A clock the test moves by hand, shared by both lives of the emulator. */
function manualClock(): { now(): Date; advance(ms: number): void; ms: number } {
  const clock = {
    ms: Date.now(),
    now: () => new Date(clock.ms),
    advance(ms: number) {
      clock.ms += ms;
    },
  };
  return clock;
}

async function start(dataFile: string, deployDurationMs: number, clock: { now(): Date }): Promise<Client> {
  const c = await startClient({ dataFile, deployDurationMs, clock });
  open.push(c);
  return c;
}

async function stop(c: Client): Promise<void> {
  open.splice(open.indexOf(c), 1);
  await c.em.close();
}

async function appInNewEnvironment(c: Client): Promise<{ envId: string; appId: string }> {
  const project = (await c.post(`/organization/${c.em.organizationId}/project`, { name: 'persisted' })).body;
  const cluster = Object.values(c.em.state.clusters)[0];
  const env = (await c.post(`/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: cluster.id })).body;
  const app = await createApp(c, env.id, 'api');
  return { envId: env.id, appId: app.id };
}

test('a deployment in flight when the emulator stops carries on after a restart with the same --data file', async () => {
  const dataFile = join(dir, 'state.json');
  const clock = manualClock();
  const first = await start(dataFile, 100, clock);
  const { envId, appId } = await appInNewEnvironment(first);
  const secret = (await first.post(`/environment/${envId}/secret`, { key: 'DB_PASSWORD', value: 'kept-secret' })).body;
  const alias = (await first.post(`/application/${appId}/secret/${secret.id}/alias`, { key: 'PASSWORD' })).body;
  const r = await first.post(`/application/${appId}/deploy`, { git_commit_id: 'feedbeef' });
  expect(r.status).toBe(202);
  expect(r.body.state).toBe('DEPLOYMENT_QUEUED');
  const requestId = r.body.deployment_request_id;
  await stop(first);

  // The emulator's clock has not moved: the deployment is exactly where it was.
  const second = await start(dataFile, 100, clock);
  expect(Object.keys(second.em.state.operations)).toHaveLength(1);
  expect((await second.get(`/application/${appId}/status`)).body.state).toBe('DEPLOYMENT_QUEUED');

  // Variables came back too, with their links (and still without their values).
  const vars = (await second.get(`/variable?parent_id=${appId}&scope=APPLICATION&is_secret=true`)).body.results as any[];
  expect(vars.find((v) => v.id === alias.id)).toMatchObject({ key: 'PASSWORD', variable_type: 'ALIAS', aliased_variable: { id: secret.id, key: 'DB_PASSWORD' } });
  expect(JSON.stringify(vars)).not.toContain('kept-secret');
  expect(second.em.state.secretValues[secret.id]).toBe('kept-secret');

  // Time passes: the resumed timers finish the same deployment (not a new one, not a lost one).
  clock.advance(1000);
  const seen = await watchStates(second, `/application/${appId}/status`, isTerminal);
  expect(seen.at(-1)).toBe('DEPLOYED');
  const full = ((await second.get(`/environment/${envId}/statuses`)).body.applications as any[])[0];
  expect(full).toMatchObject({ state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE', deployment_request_id: requestId });
  const history = (await second.get(`/environment/${envId}/deploymentHistoryV2`)).body.results;
  expect(history).toHaveLength(1);
  expect(history[0]).toMatchObject({ status: 'DEPLOYED', action_status: 'SUCCESS' });
  expect(history[0].stages[0].services[0].details.commit.git_commit_id).toBe('feedbeef');
  await settle(second);

  // And the finished state is itself durable.
  await stop(second);
  const third = await start(dataFile, 100, clock);
  expect(Object.keys(third.em.state.operations)).toHaveLength(0);
  expect((await third.get(`/application/${appId}/status`)).body.state).toBe('DEPLOYED');
  expect((await third.get(`/application/${appId}/deploymentHistoryV2`)).body.results[0].status).toBe('DEPLOYED');
});

test('transitions due while the emulator was down are caught up at start, stamped when they were due', async () => {
  const dataFile = join(dir, 'state.json');
  const clock = manualClock();
  const first = await start(dataFile, 100, clock);
  const { appId } = await appInNewEnvironment(first);
  const requestedAt = clock.ms;
  expect((await first.post(`/application/${appId}/deploy`, {})).status).toBe(202);
  await stop(first);

  clock.advance(60_000); // down for a minute, far longer than the deployment
  const second = await start(dataFile, 100, clock);
  // Caught up before the first request is served.
  expect(Object.keys(second.em.state.operations)).toHaveLength(0);
  expect((await second.get(`/application/${appId}/status`)).body.state).toBe('DEPLOYED');
  const log = (await second.get(`/application/${appId}/log`)).body.results as any[];
  const done = log.find((l) => l.message.includes('succeeded'));
  // Dated when it was due (the whole deployment takes 100 ms), not at the restart.
  expect(Date.parse(done.created_at)).toBe(requestedAt + 100);
});
