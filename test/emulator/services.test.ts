/** Projects, environments and services of every kind over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { appBody, clusters, containerBody, cronBody, databaseBody, helmBody, helmRepositoryId, jobBody, projectAndEnv, registryId, terraformBody } from './fixtures.js';

let c: Client;
beforeAll(async () => {
  c = await startClient({ deployDurationMs: 100 });
});
afterAll(async () => {
  await c.em.close();
});

describe('projects', () => {
  it('creates, lists, gets, edits and deletes a project', async () => {
    const org = c.em.organizationId;
    const created = await c.post(`/organization/${org}/project`, { name: 'alpha', description: 'first' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'alpha', description: 'first', organization: { id: org }, associated_environments_count: 0 });
    expect(created.body.created_at).toBe(created.body.updated_at);
    const list = await c.get(`/organization/${org}/project`);
    expect(list.body.results.map((p: any) => p.name)).toContain('alpha');
    const put = await c.put(`/project/${created.body.id}`, { name: 'alpha2', description: null });
    expect(put.status).toBe(200);
    expect(put.body.name).toBe('alpha2');
    expect(Date.parse(put.body.updated_at)).toBeGreaterThan(Date.parse(created.body.updated_at));
    expect((await c.get(`/project/${created.body.id}`)).body.name).toBe('alpha2');
    expect((await c.del(`/project/${created.body.id}`)).status).toBe(204);
    expect((await c.get(`/project/${created.body.id}`)).status).toBe(404);
  });

  it('refuses a duplicate name, case-insensitively, with 409', async () => {
    const org = c.em.organizationId;
    await c.post(`/organization/${org}/project`, { name: 'Billing' });
    const dup = await c.post(`/organization/${org}/project`, { name: 'BILLING' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ status: 409, error: 'Conflict' });
    expect(dup.body.message).toContain('Billing');
  });
});

describe('environments', () => {
  it('creates an environment on a named cluster with a default stage; the cluster is immutable', async () => {
    const { staging } = await clusters(c);
    const project = (await c.post(`/organization/${c.em.organizationId}/project`, { name: 'envs' })).body;
    const env = await c.post(`/project/${project.id}/environment`, { name: 'staging', mode: 'STAGING', cluster_id: staging.id });
    expect(env.status).toBe(201);
    expect(env.body).toMatchObject({ name: 'staging', mode: 'STAGING', cluster_id: staging.id, project: { id: project.id }, cluster_name: 'staging-cluster' });
    const stages = await c.get(`/environment/${env.body.id}/deploymentStage`);
    expect(stages.body.results).toHaveLength(1);

    const moved = await c.put(`/environment/${env.body.id}`, { cluster_id: (await clusters(c)).production.id });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toMatch(/cluster_id.*cannot be changed/);
    const same = await c.put(`/environment/${env.body.id}`, { name: 'stage', mode: 'DEVELOPMENT', cluster_id: staging.id });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ name: 'stage', mode: 'DEVELOPMENT' });

    const badMode = await c.post(`/project/${project.id}/environment`, { name: 'x', mode: 'PREVIEW' });
    expect(badMode.status).toBe(400);
    expect(badMode.body.message).toContain("'mode' must be one of: DEVELOPMENT, PRODUCTION, STAGING");
    const badCluster = await c.post(`/project/${project.id}/environment`, { name: 'x', cluster_id: '00000000-0000-4000-8000-000000000000' });
    expect(badCluster.status).toBe(400);
    expect(badCluster.body.message).toContain('cluster_id');
    const list = await c.get(`/project/${project.id}/environment`);
    expect(list.body.results.map((e: any) => e.name)).toEqual(['stage']);
    expect((await c.get(`/project/${project.id}`)).body.associated_environments_count).toBe(1);
  });
});

describe('services', () => {
  it('creates one service of every kind, lists them per kind and all at once', async () => {
    const reg = await registryId(c);
    const { env } = await projectAndEnv(c, 'every-kind');
    const made = {
      application: await c.post(`/environment/${env.id}/application`, appBody()),
      container: await c.post(`/environment/${env.id}/container`, containerBody(reg)),
      database: await c.post(`/environment/${env.id}/database`, databaseBody()),
      job: await c.post(`/environment/${env.id}/job`, jobBody(reg)),
      helm: await c.post(`/environment/${env.id}/helm`, helmBody(await helmRepositoryId(c))),
      terraform: await c.post(`/environment/${env.id}/terraform`, terraformBody()),
    };
    for (const [kind, r] of Object.entries(made)) {
      expect(r.status, kind).toBe(201);
      expect(r.body.service_type).toBe(kind.toUpperCase());
      expect(r.body.environment).toEqual({ id: env.id });
      const one = await c.get(`/${kind}/${r.body.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(r.body);
      const list = await c.get(`/environment/${env.id}/${kind}`);
      expect(list.body.results.map((x: any) => x.id)).toEqual([r.body.id]);
    }
    const all = await c.get(`/environment/${env.id}/services`);
    expect(all.status).toBe(200);
    expect(all.body.results).toHaveLength(6);
    // Full records, not summaries: the same as GET by id.
    for (const rec of all.body.results) expect(rec).toEqual(made[rec.service_type.toLowerCase() as keyof typeof made].body);

    expect(made.application.body).toMatchObject({
      git_repository: { url: 'https://github.com/acme/api.git', branch: 'main', provider: 'GITHUB', owner: 'acme', name: 'api' },
      cpu: 500, memory: 512, maximum_cpu: 8000, maximum_memory: 16384,
    });
    expect(made.application.body.ports[0]).toMatchObject({ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' });
    expect(made.application.body.ports[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.container.body.registry).toMatchObject({ id: reg, name: 'docker-hub' });
    expect(made.database.body).toMatchObject({ type: 'POSTGRESQL', mode: 'CONTAINER', port: 5432, instance_type: null, disk_type: null });
    expect(made.job.body.job_type).toBe('LIFECYCLE');
    expect((await c.post(`/environment/${env.id}/job`, cronBody(reg))).body.job_type).toBe('CRON');
    // The real HelmResponse source: the chart and the repository it comes from, by id, name and url.
    expect(made.helm.body.source).toEqual({
      repository: { chart_name: 'redis', chart_version: '19.0.0', repository: { id: await helmRepositoryId(c), name: 'bitnami', url: 'https://charts.bitnami.com/bitnami' } },
    });
    // A secret terraform variable is write-only.
    const vars = made.terraform.body.terraform_variables_source.tf_vars;
    expect(vars).toEqual([{ key: 'region', value: 'eu-west-3', secret: false }, { key: 'token', secret: true }]);
    expect(JSON.stringify(all.body)).not.toContain('s3cr3t-tf');

    // Every new service lands in the environment's first stage.
    const stages = await c.get(`/environment/${env.id}/deploymentStage`);
    expect(stages.body.results[0].services.map((m: any) => m.service_id).sort()).toEqual(all.body.results.map((x: any) => x.id).concat(
      (await c.get(`/environment/${env.id}/job`)).body.results.filter((j: any) => j.job_type === 'CRON').map((j: any) => j.id),
    ).sort());
  });

  it('lists every environment and service summary of the organization, filtered by project, environment or cluster', async () => {
    const org = c.em.organizationId;
    const { project, env } = await projectAndEnv(c, 'summaries');
    const { staging } = await clusters(c);
    const stg = (await c.post(`/project/${project.id}/environment`, { name: 'staging', cluster_id: staging.id })).body;
    const api = (await c.post(`/environment/${env.id}/application`, appBody('api'))).body;
    const db = (await c.post(`/environment/${stg.id}/database`, databaseBody('db'))).body;
    const envs = (await c.get(`/organization/${org}/environments`)).body.results;
    expect(envs.find((e: any) => e.id === stg.id)).toEqual({ id: stg.id, created_at: stg.created_at, updated_at: stg.updated_at, name: 'staging', organization: { id: org }, project: { id: project.id }, mode: 'DEVELOPMENT' });
    const inProject = (await c.get(`/organization/${org}/services?project_id=${project.id}`)).body.results;
    expect(inProject.map((x: any) => x.id).sort()).toEqual([api.id, db.id].sort());
    expect(inProject.find((x: any) => x.id === db.id)).toMatchObject({ name: 'db', service_type: 'DATABASE', project_name: 'summaries', environment_name: 'staging', cluster_id: staging.id });
    expect((await c.get(`/organization/${org}/services?environment_id=${env.id}`)).body.results.map((x: any) => x.id)).toEqual([api.id]);
    expect((await c.get(`/organization/${org}/services?cluster_id=${staging.id}&project_id=${project.id}`)).body.results.map((x: any) => x.id)).toEqual([db.id]);
    expect((await c.get(`/organization/${org}/services?project_id=nope`)).status).toBe(400);
  });

  it('names are unique in an environment across kinds, case-insensitively', async () => {
    const { env } = await projectAndEnv(c, 'unique');
    expect((await c.post(`/environment/${env.id}/application`, appBody('Front'))).status).toBe(201);
    const dup = await c.post(`/environment/${env.id}/database`, databaseBody('front'));
    expect(dup.status).toBe(409);
    expect(dup.body.message).toContain("'Front'");
  });

  it('bounds cpu and memory by the cluster maxima', async () => {
    const { env } = await projectAndEnv(c, 'bounds');
    const cpu = await c.post(`/environment/${env.id}/application`, { ...appBody(), cpu: 9000 });
    expect(cpu.status).toBe(400);
    expect(cpu.body.message).toBe("field 'cpu': 9000 millicores is above maximum_cpu 8000 of cluster 'production-cluster'");
    const mem = await c.post(`/environment/${env.id}/database`, { ...databaseBody(), memory: 999999 });
    expect(mem.status).toBe(400);
    expect(mem.body.message).toContain("field 'memory'");
  });

  it('database PUT is partial, and type and mode are immutable', async () => {
    const { env } = await projectAndEnv(c, 'db-edit');
    const db = (await c.post(`/environment/${env.id}/database`, databaseBody('orders'))).body;
    const edited = await c.put(`/database/${db.id}`, { storage: 20 });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'orders', version: '16', storage: 20, cpu: 250 });
    expect(Date.parse(edited.body.updated_at)).toBeGreaterThan(Date.parse(db.updated_at));
    const type = await c.put(`/database/${db.id}`, { type: 'MYSQL' });
    expect(type.status).toBe(400);
    expect(type.body.message).toContain("field 'type'");
    const mode = await c.put(`/database/${db.id}`, { mode: 'MANAGED' });
    expect(mode.status).toBe(400);
    expect(mode.body.message).toContain("field 'mode'");
    expect((await c.put(`/database/${db.id}`, { type: 'POSTGRESQL', mode: 'CONTAINER' })).status).toBe(200);
  });

  it('managed databases on AWS take an instance type from the AWS listing', async () => {
    const { env } = await projectAndEnv(c, 'managed');
    const managed = { name: 'orders-rds', type: 'POSTGRESQL', version: '16', mode: 'MANAGED', storage: 20 };
    const dflt = await c.post(`/environment/${env.id}/database`, managed);
    expect(dflt.status).toBe(201);
    expect(dflt.body).toMatchObject({ instance_type: 'db.t3.micro', disk_type: 'gp3', disk_encrypted: true });
    const chosen = await c.put(`/database/${dflt.body.id}`, { instance_type: 'db.r5.large' });
    expect(chosen.body.instance_type).toBe('db.r5.large');
    const bad = await c.post(`/environment/${env.id}/database`, { ...managed, name: 'cache', type: 'REDIS', instance_type: 'db.t3.micro' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("field 'instance_type': 'db.t3.micro' is not offered for REDIS in eu-west-3; allowed: cache.t3.micro");
  });

  it('container PUT is a full replacement; application PUT keeps omitted name and repository', async () => {
    const reg = await registryId(c);
    const { env } = await projectAndEnv(c, 'replace');
    const ctr = (await c.post(`/environment/${env.id}/container`, { ...containerBody(reg), cpu: 1000, arguments: ['-v'] })).body;
    const replaced = await c.put(`/container/${ctr.id}`, containerBody(reg));
    expect(replaced.body).toMatchObject({ cpu: 500, arguments: [] });
    const missing = await c.put(`/container/${ctr.id}`, { name: 'web' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("'registry_id' is required");

    const app = (await c.post(`/environment/${env.id}/application`, appBody('api'))).body;
    const port = app.ports[0];
    const edited = await c.put(`/application/${app.id}`, { cpu: 1000, ports: [{ id: port.id, internal_port: 9090, publicly_accessible: true }] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'api', cpu: 1000, git_repository: { url: 'https://github.com/acme/api.git' } });
    expect(edited.body.ports).toEqual([expect.objectContaining({ id: port.id, internal_port: 9090 })]);
    const noPorts = await c.put(`/application/${app.id}`, { cpu: 1000 });
    expect(noPorts.body.ports).toEqual([]);
    const keda = { mode: 'KEDA', polling_interval_seconds: 30, scalers: [{ scaler_type: 'cpu', enabled: true }] };
    expect((await c.put(`/application/${app.id}`, { autoscaling: keda })).body.autoscaling).toEqual(keda);
    expect((await c.put(`/application/${app.id}`, { autoscaling: { mode: 'HPA' } })).status).toBe(400);
  });

  it('marks a deployed service OUT_OF_DATE after a configuration change', async () => {
    const { env } = await projectAndEnv(c, 'ood');
    const app = (await c.post(`/environment/${env.id}/application`, appBody())).body;
    const status = async () => (await c.get(`/application/${app.id}/status`)).body;
    expect((await status()).service_deployment_status).toBe('NEVER_DEPLOYED');
    expect((await c.post(`/application/${app.id}/deploy`, { git_commit_id: 'abc123' }, c.em.tokens.DEPLOY)).status).toBe(202);
    let st = await status();
    for (let i = 0; i < 400 && st.state !== 'DEPLOYED'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      st = await status();
    }
    expect(st).toMatchObject({ state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE' });
    await c.put(`/application/${app.id}`, { cpu: 600 });
    expect((await status()).service_deployment_status).toBe('OUT_OF_DATE');
  });

  it('leaves a deployed service UP_TO_DATE after a rename (plan deploys nothing for it either: NON_DEPLOY_FIELDS)', async () => {
    const { env } = await projectAndEnv(c, 'rename');
    const registry = await registryId(c);
    const web = (await c.post(`/environment/${env.id}/container`, containerBody(registry, 'web'))).body;
    const status = async () => (await c.get(`/container/${web.id}/status`)).body;
    expect((await c.post(`/container/${web.id}/deploy`, {}, c.em.tokens.DEPLOY)).status).toBe(202);
    let st = await status();
    for (let i = 0; i < 400 && st.state !== 'DEPLOYED'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      st = await status();
    }
    expect(st).toMatchObject({ state: 'DEPLOYED', service_deployment_status: 'UP_TO_DATE' });
    expect((await c.put(`/container/${web.id}`, { ...containerBody(registry, 'web'), name: 'frontend' })).status).toBe(200);
    expect((await status()).service_deployment_status).toBe('UP_TO_DATE');
    expect((await c.put(`/container/${web.id}`, { ...containerBody(registry, 'web'), name: 'frontend', cpu: 750 })).status).toBe(200);
    expect((await status()).service_deployment_status).toBe('OUT_OF_DATE');
  });

  it('leaves a deployed service UP_TO_DATE after a PUT that changes nothing or only its description and icon, and a database after a variable change', async () => {
    const { env } = await projectAndEnv(c, 'ood-meta');
    const app = (await c.post(`/environment/${env.id}/application`, appBody())).body;
    const db = (await c.post(`/environment/${env.id}/database`, databaseBody())).body;
    const status = async (kind: string, id: string) => (await c.get(`/${kind}/${id}/status`)).body;
    expect((await c.post(`/environment/${env.id}/deploy`, {}, c.em.tokens.DEPLOY)).status).toBeLessThan(300);
    for (let i = 0; i < 400 && ((await status('application', app.id)).state !== 'DEPLOYED' || (await status('database', db.id)).state !== 'DEPLOYED'); i++) await new Promise((r) => setTimeout(r, 10));
    expect((await status('application', app.id)).service_deployment_status).toBe('UP_TO_DATE');
    // PUT replaces the whole record: the creation body again changes nothing.
    expect((await c.put(`/application/${app.id}`, appBody())).status).toBe(200);
    expect((await status('application', app.id)).service_deployment_status).toBe('UP_TO_DATE');
    expect((await c.put(`/application/${app.id}`, { ...appBody(), description: 'edited', icon_uri: 'app://qovery-console/other' })).status).toBe(200);
    expect((await status('application', app.id)).service_deployment_status).toBe('UP_TO_DATE');
    expect((await c.put(`/application/${app.id}`, { ...appBody(), description: 'edited', cpu: 750 })).status).toBe(200);
    expect((await status('application', app.id)).service_deployment_status).toBe('OUT_OF_DATE');
    expect((await c.post('/variable', { key: 'FLAG', value: 'on', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id })).status).toBeLessThan(300);
    expect((await status('database', db.id)).service_deployment_status).toBe('UP_TO_DATE');
  });

  it('refuses to delete an environment or its project while an operation runs in it', async () => {
    const slow = await startClient({ deployDurationMs: 60_000 });
    try {
      const { project, env } = await projectAndEnv(slow, 'busy');
      const app = (await slow.post(`/environment/${env.id}/application`, appBody())).body;
      expect((await slow.post(`/application/${app.id}/deploy`, { git_commit_id: 'abc123' }, slow.em.tokens.DEPLOY)).status).toBe(202);
      const busy = await slow.del(`/environment/${env.id}`);
      expect(busy.status).toBe(409);
      expect(busy.body.message).toContain('operation in progress');
      expect((await slow.del(`/project/${project.id}`)).status).toBe(409);
      expect((await slow.get(`/application/${app.id}`)).status).toBe(200);
    } finally {
      await slow.em.close();
    }
  });

  it('deletes services, and an environment with everything in it', async () => {
    const { project, env } = await projectAndEnv(c, 'deletes');
    const app = (await c.post(`/environment/${env.id}/application`, appBody())).body;
    const db = (await c.post(`/environment/${env.id}/database`, databaseBody())).body;
    expect((await c.del(`/application/${app.id}`)).status).toBe(204);
    // Deletion is asynchronous (DELETE_QUEUED, DELETING, gone): wait for it.
    for (let i = 0; i < 200 && (await c.get(`/application/${app.id}`)).status === 200; i++) await new Promise((r) => setTimeout(r, 25));
    expect((await c.get(`/application/${app.id}`)).status).toBe(404);
    // The wrong kind is a 404 even for an existing id.
    expect((await c.get(`/container/${db.id}`)).status).toBe(404);
    expect((await c.del(`/environment/${env.id}`)).status).toBe(204);
    expect((await c.get(`/database/${db.id}`)).status).toBe(404);
    expect((await c.get(`/environment/${env.id}`)).status).toBe(404);
    expect((await c.get(`/project/${project.id}/environment`)).body.results).toEqual([]);
  });

  it('refuses references to unknown registries and groups, and jobs without a schedule', async () => {
    const reg = await registryId(c);
    const { env } = await projectAndEnv(c, 'refs');
    const badReg = await c.post(`/environment/${env.id}/container`, containerBody('00000000-0000-4000-8000-000000000000'));
    expect(badReg.status).toBe(400);
    expect(badReg.body.message).toContain("field 'registry_id'");
    const badGroup = await c.post(`/environment/${env.id}/application`, { ...appBody(), annotations_groups: [{ id: '00000000-0000-4000-8000-000000000000' }] });
    expect(badGroup.status).toBe(400);
    expect(badGroup.body.message).toContain("field 'annotations_groups[0].id'");
    const noSchedule = await c.post(`/environment/${env.id}/job`, { ...jobBody(reg), schedule: {} });
    expect(noSchedule.status).toBe(400);
    expect(noSchedule.body.message).toContain("field 'schedule'");
    const chart = helmBody(await helmRepositoryId(c));
    const twoSources = await c.post(`/environment/${env.id}/helm`, { ...chart, source: { ...chart.source, git_repository: { url: 'https://github.com/a/b' } } });
    expect(twoSources.status).toBe(400);
    expect(twoSources.body.message).toContain("field 'source'");
  });
});

describe('an unset optional port field is left out, never null (the real API types it integer / string)', () => {
  it('a private port of an application, a container and a helm chart answers without external_port; lists and edits too', async () => {
    const { env } = await projectAndEnv(c, 'no-nulls');
    const reg = await registryId(c);
    const ports = [{ internal_port: 8080, publicly_accessible: true }, { internal_port: 9090, publicly_accessible: false }];
    const app = await c.post(`/environment/${env.id}/application`, { ...appBody('private-ports'), ports });
    const ct = await c.post(`/environment/${env.id}/container`, { ...containerBody(reg, 'private-ports-ct'), ports });
    const helm = await c.post(`/environment/${env.id}/helm`, { ...helmBody(await helmRepositoryId(c), 'private-ports-helm'), ports: [{ internal_port: 6379 }] });
    for (const made of [app, ct, helm]) expect(made.status, JSON.stringify(made.body)).toBe(201);
    const answers = [
      app.body, ct.body, helm.body,
      (await c.get(`/application/${app.body.id}`)).body,
      (await c.get(`/container/${ct.body.id}`)).body,
      (await c.get(`/helm/${helm.body.id}`)).body,
      ...(await c.get(`/environment/${env.id}/services`)).body.results,
      (await c.put(`/application/${app.body.id}`, { ...appBody('private-ports'), ports: app.body.ports.map(({ external_port, ...p }: any) => p), healthchecks: {} })).body,
    ];
    for (const a of answers) for (const p of a.ports ?? []) for (const [k, v] of Object.entries(p)) expect(v, `${a.name}.ports.${k}`).not.toBeNull();
    expect(app.body.ports).toEqual([expect.objectContaining({ internal_port: 8080, external_port: 443 }), expect.not.objectContaining({ external_port: expect.anything() })]);
    expect(app.body.ports[1]).not.toHaveProperty('external_port');
    expect(ct.body.ports[1]).not.toHaveProperty('external_port');
    expect(helm.body.ports[0]).toMatchObject({ internal_port: 6379 });
    for (const k of ['external_port', 'namespace', 'service_name']) expect(helm.body.ports[0]).not.toHaveProperty(k);
  });
});
