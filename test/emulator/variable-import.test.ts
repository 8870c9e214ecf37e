/**
 * Variable import through the real emulator over HTTP: `POST /variable/import?service_id&service_type`
 * and the legacy `POST /{application|container|job}/{id}/environmentVariable/import`.
 *
 * Semantics (src/emulator/README.md, "Variable import"): each var lands at the service, its
 * environment or its project according to its scope; an existing name is skipped (overwrite false)
 * or gets the new value (overwrite true, a secret stays a secret); every 400 names the field and
 * leaves every record as it was; secret values never come back. Answers are also checked against
 * the real API's own schemas (a verbatim copy below, compared with the reference document when
 * it is available).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { startClient, type Client } from './helpers.js';
import { settle, watchStates, world, type World } from './ops-helpers.js';
import { loadReference } from './reference-check.js';

let c: Client;
let w: World;

beforeAll(async () => {
  c = await startClient({ deployDurationMs: 60 });
  w = await world(c);
});
afterAll(async () => c.em.close());

type Var = { name: string; value: string; scope: string; is_secret: boolean };
const plain = (name: string, scope: string, value = `v-${name}`): Var => ({ name, value, scope, is_secret: false });
const secret = (name: string, scope: string, value: string): Var => ({ name, value, scope, is_secret: true });

const imp = (serviceId: string, type: string, body: unknown, token?: string | null) =>
  c.post(`/variable/import?service_id=${serviceId}&service_type=${type}`, body, token);
const legacyImp = (segment: string, id: string, body: unknown) => c.post(`/${segment}/${id}/environmentVariable/import`, body);
const list = async (parentId: string, scope: string): Promise<any[]> => {
  const r = await c.get(`/variable?parent_id=${parentId}&scope=${scope}`);
  expect(r.status).toBe(200);
  return r.body.results;
};
const own = async (parentId: string, scope: string, key: string) => (await list(parentId, scope)).find((v) => v.key === key && v.scope === scope);

/** Every variable record, secret value and service status, as the emulator holds them. */
const snapshot = () => JSON.stringify([c.em.state.variables, c.em.state.secretValues, c.em.state.serviceStatuses]);

/** A refused import: the status, the field named in the message, and no record changed. */
async function refused(send: () => Promise<{ status: number; body: any }>, status: number, field: string): Promise<string> {
  await list(w.app.id, 'APPLICATION'); // built-ins materialised before the snapshot
  const before = snapshot();
  const r = await send();
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(Object.keys(r.body).sort()).toEqual(['error', 'message', 'status']);
  expect(r.body.message).toContain(field);
  expect(snapshot()).toEqual(before);
  return r.body.message;
}

// --- The real API's schemas, copied from qovery-openapi.yaml as vendored (no descriptions; compared below). ---
const REAL_SCOPE_ENUM = { type: 'string', enum: ['APPLICATION', 'BUILT_IN', 'ENVIRONMENT', 'PROJECT', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM', 'AGENTIC_WORKFLOW'] };
const REAL = {
  VariableImport: {
    type: 'object',
    required: ['total_variables_to_import', 'successful_imported_variables'],
    properties: {
      total_variables_to_import: { type: 'number' },
      successful_imported_variables: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'scope', 'is_secret'],
          properties: {
            name: { type: 'string' },
            value: { type: 'string' }, // "Optional if the variable is secret"
            scope: { $ref: '#/components/schemas/APIVariableScopeEnum' },
            is_secret: { type: 'boolean' },
          },
        },
      },
    },
  },
  VariableImportRequest: {
    type: 'object',
    required: ['vars', 'overwrite'],
    properties: {
      overwrite: { type: 'boolean', default: false },
      vars: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'value', 'scope', 'is_secret'],
          properties: {
            name: { type: 'string' },
            value: { type: 'string' },
            scope: { $ref: '#/components/schemas/APIVariableScopeEnum' },
            is_secret: { type: 'boolean' },
          },
        },
      },
    },
  },
};
const realAjv = new Ajv({ strict: false, allErrors: true });
const withScope = (s: object) => JSON.parse(JSON.stringify(s).replaceAll('{"$ref":"#/components/schemas/APIVariableScopeEnum"}', JSON.stringify(REAL_SCOPE_ENUM)));
const realAnswer = realAjv.compile(withScope(REAL.VariableImport));
const realRequest = realAjv.compile(withScope(REAL.VariableImportRequest));
/** A 201 of the import, valid for the real API's VariableImport schema; the request valid too. */
function expectRealContract(body: unknown, answer: { status: number; body: any }): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  expect(realRequest(body), realAjv.errorsText(realRequest.errors)).toBe(true);
  expect(realAnswer(answer.body), realAjv.errorsText(realAnswer.errors)).toBe(true);
}

