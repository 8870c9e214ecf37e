/**
 * Variables and secrets through the real emulator over HTTP: the unified /variable API and the
 * legacy environmentVariable / secret routes, with the rules of seed 2.2, 2.3, 4.2 and api-notes §6.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { createApp, createDatabase, createEnvironment, settle, watchStates, world, type World } from './ops-helpers.js';

let c: Client;
let w: World;

beforeAll(async () => {
  c = await startClient({ deployDurationMs: 60 });
  w = await world(c);
});
afterAll(async () => c.em.close());

const unified = (parentId: string, scope: string, extra = '') => c.get(`/variable?parent_id=${parentId}&scope=${scope}${extra}`);
const create = (body: Record<string, unknown>) => c.post('/variable', body);
const keysOf = (r: { body: any }) => (r.body.results as any[]).map((v) => `${v.scope}:${v.key}`);

describe('unified /variable API', () => {
  test('a service sees its own, its environment\'s, its project\'s and the built-in variables; an environment does not see service variables', async () => {
    const p = await create({ key: 'P_ONLY', value: 'p', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: w.projectId });
    expect(p.status).toBe(201);
    expect(p.body).toMatchObject({ key: 'P_ONLY', value: 'p', scope: 'PROJECT', variable_type: 'VALUE', is_secret: false });
    expect((await create({ key: 'E_ONLY', value: 'e', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: w.envId })).status).toBe(201);
    expect((await create({ key: 'S_ONLY', value: 's', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id })).status).toBe(201);

    const forApp = await unified(w.app.id, 'APPLICATION');
    expect(forApp.status).toBe(200);
    expect(keysOf(forApp)).toEqual(expect.arrayContaining(['APPLICATION:S_ONLY', 'ENVIRONMENT:E_ONLY', 'PROJECT:P_ONLY']));
    const builtIns = (forApp.body.results as any[]).filter((v) => v.scope === 'BUILT_IN');
    const hostKey = `QOVERY_APPLICATION_Z${w.app.id.replace(/-/g, '').slice(0, 8).toUpperCase()}_HOST_INTERNAL`;
    expect(builtIns.map((v) => v.key)).toContain(hostKey);
    expect(builtIns.find((v) => v.key === hostKey)).toMatchObject({ variable_type: 'BUILT_IN', service_id: w.app.id, service_type: 'APPLICATION' });
    // The database's host is visible to its siblings (databases have built-ins but no variables of their own).
    expect(builtIns.some((v) => v.key.startsWith('QOVERY_POSTGRESQL_') && v.key.endsWith('_HOST_INTERNAL') && v.service_id === w.db.id)).toBe(true);

    const forEnv = await unified(w.envId, 'ENVIRONMENT');
    expect(keysOf(forEnv)).toEqual(expect.arrayContaining(['ENVIRONMENT:E_ONLY', 'PROJECT:P_ONLY']));
    expect(keysOf(forEnv)).not.toContain('APPLICATION:S_ONLY');
    const forProject = await unified(w.projectId, 'PROJECT');
    expect(keysOf(forProject)).toContain('PROJECT:P_ONLY');
    expect(keysOf(forProject)).not.toContain('ENVIRONMENT:E_ONLY');
  });

  test('secret values are never returned, and is_secret filters the list', async () => {
    const s = await create({ key: 'DB_PASSWORD', value: 'hunter2-very-secret', is_secret: true, variable_scope: 'ENVIRONMENT', variable_parent_id: w.envId });
    expect(s.status).toBe(201);
    expect(s.body.value).toBeNull();
    expect(s.body.is_secret).toBe(true);
    const all = await unified(w.container.id, 'CONTAINER');
    expect(JSON.stringify(all.body)).not.toContain('hunter2-very-secret');
    const secrets = await unified(w.container.id, 'CONTAINER', '&is_secret=true');
    expect((secrets.body.results as any[]).every((v) => v.is_secret === true && v.value === null)).toBe(true);
    expect((secrets.body.results as any[]).map((v) => v.key)).toContain('DB_PASSWORD');
    const plain = await unified(w.container.id, 'CONTAINER', '&is_secret=false');
    expect((plain.body.results as any[]).some((v) => v.is_secret)).toBe(false);
    // Edits of a secret do not reveal it either.
    const edited = await c.put(`/variable/${s.body.id}`, { key: 'DB_PASSWORD', value: 'another-secret-value' });
    expect(edited.status).toBe(200);
    expect(JSON.stringify(edited.body)).not.toContain('another-secret-value');
  });

  test('keys are case-sensitive and unique per scope and parent (409)', async () => {
    const body = { key: 'LOG_LEVEL', value: 'info', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id };
    expect((await create(body)).status).toBe(201);
    const dup = await create({ ...body, value: 'debug' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ status: 409, error: 'Conflict' });
    expect(dup.body.message).toContain('LOG_LEVEL');
    expect((await create({ ...body, key: 'log_level' })).status).toBe(201);
    // The same key at another parent or scope is fine.
    expect((await create({ ...body, variable_scope: 'CONTAINER', variable_parent_id: w.container.id })).status).toBe(201);
    expect((await create({ ...body, variable_scope: 'ENVIRONMENT', variable_parent_id: w.envId })).status).toBe(201);
    // A secret and a plain variable share the key space of a parent.
    expect((await create({ ...body, is_secret: true })).status).toBe(409);
  });

  test('bad input gets a 400 naming the field', async () => {
    const base = { key: 'X', value: 'v', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id };
    const long = await create({ ...base, key: 'LONG_DESC', description: 'x'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.message).toContain('description');
    expect((await create({ ...base, key: 'OK_DESC', description: 'x'.repeat(255) })).status).toBe(201);
    const noKey = await create({ value: 'v', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id });
    expect(noKey.status).toBe(400);
    expect(noKey.body.message).toContain('key');
    const badScope = await create({ ...base, variable_scope: 'GALAXY' });
    expect(badScope.status).toBe(400);
    expect(badScope.body.message).toContain('variable_scope');
    const builtIn = await create({ ...base, variable_scope: 'BUILT_IN' });
    expect(builtIn.status).toBe(400);
    expect(builtIn.body.message).toMatch(/BUILT_IN/);
    const mismatch = await create({ ...base, variable_scope: 'CONTAINER' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.message).toMatch(/APPLICATION, not a CONTAINER/);
    const db = await create({ ...base, variable_scope: 'APPLICATION', variable_parent_id: w.db.id });
    expect(db.status).toBe(400);
    expect(db.body.message).toMatch(/databases have no variables/);
    const badKey = await create({ ...base, key: '1 BAD KEY' });
    expect(badKey.status).toBe(400);
    expect(badKey.body.message).toContain("field 'key'");
    const missing = await create({ ...base, variable_parent_id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.status).toBe(404);
    const list = await c.get(`/variable?parent_id=${w.app.id}`);
    expect(list.status).toBe(400);
    expect(list.body.message).toContain('scope');
  });

  test('FILE variables carry their mount_path; PUT cannot change is_secret, mount_path or scope, and updates updated_at', async () => {
    const f = await create({ key: 'CONFIG_JSON', value: '{}', mount_path: '/etc/app/config.json', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id });
    expect(f.status).toBe(201);
    expect(f.body).toMatchObject({ variable_type: 'FILE', mount_path: '/etc/app/config.json' });
    const relative = await create({ key: 'REL', value: '{}', mount_path: 'etc/x', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id });
    expect(relative.status).toBe(400);
    expect(relative.body.message).toContain('mount_path');

    const secretFlip = await c.put(`/variable/${f.body.id}`, { key: 'CONFIG_JSON', value: '{}', is_secret: true });
    expect(secretFlip.status).toBe(400);
    expect(secretFlip.body.message).toContain('is_secret');
    const moved = await c.put(`/variable/${f.body.id}`, { key: 'CONFIG_JSON', mount_path: '/other' });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toContain('mount_path');

    const rescoped = await c.put(`/variable/${f.body.id}`, { key: 'CONFIG_JSON', variable_scope: 'ENVIRONMENT' });
    expect(rescoped.status).toBe(400);
    expect(rescoped.body.message).toContain('variable_scope');
    const reparented = await c.put(`/variable/${f.body.id}`, { key: 'CONFIG_JSON', variable_parent_id: w.container.id });
    expect(reparented.status).toBe(400);
    // Sending the unchanged values is fine (a client may send the whole record back).
    const same = await c.put(`/variable/${f.body.id}`, { key: 'CONFIG_JSON', is_secret: false, mount_path: '/etc/app/config.json', variable_scope: 'APPLICATION', variable_parent_id: w.app.id });
    expect(same.status).toBe(200);
    const edited = await c.put(`/variable/${f.body.id}`, { key: 'CONFIG_JSON', value: '{"a":1}', description: 'app config' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ value: '{"a":1}', description: 'app config', mount_path: '/etc/app/config.json', scope: 'APPLICATION' });
    expect(Date.parse(edited.body.updated_at)).toBeGreaterThan(Date.parse(f.body.updated_at) - 1);
    const again = await c.put(`/variable/${f.body.id}`, { key: 'CONFIG_JSON', value: '{"a":2}' });
    expect(again.body.updated_at).not.toBe(edited.body.updated_at);

    const renamedClash = await c.put(`/variable/${f.body.id}`, { key: 'S_ONLY' });
    expect(renamedClash.status).toBe(409);
    expect((await c.put('/variable/00000000-0000-4000-8000-000000000000', { key: 'X' })).status).toBe(404);
  });

  test('a variable read from a secret manager is an EXTERNAL_SECRET', async () => {
    const r = await create({ key: 'VAULT_DB', value: 'secret/data/db#password', is_secret: true, secret_manager_access_id: '5f0f4c55-0000-4000-8000-000000000001', variable_scope: 'ENVIRONMENT', variable_parent_id: w.envId });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ variable_type: 'EXTERNAL_SECRET', secret_manager_access_id: '5f0f4c55-0000-4000-8000-000000000001', value: null });
  });

  test('BUILT_IN variables are read-only', async () => {
    const list = await unified(w.app.id, 'APPLICATION');
    const bi = (list.body.results as any[]).find((v) => v.variable_type === 'BUILT_IN');
    const put = await c.put(`/variable/${bi.id}`, { key: bi.key, value: 'hijacked' });
    expect(put.status).toBe(400);
    expect(put.body.message).toMatch(/BUILT_IN and read-only/);
    expect((await c.del(`/variable/${bi.id}`)).status).toBe(400);
    const after = await unified(w.app.id, 'APPLICATION');
    expect((after.body.results as any[]).find((v) => v.id === bi.id).value).toBe(bi.value);
  });

  test('aliases and overrides point only to a higher scope; no alias of an alias; deleting a variable removes them', async () => {
    const target = await create({ key: 'API_URL', value: 'https://api.example.com', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: w.projectId });
    const alias = await c.post(`/variable/${target.body.id}/alias`, { key: 'BACKEND_URL', alias_scope: 'ENVIRONMENT', alias_parent_id: w.envId });
    expect(alias.status).toBe(201);
    expect(alias.body).toMatchObject({ key: 'BACKEND_URL', variable_type: 'ALIAS', scope: 'ENVIRONMENT' });
    expect(alias.body.aliased_variable).toMatchObject({ id: target.body.id, key: 'API_URL', scope: 'PROJECT', variable_type: 'VALUE' });

    const override = await c.post(`/variable/${target.body.id}/override`, { value: 'http://localhost', override_scope: 'APPLICATION', override_parent_id: w.app.id });
    expect(override.status).toBe(201);
    expect(override.body).toMatchObject({ key: 'API_URL', value: 'http://localhost', variable_type: 'OVERRIDE', scope: 'APPLICATION' });
    expect(override.body.overridden_variable).toMatchObject({ id: target.body.id, key: 'API_URL', value: 'https://api.example.com' });
    const twice = await c.post(`/variable/${target.body.id}/override`, { value: 'again', override_scope: 'APPLICATION', override_parent_id: w.app.id });
    expect(twice.status).toBe(409);
    const keyOfOverride = await c.put(`/variable/${override.body.id}`, { key: 'RENAMED' });
    expect(keyOfOverride.status).toBe(400);

    // Same or lower scope: 400.
    const sameScope = await c.post(`/variable/${target.body.id}/alias`, { key: 'SAME', alias_scope: 'PROJECT', alias_parent_id: w.projectId });
    expect(sameScope.status).toBe(400);
    expect(sameScope.body.message).toMatch(/lower scope/);
    const appVar = await create({ key: 'APP_LOCAL', value: '1', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id });
    const upwards = await c.post(`/variable/${appVar.body.id}/override`, { value: '2', override_scope: 'ENVIRONMENT', override_parent_id: w.envId });
    expect(upwards.status).toBe(400);
    // A variable of another environment is not a higher scope of this service.
    const otherEnv = await createEnvironment(c, w.projectId, 'other');
    const foreign = await create({ key: 'FOREIGN', value: '1', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: otherEnv.id });
    const cross = await c.post(`/variable/${foreign.body.id}/alias`, { key: 'CROSS', alias_scope: 'APPLICATION', alias_parent_id: w.app.id });
    expect(cross.status).toBe(400);
    expect(cross.body.message).toMatch(/not inherited/);
    // No alias of an alias.
    const aliasOfAlias = await c.post(`/variable/${alias.body.id}/alias`, { key: 'DEEP', alias_scope: 'APPLICATION', alias_parent_id: w.app.id });
    expect(aliasOfAlias.status).toBe(400);
    expect(aliasOfAlias.body.message).toMatch(/itself an alias/);

    // An alias of a built-in (how a service wires in a database host).
    const list = await unified(w.app.id, 'APPLICATION');
    const dbHost = (list.body.results as any[]).find((v) => v.service_id === w.db.id && v.key.endsWith('_HOST_INTERNAL'));
    const dbAlias = await c.post(`/variable/${dbHost.id}/alias`, { key: 'DATABASE_HOST', alias_scope: 'APPLICATION', alias_parent_id: w.app.id });
    expect(dbAlias.status).toBe(201);
    expect(dbAlias.body.aliased_variable.key).toBe(dbHost.key);

    // Deleting the target takes its alias and override with it.
    expect((await c.del(`/variable/${target.body.id}`)).status).toBe(204);
    const ids = new Set(((await unified(w.app.id, 'APPLICATION')).body.results as any[]).map((v) => v.id));
    expect(ids.has(alias.body.id)).toBe(false);
    expect(ids.has(override.body.id)).toBe(false);
    expect((await c.del(`/variable/${alias.body.id}`)).status).toBe(404);
  });

  test('helm and terraform services use the unified API (they have no legacy routes)', async () => {
    const h = await create({ key: 'CHART_ENV', value: 'x', is_secret: false, variable_scope: 'HELM', variable_parent_id: w.helm.id });
    expect(h.status).toBe(201);
    const t = await create({ key: 'TF_VAR_region', value: 'eu', is_secret: false, variable_scope: 'TERRAFORM', variable_parent_id: w.terraform.id });
    expect(t.status).toBe(201);
    expect(keysOf(await unified(w.helm.id, 'HELM'))).toContain('HELM:CHART_ENV');
    expect((await c.get(`/helm/${w.helm.id}/environmentVariable`)).status).toBe(404);
    expect((await c.get(`/terraform/${w.terraform.id}/secret`)).status).toBe(404);
  });

  test('READ tokens cannot write variables; DEPLOY tokens neither', async () => {
    const body = { key: 'SCOPED', value: '1', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: w.app.id };
    expect((await c.post('/variable', body, c.em.tokens.READ)).status).toBe(403);
    expect((await c.post('/variable', body, c.em.tokens.DEPLOY)).status).toBe(403);
    expect((await c.get(`/variable?parent_id=${w.app.id}&scope=APPLICATION`, c.em.tokens.READ)).status).toBe(200);
  });
});

describe('legacy environmentVariable and secret routes', () => {
  test('create, list (with inherited), edit, delete an environment variable of a container', async () => {
    const base = `/container/${w.container.id}/environmentVariable`;
    const v = await c.post(base, { key: 'PORT', value: '8080' });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({ key: 'PORT', value: '8080', scope: 'CONTAINER', variable_type: 'VALUE' });
    expect(v.body.is_secret).toBe(false); // seed 2.2: is_secret is required in the variable record
    const list = await c.get(base);
    expect(list.status).toBe(200);
    const keys = (list.body.results as any[]).map((x) => x.key);
    expect(keys).toEqual(expect.arrayContaining(['PORT', 'E_ONLY', 'P_ONLY']));
    expect(keys).not.toContain('DB_PASSWORD'); // secrets are listed by the secret route only
    const edited = await c.put(`${base}/${v.body.id}`, { key: 'PORT', value: '9090' });
    expect(edited.status).toBe(200);
    expect(edited.body.value).toBe('9090');
    expect((await c.post(base, { key: 'PORT', value: '1' })).status).toBe(409);
    expect((await c.del(`${base}/${v.body.id}`)).status).toBe(204);
    expect((await c.get(base)).body.results.some((x: any) => x.key === 'PORT')).toBe(false);
  });

  test('secrets have no value field, in any response', async () => {
    const base = `/application/${w.app.id}/secret`;
    const s = await c.post(base, { key: 'STRIPE_KEY', value: 'sk_live_do_not_leak' });
    expect(s.status).toBe(201);
    expect('value' in s.body).toBe(false);
    expect(s.body).toMatchObject({ key: 'STRIPE_KEY', scope: 'APPLICATION' });
    const list = await c.get(base);
    expect(JSON.stringify(list.body)).not.toContain('sk_live_do_not_leak');
    expect((list.body.results as any[]).every((x) => !('value' in x))).toBe(true);
    expect((list.body.results as any[]).map((x) => x.key)).toEqual(expect.arrayContaining(['STRIPE_KEY', 'DB_PASSWORD']));
    const edited = await c.put(`${base}/${s.body.id}`, { key: 'STRIPE_KEY', value: 'sk_live_rotated' });
    expect(edited.status).toBe(200);
    expect('value' in edited.body).toBe(false);
    // The secret is not on the environment-variable route.
    expect((await c.put(`/application/${w.app.id}/environmentVariable/${s.body.id}`, { key: 'STRIPE_KEY' })).status).toBe(404);
  });

  test('POST /project/{id}/secret and the seed\'s container override route', async () => {
    const ps = await c.post(`/project/${w.projectId}/secret`, { key: 'SHARED_TOKEN', value: 'tok', description: 'shared' });
    expect(ps.status).toBe(201);
    expect(ps.body).toMatchObject({ key: 'SHARED_TOKEN', scope: 'PROJECT', description: 'shared' });
    const tooLong = await c.post(`/project/${w.projectId}/secret`, { key: 'LONG', value: 'x', description: 'd'.repeat(256) });
    expect(tooLong.status).toBe(400);

    const envVar = await c.post(`/environment/${w.envId}/environmentVariable`, { key: 'REGION', value: 'eu-west-3' });
    expect(envVar.status).toBe(201);
    const ov = await c.post(`/container/${w.container.id}/environmentVariable/${envVar.body.id}/override`, { value: 'us-east-1', description: 'local' });
    expect(ov.status).toBe(201);
    expect(ov.body).toMatchObject({ key: 'REGION', value: 'us-east-1', variable_type: 'OVERRIDE', scope: 'CONTAINER' });
    expect(ov.body.overridden_variable).toMatchObject({ id: envVar.body.id, key: 'REGION', value: 'eu-west-3' });
    const badDesc = await c.post(`/container/${w.container.id}/environmentVariable/${envVar.body.id}/override`, { value: 'x', description: 'd'.repeat(300) });
    expect(badDesc.status).toBe(400);

    const secretOverride = await c.post(`/job/${w.job.id}/secret/${ps.body.id}/override`, { value: 'job-specific' });
    expect(secretOverride.status).toBe(201);
    expect('value' in secretOverride.body).toBe(false);
    expect(secretOverride.body.overridden_secret).toMatchObject({ id: ps.body.id, key: 'SHARED_TOKEN', scope: 'PROJECT' });
    const secretAlias = await c.post(`/environment/${w.envId}/secret/${ps.body.id}/alias`, { key: 'TOKEN_ALIAS' });
    expect(secretAlias.status).toBe(201);
    expect(secretAlias.body.aliased_secret).toMatchObject({ key: 'SHARED_TOKEN' });
    // Overriding one's own variable is not pointing to a higher scope.
    const own = await c.post(`/environment/${w.envId}/environmentVariable/${envVar.body.id}/override`, { value: 'x' });
    expect(own.status).toBe(400);
  });

  test('a variable of a higher scope cannot be edited or deleted through a lower parent', async () => {
    const pv = await c.post(`/project/${w.projectId}/environmentVariable`, { key: 'TOP', value: '1' });
    const viaApp = await c.put(`/application/${w.app.id}/environmentVariable/${pv.body.id}`, { key: 'TOP', value: '2' });
    expect(viaApp.status).toBe(400);
    expect(viaApp.body.message).toMatch(/higher scope/);
    expect((await c.del(`/application/${w.app.id}/environmentVariable/${pv.body.id}`)).status).toBe(400);
  });

  test('unknown parents are 404, databases have no variable routes', async () => {
    expect((await c.get(`/application/${w.container.id}/environmentVariable`)).status).toBe(404);
    expect((await c.get('/project/00000000-0000-4000-8000-000000000000/secret')).status).toBe(404);
    expect((await c.get(`/database/${w.db.id}/environmentVariable`)).status).toBe(404);
  });
});

describe('variables and the rest of the emulator', () => {
  test('a variable change makes a deployed service OUT_OF_DATE', async () => {
    const app = await createApp(c, w.envId, 'worker');
    expect((await c.post(`/application/${app.id}/deploy`, {})).status).toBe(202);
    await watchStates(c, `/application/${app.id}/status`, (s) => s === 'DEPLOYED');
    expect((await c.get(`/application/${app.id}/status`)).body.service_deployment_status).toBe('UP_TO_DATE');
    expect((await c.post(`/application/${app.id}/environmentVariable`, { key: 'FEATURE', value: 'on' })).status).toBe(201);
    expect((await c.get(`/application/${app.id}/status`)).body.service_deployment_status).toBe('OUT_OF_DATE');

    // An environment-level change marks every deployed service of the environment.
    expect((await c.post(`/application/${app.id}/deploy`, {})).status).toBe(202);
    await watchStates(c, `/application/${app.id}/status`, (s) => s === 'DEPLOYED');
    expect((await c.get(`/application/${app.id}/status`)).body.service_deployment_status).toBe('UP_TO_DATE');
    await create({ key: 'ENV_WIDE', value: '1', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: w.envId });
    expect((await c.get(`/application/${app.id}/status`)).body.service_deployment_status).toBe('OUT_OF_DATE');

    // And a project-level one every deployed service of the project's environments.
    expect((await c.post(`/application/${app.id}/deploy`, {})).status).toBe(202);
    await watchStates(c, `/application/${app.id}/status`, (s) => s === 'DEPLOYED');
    expect((await c.get(`/application/${app.id}/status`)).body.service_deployment_status).toBe('UP_TO_DATE');
    await c.post(`/project/${w.projectId}/secret`, { key: 'PROJECT_WIDE', value: 'x' });
    expect((await c.get(`/application/${app.id}/status`)).body.service_deployment_status).toBe('OUT_OF_DATE');
    await settle(c);
  });

  test('deleting a service deletes its variables and its built-ins', async () => {
    const db = await createDatabase(c, w.envId, 'cache');
    const before = await unified(w.app.id, 'APPLICATION');
    expect((before.body.results as any[]).some((v) => v.service_id === db.id)).toBe(true);
    const app = await createApp(c, w.envId, 'short-lived');
    const own = await create({ key: 'MINE', value: '1', is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: app.id });
    expect((await c.post(`/environment/${w.envId}/service/delete`, { application_ids: [app.id], database_ids: [db.id] })).status).toBe(200);
    await settle(c);
    expect(c.em.state.variables[own.body.id]).toBeUndefined();
    const after = await unified(w.app.id, 'APPLICATION');
    expect((after.body.results as any[]).some((v) => v.service_id === db.id || v.service_id === app.id)).toBe(false);
  });

  test('lists stay fast with many variables: one parent\'s list does not depend on the others', async () => {
    // 240 variables spread over 6 services; a list is answered from the parent index.
    const apps = [] as any[];
    for (let i = 0; i < 6; i++) apps.push(await createApp(c, w.envId, `bulk-${i}`));
    for (const a of apps) {
      for (let k = 0; k < 40; k++) {
        const r = await create({ key: `K_${k}`, value: String(k), is_secret: false, variable_scope: 'APPLICATION', variable_parent_id: a.id });
        expect(r.status).toBe(201);
      }
    }
    const list = await unified(apps[4].id, 'APPLICATION');
    const own = (list.body.results as any[]).filter((v) => v.scope === 'APPLICATION');
    expect(own).toHaveLength(40);
    expect(own.every((v) => v.service_id === apps[4].id)).toBe(true);
  });
});
