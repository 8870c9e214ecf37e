/**
 * Healthchecks (readiness/liveness probes) and persistent storage of applications and containers:
 * desired attrs from the manifest, the same shape from the API record, request bodies, export.
 */
import { describe, expect, it } from 'vitest';
import { createBody, updateBody } from '../../src/apply/bodies.js';
import { IdRegistry } from '../../src/apply/refs.js';
import { exportManifest } from '../../src/export/to-manifest.js';
import { buildGraph } from '../../src/graph/build.js';
import { normalizeHealthchecks, normalizeStorage } from '../../src/graph/attrs.js';
import { checkShapes } from '../../src/manifest/shape-checks.js';
import type { Manifest, ServiceSpec } from '../../src/manifest/types.js';
import type { LiveResource, LiveState } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import { KEY, apiRecords, fullManifest, liveFrom } from '../plan/fixtures.js';

const ENV = 'project.p/environment.e';

function manifest(services: ServiceSpec[]): Manifest {
  return { version: 1, projects: [{ name: 'p', environments: [{ name: 'e', cluster: 'c', services }] }] } as unknown as Manifest;
}

const app = (extra: Record<string, unknown>) =>
  ({ type: 'application', name: 'api', git_repository: { url: 'https://github.com/acme/api.git' }, dockerfile_path: 'Dockerfile', ...extra }) as unknown as ServiceSpec;

const FULL_HTTP = { type: { http: { path: '/ready', scheme: 'HTTP', port: 8080 } }, initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 };

describe('graph: desired healthchecks and storage', () => {
  it('fills the API defaults in each declared probe, owns both probes, sorts storage by mount_point', () => {
    const { graph, diagnostics } = buildGraph(
      manifest([
        app({
          healthchecks: { readiness_probe: { type: { http: { port: 8080, path: '/ready' } } } },
          storage: [
            { size: 20, mount_point: '/var/lib' },
            { type: 'FAST_SSD', size: 4, mount_point: '/data' },
          ],
        }),
      ]),
    );
    expect(diagnostics).toEqual([]);
    const a = graph.resources.get(`${ENV}/application.api`)!.attrs;
    expect(a.healthchecks).toEqual({ readiness_probe: FULL_HTTP, liveness_probe: null });
    expect(a.storage).toEqual([
      { type: 'FAST_SSD', size: 4, mount_point: '/data' },
      { type: 'FAST_SSD', size: 20, mount_point: '/var/lib' },
    ]);
  });

  it('does not own healthchecks nor storage a manifest leaves out', () => {
    const { graph } = buildGraph(manifest([app({})]));
    const a = graph.resources.get(`${ENV}/application.api`)!.attrs;
    expect(a).not.toHaveProperty('healthchecks');
    expect(a).not.toHaveProperty('storage');
  });

  it('reports a probe type with no kind or two kinds, and two volumes at one mount_point', () => {
    const m = manifest([
      app({
        healthchecks: { readiness_probe: { type: {} }, liveness_probe: { type: { tcp: { port: 1 }, exec: { command: ['true'] } } } },
        storage: [
          { size: 4, mount_point: '/data' },
          { size: 8, mount_point: '/data' },
        ],
      }),
    ]);
    const msgs = checkShapes(m).map((d) => d.summary);
    expect(msgs).toContain('the type of the readiness_probe of application `api` needs one of `tcp`, `http`, `exec`, `grpc`');
    expect(msgs).toContain('the type of the liveness_probe of application `api` sets `tcp`, `exec`: only one is allowed');
    expect(msgs).toContain('application `api`: two storage volumes are mounted at `/data`');
  });
});

