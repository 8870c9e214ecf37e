/**
 * Seed section 7: every bad input is a 4xx with {status, error, message} naming the problem, and
 * no input of any shape produces a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startClient, type Client } from './helpers.js';
import { appBody, databaseBody, projectAndEnv, registryId } from './fixtures.js';

let c: Client;
let ids: Record<string, string>;
const NOBODY = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  c = await startClient();
  const { project, env } = await projectAndEnv(c, 'bad-input');
  const reg = await registryId(c);
  const app = (await c.post(`/environment/${env.id}/application`, appBody())).body;
  const db = (await c.post(`/environment/${env.id}/database`, databaseBody())).body;
  const stage = (await c.get(`/environment/${env.id}/deploymentStage`)).body.results[0];
  ids = { org: c.em.organizationId, project: project.id, env: env.id, reg, app: app.id, db: db.id, stage: stage.id };
});
afterAll(async () => {
  await c.em.close();
});

// [method, path, body, status, message fragment]
type Case = [string, () => string, unknown, number, string];
const cases: Case[] = [
  ['POST', () => `/organization/${ids.org}/project`, {}, 400, "'name' is required"],
  ['POST', () => `/organization/${ids.org}/project`, { name: 42 }, 400, "'name' must be a string"],
  ['POST', () => `/organization/${ids.org}/project`, { name: '' }, 400, "'name' must be at least 1 characters"],
  ['POST', () => `/organization/${ids.org}/project`, { name: 'x', id: NOBODY }, 400, "'id' is read-only"],
  ['POST', () => `/organization/${ids.org}/project`, { name: 'x', created_at: '2020-01-01T00:00:00Z' }, 400, "'created_at' is read-only"],
  ['PUT', () => `/project/${ids.project}`, { name: 'x', updated_at: '2020-01-01T00:00:00Z' }, 400, "'updated_at' is read-only"],
  ['POST', () => `/organization/${ids.org}/project`, [], 400, 'must be an object'],
  ['POST', () => `/organization/${ids.org}/project`, 'text', 400, 'must be an object'],
  ['POST', () => `/organization/${NOBODY}/project`, { name: 'x' }, 404, `organization '${NOBODY}' not found`],
  ['GET', () => `/project/not-a-uuid`, undefined, 400, "path parameter: field 'projectId' must be a valid uuid"],
  ['GET', () => `/project/${NOBODY}`, undefined, 404, `project '${NOBODY}' not found`],
  ['POST', () => `/project/${ids.project}/environment`, { name: 'e', mode: 'production' }, 400, "'mode' must be one of"],
  ['POST', () => `/environment/${ids.env}/application`, { ...appBody('a1'), cpu: '500' }, 400, "'cpu' must be an integer"],
  ['POST', () => `/environment/${ids.env}/application`, { ...appBody('a2'), cpu: 1.5 }, 400, "'cpu' must be an integer"],
  ['POST', () => `/environment/${ids.env}/application`, { ...appBody('a3'), description: 'x'.repeat(256) }, 400, "'description' must be at most 255 characters"],
  ['POST', () => `/environment/${ids.env}/application`, { ...appBody('a4'), ports: [{ internal_port: 70000 }] }, 400, "'ports[0].internal_port' must be <= 65535"],
  ['POST', () => `/environment/${ids.env}/application`, { name: 'a5' }, 400, "'git_repository' is required"],
  ['POST', () => `/environment/${ids.env}/application`, { ...appBody('a6'), git_repository: { branch: 'main' } }, 400, "'git_repository.url' is required"],
  ['POST', () => `/environment/${ids.env}/application`, { ...appBody('a7'), min_running_instances: 3, max_running_instances: 1 }, 400, "'min_running_instances'"],
  ['POST', () => `/environment/${ids.env}/container`, { name: 'c', registry_id: NOBODY, image_name: 'x' }, 400, "'tag' is required"],
  ['POST', () => `/environment/${ids.env}/database`, { ...databaseBody('d1'), type: 'ORACLE' }, 400, "'type' must be one of: MONGODB, MYSQL, POSTGRESQL, REDIS"],
  ['POST', () => `/environment/${ids.env}/database`, { ...databaseBody('d2'), disk_type: 'gp3' }, 400, "'disk_type'"],
  ['POST', () => `/environment/${ids.env}/database`, { ...databaseBody('d3'), storage: -1 }, 400, "'storage' must be >= 1"],
  ['PUT', () => `/database/${ids.db}`, { mode: 'MANAGED' }, 400, "'mode'"],
  ['POST', () => `/environment/${ids.env}/job`, { name: 'j', source: {}, schedule: { on_start: {} } }, 400, "'source'"],
  ['POST', () => `/environment/${ids.env}/helm`, { name: 'h', source: { helm_repository: { chart_name: 'x' } } }, 400, "'source.helm_repository.chart_version' is required"],
  ['POST', () => `/environment/${ids.env}/terraform`, { name: 't' }, 400, "'terraform_files_source' is required"],
  ['POST', () => `/environment/${ids.env}/deploymentStage`, { name: 'default' }, 409, 'already exists'],
  ['PUT', () => `/deploymentStage/${ids.stage}/service/${NOBODY}`, {}, 404, `service '${NOBODY}' not found`],
  ['PUT', () => `/deploymentStage/${ids.stage}/moveBefore/${NOBODY}`, undefined, 404, 'deployment stage'],
  ['DELETE', () => `/deploymentStage/${ids.stage}`, undefined, 400, 'only stage'],
  ['POST', () => `/organization/${ids.org}/labelsGroups`, { name: 'l', labels: [{ key: 'k', value: 'v' }] }, 400, "'labels[0].propagate_to_cloud_provider' is required"],
  ['POST', () => `/organization/${ids.org}/webhook`, { target_url: 'https://x.example', events: [] }, 400, "'events' must have at least 1 item"],
  ['POST', () => `/organization/${ids.org}/webhook`, { target_url: 'https://x.example', events: ['DEPLOYMENT_STARTED'], description: 'd'.repeat(300) }, 400, "'description' must be at most 255"],
  ['POST', () => '/alert-receivers', { organization_id: NOBODY, name: 'r', type: 'SLACK', webhook_url: 'https://hooks.slack.com/x' }, 400, "'organization_id'"],
  ['POST', () => '/alert-receivers', { organization_id: NOBODY, name: 'r', type: 'PAGER' }, 400, "'type' must be one of: SLACK, EMAIL"],
  ['POST', () => '/alert-receivers/validate', { message: 'x' }, 400, "'alert_receiver' is required"],
  ['POST', () => `/cluster/${NOBODY}/upgrade`, undefined, 404, 'cluster'],
  ['GET', () => `/organization/${ids.org}/project?page=0`, undefined, 400, "'page' must be >= 1"],
  ['GET', () => `/organization/${ids.org}/project?page_size=5000`, undefined, 400, "'page_size' must be <= 1000"],
  ['GET', () => '/no/such/endpoint', undefined, 404, 'no such endpoint: GET /no/such/endpoint'],
  ['PATCH', () => `/project/${ids.project}`, { name: 'x' }, 404, 'no such endpoint: PATCH'],
];

describe('bad input corpus', () => {
  for (const [method, path, body, status, fragment] of cases) {
    it(`${method} ${path.toString().slice(6, 60)} ${JSON.stringify(body)?.slice(0, 60)} -> ${status}`, async () => {
      const r = await c.call(method, path(), body);
      expect(r.status).toBe(status);
      expect(r.body).toMatchObject({ status, error: expect.any(String) });
      expect(r.body.message).toContain(fragment);
    });
  }

  it('malformed JSON is a 400 saying so, without echoing the body (it may hold a secret)', async () => {
    const r = await c.call('POST', `/organization/${ids.org}/project`, undefined, { raw: '{"name": "x",' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^malformed JSON body/);
    for (const raw of ['{"token": s3cr3t-value}', 's3cr3t-value', '{"a": "s3cr3t-value" "b"}', '{"s3cr3t-value\u0001": 1}']) {
      const bad = await c.call('POST', `/organization/${ids.org}/project`, undefined, { raw });
      expect(bad.status, raw).toBe(400);
      expect(bad.body.message, raw).not.toContain('s3cr3t');
    }
  });

  it('absurdly deep nesting is a 400, not a stored record that can never be served', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const r = await c.call('PUT', `/application/${ids.app}`, undefined, { raw: `{"autoscaling": {"mode": "KEDA", "x": ${deep}}}` });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('malformed JSON body: nested deeper than 64 levels');
    expect((await c.get(`/application/${ids.app}`)).status).toBe(200);
    // Brackets inside strings do not count.
    const ok = await c.post(`/organization/${ids.org}/project`, { name: 'brackets', description: '[[[[{{{{'.repeat(20) });
    expect(ok.status).toBe(200);
  });

  it('a __proto__ key is refused', async () => {
    const r = await c.call('POST', `/organization/${ids.org}/project`, undefined, { raw: '{"name":"x","__proto__":{"polluted":true}}' });
    expect(r.status).toBe(400);
    expect(({} as any).polluted).toBeUndefined();
  });

  it('an oversized body is a 413', async () => {
    const r = await c.call('POST', `/organization/${ids.org}/project`, { name: 'x', description: 'y'.repeat(2 * 1024 * 1024) });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ status: 413, error: 'Payload Too Large' });
  });

  it('a body that is not JSON is a 415', async () => {
    const r = await c.call('POST', `/organization/${ids.org}/project`, undefined, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(415);
    expect(r.body.message).toContain('application/json');
  });

  it('a text/plain body is a 415 too', async () => {
    const r = await c.call('POST', '/alert-receivers', undefined, { raw: 'x', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ status: 415, error: 'Unsupported Media Type' });
  });

  it('a malformed %-escape in the URL is a 400 in the error shape, with rate-limit headers', async () => {
    for (const path of ['/project/%', '/project/%E0%A4%A']) {
      const r = await c.get(path);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ status: 400, error: 'Bad Request', message: 'the URL is not valid: a %-escape is malformed' });
      expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    }
  });

  it('an empty body with a JSON content type on a bodiless action is accepted', async () => {
    const cluster = Object.keys(c.em.state.clusters)[1];
    const r = await c.call('POST', `/cluster/${cluster}/upgrade`, undefined, { raw: '', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(201);
  });

  it('no input of any shape produces a 5xx', async () => {
    const paths = [
      () => `/organization/${ids.org}/project`,
      () => `/environment/${ids.env}/application`,
      () => `/environment/${ids.env}/database`,
      () => `/environment/${ids.env}/job`,
      () => `/environment/${ids.env}/helm`,
      () => `/environment/${ids.env}/terraform`,
      () => `/environment/${ids.env}/deploymentStage`,
      () => `/organization/${ids.org}/webhook`,
      () => `/organization/${ids.org}/annotationsGroups`,
      () => '/alert-rules',
      () => '/alert-receivers',
      () => `/application/${ids.app}`,
      () => `/database/${ids.db}`,
    ];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: paths.length - 1 }), fc.constantFrom('POST', 'PUT'), fc.anything({ withObjectString: true, withNullPrototype: false }), async (i, method, body) => {
        let raw: string | undefined;
        try {
          raw = JSON.stringify(body);
        } catch {
          raw = undefined;
        }
        const r = await c.call(method, paths[i](), undefined, { raw: raw ?? '{}' });
        expect(r.status, `${method} ${paths[i]()} ${raw?.slice(0, 200)}`).toBeLessThan(500);
        expect(typeof r.body === 'object' || r.body === undefined).toBe(true);
      }),
      { numRuns: 150, seed: 42 },
    );
  });

  it('no path or query string of any shape produces a 5xx', async () => {
    const templates = [
      (x: string) => `/project/${x}`,
      (x: string) => `/environment/${x}/services`,
      (x: string) => `/application/${x}`,
      (x: string) => `/gcp/instanceType/${x}`,
      (x: string) => `/organization/${ids.org}/project?page=${x}`,
      (x: string) => `/organization/${ids.org}/cluster?page_size=${x}&page=1`,
      (x: string) => `/deploymentStage/${ids.stage}/moveAfter/${x}`,
      (x: string) => `/${x}`,
      (x: string) => `/api/v1/${x}`,
    ];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: templates.length - 1 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('GET', 'PUT', 'DELETE'), async (i, raw, method) => {
        const path = templates[i](encodeURIComponent(raw));
        const r = await c.call(method, path, method === 'PUT' ? {} : undefined);
        expect(r.status, `${method} ${path}`).toBeLessThan(500);
        expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});
