/**
 * A new service kind in the emulator is one KindDef (src/emulator/services/kinds.ts, step 6 of
 * docs/adding-a-kind.md): its routes, its own deploy, its list in the environment's batch bodies,
 * the scope of its variables, its audit target and its links are derived from KINDS, not from
 * tables of their own in other files. A `worker` kind (a container under another name) is added
 * to KINDS before the emulator's modules are loaded, then used over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS, type KindDef } from '../../src/emulator/services/kinds.js';

const container = KINDS.find((k) => k.kind === 'container')!;
const worker = { ...container, kind: 'worker', type: 'WORKER', tag: 'Workers' } as unknown as KindDef;
KINDS.push(worker);

// Loaded after the push: the emulator's modules derive their tables from KINDS as they load.
const { startClient } = await import('./helpers.js');
const { containerBody, projectAndEnv, registryId } = await import('./fixtures.js');
type Client = Awaited<ReturnType<typeof startClient>>;

let c: Client;
let env: { id: string };
let svc: { id: string; service_type: string };
beforeAll(async () => {
  c = await startClient({ deployDurationMs: 50 });
  env = (await projectAndEnv(c, 'kinds')).env;
  const made = await c.post(`/environment/${env.id}/worker`, { ...containerBody(await registryId(c), 'w1'), ports: [{ internal_port: 80, publicly_accessible: true }] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  svc = made.body;
});
afterAll(async () => {
  KINDS.splice(KINDS.indexOf(worker), 1);
  await c?.em.close();
});

describe('a kind added to KINDS alone', () => {
  it('has its routes: create (above), read, list, and its own deploy', async () => {
    expect(svc.service_type).toBe('WORKER');
    expect((await c.get(`/worker/${svc.id}`)).body).toMatchObject({ id: svc.id, name: 'w1' });
    expect((await c.get(`/environment/${env.id}/worker`)).body.results.map((s: { id: string }) => s.id)).toEqual([svc.id]);
    // Not a container: the other kind's routes do not answer for it.
    expect((await c.get(`/container/${svc.id}`)).status).toBe(404);
    const deployed = await c.post(`/worker/${svc.id}/deploy`, { image_tag: '1.28' });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(202);
  });

  it('holds variables of its own scope (the API document lists the scopes a request may name)', async () => {
    const { isServiceScope, resolveParent } = await import('../../src/emulator/variables/scopes.js');
    expect(isServiceScope('WORKER')).toBe(true);
    expect(resolveParent(c.em.state, 'WORKER', svc.id)).toMatchObject({ scope: 'WORKER', id: svc.id, level: 2, environmentId: env.id });
  });

  it('is an audit target of its own type, and has its links', async () => {
    const created = (await c.get(`/organization/${c.em.organizationId}/events?pageSize=100`)).body.events.filter((e: { target_id: string }) => e.target_id === svc.id);
    expect(created.map((e: { target_type: string }) => e.target_type)).toContain('WORKER');
    const links = await c.get(`/worker/${svc.id}/link`);
    expect(links.status).toBe(200);
    expect(links.body.results).toHaveLength(1);
  });
});
