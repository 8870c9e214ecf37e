/**
 * `GET /environment/{id}/link` and `GET /{application|container|helm}/{id}/link`: a generated
 * domain per public port, in the reference's Link shape, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { appBody, containerBody, databaseBody, projectAndEnv, registryId } from './fixtures.js';

let c: Client;
beforeAll(async () => {
  c = await startClient({ deployDurationMs: 50 });
});
afterAll(async () => {
  await c.em.close();
});

const LINK_KEYS = ['external_port', 'internal_port', 'is_default', 'is_qovery_domain', 'service_id', 'service_type', 'url'];

describe('service links', () => {
  it('lists one generated https URL per public port of the environment services, none for private ports or databases', async () => {
    const { env } = await projectAndEnv(c, 'links');
    const api = (await c.post(`/environment/${env.id}/application`, {
      ...appBody('api'),
      ports: [
        { internal_port: 8080, publicly_accessible: true, is_default: true },
        { internal_port: 9090, publicly_accessible: true, is_default: false },
        { internal_port: 9100, publicly_accessible: false },
      ],
    })).body;
    const web = (await c.post(`/environment/${env.id}/container`, { ...containerBody(await registryId(c), 'web'), ports: [{ internal_port: 80, publicly_accessible: true }] })).body;
    await c.post(`/environment/${env.id}/container`, { ...containerBody(await registryId(c), 'worker'), ports: [] });
    await c.post(`/environment/${env.id}/database`, databaseBody('pg'));

    const all = await c.get(`/environment/${env.id}/link`);
    expect(all.status).toBe(200);
    expect(all.body.results).toHaveLength(3);
    for (const l of all.body.results) {
      expect(Object.keys(l).sort()).toEqual(LINK_KEYS);
      expect(l.url).toMatch(/^https:\/\/[a-z0-9.-]+$/);
      expect(l).toMatchObject({ is_qovery_domain: true, external_port: 443 });
    }
    const ofApi = all.body.results.filter((l: any) => l.service_id === api.id);
    expect(ofApi.map((l: any) => [l.internal_port, l.is_default, l.service_type])).toEqual([
      [8080, true, 'APPLICATION'],
      [9090, false, 'APPLICATION'],
    ]);
    // The default port at the root of the domain, another port at p<port>- of it.
    expect(ofApi[1].url).toBe(ofApi[0].url.replace('https://', 'https://p9090-'));
    expect(all.body.results.filter((l: any) => l.service_id === web.id).map((l: any) => l.service_type)).toEqual(['CONTAINER']);
    expect(new Set(all.body.results.map((l: any) => l.url)).size).toBe(3);

    const one = await c.get(`/application/${api.id}/link`);
    expect(one.status).toBe(200);
    expect(one.body.results).toEqual(ofApi);
    expect((await c.get(`/container/${web.id}/link`)).body.results).toHaveLength(1);
  });

  it('gives the same template service different URLs in two environments', async () => {
    const a = (await projectAndEnv(c, 'links-a')).env;
    const b = (await projectAndEnv(c, 'links-b')).env;
    await c.post(`/environment/${a.id}/application`, appBody('api'));
    await c.post(`/environment/${b.id}/application`, appBody('api'));
    const [la, lb] = [(await c.get(`/environment/${a.id}/link`)).body.results, (await c.get(`/environment/${b.id}/link`)).body.results];
    expect(la).toHaveLength(1);
    expect(lb).toHaveLength(1);
    expect(la[0].url).not.toBe(lb[0].url);
  });

  it('answers 404 for an unknown environment or application and for an id of another kind, 400 for a malformed id', async () => {
    const { env } = await projectAndEnv(c, 'links-404');
    const db = (await c.post(`/environment/${env.id}/database`, databaseBody('pg'))).body;
    expect((await c.get(`/environment/00000000-0000-4000-8000-000000000000/link`)).status).toBe(404);
    expect((await c.get(`/application/00000000-0000-4000-8000-000000000000/link`)).status).toBe(404);
    expect((await c.get(`/application/${db.id}/link`)).status).toBe(404);
    const bad = await c.get(`/application/not-a-uuid/link`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('applicationId');
  });
});
