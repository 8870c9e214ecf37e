/**
 * `GET /organization/{id}/events` and `/targets` over real HTTP: the answers against the reference
 * document's schemas, every filter, pages both ways through `links.next` / `links.previous`,
 * nanosecond timestamps that strictly increase, clear 400s, retention (the organization's and
 * `--audit-retention`), the cap with `organization_max_limit_reached`, persistence with `--data`,
 * and the console user's token (`tokens.CONSOLE`) as the CLI sends it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startClient, type Client, type Res } from './helpers.js';
import { appBody, projectAndEnv } from './fixtures.js';
import { resolveRefs } from './contract-check.js';
import { loadReference } from './reference-check.js';
import { createApiClient } from '../../src/api/index.js';
import { authScheme } from '../../src/api/auth.js';
import { main } from '../../src/cli/main.js';
import { run } from '../export/helpers.js';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: Ajv) => Ajv;
const NANO_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;

async function allPages(c: Client, first: string): Promise<{ pages: any[][]; lastBody: any }> {
  const pages: any[][] = [];
  let path: string | undefined = first;
  let lastBody: any;
  while (path) {
    const r: Res = await c.get(path);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    pages.push(r.body.events);
    lastBody = r.body;
    path = r.body.links.next ? new URL(r.body.links.next).pathname + new URL(r.body.links.next).search : undefined;
    expect(pages.length).toBeLessThan(100);
  }
  return { pages, lastBody };
}

describe('the events route', () => {
  let c: Client;
  let org: string;
  let shop: any;
  let shopEnv: any;
  let blog: any;
  let all: any[];

  beforeAll(async () => {
    c = await startClient({ deployDurationMs: 20 });
    org = c.em.organizationId;
    ({ project: shop, env: shopEnv } = await projectAndEnv(c, 'shop'));
    blog = (await c.post(`/organization/${org}/project`, { name: 'blog' }, c.em.tokens.WRITE)).body;
    const app = (await c.post(`/environment/${shopEnv.id}/application`, appBody('api'))).body;
    await c.post(`/application/${app.id}/environmentVariable`, { key: 'LOG_LEVEL', value: 'info' });
    await c.call('PUT', `/project/${blog.id}`, { name: 'blog', description: 'edited in the console' }, { token: c.em.tokens.CONSOLE, scheme: 'Bearer' });
    await c.call('POST', `/project/${blog.id}/secret`, { key: 'API_KEY', value: 'console-secret-1' }, { token: c.em.tokens.CONSOLE, scheme: 'Bearer' });
    for (let i = 0; i < 6; i++) await c.put(`/project/${shop.id}`, { name: 'shop', description: `v${i}` }, c.em.tokens.WRITE);
    all = (await c.get(`/organization/${org}/events?pageSize=100`)).body.events;
  });
  afterAll(async () => {
    await c.em.close();
  });

  it('lists newest first with nanosecond timestamps that strictly increase', () => {
    expect(all).toHaveLength(13);
    for (const e of all) expect(e.timestamp).toMatch(NANO_ISO);
    for (let i = 1; i < all.length; i++) expect(all[i - 1].timestamp > all[i].timestamp, `${all[i - 1].timestamp} > ${all[i].timestamp}`).toBe(true);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(all.at(-1)).toMatchObject({ event_type: 'CREATE', target_type: 'PROJECT', target_name: 'shop', triggered_by: 'admin token', origin: 'API' });
  });

  it('answers as the reference document says (OrganizationEventResponseList, OrganizationEventTargetResponseList)', async () => {
    // The reference as vendored in test/fixtures/reference/ (scripts/vendor-reference.mjs).
    const real = loadReference();
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    const check = (name: string, value: unknown) => {
      const v = ajv.compile(resolveRefs(real.components.schemas[name], real));
      expect(v(value), `${name}: ${ajv.errorsText(v.errors)}`).toBe(true);
    };
    const page = await c.get(`/organization/${org}/events?pageSize=4`);
    check('OrganizationEventResponseList', page.body);
    expect(page.body.links.next).toBeTruthy();
    const second = await c.get(new URL(page.body.links.next).pathname + new URL(page.body.links.next).search);
    check('OrganizationEventResponseList', second.body);
    expect(second.body.links.previous).toBeTruthy();
    for (const e of all) check('OrganizationEventResponse', e);
    // Every optional field the emulator can fill is filled somewhere, so the check sees them all.
    expect(all.some((e) => e.sub_target_type === 'SECRET' && e.environment_id === null && e.project_name === 'blog')).toBe(true);
    // The reference's sub-target enumeration has no null: a change of the target itself leaves the field out.
    expect(all.some((e) => e.target_type === 'PROJECT' && !('sub_target_type' in e))).toBe(true);
    expect(all.some((e) => e.environment_name === 'production' && e.user_agent)).toBe(true);
    check('OrganizationEventTargetResponseList', (await c.get(`/organization/${org}/targets`)).body);
    check('OrganizationEventTargetResponseList', (await c.get(`/organization/${org}/targets?targetLevelToFetch=PROJECT&targetType=APPLICATION`)).body);
    // The same routes, with the same schemas, are in the emulator's own OpenAPI document.
    const doc = (await c.get('/openapi.json')).body;
    expect(doc.paths['/organization/{organizationId}/events'].get.responses['200']).toBeTruthy();
    expect(doc.paths['/organization/{organizationId}/targets'].get.responses['200']).toBeTruthy();
    const params = doc.paths['/organization/{organizationId}/events'].get.parameters.map((p: any) => p.name);
    for (const p of ['pageSize', 'fromTimestamp', 'toTimestamp', 'continueToken', 'stepBackToken', 'eventType', 'targetType', 'targetId', 'subTargetType', 'triggeredBy', 'origin', 'serviceProjectId', 'serviceEnvironmentId']) expect(params).toContain(p);
  });

  it('filters by event type, target, sub-target, who, origin, project and environment', async () => {
    const q = async (query: string) => {
      const r = await c.get(`/organization/${org}/events?pageSize=100&${query}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.events as any[];
    };
    const same = (got: any[], pred: (e: any) => boolean) => expect(got.map((e) => e.id)).toEqual(all.filter(pred).map((e) => e.id));
    same(await q('eventType=CREATE'), (e) => e.event_type === 'CREATE');
    same(await q(`targetType=PROJECT&targetId=${blog.id}`), (e) => e.target_id === blog.id && e.target_type === 'PROJECT');
    same(await q('subTargetType=VARIABLE'), (e) => e.sub_target_type === 'VARIABLE');
    same(await q('triggeredBy=OPS-ONCALL@example.com'), (e) => e.triggered_by === 'ops-oncall@example.com');
    same(await q('origin=CONSOLE'), (e) => e.origin === 'CONSOLE');
    expect((await q('origin=CONSOLE')).map((e) => e.event_type).sort()).toEqual(['CREATE', 'UPDATE']);
    same(await q('triggeredBy=write token'), (e) => e.triggered_by === 'write token');
    same(await q(`projectId=${shop.id}`), (e) => e.project_id === shop.id);
    same(await q(`serviceProjectId=${shop.id}&targetType=APPLICATION`), (e) => e.project_id === shop.id && e.target_type === 'APPLICATION');
    same(await q(`serviceEnvironmentId=${shopEnv.id}`), (e) => e.environment_id === shopEnv.id);
    same(await q(`environmentId=${shopEnv.id}&eventType=CREATE`), (e) => e.environment_id === shopEnv.id && e.event_type === 'CREATE');
    // fromTimestamp and toTimestamp are inclusive, at nanosecond precision, in any offset.
    const [newer, older] = [all[3], all[9]];
    same(await q(`fromTimestamp=${older.timestamp}&toTimestamp=${newer.timestamp}`), (e) => e.timestamp >= older.timestamp && e.timestamp <= newer.timestamp);
    expect(await q(`fromTimestamp=${older.timestamp}&toTimestamp=${newer.timestamp}`)).toHaveLength(7);
    const oneNsLater = older.timestamp.replace(/(\d)Z$/, (_: string, d: string) => `${Number(d) + 1}Z`);
    expect((await q(`fromTimestamp=${oneNsLater}`)).map((e) => e.id)).not.toContain(older.id);
    const shifted = new Date(Date.parse(older.timestamp) + 2 * 3600_000).toISOString().slice(0, 19) + older.timestamp.slice(19, 29) + '+02:00';
    same(await q(`fromTimestamp=${encodeURIComponent(shifted)}`), (e) => e.timestamp >= older.timestamp);
    // Nothing matches: an empty list, not an error.
    expect(await q('eventType=DEPLOY_FAILED')).toEqual([]);
  });

  it('pages older with links.next and newer with links.previous, keeping the filters and the /api/v1 prefix', async () => {
    const { pages, lastBody } = await allPages(c, `/api/v1/organization/${org}/events?pageSize=4&eventType=UPDATE`);
    const updates = all.filter((e) => e.event_type === 'UPDATE');
    expect(pages.map((p) => p.length)).toEqual([4, 3]);
    expect(pages.flat().map((e) => e.id)).toEqual(updates.map((e) => e.id));
    expect(lastBody.links.next).toBeUndefined();
    const back = lastBody.links.previous as string;
    expect(back).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/v1/organization/${org}/events\\?`));
    const url = new URL(back);
    expect(url.searchParams.get('eventType')).toBe('UPDATE');
    expect(url.searchParams.get('pageSize')).toBe('4');
    expect(url.searchParams.get('continueToken')).toBeNull();
    const previous = await c.get(url.pathname + url.search);
    expect(previous.body.events.map((e: any) => e.id)).toEqual(pages[0].map((e) => e.id));
    expect(previous.body.links.previous).toBeUndefined();
    expect(previous.body.links.next).toBeTruthy();
    // The first page has no previous one; default page size is 10.
    const first = await c.get(`/organization/${org}/events`);
    expect(first.body.events).toHaveLength(10);
    expect(first.body.links.previous).toBeUndefined();
    expect(first.body.organization_max_limit_reached).toBe(false);
  });

  it('a cursor reads exactly what happened since it, in order', async () => {
    const cursor = all[0].timestamp;
    const p = (await c.post(`/organization/${org}/project`, { name: 'later' })).body;
    await c.put(`/project/${p.id}`, { name: 'later', description: 'x' });
    const r = await c.get(`/organization/${org}/events?fromTimestamp=${cursor}`);
    const news = r.body.events.filter((e: any) => e.timestamp !== cursor);
    expect(news.map((e: any) => [e.event_type, e.target_name])).toEqual([['UPDATE', 'later'], ['CREATE', 'later']]);
    await c.del(`/project/${p.id}`);
    all = (await c.get(`/organization/${org}/events?pageSize=100`)).body.events;
  });

  it('refuses bad parameters with a 400 naming the parameter and what is allowed', async () => {
    const bad = async (query: string, pattern: RegExp, path = 'events') => {
      const r = await c.get(`/organization/${org}/${path}?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.message, query).toMatch(pattern);
    };
    await bad('fromTimestamp=yesterday', /fromTimestamp.*RFC 3339.*got 'yesterday'/);
    await bad('toTimestamp=2026-02-31T00:00:00Z', /toTimestamp.*RFC 3339/);
    await bad('fromTimestamp=2026-01-01T00:00:00.1234567891Z', /fromTimestamp.*up to 9 fractional digits/);
    await bad('continueToken=abc', /continueToken/);
    await bad(`continueToken=${all[2].timestamp}&stepBackToken=${all[1].timestamp}`, /continueToken.*stepBackToken/);
    await bad('fromTimestamp=2026-02-01T00:00:00Z&toTimestamp=2026-01-01T00:00:00Z', /fromTimestamp.*after.*toTimestamp/);
    await bad(`targetId=${shop.id}`, /targetId.*targetType/);
    await bad('targetId=not-a-uuid&targetType=PROJECT', /targetId.*uuid/);
    await bad('eventType=EXPLODE', /eventType.*must be one of: CREATE, UPDATE, DELETE/);
    await bad('origin=EMAIL', /origin.*API, CLI, CONSOLE/);
    await bad('subTargetType=NOPE', /subTargetType.*VARIABLE/);
    await bad('pageSize=0', /pageSize.*1.*100/);
    await bad('pageSize=101', /pageSize.*1.*100/);
    await bad('pageSize=ten', /pageSize.*integer/);
    await bad(`projectId=${shop.id}&serviceProjectId=${blog.id}`, /projectId.*serviceProjectId/);
    await bad('targetType=ENVIRONMENT', /projectId.*required/, 'targets');
    await bad(`targetType=APPLICATION&projectId=${shop.id}`, /environmentId.*required/, 'targets');
    await bad('targetLevelToFetch=SERVICE', /targetLevelToFetch.*PROJECT, ENVIRONMENT/, 'targets');
    expect((await c.get(`/organization/00000000-0000-4000-8000-000000000000/events`)).status).toBe(404);
    expect((await c.get(`/organization/${org}/events`, null)).status).toBe(401);
  });

  it('lists the targets of the events, by type and level', async () => {
    const t = async (query: string) => (await c.get(`/organization/${org}/targets?${query}`)).body.targets;
    expect(await t('targetType=PROJECT')).toEqual([{ id: blog.id, name: 'blog' }, { id: all.find((e) => e.target_name === 'later').target_id, name: 'later' }, { id: shop.id, name: 'shop' }]);
    expect(await t('targetType=PROJECT&origin=CONSOLE')).toEqual([{ id: blog.id, name: 'blog' }]);
    expect(await t(`targetType=ENVIRONMENT&projectId=${shop.id}`)).toEqual([{ id: shopEnv.id, name: 'production' }]);
    expect(await t(`targetType=APPLICATION&projectId=${shop.id}&environmentId=${shopEnv.id}`)).toEqual([{ id: all.find((e) => e.target_type === 'APPLICATION').target_id, name: 'api' }]);
    expect(await t('targetLevelToFetch=PROJECT&targetType=APPLICATION')).toEqual([{ id: shop.id, name: 'shop' }]);
    expect(await t(`targetLevelToFetch=ENVIRONMENT&targetType=APPLICATION&projectId=${shop.id}`)).toEqual([{ id: shopEnv.id, name: 'production' }]);
  });
});

describe('retention and the cap', () => {
  const start = Date.parse('2026-11-25T10:00:00.000Z');
  let now = start;
  const clock = { now: () => new Date(now) };

  it('--audit-retention: older events are gone; a cursor older than what was dropped is told organization_max_limit_reached', async () => {
    now = start;
    const c = await startClient({ clock, auditRetentionMs: 60_000 });
    try {
      const org = c.em.organizationId;
      const a = (await c.post(`/organization/${org}/project`, { name: 'a' })).body;
      await c.put(`/project/${a.id}`, { name: 'a', description: 'x' });
      now += 30_000;
      await c.post(`/organization/${org}/project`, { name: 'b' });
      let r = await c.get(`/organization/${org}/events`);
      expect(r.body.events).toHaveLength(3);
      expect(r.body.organization_max_limit_reached).toBe(false);
      const oldCursor = r.body.events[2].timestamp;
      now += 40_000; // the first two are now 70 s old
      r = await c.get(`/organization/${org}/events`);
      expect(r.body.events.map((e: any) => e.target_name)).toEqual(['b']);
      expect(r.body.organization_max_limit_reached).toBe(true);
      // A cursor from before what was dropped still works, and says that it missed events.
      r = await c.get(`/organization/${org}/events?fromTimestamp=${oldCursor}`);
      expect(r.status).toBe(200);
      expect(r.body.events.map((e: any) => e.target_name)).toEqual(['b']);
      expect(r.body.organization_max_limit_reached).toBe(true);
      // A cursor after the newest dropped event, within the retention, missed nothing.
      r = await c.get(`/organization/${org}/events?fromTimestamp=${new Date(start + 20_000).toISOString()}`);
      expect(r.body.events.map((e: any) => e.target_name)).toEqual(['b']);
      expect(r.body.organization_max_limit_reached).toBe(false);
      // Older than the retention: events may be gone even where none was dropped.
      const fresh = await startClient({ clock, auditRetentionMs: 60_000 });
      try {
        const q = (from: number) => fresh.get(`/organization/${fresh.em.organizationId}/events?fromTimestamp=${new Date(from).toISOString()}`);
        expect((await q(now - 61_000)).body).toEqual({ links: {}, organization_max_limit_reached: true, events: [] });
        expect((await q(now - 59_000)).body.organization_max_limit_reached).toBe(false);
      } finally {
        await fresh.em.close();
      }
      expect(c.em.state.auditEvents).not.toHaveProperty(a.id);
      expect(Object.keys(c.em.state.auditEvents)).toHaveLength(1);
    } finally {
      await c.em.close();
    }
  });

  it("follows the organization's audit_logs_retention_in_days when --audit-retention is longer or absent", async () => {
    for (const auditRetentionMs of [undefined, 30 * 86_400_000]) {
      now = start;
      const c = await startClient({ clock, auditRetentionMs });
      try {
        const org = c.em.organizationId;
        c.em.state.organization = { ...c.em.state.organization, organization_plan: { plan: 'FREE', audit_logs_retention_in_days: 2 } };
        await c.post(`/organization/${org}/project`, { name: 'old' });
        now += 1.5 * 86_400_000;
        await c.post(`/organization/${org}/project`, { name: 'recent' });
        expect((await c.get(`/organization/${org}/events`)).body.events).toHaveLength(2);
        now += 0.6 * 86_400_000;
        const r = await c.get(`/organization/${org}/events`);
        expect(r.body.events.map((e: any) => e.target_name)).toEqual(['recent']);
        expect(r.body.organization_max_limit_reached).toBe(true);
      } finally {
        await c.em.close();
      }
    }
  });

  it('keeps at most auditMaxEvents, the newest; what a query misses because of it is flagged', async () => {
    now = start;
    const c = await startClient({ clock, auditMaxEvents: 5 });
    try {
      const org = c.em.organizationId;
      const p = (await c.post(`/organization/${org}/project`, { name: 'p' })).body;
      for (let i = 0; i < 7; i++) await c.put(`/project/${p.id}`, { name: 'p', description: `d${i}` });
      const r = await c.get(`/organization/${org}/events?pageSize=100`);
      expect(r.body.events).toHaveLength(5);
      expect(r.body.events.map((e: any) => JSON.parse(e.change).after.description)).toEqual(['d6', 'd5', 'd4', 'd3', 'd2']);
      expect(r.body.organization_max_limit_reached).toBe(true);
      expect((await c.get(`/organization/${org}/events?fromTimestamp=${r.body.events[4].timestamp}`)).body.organization_max_limit_reached).toBe(false);
    } finally {
      await c.em.close();
    }
  });

  it('timestamps still strictly increase when the clock stands still or goes back', async () => {
    now = start;
    const c = await startClient({ clock });
    try {
      const org = c.em.organizationId;
      const p = (await c.post(`/organization/${org}/project`, { name: 'p' })).body;
      await c.put(`/project/${p.id}`, { name: 'p', description: '1' });
      now -= 5_000;
      await c.put(`/project/${p.id}`, { name: 'p', description: '2' });
      const ts = (await c.get(`/organization/${org}/events`)).body.events.map((e: any) => e.timestamp).reverse();
      expect(ts).toEqual(['2026-11-25T10:00:00.000000000Z', '2026-11-25T10:00:00.000000001Z', '2026-11-25T10:00:00.000000002Z']);
    } finally {
      await c.em.close();
    }
  });
});

describe('persistence with --data', () => {
  it('keeps the events, what was dropped, and the order of timestamps across restarts and journal replays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftless-audit-data-'));
    const file = join(dir, 'state.json');
    try {
      const first = await startClient({ dataFile: file, auditMaxEvents: 4 });
      const org = first.em.organizationId;
      const p = (await first.post(`/organization/${org}/project`, { name: 'kept' })).body;
      for (let i = 0; i < 4; i++) await first.put(`/project/${p.id}`, { name: 'kept', description: `d${i}` });
      await first.call('PUT', `/project/${p.id}`, { name: 'kept', description: 'console' }, { token: first.em.tokens.CONSOLE, scheme: 'Bearer' });
      const before = (await first.get(`/organization/${org}/events?pageSize=100`)).body;
      expect(before.events).toHaveLength(4);
      expect(before.organization_max_limit_reached).toBe(true);

      // Not closed: the second emulator reads the snapshot and replays the journal.
      const replayed = await startClient({ dataFile: file, auditMaxEvents: 4 });
      const again = (await replayed.get(`/organization/${org}/events?pageSize=100`)).body;
      expect(again).toEqual(before);
      expect(replayed.em.tokens.CONSOLE).toBe(first.em.tokens.CONSOLE);
      await replayed.em.close();
      await first.em.close();

      const third = await startClient({ dataFile: file, auditMaxEvents: 4 });
      try {
        const kept = (await third.get(`/organization/${org}/events?pageSize=100`)).body;
        expect(kept).toEqual(before);
        expect(kept.events[0]).toMatchObject({ origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com' });
        await third.put(`/project/${p.id}`, { name: 'kept', description: 'after restart' });
        const after = (await third.get(`/organization/${org}/events?pageSize=1`)).body.events[0];
        expect(after.timestamp > before.events[0].timestamp).toBe(true);
      } finally {
        await third.em.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('concurrent writes', () => {
  it('are each recorded once, with the identity of the request that made them (with --data: commits interleave)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftless-audit-concurrent-'));
    const c = await startClient({ dataFile: join(dir, 'state.json') });
    try {
      const org = c.em.organizationId;
      const projects = await Promise.all(Array.from({ length: 12 }, (_, i) => c.post(`/organization/${org}/project`, { name: `p${i}` })));
      const tokenOf = (i: number) => [c.em.tokens.ADMIN, c.em.tokens.WRITE, c.em.tokens.CONSOLE][i % 3];
      const who = ['admin token', 'write token', 'ops-oncall@example.com'];
      await Promise.all(projects.map((p, i) => c.call('PUT', `/project/${p.body.id}`, { name: `p${i}`, description: `by ${i}` }, { token: tokenOf(i), scheme: i % 3 === 2 ? 'Bearer' : 'Token' })));
      const updates = (await c.get(`/organization/${org}/events?pageSize=100&eventType=UPDATE`)).body.events;
      expect(updates).toHaveLength(12);
      for (const e of updates) {
        const i = projects.findIndex((p) => p.body.id === e.target_id);
        expect(e, e.target_name).toMatchObject({ target_name: `p${i}`, triggered_by: who[i % 3], origin: i % 3 === 2 ? 'CONSOLE' : 'API' });
        expect(JSON.parse(e.change).after).toEqual({ description: `by ${i}` });
      }
    } finally {
      await c.em.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a --data file written before the audit log', () => {
  it('gets an empty log and a console user, kept in the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftless-audit-old-'));
    const file = join(dir, 'state.json');
    try {
      const made = await startClient({ dataFile: file });
      await made.em.close();
      const old = JSON.parse(readFileSync(file, 'utf8'));
      delete old.auditEvents;
      delete old.auditDroppedThrough;
      old.tokens = old.tokens.filter((t: any) => t.origin !== 'CONSOLE');
      writeFileSync(file, JSON.stringify(old));
      rmSync(`${file}.journal`, { force: true });

      const c = await startClient({ dataFile: file });
      const org = c.em.organizationId;
      const console = c.em.tokens.CONSOLE;
      expect(console.split('.')).toHaveLength(3);
      expect((await c.get(`/organization/${org}/events`)).body).toEqual({ links: {}, organization_max_limit_reached: false, events: [] });
      await c.call('POST', `/organization/${org}/project`, { name: 'p' }, { token: console, scheme: 'Bearer' });
      await c.em.close();
      const again = await startClient({ dataFile: file });
      try {
        expect(again.em.tokens.CONSOLE).toBe(console);
        expect((await again.get(`/organization/${org}/events`)).body.events).toMatchObject([{ event_type: 'CREATE', target_name: 'p', origin: 'CONSOLE' }]);
      } finally {
        await again.em.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the console user (tokens.CONSOLE)', () => {
  let c: Client;
  beforeAll(async () => {
    c = await startClient({ deployDurationMs: 20 });
  });
  afterAll(async () => {
    await c.em.close();
  });

  it("is a JWT that driftless's HTTP client sends as Bearer; its writes and deploys are the console user's", async () => {
    const token = c.em.tokens.CONSOLE;
    const [header, payload] = token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')));
    expect(header).toMatchObject({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toMatchObject({ email: 'ops-oncall@example.com' });
    expect(authScheme(token)).toBe('Bearer');
    const client = createApiClient({ baseUrl: c.em.url, token });
    try {
      const org = c.em.organizationId;
      const project = await client.post<any>(`/organization/${org}/project`, { body: { name: 'from-console' } });
      const env = await client.post<any>(`/project/${project.id}/environment`, { body: { name: 'prod', mode: 'PRODUCTION' } });
      const app = await client.post<any>(`/environment/${env.id}/application`, { body: appBody('web') });
      await client.post(`/application/${app.id}/deploy`, { body: {} });
      for (let i = 0; i < 200 && Object.keys(c.em.state.operations).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
      const events = (await c.get(`/organization/${org}/events`)).body.events;
      expect(events.map((e: any) => e.event_type)).toEqual(['DEPLOYED', 'TRIGGER_DEPLOY', 'CREATE', 'CREATE', 'CREATE']);
      for (const e of events) expect(e).toMatchObject({ origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com' });
      // The deployment history says so too.
      const history = (await c.get(`/application/${app.id}/deploymentHistoryV2`)).body.results;
      expect(history[0].auditing_data).toMatchObject({ origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com' });
    } finally {
      await client.close();
    }
  });

  it('is accepted by the CLI from DRIFTLESS_API_TOKEN, and never printed', async () => {
    const r = await run(['export', '--organization', 'Acme'], { DRIFTLESS_API_URL: c.em.url, DRIFTLESS_API_TOKEN: c.em.tokens.CONSOLE, NO_COLOR: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('from-console');
    expect(r.stdout + r.stderr).not.toContain(c.em.tokens.CONSOLE);
  });
});

describe('driftless serve --audit-retention', () => {
  it('refuses a value that is not a duration, naming the option and the bounds', async () => {
    let err = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) }, env: {}, cwd: process.cwd() };
    expect(await main(['serve', '--audit-retention', 'forever'], io as any)).toBe(1);
    expect(err).toContain('--audit-retention must be a duration such as 30m, 90s or 1h, from 1s to 87600h, got forever');
  });

  it('shortens the retention of a running emulator', async () => {
    let out = '';
    let stop!: () => void;
    const interrupted = new Promise<void>((r) => (stop = r));
    let onLine!: (s: string) => void;
    const line = new Promise<string>((r) => (onLine = r));
    const io = { stdout: { write: (s: string) => ((out += s), out.includes('\n') && onLine(out.split('\n')[0]), true) }, stderr: { write: () => true }, env: {}, cwd: process.cwd(), interrupted };
    const exit = main(['serve', '--audit-retention', '1s'], io as any);
    const info = JSON.parse(await line);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(info.url + path, { method, headers: { authorization: `Token ${info.tokens.ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect((await call('POST', `/organization/${info.organization_id}/project`, { name: 'brief' })).status).toBe(200);
    expect(((await (await call('GET', `/organization/${info.organization_id}/events`)).json()) as any).events).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1100));
    const later = (await (await call('GET', `/organization/${info.organization_id}/events`)).json()) as any;
    expect(later.events).toEqual([]);
    expect(later.organization_max_limit_reached).toBe(true);
    stop();
    expect(await exit).toBe(0);
  });
});
