/**
 * The plan pipeline (src/pipeline/plan.ts) composes the stages in the design's order and stops at
 * the first one with an error: nothing is read from the API for a manifest with an error, and what
 * the live reader learnt besides its records (the refresh cache's events, the keys it answered,
 * its warnings) reaches the result.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/manifest/types.js';
import type { LoadResult } from '../../src/manifest/load.js';
import { runPlanPipeline, type PlanPipelineDeps } from '../../src/pipeline/plan.js';
import { warning } from '../../src/diag/diagnostic.js';
import { FakeApi } from '../apply/fake-api.js';

const ORG = 'org-1';
const rec = (id: string, extra: Record<string, unknown>) => ({ id, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', ...extra });

function api() {
  return new FakeApi()
    .on('GET', '/organization', () => rec(ORG, { name: 'Acme' }))
    .on('GET', `/organization/${ORG}/project`, () => ({ results: [rec('p1', { name: 'shop', description: 'old' })] }))
    .on('GET', '/project/p1/environment', () => ({ results: [] }));
}

const manifest = { version: 1, projects: [{ name: 'shop', description: 'new' }, { name: 'blog' }] } as unknown as Manifest;
const loaded = (m: Manifest): LoadResult => ({ manifest: m, diagnostics: [], files: ['m.yaml'] });

function deps(port: FakeApi, over: Partial<PlanPipelineDeps<{ port: FakeApi }>> = {}): PlanPipelineDeps<{ port: FakeApi }> & { connects: number } {
  const d = {
    connects: 0,
    env: { DRIFTLESS_FINGERPRINT_KEY: 'k'.repeat(32) },
    loadManifest: async () => loaded(manifest),
    connect: () => {
      d.connects++;
      return { session: { port }, diagnostics: [] };
    },
    ...over,
  };
  return d;
}

describe('runPlanPipeline', () => {
  it('loads, builds, reads (the full read by default), checks and plans', async () => {
    const port = api();
    const r = await runPlanPipeline(['m.yaml'], {}, deps(port));
    expect(r.diagnostics).toEqual([]);
    expect(r.plan?.changes.map((c) => [c.address, c.actions])).toEqual([
      ['project.shop', ['update']],
      ['project.blog', ['create']],
    ]);
    expect(port.calls.map((c) => c.path)).toEqual(['/organization', `/organization/${ORG}/project`, '/project/p1/environment']);
    expect(r.requestCount).toBe(3);
    expect(r.plan?.request_count).toBe(3);
    expect(r.session?.port).toBe(port);
  });

  it('reads through the injected reader, whose notes reach the result', async () => {
    const port = api();
    const event = { id: 'e1', event_type: 'UPDATE', target_type: 'PROJECT' } as never;
    const r = await runPlanPipeline(['m.yaml'], { noSecretValues: true }, deps(port, {
      readVia: async (p, read) => ({
        records: await read(p),
        events: [event],
        cachedKeys: ['/organization/org-1/project'],
        diagnostics: [warning('cache.fallback-key', 'dropped without secret values'), warning('cache.write-failed', 'kept')],
      }),
    }));
    expect(r.auditEvents).toEqual([event]);
    expect(r.cachedKeys).toEqual(['/organization/org-1/project']);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['cache.write-failed']);
    expect(r.plan).toBeDefined();
  });

  it('stops at the first stage with an error: a manifest error opens no connection and sends no request', async () => {
    const port = api();
    const d = deps(port, { loadManifest: async () => ({ diagnostics: [{ severity: 'error', code: 'schema.x', summary: 'bad' }], files: ['m.yaml'] }) });
    const r = await runPlanPipeline(['m.yaml'], {}, d);
    expect(r.plan).toBeUndefined();
    expect(d.connects).toBe(0);
    expect(port.calls).toEqual([]);
  });

  it('an unknown --target is an error before any request', async () => {
    const port = api();
    const d = deps(port);
    const r = await runPlanPipeline(['m.yaml'], { targets: ['project.nope'] }, d);
    expect(r.diagnostics.some((x) => x.severity === 'error')).toBe(true);
    expect(d.connects).toBe(0);
    expect(port.calls).toEqual([]);
  });

  it('a read failure is a diagnostic of the read stage, and no plan', async () => {
    const port = new FakeApi();
    const r = await runPlanPipeline(['m.yaml'], {}, deps(port));
    expect(r.plan).toBeUndefined();
    expect(r.diagnostics.map((d) => d.summary)).toEqual([expect.stringMatching(/^Reading the live state failed: /)]);
  });
});