describe('live: the same shape from the API record', () => {
  it('keeps the one probe kind set, fills defaults, drops nulls and ids, sorts storage', () => {
    const record = {
      readiness_probe: { type: { tcp: null, http: { path: '/ready', port: 8080 }, exec: null, grpc: null }, period_seconds: 10 },
      liveness_probe: null,
    };
    expect(normalizeHealthchecks(record)).toEqual({ readiness_probe: FULL_HTTP, liveness_probe: null });
    expect(normalizeHealthchecks({ readiness_probe: { type: { tcp: { port: 5432, host: null } } } }).readiness_probe).toMatchObject({ type: { tcp: { port: 5432 } } });
    expect(normalizeHealthchecks({ liveness_probe: { type: { grpc: { port: 9000, service: 'health' } }, failure_threshold: 3 } }).liveness_probe).toMatchObject({ type: { grpc: { port: 9000, service: 'health' } }, failure_threshold: 3 });
    expect(normalizeHealthchecks(undefined)).toEqual({ readiness_probe: null, liveness_probe: null });
    expect(
      normalizeStorage([
        { id: 's2', type: 'FAST_SSD', size: 8, mount_point: '/z' },
        { id: 's1', type: 'FAST_SSD', size: 4, mount_point: '/a' },
      ]),
    ).toEqual([
      { type: 'FAST_SSD', size: 4, mount_point: '/a' },
      { type: 'FAST_SSD', size: 8, mount_point: '/z' },
    ]);
  });

  it('plans no change when the record has what the manifest declares, and exactly the probe field when a period differs', () => {
    const m = fullManifest();
    const api = m.projects![0]!.environments![0]!.services!.find((s) => s.name === 'api') as any;
    api.healthchecks = { readiness_probe: { type: { http: { port: 8080, path: '/ready' } } } };
    api.storage = [{ size: 10, mount_point: '/data' }];
    const { graph } = buildGraph(m);
    const records = apiRecords();
    const rec = records.services.find((s) => s.name === 'api')!;
    rec.healthchecks = { readiness_probe: { type: { http: { path: '/ready', scheme: 'HTTP', port: 8080 }, tcp: null }, initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 }, liveness_probe: null };
    rec.storage = [{ id: 'st-1', type: 'FAST_SSD', size: 10, mount_point: '/data' }];
    const change = (p: ReturnType<typeof computePlan>) => p.changes.find((c) => c.address === 'project.shop/environment.production/application.api')!;
    expect(change(computePlan(graph, liveFrom(records), { fingerprintKey: KEY })).actions).toEqual(['no-op']);
    rec.healthchecks.readiness_probe.period_seconds = 20;
    const c = change(computePlan(graph, liveFrom(records), { fingerprintKey: KEY }));
    expect(c.actions).toEqual(['update']);
    expect(c.fields.map((f) => f.field)).toEqual(['healthchecks']);
    expect((c.fields[0]!.before as any).readiness_probe.period_seconds).toBe(20);
    expect((c.fields[0]!.after as any).readiness_probe.period_seconds).toBe(10);
  });
});

describe('request bodies', () => {
  const refs = new IdRegistry('org', { organizationId: 'org', requestCount: 0, resources: new Map() });
  const ctx = { address: `${ENV}/application.api`, refs, fingerprintKey: 'k' };
  const liveProbe = { type: { tcp: { port: 80, host: null } }, initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 };
  const record = {
    id: 'app-1',
    name: 'api',
    git_repository: { url: 'https://github.com/acme/api.git', branch: 'main', root_path: '/', provider: 'GITHUB' },
    healthchecks: { readiness_probe: liveProbe, liveness_probe: liveProbe },
    storage: [
      { id: 'st-data', type: 'FAST_SSD', size: 10, mount_point: '/data' },
      { id: 'st-old', type: 'FAST_SSD', size: 4, mount_point: '/old' },
    ],
  };

  it('create: sends the declared healthchecks and storage, else empty healthchecks as before', () => {
    const hc = normalizeHealthchecks({ readiness_probe: { type: { http: { port: 8080 } } } });
    const body = createBody('application', { name: 'api', healthchecks: hc, storage: [{ type: 'FAST_SSD', size: 4, mount_point: '/data' }] }, ctx);
    expect(body.healthchecks).toEqual(hc);
    expect(body.storage).toEqual([{ type: 'FAST_SSD', size: 4, mount_point: '/data' }]);
    expect(createBody('application', { name: 'api' }, ctx).healthchecks).toEqual({});
  });

  it('update: replaces the probes whole (no leftover probe kind), storage keeps its live id by mount_point', () => {
    const hc = normalizeHealthchecks({ readiness_probe: { type: { http: { port: 8080 } } } });
    const body = updateBody('application', { name: 'api', healthchecks: hc, storage: [{ type: 'FAST_SSD', size: 20, mount_point: '/data' }, { type: 'FAST_SSD', size: 4, mount_point: '/new' }] }, record, ctx);
    expect(body.healthchecks).toEqual({ readiness_probe: hc.readiness_probe, liveness_probe: null });
    expect((body.healthchecks as any).readiness_probe.type).toEqual({ http: { path: '/', scheme: 'HTTP', port: 8080 } });
    expect(body.storage).toEqual([
      { id: 'st-data', type: 'FAST_SSD', size: 20, mount_point: '/data' },
      { type: 'FAST_SSD', size: 4, mount_point: '/new' },
    ]);
  });

  it('update: a manifest without healthchecks nor storage keeps the live ones', () => {
    const body = updateBody('application', { name: 'api', cpu: 1000 }, record, ctx);
    expect(body.healthchecks).toEqual(record.healthchecks);
    expect(body.storage).toEqual(record.storage);
  });
});

