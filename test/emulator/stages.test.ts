/** Deployment stages: order, membership, moves, reordering, deletion. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { appBody, databaseBody, projectAndEnv } from './fixtures.js';

let c: Client;
beforeAll(async () => {
  c = await startClient();
});
afterAll(async () => {
  await c.em.close();
});

const names = (r: any) => r.body.results.map((s: any) => `${s.deployment_order}:${s.name}`);

describe('deployment stages', () => {
  it('creates stages in order, moves services between them and reorders them', async () => {
    const { env } = await projectAndEnv(c, 'stages');
    const db = (await c.post(`/environment/${env.id}/database`, databaseBody('db'))).body;
    const api = (await c.post(`/environment/${env.id}/application`, appBody('api'))).body;
    const first = (await c.get(`/environment/${env.id}/deploymentStage`)).body.results[0];
    expect(first.services.map((m: any) => m.service_id)).toEqual([db.id, api.id]);

    const data = await c.post(`/environment/${env.id}/deploymentStage`, { name: 'data', description: 'databases first' });
    expect(data.status).toBe(200);
    expect(data.body).toMatchObject({ name: 'data', deployment_order: 1, environment: { id: env.id }, services: [] });
    const apps = (await c.post(`/environment/${env.id}/deploymentStage`, { name: 'apps' })).body;
    expect((await c.post(`/environment/${env.id}/deploymentStage`, { name: 'APPS' })).status).toBe(409);

    const moved = await c.put(`/deploymentStage/${data.body.id}/service/${db.id}`, { is_skipped: true });
    expect(moved.status).toBe(200);
    expect(names(moved)).toEqual(['0:DEFAULT', '1:data', '2:apps']);
    const byName = Object.fromEntries(moved.body.results.map((s: any) => [s.name, s]));
    expect(byName.data.services).toEqual([expect.objectContaining({ service_id: db.id, service_type: 'DATABASE', is_skipped: true })]);
    expect(byName.DEFAULT.services.map((m: any) => m.service_id)).toEqual([api.id]);
    // Moving again resets is_skipped (real service behaviour) and keeps one membership.
    await c.put(`/deploymentStage/${apps.id}/service/${api.id}`);
    const again = await c.put(`/deploymentStage/${data.body.id}/service/${db.id}`, {});
    const all = again.body.results.flatMap((s: any) => s.services.map((m: any) => m.service_id));
    expect(all.sort()).toEqual([api.id, db.id].sort());
    expect(again.body.results.find((s: any) => s.name === 'data').services[0].is_skipped).toBe(false);
    expect((await c.get(`/service/${db.id}/deploymentStage`)).body.name).toBe('data');

    expect(names(await c.put(`/deploymentStage/${apps.id}/moveBefore/${data.body.id}`))).toEqual(['0:DEFAULT', '1:apps', '2:data']);
    expect(names(await c.put(`/deploymentStage/${first.id}/moveAfter/${data.body.id}`))).toEqual(['0:apps', '1:data', '2:DEFAULT']);
    expect((await c.get(`/deploymentStage/${first.id}`)).body.deployment_order).toBe(2);

    const renamed = await c.put(`/deploymentStage/${apps.id}`, { name: 'applications', description: 'after data' });
    expect(renamed.body).toMatchObject({ name: 'applications', deployment_order: 0 });

    // Deleting a stage moves its services to the first remaining stage and closes the gap.
    expect((await c.del(`/deploymentStage/${apps.id}`)).status).toBe(204);
    const after = await c.get(`/environment/${env.id}/deploymentStage`);
    expect(names(after)).toEqual(['0:data', '1:DEFAULT']);
    expect(after.body.results[0].services.map((m: any) => m.service_id).sort()).toEqual([api.id, db.id].sort());
  });

  it('refuses a move across environments', async () => {
    const a = await projectAndEnv(c, 'stage-a');
    const b = await projectAndEnv(c, 'stage-b');
    const svc = (await c.post(`/environment/${a.env.id}/application`, appBody())).body;
    const stageB = (await c.get(`/environment/${b.env.id}/deploymentStage`)).body.results[0];
    const r = await c.put(`/deploymentStage/${stageB.id}/service/${svc.id}`, {});
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('another environment');
  });
});
