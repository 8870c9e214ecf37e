/**
 * Every write through every route of the emulator records its audit event: one event per write
 * request (several for a batch operation's outcomes), with the right event type, target, sub-target,
 * project and environment, `origin` and `triggered_by`; deploy, stop, restart, redeploy and delete
 * triggers and their outcomes; and never a secret value. The last test reads the emulator's own
 * OpenAPI document: a write route that no scenario here exercises (and that is not listed as
 * recording nothing, with why) fails it, so a new route cannot escape the audit log unnoticed.
 *
 * And every write is checked against the refresh cache (test/support/list-staleness.ts): each list
 * it changed, directly or through a cascade of the API, must be one src/live/touched.ts makes stale
 * given the events it recorded; a route that changes a record of another list without the refresh
 * knowing fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client, type Res } from './helpers.js';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { portFromClient, type ApiPort } from '../../src/live/api-port.js';
import { describeEvents, snapshotLists, unexplainedChanges } from '../support/list-staleness.js';
import { appBody, containerBody, databaseBody, helmBody, helmRepositoryId, jobBody, registryId, terraformBody, clusters } from './fixtures.js';

let c: Client;
let org: string;
/** Route templates ("POST /project/{projectId}") exercised by a scenario. */
const covered = new Set<string>();
/** Lists a write changed that the refresh would still answer from its cache (see write()). */
const cascadeMisses: string[] = [];

/** Writes that change no configuration and record nothing, with why. */
const RECORD_NOTHING: Record<string, string> = {
  'POST /alert-receivers/validate': 'sends a test message; nothing is stored but the test message',
  'POST /alert-receivers/{alertReceiverId}/validate': 'sends a test message to a stored receiver; the receiver does not change',
  'POST /organization/{organizationId}/parseTerraformVariablesFromGitRepo': 'reads a repository; stores nothing',
  'POST /database/{databaseId}/backup': 'a backup is data, not configuration',
  'POST /cluster/{clusterId}/upgrade': 'clusters are not configured through driftless; the upgrade is a cluster operation',
};

const SECRET_VALUES = ['s3cr3t-project', 's3cr3t-env', 's3cr3t-app', 's3cr3t-edit', 's3cr3t-import', 's3cr3t-over', 'hmac-key-123', 'hmac-key-456', 'xyzSECRET', 's3cr3t-tf', 'repo-pass'];

let client: ApiClient;
let port: ApiPort;
/** While set, the emulator's clock stands still: operations do not move on. */
let heldAt: number | undefined;

beforeAll(async () => {
  // The clock can be held: a cache is then taken while an operation runs (see write()).
  c = await startClient({ deployDurationMs: 30, failDeployGlob: 'doomed-*', clock: { now: () => new Date(heldAt ?? Date.now()) } });
  org = c.em.organizationId;
  client = createApiClient({ baseUrl: c.em.url, token: c.em.tokens.ADMIN });
  port = portFromClient(client);
});
afterAll(async () => {
  await client.close();
  await c.em.close();
});

