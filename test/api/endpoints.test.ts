/**
 * InfraApi: each method sends the method, path, query and body the seed / api-notes give, and
 * unwraps `{results}`. nock answers, and `scope.isDone()` proves each request arrived as expected.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, InfraApi, unwrapList } from '../../src/api/index.js';
import { BASE, fakeTime, half } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

function api() {
  const time = fakeTime();
  return new InfraApi(createApiClient({ baseUrl: BASE, token: 't', now: time.clock, sleep: time.sleep, random: half }));
}

type Case = [name: string, call: (a: InfraApi) => Promise<unknown>, method: string, path: string, body?: unknown];

const cases: Case[] = [
  ['updateOrganization', (a) => a.updateOrganization('o1', { name: 'acme' }), 'PUT', '/organization/o1', { name: 'acme' }],
  ['listClusters', (a) => a.listClusters('o1'), 'GET', '/organization/o1/cluster'],
  ['listClusterStatuses', (a) => a.listClusterStatuses('o1'), 'GET', '/organization/o1/cluster/status'],
  ['upgradeCluster', (a) => a.upgradeCluster('c1'), 'POST', '/cluster/c1/upgrade'],
  ['listContainerRegistries', (a) => a.listContainerRegistries('o1'), 'GET', '/organization/o1/containerRegistry'],
  ['listInstanceTypes GCP', (a) => a.listInstanceTypes('GCP', 'europe-west9'), 'GET', '/gcp/instanceType/europe-west9'],
  ['listInstanceTypes AWS', (a) => a.listInstanceTypes('AWS', 'eu-west-3'), 'GET', '/aws/eks/instanceType/eu-west-3'],
  ['listProjects', (a) => a.listProjects('o1'), 'GET', '/organization/o1/project'],
  ['createProject', (a) => a.createProject('o1', { name: 'shop' }), 'POST', '/organization/o1/project', { name: 'shop' }],
  ['updateProject', (a) => a.updateProject('p1', { name: 'shop2' }), 'PUT', '/project/p1', { name: 'shop2' }],
  ['deleteProject', (a) => a.deleteProject('p1'), 'DELETE', '/project/p1'],
  ['listEnvironments', (a) => a.listEnvironments('p1'), 'GET', '/project/p1/environment'],
  ['createEnvironment', (a) => a.createEnvironment('p1', { name: 'prod', mode: 'PRODUCTION', cluster_id: 'c1' }), 'POST', '/project/p1/environment', { name: 'prod', mode: 'PRODUCTION', cluster_id: 'c1' }],
  ['updateEnvironment', (a) => a.updateEnvironment('e1', { name: 'p' }), 'PUT', '/environment/e1', { name: 'p' }],
  ['deleteEnvironment', (a) => a.deleteEnvironment('e1'), 'DELETE', '/environment/e1'],
  ['listEnvironmentServices', (a) => a.listEnvironmentServices('e1'), 'GET', '/environment/e1/services'],
  ['getEnvironmentStatuses', (a) => a.getEnvironmentStatuses('e1'), 'GET', '/environment/e1/statuses'],
  ['listDeploymentStages', (a) => a.listDeploymentStages('e1'), 'GET', '/environment/e1/deploymentStage'],
  ['createDeploymentStage', (a) => a.createDeploymentStage('e1', { name: 'db' }), 'POST', '/environment/e1/deploymentStage', { name: 'db' }],
  ['updateDeploymentStage', (a) => a.updateDeploymentStage('s1', { name: 'db2' }), 'PUT', '/deploymentStage/s1', { name: 'db2' }],
  ['deleteDeploymentStage', (a) => a.deleteDeploymentStage('s1'), 'DELETE', '/deploymentStage/s1'],
  ['moveServiceToStage', (a) => a.moveServiceToStage('s1', 'svc1'), 'PUT', '/deploymentStage/s1/service/svc1', {}],
  ['moveStageAfter', (a) => a.moveStageAfter('s1', 's2'), 'PUT', '/deploymentStage/s1/moveAfter/s2'],
  ['moveStageBefore', (a) => a.moveStageBefore('s1', 's2'), 'PUT', '/deploymentStage/s1/moveBefore/s2'],
  ['createService container', (a) => a.createService('container', 'e1', { name: 'web' }), 'POST', '/environment/e1/container', { name: 'web' }],
  ['updateService database', (a) => a.updateService('database', 'd1', { storage: 20 }), 'PUT', '/database/d1', { storage: 20 }],
  ['deleteService job', (a) => a.deleteService('job', 'j1'), 'DELETE', '/job/j1'],
  ['deleteServices', (a) => a.deleteServices('e1', { application_ids: ['a1'] }), 'POST', '/environment/e1/service/delete', { application_ids: ['a1'] }],
  ['deployServices', (a) => a.deployServices('e1', { databases: ['d1'] }), 'POST', '/environment/e1/service/deploy', { databases: ['d1'] }],
  ['deployService application', (a) => a.deployService('application', 'a1', { git_commit_id: 'abc', image_tag: 'ignored' }), 'POST', '/application/a1/deploy', { git_commit_id: 'abc' }],
  ['deployService container', (a) => a.deployService('container', 'c1', { image_tag: '1.2' }), 'POST', '/container/c1/deploy', { image_tag: '1.2' }],
  ['deployService database', (a) => a.deployService('database', 'd1'), 'POST', '/database/d1/deploy'],
  ['deployService job', (a) => a.deployService('job', 'j1', { forceEvent: 'CRON', image_tag: 'v2' }), 'POST', '/job/j1/deploy?forceEvent=CRON', { image_tag: 'v2' }],
  ['deployService terraform', (a) => a.deployService('terraform', 't1', { action: 'PLAN' }), 'POST', '/terraform/t1/deploy', { id: 't1', action: 'PLAN' }],
  ['getServiceStatus', (a) => a.getServiceStatus('helm', 'h1'), 'GET', '/helm/h1/status'],
  ['cloneDatabase', (a) => a.cloneDatabase('d1', { name: 'copy', environment_id: 'e2' }), 'POST', '/database/d1/clone', { name: 'copy', environment_id: 'e2' }],
  ['backupDatabase', (a) => a.backupDatabase('d1', { name: 'b', message: 'before replace' }), 'POST', '/database/d1/backup', { name: 'b', message: 'before replace' }],
  ['listVariables', (a) => a.listVariables('a1', 'APPLICATION'), 'GET', '/variable?parent_id=a1&scope=APPLICATION'],
  ['listVariables secrets', (a) => a.listVariables('e1', 'ENVIRONMENT', true), 'GET', '/variable?parent_id=e1&scope=ENVIRONMENT&is_secret=true'],
  ['createVariable', (a) => a.createVariable({ key: 'K', value: 'v' }), 'POST', '/variable', { key: 'K', value: 'v' }],
  ['updateVariable', (a) => a.updateVariable('v1', { key: 'K', value: 'w' }), 'PUT', '/variable/v1', { key: 'K', value: 'w' }],
  ['deleteVariable', (a) => a.deleteVariable('v1'), 'DELETE', '/variable/v1'],
  ['createVariableAlias', (a) => a.createVariableAlias('v1', { key: 'A' }), 'POST', '/variable/v1/alias', { key: 'A' }],
  ['createVariableOverride', (a) => a.createVariableOverride('v1', { value: 'o' }), 'POST', '/variable/v1/override', { value: 'o' }],
  ['listAnnotationsGroups', (a) => a.listAnnotationsGroups('o1'), 'GET', '/organization/o1/annotationsGroups'],
  ['updateAnnotationsGroup', (a) => a.updateAnnotationsGroup('o1', 'g1', { name: 'g' }), 'PUT', '/organization/o1/annotationsGroups/g1', { name: 'g' }],
  ['deleteLabelsGroup', (a) => a.deleteLabelsGroup('o1', 'l1'), 'DELETE', '/organization/o1/labelsGroups/l1'],
  ['createLabelsGroup', (a) => a.createLabelsGroup('o1', { name: 'l' }), 'POST', '/organization/o1/labelsGroups', { name: 'l' }],
  ['listAlertReceivers', (a) => a.listAlertReceivers('o1'), 'GET', '/organization/o1/alert-receivers'],
  ['createAlertReceiver', (a) => a.createAlertReceiver({ name: 'r' }), 'POST', '/alert-receivers', { name: 'r' }],
  ['updateAlertReceiver', (a) => a.updateAlertReceiver('r1', { name: 'r' }), 'PUT', '/alert-receivers/r1', { name: 'r' }],
  ['validateAlertReceiver', (a) => a.validateAlertReceiver({ name: 'r' }, 'hello'), 'POST', '/alert-receivers/validate', { alert_receiver: { name: 'r' }, message: 'hello' }],
  ['listAlertRules', (a) => a.listAlertRules('o1'), 'GET', '/organization/o1/alert-rules'],
  ['createAlertRule', (a) => a.createAlertRule({ name: 'cpu' }), 'POST', '/alert-rules', { name: 'cpu' }],
  ['updateAlertRule', (a) => a.updateAlertRule('ar1', { name: 'cpu' }), 'PUT', '/alert-rules/ar1', { name: 'cpu' }],
  ['deleteAlertRule', (a) => a.deleteAlertRule('ar1'), 'DELETE', '/alert-rules/ar1'],
  ['listWebhooks', (a) => a.listWebhooks('o1'), 'GET', '/organization/o1/webhook'],
  ['createWebhook', (a) => a.createWebhook('o1', { target_url: 'https://x' }), 'POST', '/organization/o1/webhook', { target_url: 'https://x' }],
  ['updateWebhook', (a) => a.updateWebhook('o1', 'w1', { enabled: false }), 'PUT', '/organization/o1/webhook/w1', { enabled: false }],
  ['deleteWebhook', (a) => a.deleteWebhook('o1', 'w1'), 'DELETE', '/organization/o1/webhook/w1'],
  ['listInstanceTypes AZURE', (a) => a.listInstanceTypes('AZURE', 'westeurope'), 'GET', '/azure/aks/instanceType/westeurope'],
  ['listInstanceTypes SCW', (a) => a.listInstanceTypes('SCW', 'fr-par-1'), 'GET', '/scaleway/instanceType/fr-par-1'],
  ['listManagedDatabaseInstanceTypes', (a) => a.listManagedDatabaseInstanceTypes('eu-west-3', 'POSTGRESQL'), 'GET', '/aws/managedDatabase/instanceType/eu-west-3/POSTGRESQL'],
  ['getProject', (a) => a.getProject('p1'), 'GET', '/project/p1'],
  ['getEnvironment', (a) => a.getEnvironment('e1'), 'GET', '/environment/e1'],
  ['getDeploymentStage', (a) => a.getDeploymentStage('s1'), 'GET', '/deploymentStage/s1'],
  ['listServices', (a) => a.listServices('helm', 'e1'), 'GET', '/environment/e1/helm'],
  ['getService', (a) => a.getService('terraform', 't1'), 'GET', '/terraform/t1'],
  ['deployService helm', (a) => a.deployService('helm', 'h1', { forceEvent: 'DIFF', chart_version: '1.0.0' }), 'POST', '/helm/h1/deploy?forceEvent=DIFF', { chart_version: '1.0.0' }],
  ['createAnnotationsGroup', (a) => a.createAnnotationsGroup('o1', { name: 'g' }), 'POST', '/organization/o1/annotationsGroups', { name: 'g' }],
  ['deleteAnnotationsGroup', (a) => a.deleteAnnotationsGroup('o1', 'g1'), 'DELETE', '/organization/o1/annotationsGroups/g1'],
  ['listLabelsGroups', (a) => a.listLabelsGroups('o1'), 'GET', '/organization/o1/labelsGroups'],
  ['updateLabelsGroup', (a) => a.updateLabelsGroup('o1', 'l1', { name: 'l' }), 'PUT', '/organization/o1/labelsGroups/l1', { name: 'l' }],
  ['deleteAlertReceiver', (a) => a.deleteAlertReceiver('r1'), 'DELETE', '/alert-receivers/r1'],
  ['validateExistingAlertReceiver', (a) => a.validateExistingAlertReceiver('r1', 'ping'), 'POST', '/alert-receivers/r1/validate', { message: 'ping' }],
  ['environmentDeploymentHistory', (a) => a.environmentDeploymentHistory('e1', { pageSize: 5, startId: 'x1' }), 'GET', '/environment/e1/deploymentHistoryV2?pageSize=5&startId=x1'],
  ['serviceDeploymentHistory', (a) => a.serviceDeploymentHistory('database', 'd1', { pageSize: 3 }), 'GET', '/database/d1/deploymentHistoryV2?pageSize=3'],
];

describe('InfraApi paths and bodies', () => {
  for (const [name, call, method, path, body] of cases) {
    it(name, async () => {
      let seenBody: unknown;
      const scope = nock(BASE)
        .intercept(path, method)
        .reply(200, (_uri, requestBody) => {
          seenBody = requestBody === '' ? undefined : requestBody;
          return { results: [] };
        });
      await call(api());
      expect(scope.isDone()).toBe(true);
      expect(seenBody).toEqual(body);
    });
  }
});

describe('InfraApi responses', () => {
  it('unwraps {results} lists', async () => {
    nock(BASE).get('/environment/e1/services').reply(200, { results: [{ id: 's1', name: 'api', service_type: 'APPLICATION' }] });
    expect(await api().listEnvironmentServices('e1')).toEqual([{ id: 's1', name: 'api', service_type: 'APPLICATION' }]);
  });

  it('GET /organization: accepts a list (real API) or a single record (seed)', async () => {
    nock(BASE).get('/organization').reply(200, { results: [{ id: 'o1', name: 'Acme' }] });
    expect(await api().getOrganization()).toEqual({ id: 'o1', name: 'Acme' });
    nock(BASE).get('/organization').reply(200, { id: 'o2', name: 'Solo' });
    expect(await api().getOrganization()).toEqual({ id: 'o2', name: 'Solo' });
  });

  it('picks an organization by id or case-insensitive name, and says which exist otherwise', async () => {
    const orgs = { results: [{ id: 'o1', name: 'Acme' }, { id: 'o2', name: 'Globex' }] };
    nock(BASE).get('/organization').times(3).reply(200, orgs);
    expect((await api().getOrganization('globex')).id).toBe('o2');
    await expect(api().getOrganization()).rejects.toThrow('the API token sees several organizations (Acme, Globex): name one with --organization');
    await expect(api().getOrganization('Initech')).rejects.toThrow('organization "Initech" not found; the token sees: Acme, Globex');
  });

  it('keeps the last `tail` log lines', async () => {
    const lines = Array.from({ length: 5 }, (_, i) => ({ message: `line ${i}` }));
    nock(BASE).get('/application/a1/log').query({ tail: '2' }).reply(200, { results: lines });
    expect(await api().getServiceLogs('application', 'a1', 2)).toEqual([{ message: 'line 3' }, { message: 'line 4' }]);
  });

  it('parseTerraformVariablesFromGitRepo and alert receiver validation are retried; a create is not', async () => {
    const scope = nock(BASE)
      .post('/organization/o1/parseTerraformVariablesFromGitRepo', { git_repository: { url: 'https://g/r' } })
      .reply(503)
      .post('/organization/o1/parseTerraformVariablesFromGitRepo')
      .reply(200, { results: [{ key: 'region', sensitive: false }] })
      .post('/alert-receivers/validate')
      .reply(502)
      .post('/alert-receivers/validate')
      .reply(200)
      .post('/alert-receivers')
      .reply(502);
    const a = api();
    expect(await a.parseTerraformVariablesFromGitRepo('o1', { url: 'https://g/r' })).toEqual([{ key: 'region', sensitive: false }]);
    await a.validateAlertReceiver({ name: 'r' }, 'test');
    await expect(a.createAlertReceiver({ name: 'r' })).rejects.toMatchObject({ kind: 'ambiguous' });
    expect(scope.isDone()).toBe(true);
    expect(a.client.stats().total).toBe(5);
  });

  it('encodes ids so that they cannot forge a path', async () => {
    const scope = nock(BASE).delete('/project/..%2Forganization%2Fo1').reply(204);
    await api().deleteProject('../organization/o1');
    expect(scope.isDone()).toBe(true);
  });

  it('an unexpected list shape is a clear error', () => {
    expect(unwrapList(undefined)).toEqual([]);
    expect(() => unwrapList({ items: [] })).toThrow('unexpected list response from the API: expected {results: [...]} or an array');
  });
});
