/** Versioned paths, pagination, latency, fault injection, OpenAPI at both roots. */
import { afterEach, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';

let c: Client | undefined;
afterEach(async () => {
  await c?.em.close();
  c = undefined;
});

describe('versioning', () => {
  it('serves the same API at the root and under /api/v1', async () => {
    c = await startClient();
    const org = c.em.organizationId;
    const created = await c.post(`/api/v1/organization/${org}/project`, { name: 'versioned' });
    expect(created.status).toBe(200);
    expect((await c.get(`/project/${created.body.id}`)).body).toEqual((await c.get(`/api/v1/project/${created.body.id}`)).body);
    const unknown = await c.get('/api/v1/nothing');
    expect(unknown.status).toBe(404);
    for (const path of ['/openapi.json', '/api/v1/openapi.json']) {
      const doc = await c.get(path);
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toBe('3.0.3');
      expect(doc.body.servers).toEqual([{ url: '/' }, { url: '/api/v1' }]);
      expect(Object.keys(doc.body.paths)).toContain('/organization/{organizationId}/project');
      expect(Object.keys(doc.body.paths).some((p) => p.startsWith('/api/v1'))).toBe(false);
    }
  });
});

describe('pagination', () => {
  it('returns pages with a pagination object when page or page_size is given', async () => {
    c = await startClient();
    const org = c.em.organizationId;
    for (let i = 0; i < 5; i++) await c.post(`/organization/${org}/project`, { name: `p${i}` });
    const full = await c.get(`/organization/${org}/project`);
    expect(full.body.results).toHaveLength(5);
    expect(full.body.pagination).toBeUndefined();
    const p2 = await c.get(`/organization/${org}/project?page=2&page_size=2`);
    expect(p2.body.pagination).toEqual({ page: 2, page_size: 2, total_count: 5, total_pages: 3 });
    expect(p2.body.results.map((p: any) => p.name)).toEqual(full.body.results.slice(2, 4).map((p: any) => p.name));
    const last = await c.get(`/organization/${org}/project?page=3&page_size=2`);
    expect(last.body.results).toHaveLength(1);
    const beyond = await c.get(`/organization/${org}/project?page=9&page_size=2`);
    expect(beyond.body).toMatchObject({ results: [], pagination: { page: 9, total_count: 5 } });
    const clusters = await c.get(`/organization/${org}/cluster?page_size=1`);
    expect(clusters.body).toMatchObject({ pagination: { page: 1, page_size: 1, total_count: 2, total_pages: 2 } });
    expect(clusters.body.results).toHaveLength(1);
  });
});

describe('latency', () => {
  it('delays every response by --latency, before the request is handled', async () => {
    const waits: number[] = [];
    let release!: () => void;
    c = await startClient({ latencyMs: 120, sleep: (ms) => (waits.push(ms), new Promise<void>((r) => (release = r))) });
    const pending = c.post(`/organization/${c.em.organizationId}/project`, { name: 'slow' });
    while (waits.length === 0) await new Promise((r) => setImmediate(r));
    expect(waits).toEqual([120]);
    // Held at the delay: nothing was written yet.
    expect(Object.values(c.em.state.projects).map((p) => p.name)).not.toContain('slow');
    release();
    expect((await pending).status).toBe(200);
    expect(Object.values(c.em.state.projects).map((p) => p.name)).toContain('slow');
  });
});

describe('fault injection', () => {
  async function run(seed: number): Promise<string[]> {
    const em = await startClient({ faultRate: 0.5, faultSeed: seed });
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        // Only the request is inside the catch, and only fetch's own network error counts as dropped.
        const r = await em.post(`/organization/${em.em.organizationId}/project`, { name: `chaos-${i}` }).catch((error: unknown) => {
          if (error instanceof TypeError && error.message === 'fetch failed') return undefined;
          throw error;
        });
        outcomes.push(r ? String(r.status) : 'dropped');
      }
      const names = Object.values(em.em.state.projects).map((p) => p.name);
      outcomes.push(`stored:${names.length}`);
    } finally {
      await em.em.close();
    }
    return outcomes;
  }

  it('fails about that fraction of requests with 500, 503 or a dropped connection, reproducibly', async () => {
    const a = await run(7);
    const b = await run(7);
    expect(a).toEqual(b);
    const kinds = new Set(a.slice(0, -1));
    expect(kinds).toContain('200');
    expect(kinds).toContain('500');
    expect(kinds).toContain('503');
    expect(kinds).toContain('dropped');
    const ok = a.filter((x) => x === '200').length;
    // Some failures happen after the write was committed: more projects stored than 200s seen.
    const stored = Number(a[a.length - 1].split(':')[1]);
    expect(stored).toBeGreaterThan(ok);
    expect(ok).toBeGreaterThan(5);
    expect(ok).toBeLessThan(35);
    expect(await run(8)).not.toEqual(a);
  });

  it('a fault body is the error shape and the server keeps serving', async () => {
    c = await startClient({ faultRate: 1, faultSeed: 3 });
    // Every one of the 10 requests is judged: an answer must be the fault's error shape, anything
    // else must be the dropped connection itself (fetch's own TypeError), never a swallowed assertion.
    let answered = 0;
    let dropped = 0;
    for (let i = 0; i < 10; i++) {
      const outcome = await c.get('/organization').then(
        (res) => ({ res, error: undefined }),
        (error: unknown) => ({ res: undefined, error }),
      );
      if (outcome.res) {
        expect([500, 503]).toContain(outcome.res.status);
        expect(outcome.res.body.message).toContain('injected fault');
        answered++;
      } else {
        expect(outcome.error).toBeInstanceOf(TypeError);
        expect((outcome.error as Error).message).toBe('fetch failed');
        dropped++;
      }
    }
    expect(answered + dropped).toBe(10);
    expect(answered).toBeGreaterThan(0);
    // The OpenAPI document is never faulted, so tools can always read it.
    expect((await c.get('/openapi.json')).status).toBe(200);
  });
});

describe('updated_at', () => {
  it('strictly increases on every write, even within one millisecond', async () => {
    const frozen = new Date('2026-05-01T12:00:00.000Z');
    c = await startClient({ clock: { now: () => frozen } });
    const org = c.em.organizationId;
    const p = (await c.post(`/organization/${org}/project`, { name: 'ts' })).body;
    expect(p.created_at).toBe('2026-05-01T12:00:00.000Z');
    const stamps = [p.updated_at];
    for (let i = 0; i < 3; i++) stamps.push((await c.put(`/project/${p.id}`, { name: 'ts', description: String(i) })).body.updated_at);
    expect(stamps).toEqual(['2026-05-01T12:00:00.000Z', '2026-05-01T12:00:00.001Z', '2026-05-01T12:00:00.002Z', '2026-05-01T12:00:00.003Z']);
    expect((await c.get(`/project/${p.id}`)).body.created_at).toBe('2026-05-01T12:00:00.000Z');
  });
});