async function idle(): Promise<void> {
  for (let i = 0; i < 400 && Object.keys(c.em.state.operations).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(Object.keys(c.em.state.operations)).toEqual([]);
}

async function newest(): Promise<string | undefined> {
  const r = await c.get(`/organization/${org}/events?pageSize=1`);
  return r.body.events[0]?.timestamp;
}

/** Events after `ts`, oldest first. */
async function since(ts: string | undefined): Promise<any[]> {
  const r = await c.get(`/organization/${org}/events?pageSize=100${ts ? `&fromTimestamp=${ts}` : ''}`);
  expect(r.status).toBe(200);
  return r.body.events.filter((e: any) => e.timestamp !== ts).reverse();
}

/**
 * Runs one write (after every operation is over, so no outcome of an earlier one mixes in) and
 * returns its answer and the events it recorded; `settle` also waits for its operation's outcomes.
 */
async function write(route: string, run: () => Promise<Res>, opts: { settle?: boolean; status?: number } = {}): Promise<{ res: Res; events: any[] }> {
  covered.add(route);
  await idle();
  const lists = await snapshotLists(port, org);
  const before = await newest();
  const res = await run();
  if (opts.status !== undefined) expect(res.status, `${route}: ${JSON.stringify(res.body)}`).toBe(opts.status);
  else expect(res.status, `${route}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  // A cache written while the write's operation runs (an apply interrupted, a cron run meanwhile).
  let midway: Awaited<ReturnType<typeof snapshotLists>> | undefined;
  if (Object.keys(c.em.state.operations).length > 0) {
    heldAt = Date.now();
    try {
      midway = await snapshotLists(port, org);
    } finally {
      heldAt = undefined;
    }
  }
  if (opts.settle) await idle();
  const events = await since(before);
  // Every list the write changed (its operation's outcome included), directly or by a cascade, is
  // one the refresh re-reads given the events it recorded (src/live/touched.ts).
  await idle();
  for (const [when, snapshot] of [['', lists], [' (cache taken while its operation ran)', midway]] as const) {
    if (!snapshot) continue;
    const unexplained = await unexplainedChanges(port, snapshot);
    for (const key of unexplained.lists) cascadeMisses.push(`${route}${when}: ${key.replace(org, '{org}')} changed, the events (${describeEvents(unexplained.events)}) do not make it stale`);
    if (unexplained.fullReadReason) cascadeMisses.push(`${route}${when}: the refresh gives up (${unexplained.fullReadReason})`);
  }
  return { res, events };
}

/** The one event of a configuration write. */
async function one(route: string, run: () => Promise<Res>, expected: Record<string, unknown>, status?: number): Promise<{ res: Res; event: any }> {
  const { res, events } = await write(route, run, { status });
  expect(events.map((e) => `${e.event_type} ${e.target_type} ${e.sub_target_type}`), route).toHaveLength(1);
  expectEvent(events[0], { origin: 'API', triggered_by: 'admin token', ...expected }, route);
  return { res, event: events[0] };
}

/** toMatchObject, where an expected `undefined` means "the field is left out" (sub_target_type of a target's own change). */
function expectEvent(event: any, expected: Record<string, unknown>, label: string): void {
  const present = Object.fromEntries(Object.entries(expected).filter(([, v]) => v !== undefined));
  expect(event, label).toMatchObject(present);
  for (const [k, v] of Object.entries(expected)) if (v === undefined) expect(event, `${label}: ${k} left out`).not.toHaveProperty(k);
}

const place = (project: any, env?: any) => ({
  project_id: project.id,
  project_name: project.name,
  environment_id: env ? env.id : null,
  ...(env ? { environment_name: env.name } : {}),
});

describe('every write records its event', () => {
  let project: any;
  let env: any;
  let other: any;
  const services: Record<string, any> = {};

  it('organization, projects and environments: CREATE, UPDATE, DELETE with their place', async () => {
    const put = await one('PUT /organization/{organizationId}', () => c.put(`/organization/${org}`, { name: 'Acme Audited' }), { event_type: 'UPDATE', target_type: 'ORGANIZATION', target_id: org, target_name: 'Acme Audited', sub_target_type: undefined });
    expect(JSON.parse(put.event.change)).toMatchObject({ before: { name: 'Acme' }, after: { name: 'Acme Audited' } });

    const p = await one('POST /organization/{organizationId}/project', () => c.post(`/organization/${org}/project`, { name: 'shop' }), { event_type: 'CREATE', target_type: 'PROJECT', target_name: 'shop', sub_target_type: undefined });
    project = p.res.body;
    expect(p.event).toMatchObject({ target_id: project.id, project_id: project.id, project_name: 'shop', environment_id: null });
    await one('PUT /project/{projectId}', () => c.put(`/project/${project.id}`, { name: 'shop', description: 'the shop' }), { event_type: 'UPDATE', target_type: 'PROJECT', target_id: project.id });

    const e = await one('POST /project/{projectId}/environment', () => c.post(`/project/${project.id}/environment`, { name: 'production', mode: 'PRODUCTION' }), { event_type: 'CREATE', target_type: 'ENVIRONMENT', target_name: 'production' });
    env = e.res.body;
    expect(e.event).toMatchObject({ target_id: env.id, ...place(project, env) });
    await one('PUT /environment/{environmentId}', () => c.put(`/environment/${env.id}`, { name: 'production', mode: 'STAGING' }), { event_type: 'UPDATE', target_type: 'ENVIRONMENT', target_id: env.id, ...place(project, env) });
    other = (await c.post(`/project/${project.id}/environment`, { name: 'staging', mode: 'STAGING' })).body;
  });

  it('services of every kind: CREATE and UPDATE on the service, in its project and environment', async () => {
    const reg = await registryId(c);
    const repo = await helmRepositoryId(c);
    const kinds: Array<[string, string, string, unknown, (s: any) => unknown]> = [
      ['APPLICATION', 'application', 'applicationId', appBody('api'), (s) => ({ ...appBody('api'), cpu: 750, ports: s.ports })],
      ['CONTAINER', 'container', 'containerId', containerBody(reg, 'web'), () => ({ ...containerBody(reg, 'web'), tag: '1.28' })],
      ['DATABASE', 'database', 'databaseId', databaseBody('db'), () => ({ name: 'db', cpu: 500 })],
      ['JOB', 'job', 'jobId', jobBody(reg, 'migrate'), () => ({ ...jobBody(reg, 'migrate'), description: 'schema' })],
      ['HELM', 'helm', 'helmId', helmBody(repo, 'cache'), () => ({ ...helmBody(repo, 'cache'), arguments: ['--wait'] })],
      ['TERRAFORM', 'terraform', 'terraformId', terraformBody('infra'), () => ({ ...terraformBody('infra'), description: 'network and dns' })],
    ];
    for (const [type, segment, param, body, edit] of kinds) {
      const made = await one(`POST /environment/{environmentId}/${segment}`, () => c.post(`/environment/${env.id}/${segment}`, body), { event_type: 'CREATE', target_type: type, sub_target_type: undefined, ...place(project, env) }, 201);
      const svc = made.res.body;
      services[type] = svc;
      expect(made.event).toMatchObject({ target_id: svc.id, target_name: svc.name });
      const changed = await one(`PUT /${segment}/{${param}}`, () => c.put(`/${segment}/${svc.id}`, edit(svc)), { event_type: 'UPDATE', target_type: type, target_id: svc.id, sub_target_type: undefined, ...place(project, env) });
      expect(Object.keys(JSON.parse(changed.event.change).after).length, `${type} update lists what changed`).toBeGreaterThan(0);
    }
    const clone = await one('POST /database/{databaseId}/clone', () => c.post(`/database/${services.DATABASE.id}/clone`, { name: 'db-copy', environment_id: other.id }), { event_type: 'CREATE', target_type: 'DATABASE', target_name: 'db-copy', ...place(project, other) }, 202);
    expect(clone.event.target_id).toBe(clone.res.body.id);
  });

  it('variables and secrets of every parent are VARIABLE / SECRET sub-targets of that parent', async () => {
    const parents: Array<[string, string, string, any, string]> = [
      ['project', 'projectId', 'PROJECT', project, 'PROJECT'],
      ['environment', 'environmentId', 'ENVIRONMENT', env, 'ENVIRONMENT'],
      ['application', 'applicationId', 'APPLICATION', services.APPLICATION, 'APPLICATION'],
      ['container', 'containerId', 'CONTAINER', services.CONTAINER, 'CONTAINER'],
      ['job', 'jobId', 'JOB', services.JOB, 'JOB'],
    ];
    // Higher-scope variables to alias and override from below.
    const base = (await c.post(`/project/${project.id}/environmentVariable`, { key: 'BASE', value: 'b' })).body;
    const baseSecret = (await c.post(`/project/${project.id}/secret`, { key: 'BASE_S', value: 's3cr3t-project' })).body;
    for (const [segment, param, targetType, parent] of parents) {
      const where = segment === 'project' ? place(project) : place(project, env);
      for (const [kind, sub, idParam] of [['environmentVariable', 'VARIABLE', 'environmentVariableId'], ['secret', 'SECRET', 'secretId']] as const) {
        const value = sub === 'SECRET' ? 's3cr3t-app' : 'plain';
        const path = `/${segment}/{${param}}/${kind}`;
        const made = await one(`POST ${path}`, () => c.post(`/${segment}/${parent.id}/${kind}`, { key: `K_${segment}_${sub}`.toUpperCase(), value }), { event_type: 'CREATE', target_type: targetType, target_id: parent.id, sub_target_type: sub, ...where }, 201);
        expect(JSON.parse(made.event.change)).toMatchObject({ id: made.res.body.id, name: `K_${segment}_${sub}`.toUpperCase() });
        const v = made.res.body;
        await one(`PUT ${path}/{${idParam}}`, () => c.put(`/${segment}/${parent.id}/${kind}/${v.id}`, { key: v.key, value: sub === 'SECRET' ? 's3cr3t-edit' : 'edited' }), { event_type: 'UPDATE', target_type: targetType, target_id: parent.id, sub_target_type: sub });
        const higher = sub === 'SECRET' ? baseSecret : base;
        if (segment === 'project') {
          // Nothing is above a project: refused, and a refused write records nothing.
          for (const act of ['alias', 'override']) {
            const { res, events } = await write(`POST ${path}/{${idParam}}/${act}`, () => c.post(`/project/${project.id}/${kind}/${higher.id}/${act}`, act === 'alias' ? { key: 'NOPE' } : { value: 'x' }), { status: 400 });
            expect(res.body.message).toBeTruthy();
            expect(events).toEqual([]);
          }
        } else {
          await one(`POST ${path}/{${idParam}}/alias`, () => c.post(`/${segment}/${parent.id}/${kind}/${higher.id}/alias`, { key: `ALIAS_${segment}_${sub}`.toUpperCase() }), { event_type: 'CREATE', target_type: targetType, target_id: parent.id, sub_target_type: sub }, 201);
          await one(`POST ${path}/{${idParam}}/override`, () => c.post(`/${segment}/${parent.id}/${kind}/${higher.id}/override`, { value: sub === 'SECRET' ? 's3cr3t-over' : 'over' }), { event_type: 'CREATE', target_type: targetType, target_id: parent.id, sub_target_type: sub }, 201);
        }
        await one(`DELETE ${path}/{${idParam}}`, () => c.del(`/${segment}/${parent.id}/${kind}/${v.id}`), { event_type: 'DELETE', target_type: targetType, target_id: parent.id, sub_target_type: sub }, 204);
      }
      if (['application', 'container', 'job'].includes(segment)) {
        const { events } = await write(`POST /${segment}/{${param}}/environmentVariable/import`, () => c.post(`/${segment}/${parent.id}/environmentVariable/import`, { overwrite: false, vars: [{ name: 'IMP_A', value: 'a', scope: targetType, is_secret: false }, { name: 'IMP_S', value: 's3cr3t-import', scope: targetType, is_secret: true }] }));
        expect(events.map((e) => [e.event_type, e.target_id, e.sub_target_type]).sort()).toEqual([['CREATE', parent.id, 'SECRET'], ['CREATE', parent.id, 'VARIABLE']]);
      }
    }

    // The unified routes.
    const made = await one('POST /variable', () => c.post('/variable', { key: 'UNI', value: 'u', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id }), { event_type: 'CREATE', target_type: 'ENVIRONMENT', target_id: env.id, sub_target_type: 'VARIABLE', ...place(project, env) }, 201);
    expect(JSON.parse(made.event.change).after).toMatchObject({ key: 'UNI', value: 'u' });
    const edit = await one('PUT /variable/{variableId}', () => c.put(`/variable/${made.res.body.id}`, { key: 'UNI', value: 'u2' }), { event_type: 'UPDATE', sub_target_type: 'VARIABLE', target_id: env.id });
    expect(JSON.parse(edit.event.change)).toMatchObject({ before: { value: 'u' }, after: { value: 'u2' } });
    await one('POST /variable/{variableId}/alias', () => c.post(`/variable/${made.res.body.id}/alias`, { key: 'UNI_ALIAS', alias_scope: 'APPLICATION', alias_parent_id: services.APPLICATION.id }), { event_type: 'CREATE', target_type: 'APPLICATION', target_id: services.APPLICATION.id, sub_target_type: 'VARIABLE' }, 201);
    await one('POST /variable/{variableId}/override', () => c.post(`/variable/${made.res.body.id}/override`, { value: 'o', override_scope: 'CONTAINER', override_parent_id: services.CONTAINER.id }), { event_type: 'CREATE', target_type: 'CONTAINER', target_id: services.CONTAINER.id, sub_target_type: 'VARIABLE' }, 201);
    // Deleting a variable deletes its alias and override too: one event per target that changed.
    const { events: gone } = await write('DELETE /variable/{variableId}', () => c.del(`/variable/${made.res.body.id}`), { status: 204 });
    expect(gone.map((e) => [e.event_type, e.target_id, e.sub_target_type]).sort()).toEqual(
      [['DELETE', env.id, 'VARIABLE'], ['DELETE', services.APPLICATION.id, 'VARIABLE'], ['DELETE', services.CONTAINER.id, 'VARIABLE']].sort(),
    );
    const { events: imported } = await write('POST /variable/import', () => c.post(`/variable/import?service_id=${services.TERRAFORM.id}&service_type=TERRAFORM`, { overwrite: false, vars: [{ name: 'TF_A', value: 'a', scope: 'TERRAFORM', is_secret: false }] }));
    expect(imported).toMatchObject([{ event_type: 'CREATE', target_type: 'TERRAFORM', target_id: services.TERRAFORM.id, sub_target_type: 'VARIABLE' }]);
    const secret = await one('POST /variable', () => c.post('/variable', { key: 'UNI_S', value: 's3cr3t-env', is_secret: true, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id }), { sub_target_type: 'SECRET', target_id: env.id }, 201);
    // Only its value changes: an UPDATE of its SECRET sub-target that says a secret was written.
    const rewritten = await one('PUT /variable/{variableId}', () => c.put(`/variable/${secret.res.body.id}`, { key: 'UNI_S', value: 's3cr3t-edit' }), { event_type: 'UPDATE', sub_target_type: 'SECRET', target_id: env.id });
    expect(JSON.parse(rewritten.event.change)).toMatchObject({ id: secret.res.body.id, name: 'UNI_S', secrets_written: ['value'] });
  });

  it('deployment stages are DEPLOYMENT_STAGE sub-targets of their environment; a move is one UPDATE', async () => {
    const target = { target_type: 'ENVIRONMENT', target_id: env.id, sub_target_type: 'DEPLOYMENT_STAGE', ...place(project, env) };
    const data = (await one('POST /environment/{environmentId}/deploymentStage', () => c.post(`/environment/${env.id}/deploymentStage`, { name: 'data' }), { event_type: 'CREATE', ...target })).res.body;
    const apps = (await one('POST /environment/{environmentId}/deploymentStage', () => c.post(`/environment/${env.id}/deploymentStage`, { name: 'apps' }), { event_type: 'CREATE', ...target })).res.body;
    await one('PUT /deploymentStage/{deploymentStageId}', () => c.put(`/deploymentStage/${data.id}`, { name: 'data', description: 'databases first' }), { event_type: 'UPDATE', ...target });
    const moved = await one('PUT /deploymentStage/{deploymentStageId}/service/{serviceId}', () => c.put(`/deploymentStage/${data.id}/service/${services.DATABASE.id}`, {}), { event_type: 'UPDATE', ...target });
    // Both stages changed: the one it left and the one it joined.
    expect(JSON.parse(moved.event.change).records.map((r: any) => r.name).sort()).toEqual(['DEFAULT', 'data']);
    await one('PUT /deploymentStage/{deploymentStageId}/moveBefore/{stageId}', () => c.put(`/deploymentStage/${apps.id}/moveBefore/${data.id}`), { event_type: 'UPDATE', ...target });
    await one('PUT /deploymentStage/{deploymentStageId}/moveAfter/{stageId}', () => c.put(`/deploymentStage/${apps.id}/moveAfter/${data.id}`), { event_type: 'UPDATE', ...target });
    // Its services go to the first stage: a consequence, not a second event.
    await one('DELETE /deploymentStage/{deploymentStageId}', () => c.del(`/deploymentStage/${apps.id}`), { event_type: 'DELETE', ...target }, 204);
  });

  it('organization objects: groups, alert receivers and rules as ORGANIZATION sub-targets; webhooks and helm repositories', async () => {
    const reg = await registryId(c);
    const orgTarget = { target_type: 'ORGANIZATION', target_id: org, project_id: null, environment_id: null };
    const ann = (await one('POST /organization/{organizationId}/annotationsGroups', () => c.post(`/organization/${org}/annotationsGroups`, { name: 'team', annotations: [{ key: 'team', value: 'core' }], scopes: ['PODS'] }), { event_type: 'CREATE', sub_target_type: 'ANNOTATIONS_GROUP', ...orgTarget }, 201)).res.body;
    const lab = (await one('POST /organization/{organizationId}/labelsGroups', () => c.post(`/organization/${org}/labelsGroups`, { name: 'cost', labels: [{ key: 'cc', value: '42', propagate_to_cloud_provider: true }] }), { event_type: 'CREATE', sub_target_type: 'LABELS_GROUP', ...orgTarget }, 201)).res.body;
    // A deployed service uses both groups: changing a group makes it out of date (its status), and
    // the labels group counts its users (associated_items_count).
    const web = services.CONTAINER;
    const webBody = (groups: boolean) => ({ ...containerBody(reg, 'web'), tag: '1.28', annotations_groups: groups ? [{ id: ann.id }] : [], labels_groups: groups ? [{ id: lab.id }] : [] });
    await write('PUT /container/{containerId}', () => c.put(`/container/${web.id}`, webBody(true)));
    await write('POST /container/{containerId}/deploy', () => c.post(`/container/${web.id}/deploy`, undefined, c.em.tokens.DEPLOY), { settle: true });
    await one('PUT /organization/{organizationId}/annotationsGroups/{annotationsGroupId}', () => c.put(`/organization/${org}/annotationsGroups/${ann.id}`, { name: 'team', annotations: [{ key: 'team', value: 'edge' }], scopes: ['PODS'] }), { event_type: 'UPDATE', sub_target_type: 'ANNOTATIONS_GROUP', ...orgTarget });
    await write('POST /container/{containerId}/deploy', () => c.post(`/container/${web.id}/deploy`, undefined, c.em.tokens.DEPLOY), { settle: true });
    await one('PUT /organization/{organizationId}/labelsGroups/{labelsGroupId}', () => c.put(`/organization/${org}/labelsGroups/${lab.id}`, { name: 'cost-center', labels: [] }), { event_type: 'UPDATE', sub_target_type: 'LABELS_GROUP', ...orgTarget });
    expect((await c.get(`/container/${web.id}/status`)).body.service_deployment_status).toBe('OUT_OF_DATE');
    await write('PUT /container/{containerId}', () => c.put(`/container/${web.id}`, webBody(false)));
    await one('DELETE /organization/{organizationId}/annotationsGroups/{annotationsGroupId}', () => c.del(`/organization/${org}/annotationsGroups/${ann.id}`), { event_type: 'DELETE', sub_target_type: 'ANNOTATIONS_GROUP', ...orgTarget }, 204);
    await one('DELETE /organization/{organizationId}/labelsGroups/{labelsGroupId}', () => c.del(`/organization/${org}/labelsGroups/${lab.id}`), { event_type: 'DELETE', sub_target_type: 'LABELS_GROUP', ...orgTarget }, 204);

    const slack = { organization_id: org, name: 'ops-slack', description: 'team channel', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/T0/B0/xyzSECRET' };
    const recv = (await one('POST /alert-receivers', () => c.post('/alert-receivers', slack), { event_type: 'CREATE', sub_target_type: 'ALERT_RECEIVER', ...orgTarget }, 201)).res.body;
    await one('PUT /alert-receivers/{alertReceiverId}', () => c.put(`/alert-receivers/${recv.id}`, { name: 'ops-slack', type: 'SLACK', description: 'renamed' }), { event_type: 'UPDATE', sub_target_type: 'ALERT_RECEIVER', ...orgTarget });
    for (const route of Object.keys(RECORD_NOTHING).filter((r) => r.includes('validate'))) {
      const { events } = await write(route, () => (route.includes('{') ? c.post(`/alert-receivers/${recv.id}/validate`, { message: 'ping' }) : c.post('/alert-receivers/validate', { alert_receiver: slack, message: 'hello' })));
      expect(events, route).toEqual([]);
    }
    const { production } = await clusters(c);
    const ruleBody = {
      organization_id: org, cluster_id: production.id, name: 'high-cpu', description: 'CPU above 90%', tag: 'cpu',
      condition: { kind: 'CUSTOM', promql: 'avg(cpu) > 0.9', operator: 'ABOVE', threshold: 0.9, function: 'AVG' },
      for_duration: 'PT5M', severity: 'HIGH', presentation: { summary: 'CPU high' }, enabled: true,
      alert_receiver_ids: [recv.id], target: { target_type: 'CLUSTER', target_id: production.id },
    };
    const rule = (await one('POST /alert-rules', () => c.post('/alert-rules', ruleBody), { event_type: 'CREATE', sub_target_type: 'ALERT_RULE', ...orgTarget }, 201)).res.body;
    const { organization_id: _o, cluster_id: _c, target: _t, ...edit } = ruleBody;
    await one('PUT /alert-rules/{alertRuleId}', () => c.put(`/alert-rules/${rule.id}`, { ...edit, severity: 'CRITICAL' }), { event_type: 'UPDATE', sub_target_type: 'ALERT_RULE', ...orgTarget });
    await one('DELETE /alert-rules/{alertRuleId}', () => c.del(`/alert-rules/${rule.id}`), { event_type: 'DELETE', sub_target_type: 'ALERT_RULE', ...orgTarget }, 204);
    await one('DELETE /alert-receivers/{alertReceiverId}', () => c.del(`/alert-receivers/${recv.id}`), { event_type: 'DELETE', sub_target_type: 'ALERT_RECEIVER', ...orgTarget }, 204);

    const hook = { target_url: 'https://hooks.example.com/x', events: ['DEPLOYMENT_STARTED'], target_secret: 'hmac-key-123' };
    const w = (await one('POST /organization/{organizationId}/webhook', () => c.post(`/organization/${org}/webhook`, hook), { event_type: 'CREATE', target_type: 'WEBHOOK', sub_target_type: undefined }, 201)).res.body;
    // Only the secret changes: an UPDATE of the webhook that says so, without the value.
    const rotated = await one('PUT /organization/{organizationId}/webhook/{webhookId}', () => c.put(`/organization/${org}/webhook/${w.id}`, { ...hook, target_secret: 'hmac-key-456' }), { event_type: 'UPDATE', target_type: 'WEBHOOK', target_id: w.id });
    expect(rotated.event.change).not.toContain('hmac-key');
    expect(JSON.parse(rotated.event.change)).toMatchObject({ id: w.id, secrets_written: ['target_secret'] });
    const kept = await one('PUT /organization/{organizationId}/webhook/{webhookId}', () => c.put(`/organization/${org}/webhook/${w.id}`, { target_url: hook.target_url, events: hook.events, enabled: false }), { event_type: 'UPDATE', target_type: 'WEBHOOK', target_id: w.id });
    expect(JSON.parse(kept.event.change)).toEqual({ id: w.id, name: hook.target_url, before: { enabled: true }, after: { enabled: false } });
    await one('DELETE /organization/{organizationId}/webhook/{webhookId}', () => c.del(`/organization/${org}/webhook/${w.id}`), { event_type: 'DELETE', target_type: 'WEBHOOK', target_id: w.id }, 204);

    const repoBody = { name: 'private', kind: 'HTTPS', url: 'https://charts.example.com', skip_tls_verification: false, config: { username: 'u', password: 'repo-pass' } };
    const repo = (await one('POST /organization/{organizationId}/helmRepository', () => c.post(`/organization/${org}/helmRepository`, repoBody), { event_type: 'CREATE', target_type: 'HELM_REPOSITORY', target_name: 'private' }, 201)).res.body;
    await one('PUT /organization/{organizationId}/helmRepository/{helmRepositoryId}', () => c.put(`/organization/${org}/helmRepository/${repo.id}`, { ...repoBody, description: 'ours' }), { event_type: 'UPDATE', target_type: 'HELM_REPOSITORY', target_id: repo.id });
    await one('DELETE /organization/{organizationId}/helmRepository/{helmRepositoryId}', () => c.del(`/organization/${org}/helmRepository/${repo.id}`), { event_type: 'DELETE', target_type: 'HELM_REPOSITORY', target_id: repo.id }, 204);
  });

  it('service actions: TRIGGER_* by whoever asked, then the outcome (DEPLOYED, DEPLOY_FAILED, STOPPED, RESTARTED)', async () => {
    const kinds: Array<[string, string]> = [['APPLICATION', 'application'], ['CONTAINER', 'container'], ['DATABASE', 'database'], ['JOB', 'job'], ['HELM', 'helm'], ['TERRAFORM', 'terraform']];
    for (const [type, segment] of kinds) {
      const svc = services[type];
      const param = `${segment}Id`;
      const expectPair = (events: any[], trigger: string, outcome: string) => {
        expect(events.map((e) => e.event_type), `${segment}: ${trigger}`).toEqual([trigger, outcome]);
        for (const e of events) expectEvent(e, { target_type: type, target_id: svc.id, sub_target_type: undefined, origin: 'API', triggered_by: 'deploy token', ...place(project, env) }, `${segment}: ${trigger}`);
        expect(JSON.parse(events[0].change).execution_id).toBe(JSON.parse(events[1].change).execution_id);
      };
      for (const [action, trigger, outcome] of [['deploy', 'TRIGGER_DEPLOY', 'DEPLOYED'], ['redeploy', 'TRIGGER_REDEPLOY', 'DEPLOYED'], ['restart-service', 'TRIGGER_RESTART', 'RESTARTED'], ['restart', 'TRIGGER_RESTART', 'RESTARTED'], ['stop', 'TRIGGER_STOP', 'STOPPED']]) {
        const { events } = await write(`POST /${segment}/{${param}}/${action}`, () => c.post(`/${segment}/${svc.id}/${action}`, undefined, c.em.tokens.DEPLOY), { settle: true });
        expectPair(events, trigger, outcome);
      }
    }
    // A terraform plan, force-unlock or state migration is not a deploy: the reference's own events.
    for (const [action, trigger, outcome] of [['PLAN', 'TRIGGER_DEPLOY_DRY_RUN', 'DEPLOYED_DRY_RUN'], ['FORCE_UNLOCK', 'TRIGGER_TERRAFORM_FORCE_UNLOCK', 'TERRAFORM_FORCE_UNLOCK_SUCCEEDED'], ['MIGRATE_STATE', 'TRIGGER_TERRAFORM_MIGRATE_STATE', 'TERRAFORM_MIGRATE_STATE_SUCCEEDED']]) {
      const { events } = await write('POST /terraform/{terraformId}/deploy', () => c.post(`/terraform/${services.TERRAFORM.id}/deploy`, { action }, c.em.tokens.DEPLOY), { settle: true });
      expect(events.map((e) => [e.event_type, e.target_id]), action).toEqual([[trigger, services.TERRAFORM.id], [outcome, services.TERRAFORM.id]]);
    }
    const doomed = (await c.post(`/environment/${env.id}/container`, containerBody(await registryId(c), 'doomed-web'))).body;
    const { events } = await write('POST /container/{containerId}/deploy', () => c.post(`/container/${doomed.id}/deploy`, undefined, c.em.tokens.DEPLOY), { settle: true });
    expect(events.map((e) => e.event_type)).toEqual(['TRIGGER_DEPLOY', 'DEPLOY_FAILED']);
    expect(JSON.parse(events[1].change)).toMatchObject({ status: 'DEPLOYMENT_ERROR' });
  });

  it('environment actions: one TRIGGER_* on the environment, then each service outcome; a deletion of services is a DELETE of each', async () => {
    const serviceIds = Object.values(services).map((s) => s.id).sort();
    const batch = async (route: string, path: string, body: unknown, trigger: string, outcome: string, only?: string[]) => {
      const { events } = await write(route, () => c.post(path, body, c.em.tokens.ADMIN), { settle: true });
      expectEvent(events[0], { event_type: trigger, target_type: 'ENVIRONMENT', target_id: env.id, sub_target_type: undefined, ...place(project, env) }, route);
      const outcomes = events.slice(1);
      expect(outcomes.every((e) => e.event_type === outcome || e.event_type.endsWith('_FAILED')), route).toBe(true);
      const ids = outcomes.map((e) => e.target_id);
      if (only) expect(ids.sort(), route).toEqual([...only].sort());
      else expect(ids.filter((id) => serviceIds.includes(id)).sort(), route).toEqual(serviceIds);
    };
    const app = services.APPLICATION.id;
    await batch('POST /environment/{environmentId}/deploy', `/environment/${env.id}/deploy`, undefined, 'TRIGGER_DEPLOY', 'DEPLOYED');
    await batch('POST /environment/{environmentId}/redeploy', `/environment/${env.id}/redeploy`, undefined, 'TRIGGER_REDEPLOY', 'DEPLOYED');
    await batch('POST /environment/{environmentId}/service/deploy', `/environment/${env.id}/service/deploy`, { applications: [{ application_id: app }] }, 'TRIGGER_DEPLOY', 'DEPLOYED', [app]);
    await batch('POST /environment/{environmentId}/service/restart-service', `/environment/${env.id}/service/restart-service`, { application_ids: [app] }, 'TRIGGER_RESTART', 'RESTARTED', [app]);
    await batch('POST /environment/{environmentId}/service/stop', `/environment/${env.id}/service/stop`, { application_ids: [app] }, 'TRIGGER_STOP', 'STOPPED', [app]);
    await batch('POST /environment/{environmentId}/stop', `/environment/${env.id}/stop`, undefined, 'TRIGGER_STOP', 'STOPPED');
    // Deleting services is a DELETE of each (the reference's enumeration has it), never a TRIGGER_DELETE of the environment.
    const helm = services.HELM;
    const { events: deleted } = await write('POST /environment/{environmentId}/service/delete', () => c.post(`/environment/${env.id}/service/delete`, { helm_ids: [helm.id] }, c.em.tokens.ADMIN), { settle: true });
    expect(deleted.map((e) => [e.event_type, e.target_type, e.target_id, e.target_name])).toEqual([['DELETE', 'HELM', helm.id, helm.name], ['DELETED', 'HELM', helm.id, helm.name]]);
    for (const e of deleted) expectEvent(e, { sub_target_type: undefined, origin: 'API', triggered_by: 'admin token', ...place(project, env) }, 'service/delete');
    expect(JSON.parse(deleted[0].change).execution_id).toBe(JSON.parse(deleted[1].change).execution_id);
    delete services.HELM;
  });

  it('deletes: a service is DELETE when asked, DELETED when gone; an environment or project is one DELETE', async () => {
    // Aliases of the database's built-in at two services: they go with the database (when it is
    // gone, after its DELETE event), and the log records only the database.
    const builtIns = (await c.get(`/variable?parent_id=${services.JOB.id}&scope=JOB`)).body.results;
    const host = builtIns.find((v: any) => v.scope === 'BUILT_IN' && v.key.endsWith('_HOST_INTERNAL') && v.service_id === services.DATABASE.id);
    expect(host, 'the database host built-in').toBeDefined();
    const jobAlias = await c.post(`/variable/${host.id}/alias`, { key: 'DB_HOST', alias_scope: 'JOB', alias_parent_id: services.JOB.id });
    expect(jobAlias.status, JSON.stringify(jobAlias.body)).toBe(201);
    expect((await c.post(`/variable/${host.id}/alias`, { key: 'DB_HOST', alias_scope: 'TERRAFORM', alias_parent_id: services.TERRAFORM.id })).status).toBe(201);
    for (const [type, segment] of [['APPLICATION', 'application'], ['CONTAINER', 'container'], ['DATABASE', 'database'], ['JOB', 'job'], ['TERRAFORM', 'terraform']]) {
      const svc = services[type];
      const { events } = await write(`DELETE /${segment}/{${segment}Id}`, () => c.del(`/${segment}/${svc.id}`), { settle: true, status: 204 });
      expect(events.map((e) => [e.event_type, e.target_type, e.target_id, e.target_name])).toEqual([['DELETE', type, svc.id, svc.name], ['DELETED', type, svc.id, svc.name]]);
      expect(events[1]).toMatchObject(place(project, env));
    }
    covered.add('DELETE /helm/{helmId}');
    const h = (await c.post(`/environment/${other.id}/helm`, helmBody(await helmRepositoryId(c), 'h2'))).body;
    const { events: helmGone } = await write('DELETE /helm/{helmId}', () => c.del(`/helm/${h.id}`), { settle: true, status: 204 });
    expect(helmGone.map((e) => e.event_type)).toEqual(['DELETE', 'DELETED']);
    // The environment goes with its services, stages and variables: one event.
    await one('DELETE /environment/{environmentId}', () => c.del(`/environment/${env.id}`), { event_type: 'DELETE', target_type: 'ENVIRONMENT', target_id: env.id, target_name: 'production', ...place(project, env) }, 204);
    await one('DELETE /project/{projectId}', () => c.del(`/project/${project.id}`), { event_type: 'DELETE', target_type: 'PROJECT', target_id: project.id, target_name: 'shop' }, 204);
  });

  it('a refused write records nothing', async () => {
    const { events } = await write('(refused)', () => c.post(`/organization/${org}/project`, { name: '' }), { status: 400 });
    expect(events).toEqual([]);
    const forbidden = await write('(forbidden)', () => c.post(`/organization/${org}/project`, { name: 'x' }, c.em.tokens.READ), { status: 403 });
    expect(forbidden.events).toEqual([]);
  });

  it('no event ever holds a secret value', async () => {
    const all: any[] = [];
    let next: string | undefined = `/organization/${org}/events?pageSize=100`;
    while (next) {
      const r: Res = await c.get(next.slice(next.indexOf('/organization/')));
      all.push(...r.body.events);
      next = r.body.links.next;
    }
    expect(all.length).toBeGreaterThan(150);
    const text = JSON.stringify(all);
    for (const s of SECRET_VALUES) expect(text, s).not.toContain(s);
  });

  it('every list a write changed, directly or through a cascade, is one the refresh re-reads given its events (src/live/touched.ts)', () => {
    expect(covered.size).toBeGreaterThan(100);
    expect(cascadeMisses).toEqual([]);
  });

  it('every write route of the emulator is exercised above, or listed as recording nothing', async () => {
    const doc = (await c.get('/openapi.json')).body;
    const writes: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) if (method !== 'get') writes.push(`${method.toUpperCase()} ${path}`);
    }
    expect(writes.length).toBeGreaterThan(100);
    expect(writes.filter((w) => !covered.has(w) && !(w in RECORD_NOTHING)).sort()).toEqual([]);
  });
});