describe('POST /variable/import', () => {
  it('the schemas copied above are the reference document\'s (test/fixtures/reference)', () => {
    const schemas = loadReference().components.schemas;
    expect(schemas.VariableImport).toEqual(REAL.VariableImport);
    expect(schemas.VariableImportRequest).toEqual(REAL.VariableImportRequest);
    expect(schemas.APIVariableScopeEnum).toEqual(REAL_SCOPE_ENUM);
  });

  it('imports into every service kind that has variables, at its own scope, its environment and its project', async () => {
    const kinds: Array<[string, any]> = [['APPLICATION', w.app], ['CONTAINER', w.container], ['JOB', w.job], ['HELM', w.helm], ['TERRAFORM', w.terraform]];
    for (const [kind, svc] of kinds) {
      const body = { overwrite: false, vars: [plain(`OWN_${kind}`, kind), plain(`ENV_FROM_${kind}`, 'ENVIRONMENT'), plain(`PROJ_FROM_${kind}`, 'PROJECT')] };
      const r = await imp(svc.id, kind, body);
      expectRealContract(body, r);
      expect(r.body).toEqual({
        total_variables_to_import: 3,
        successful_imported_variables: [
          { name: `OWN_${kind}`, value: `v-OWN_${kind}`, scope: kind, is_secret: false },
          { name: `ENV_FROM_${kind}`, value: `v-ENV_FROM_${kind}`, scope: 'ENVIRONMENT', is_secret: false },
          { name: `PROJ_FROM_${kind}`, value: `v-PROJ_FROM_${kind}`, scope: 'PROJECT', is_secret: false },
        ],
      });
      // Ordinary records afterwards, each at its parent.
      expect(await own(svc.id, kind, `OWN_${kind}`)).toMatchObject({ value: `v-OWN_${kind}`, variable_type: 'VALUE', is_secret: false, service_id: svc.id, service_type: kind });
      expect(await own(w.envId, 'ENVIRONMENT', `ENV_FROM_${kind}`)).toMatchObject({ value: `v-ENV_FROM_${kind}`, variable_type: 'VALUE' });
      expect(await own(w.projectId, 'PROJECT', `PROJ_FROM_${kind}`)).toMatchObject({ value: `v-PROJ_FROM_${kind}`, variable_type: 'VALUE' });
      expect(c.em.state.variables[(await own(w.envId, 'ENVIRONMENT', `ENV_FROM_${kind}`)).id].parent_id).toBe(w.envId);
    }
    // A service-level import is not seen by the environment, nor by a sibling.
    expect((await list(w.envId, 'ENVIRONMENT')).some((v) => v.key === 'OWN_APPLICATION')).toBe(false);
    expect((await list(w.container.id, 'CONTAINER')).some((v) => v.key === 'OWN_APPLICATION')).toBe(false);
    expect((await list(w.container.id, 'CONTAINER')).some((v) => v.key === 'ENV_FROM_APPLICATION')).toBe(true);
  });

  it('never echoes a secret value: not in the answer, not in any list', async () => {
    const body = { overwrite: false, vars: [secret('IMP_TOKEN', 'APPLICATION', 'imp-secret-value-1'), secret('IMP_ENV_TOKEN', 'ENVIRONMENT', 'imp-secret-value-2'), plain('IMP_PLAIN', 'APPLICATION', 'visible')] };
    const r = await imp(w.app.id, 'APPLICATION', body);
    expectRealContract(body, r);
    expect(r.body.successful_imported_variables).toEqual([
      { name: 'IMP_TOKEN', scope: 'APPLICATION', is_secret: true },
      { name: 'IMP_ENV_TOKEN', scope: 'ENVIRONMENT', is_secret: true },
      { name: 'IMP_PLAIN', value: 'visible', scope: 'APPLICATION', is_secret: false },
    ]);
    const answers = JSON.stringify([r.body, await list(w.app.id, 'APPLICATION'), (await c.get(`/application/${w.app.id}/secret`)).body, (await c.get(`/environment/${w.envId}/secret`)).body]);
    expect(answers).not.toContain('imp-secret-value');
    expect(await own(w.app.id, 'APPLICATION', 'IMP_TOKEN')).toMatchObject({ is_secret: true, value: null });
    const legacySecrets = (await c.get(`/application/${w.app.id}/secret`)).body.results.map((s: any) => s.key);
    expect(legacySecrets).toEqual(expect.arrayContaining(['IMP_TOKEN', 'IMP_ENV_TOKEN']));
  });

  it('overwrite false leaves an existing name alone and leaves it out of the answer', async () => {
    await imp(w.container.id, 'CONTAINER', { overwrite: false, vars: [plain('KEEP', 'CONTAINER', 'old'), secret('KEEP_S', 'PROJECT', 'old-secret')] });
    const before = [await own(w.container.id, 'CONTAINER', 'KEEP'), await own(w.projectId, 'PROJECT', 'KEEP_S')];
    const body = { overwrite: false, vars: [plain('KEEP', 'CONTAINER', 'new'), secret('KEEP_S', 'PROJECT', 'new-secret'), plain('FRESH', 'CONTAINER', 'f')] };
    const r = await imp(w.container.id, 'CONTAINER', body);
    expectRealContract(body, r);
    expect(r.body).toEqual({ total_variables_to_import: 3, successful_imported_variables: [{ name: 'FRESH', value: 'f', scope: 'CONTAINER', is_secret: false }] });
    expect([await own(w.container.id, 'CONTAINER', 'KEEP'), await own(w.projectId, 'PROJECT', 'KEEP_S')]).toEqual(before);
    expect(c.em.state.secretValues[before[1].id]).toBe('old-secret');
    // An import where every name exists changes nothing at all.
    const all = snapshot();
    const again = await imp(w.container.id, 'CONTAINER', { overwrite: false, vars: [plain('KEEP', 'CONTAINER', 'x')] });
    expect(again.body).toEqual({ total_variables_to_import: 1, successful_imported_variables: [] });
    expect(snapshot()).toEqual(all);
  });

  it('overwrite true replaces values; a secret stays a secret; an override stays an override', async () => {
    await imp(w.job.id, 'JOB', { overwrite: false, vars: [plain('REPL', 'JOB', 'old'), secret('REPL_S', 'JOB', 'old-s')] });
    const pv = await c.post('/variable', { key: 'OVR', value: 'project', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: w.projectId });
    const ov = await c.post(`/variable/${pv.body.id}/override`, { value: 'job-old', override_scope: 'JOB', override_parent_id: w.job.id });
    expect(ov.status).toBe(201);
    const oldS = await own(w.job.id, 'JOB', 'REPL_S');
    const body = { overwrite: true, vars: [plain('REPL', 'JOB', 'new'), plain('REPL_S', 'JOB', 'new-s'), plain('OVR', 'JOB', 'job-new')] };
    const r = await imp(w.job.id, 'JOB', body);
    expectRealContract(body, r);
    expect(r.body.successful_imported_variables).toEqual([
      { name: 'REPL', value: 'new', scope: 'JOB', is_secret: false },
      { name: 'REPL_S', scope: 'JOB', is_secret: true },
      { name: 'OVR', value: 'job-new', scope: 'JOB', is_secret: false },
    ]);
    expect(JSON.stringify(r.body)).not.toContain('new-s');
    expect(await own(w.job.id, 'JOB', 'REPL')).toMatchObject({ value: 'new', is_secret: false });
    const newS = await own(w.job.id, 'JOB', 'REPL_S');
    expect(newS).toMatchObject({ id: oldS.id, is_secret: true, value: null });
    expect(c.em.state.secretValues[oldS.id]).toBe('new-s');
    expect(Date.parse(newS.updated_at)).toBeGreaterThan(Date.parse(oldS.updated_at));
    expect(await own(w.job.id, 'JOB', 'OVR')).toMatchObject({ id: ov.body.id, variable_type: 'OVERRIDE', value: 'job-new', overridden_variable: { id: pv.body.id, value: 'project' } });
  });

  it('marks the services that see an imported variable OUT_OF_DATE, and none when nothing was imported', async () => {
    expect((await c.post(`/application/${w.app.id}/deploy`, {})).status).toBe(202);
    await watchStates(c, `/application/${w.app.id}/status`, (s) => s === 'DEPLOYED');
    await settle(c);
    const status = async () => (await c.get(`/application/${w.app.id}/status`)).body.service_deployment_status;
    expect(await status()).toBe('UP_TO_DATE');
    // Skipped (exists, overwrite false): no change, still up to date.
    expect((await imp(w.container.id, 'CONTAINER', { overwrite: false, vars: [plain('ENV_FROM_APPLICATION', 'ENVIRONMENT')] })).body.successful_imported_variables).toEqual([]);
    expect(await status()).toBe('UP_TO_DATE');
    // A variable of another service's own scope does not concern the application either.
    await imp(w.container.id, 'CONTAINER', { overwrite: false, vars: [plain('ONLY_WEB', 'CONTAINER')] });
    expect(await status()).toBe('UP_TO_DATE');
    // An environment-level import through a sibling does.
    await imp(w.container.id, 'CONTAINER', { overwrite: false, vars: [plain('ENV_WIDE_IMPORT', 'ENVIRONMENT')] });
    expect(await status()).toBe('OUT_OF_DATE');
  });
});