describe('export', () => {
  const state = (attrs: Record<string, unknown>, record: Record<string, unknown>): LiveState => ({
    organizationId: 'org',
    requestCount: 0,
    resources: new Map<string, LiveResource>([
      ['project.p', { address: 'project.p', kind: 'project', name: 'p', id: 'p', attrs: { name: 'p', description: null }, record: {}, version: 'v' } as LiveResource],
      ['project.p/environment.e', { address: 'project.p/environment.e', kind: 'environment', name: 'e', id: 'e', parent: 'project.p', attrs: { name: 'e', mode: 'DEVELOPMENT', cluster: 'c' }, record: {}, version: 'v' } as LiveResource],
      [`${ENV}/container.web`, { address: `${ENV}/container.web`, kind: 'container', name: 'web', id: 'w', parent: ENV, attrs: { name: 'web', description: null, registry: 'docker-hub', image_name: 'nginx', tag: '1', ...attrs }, record, version: 'v' } as LiveResource],
    ]),
  });

  it('writes probes (API defaults left out) and storage, and no longer names them as left out', () => {
    const record = {
      healthchecks: { readiness_probe: { type: { http: { path: '/', scheme: 'HTTP', port: 80 } }, period_seconds: 5 }, liveness_probe: { type: { exec: { command: ['true'] } } } },
      storage: [{ id: 'st-1', type: 'FAST_SSD', size: 10, mount_point: '/data' }],
    };
    const r = exportManifest(state({ healthchecks: normalizeHealthchecks(record.healthchecks), storage: normalizeStorage(record.storage) }, record));
    const web = (r.manifest.projects as any[])[0].environments[0].services[0];
    expect(web.healthchecks).toEqual({ readiness_probe: { type: { http: { port: 80 } }, period_seconds: 5 }, liveness_probe: { type: { exec: { command: ['true'] } } } });
    expect(web.storage).toEqual([{ size: 10, mount_point: '/data' }]);
    expect(r.warnings.join('\n')).not.toMatch(/healthchecks|storage/);
    // Read back, the exported probes are the live ones (the round trip is exact).
    const back = buildGraph(manifest([{ type: 'container', name: 'web', registry: 'docker-hub', image_name: 'nginx', tag: '1', healthchecks: web.healthchecks, storage: web.storage } as unknown as ServiceSpec]));
    const a = back.graph.resources.get(`${ENV}/container.web`)!.attrs;
    expect(a.healthchecks).toEqual(normalizeHealthchecks(record.healthchecks));
    expect(a.storage).toEqual(normalizeStorage(record.storage));
  });

  it('writes neither key for a service with no probe and no storage', () => {
    const record = { healthchecks: { readiness_probe: null, liveness_probe: null }, storage: [] };
    const r = exportManifest(state({ healthchecks: normalizeHealthchecks(record.healthchecks), storage: [] }, record));
    const web = (r.manifest.projects as any[])[0].environments[0].services[0];
    expect(web).not.toHaveProperty('healthchecks');
    expect(web).not.toHaveProperty('storage');
  });
});