describe('refusals: a 400 names the field, and nothing is written', () => {
  it('a BUILT_IN or foreign scope is refused with the allowed values, even after valid vars', async () => {
    const ok = [plain('A1', 'APPLICATION'), plain('A2', 'ENVIRONMENT'), plain('A3', 'PROJECT')];
    const m1 = await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [...ok, plain('A4', 'BUILT_IN')] }), 400, "'vars[3].scope'");
    expect(m1).toContain('APPLICATION, ENVIRONMENT, PROJECT');
    const m2 = await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [ok[0], plain('C1', 'CONTAINER')] }), 400, "'vars[1].scope'");
    expect(m2).toContain('APPLICATION, ENVIRONMENT, PROJECT');
    await refused(() => imp(w.helm.id, 'HELM', { overwrite: true, vars: [plain('T1', 'TERRAFORM')] }), 400, "'vars[0].scope'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [{ ...ok[0], scope: 'GALAXY' }] }), 400, "'vars[0].scope'");
  });

  it('names follow the rules of POST /variable, and appear once per import', async () => {
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [plain('GOOD', 'APPLICATION'), plain('1BAD', 'APPLICATION')] }), 400, "'vars[1].name'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [plain('has space', 'PROJECT')] }), 400, "'vars[0].name'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [plain('', 'PROJECT')] }), 400, "'vars[0].name'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [plain('X'.repeat(256), 'PROJECT')] }), 400, "'vars[0].name'");
    const dup = await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [plain('TWICE', 'APPLICATION'), plain('OTHER', 'PROJECT'), plain('TWICE', 'PROJECT')] }), 400, "'vars[2].name'");
    expect(dup).toContain('vars[0]');
    // Keys are case-sensitive: these are two names.
    const r = await imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [plain('CaseKey', 'APPLICATION'), plain('casekey', 'APPLICATION')] });
    expect(r.body.successful_imported_variables).toHaveLength(2);
  });

  it('overwrite true cannot replace a built-in or an alias, nor turn a plain variable into a secret', async () => {
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: true, vars: [plain('NEW_ONE', 'APPLICATION'), plain('QOVERY_ENVIRONMENT_ID', 'ENVIRONMENT')] }), 400, "'vars[1].name'");
    const target = await c.post('/variable', { key: 'TARGET', value: 't', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: w.projectId });
    expect((await c.post(`/variable/${target.body.id}/alias`, { key: 'ALIASED', alias_scope: 'ENVIRONMENT', alias_parent_id: w.envId })).status).toBe(201);
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: true, vars: [plain('ALIASED', 'ENVIRONMENT')] }), 400, "'vars[0].name'");
    await imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [plain('STAYS_PLAIN', 'APPLICATION', 'p')] });
    const m = await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: true, vars: [secret('STAYS_PLAIN', 'APPLICATION', 'would-leak')] }), 400, "'vars[0].is_secret'");
    expect(m).not.toContain('would-leak');
    // With overwrite false the same vars are merely skipped.
    const skipped = await imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [plain('QOVERY_ENVIRONMENT_ID', 'ENVIRONMENT'), plain('ALIASED', 'ENVIRONMENT'), secret('STAYS_PLAIN', 'APPLICATION', 'would-leak')] });
    expect(skipped.body).toEqual({ total_variables_to_import: 3, successful_imported_variables: [] });
    expect(await own(w.app.id, 'APPLICATION', 'STAYS_PLAIN')).toMatchObject({ value: 'p', is_secret: false });
  });

  it('the body is validated like every other: required fields, types', async () => {
    const v = plain('B', 'APPLICATION');
    await refused(() => imp(w.app.id, 'APPLICATION', { vars: [v] }), 400, "'overwrite'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false }), 400, "'vars'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: 'yes', vars: [v] }), 400, "'overwrite'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: {} }), 400, "'vars'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [v, { name: 'C', value: 'c', scope: 'APPLICATION' }] }), 400, "'vars[1].is_secret'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [{ ...v, value: 5 }] }), 400, "'vars[0].value'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: ['B=1'] }), 400, "'vars[0]'");
    await refused(() => imp(w.app.id, 'APPLICATION', { overwrite: false, vars: [v], id: w.app.id }), 400, "'id'");
    // Odd bodies are refused, never a 500.
    for (const raw of ['null', '[]', '"x"', '{"overwrite":false,"vars":[null]}', '{"overwrite":false,"vars":[[]]}', '{"overwrite":null,"vars":[]}']) {
      const r = await c.call('POST', `/variable/import?service_id=${w.app.id}&service_type=APPLICATION`, undefined, { raw });
      expect(r.status, raw).toBe(400);
    }
    // An empty import is valid and does nothing.
    const empty = await imp(w.app.id, 'APPLICATION', { overwrite: true, vars: [] });
    expectRealContract({ overwrite: true, vars: [] }, empty);
    expect(empty.body).toEqual({ total_variables_to_import: 0, successful_imported_variables: [] });
  });

  it('the service: unknown is 404; another kind, a database, an environment or a bad query is 400', async () => {
    const body = { overwrite: false, vars: [plain('Q', 'PROJECT')] };
    await refused(() => imp('00000000-0000-4000-8000-000000000000', 'APPLICATION', body), 404, '00000000-0000-4000-8000-000000000000');
    await refused(() => imp(w.app.id, 'CONTAINER', body), 400, "'service_id'");
    await refused(() => imp(w.db.id, 'APPLICATION', body), 400, "'service_id'");
    await refused(() => imp(w.envId, 'APPLICATION', body), 400, "'service_id'");
    await refused(() => imp(w.db.id, 'DATABASE', body), 400, "'service_type'");
    await refused(() => imp('not-a-uuid', 'APPLICATION', body), 400, "'service_id'");
    await refused(() => c.post(`/variable/import?service_id=${w.app.id}`, body), 400, "'service_type'");
    await refused(() => c.post('/variable/import?service_type=APPLICATION', body), 400, "'service_id'");
  });

  it('needs a token with WRITE (or ADMIN) scope', async () => {
    const body = { overwrite: false, vars: [plain('AUTH', 'APPLICATION')] };
    const m = await refused(() => imp(w.app.id, 'APPLICATION', body, c.em.tokens.READ), 403, 'WRITE');
    expect(m).toContain('READ');
    await refused(() => imp(w.app.id, 'APPLICATION', body, c.em.tokens.DEPLOY), 403, 'WRITE');
    await refused(() => imp(w.app.id, 'APPLICATION', body, null), 401, 'Authorization');
    await refused(() => c.call('POST', `/application/${w.app.id}/environmentVariable/import`, body, { token: c.em.tokens.READ }), 403, 'WRITE');
    expect((await imp(w.app.id, 'APPLICATION', body, c.em.tokens.WRITE)).status).toBe(201);
  });
});

describe('legacy POST /{application|container|job}/{id}/environmentVariable/import', () => {
  it('imports like the unified route, for applications, containers and jobs', async () => {
    const cases: Array<[string, string, any]> = [['application', 'APPLICATION', w.app], ['container', 'CONTAINER', w.container], ['job', 'JOB', w.job]];
    for (const [segment, kind, svc] of cases) {
      const body = { overwrite: false, vars: [plain(`LEG_${kind}`, kind), secret(`LEG_S_${kind}`, kind, `legacy-secret-${kind}`), plain(`LEG_ENV_${kind}`, 'ENVIRONMENT')] };
      const r = await legacyImp(segment, svc.id, body);
      expectRealContract(body, r);
      expect(r.body).toEqual({
        total_variables_to_import: 3,
        successful_imported_variables: [
          { name: `LEG_${kind}`, value: `v-LEG_${kind}`, scope: kind, is_secret: false },
          { name: `LEG_S_${kind}`, scope: kind, is_secret: true },
          { name: `LEG_ENV_${kind}`, value: `v-LEG_ENV_${kind}`, scope: 'ENVIRONMENT', is_secret: false },
        ],
      });
      const vars = (await c.get(`/${segment}/${svc.id}/environmentVariable`)).body.results;
      expect(vars.find((v: any) => v.key === `LEG_${kind}`)).toMatchObject({ scope: kind, value: `v-LEG_${kind}` });
      expect(vars.find((v: any) => v.key === `LEG_ENV_${kind}`)).toMatchObject({ scope: 'ENVIRONMENT' });
      const secrets = (await c.get(`/${segment}/${svc.id}/secret`)).body;
      expect(secrets.results.find((s: any) => s.key === `LEG_S_${kind}`)).toMatchObject({ scope: kind });
      expect(JSON.stringify(secrets)).not.toContain('legacy-secret');
      // Overwrite through the legacy route too.
      const again = await legacyImp(segment, svc.id, { overwrite: true, vars: [plain(`LEG_${kind}`, kind, 'second')] });
      expect(again.body.successful_imported_variables).toEqual([{ name: `LEG_${kind}`, value: 'second', scope: kind, is_secret: false }]);
    }
  });

  it('refuses like the other legacy routes: an id of another kind is 404, a bad var is 400', async () => {
    const body = { overwrite: false, vars: [plain('L', 'PROJECT')] };
    await refused(() => legacyImp('application', w.container.id, body), 404, w.container.id);
    await refused(() => legacyImp('job', '00000000-0000-4000-8000-000000000000', body), 404, 'job');
    await refused(() => legacyImp('container', 'nope', body), 400, "'containerId'");
    await refused(() => legacyImp('container', w.container.id, { overwrite: false, vars: [plain('OK', 'CONTAINER'), plain('L', 'APPLICATION')] }), 400, "'vars[1].scope'");
    // Helm, terraform and databases have no legacy variable routes.
    expect((await legacyImp('helm', w.helm.id, body)).status).toBe(404);
    expect((await legacyImp('database', w.db.id, body)).status).toBe(404);
  });
});

describe('the OpenAPI document', () => {
  it('describes both routes with the request and answer schemas', async () => {
    const doc = (await c.get('/openapi.json')).body;
    for (const path of ['/variable/import', '/application/{applicationId}/environmentVariable/import', '/container/{containerId}/environmentVariable/import', '/job/{jobId}/environmentVariable/import']) {
      const op = doc.paths[path]?.post;
      expect(op, path).toBeTruthy();
      expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/VariableImportRequest' });
      expect(op.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/VariableImport' });
    }
    const query = doc.paths['/variable/import'].post.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.required]);
    expect(query).toEqual(expect.arrayContaining([['service_id', true], ['service_type', true]]));
  });
});
