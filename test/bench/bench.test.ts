/**
 * The benchmark's own correctness (not a benchmark: the smallest sizes, no latency):
 * - the generator builds what it says, and driftless's plan of its manifest is a no-op within the
 *   request budget;
 * - the provider baseline issues exactly the reads it claims, as counted by the server;
 * - the request-log analysis and the budget formula.
 * The bench modules are plain ESM (bench/lib/*.mjs) that load the compiled driftless from dist/
 * (`npm test` builds first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runPlan } from '../../src/cli/run-plan.js';

const bench = (rel: string): Promise<any> => import(new URL(`../../bench/${rel}`, import.meta.url).href);

const KEY = 'test-fingerprint-key';
let emu: RunningEmulator;
let dir: string;
let served: string[] = [];
const SIZE = { projects: 1, environments: 2, services: 4 };

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 1_000_000 });
  emu.app.server.on('request', (req: { method?: string; url?: string }) => served.push(`${req.method} ${req.url}`));
  dir = mkdtempSync(join(tmpdir(), 'driftless-bench-test-'));
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bench generator', () => {
  it('creates the organization it describes, deployed, and a manifest whose plan is a no-op within the budget', async () => {
    const spec = await bench('lib/spec.mjs');
    const { populate } = await bench('lib/populate.mjs');
    const { requestBudget } = await bench('lib/analyse.mjs');
    const org = spec.orgSpec(SIZE);
    const counts = spec.countResources(org);
    expect(counts).toMatchObject({ projects: 1, environments: 2, services: 8, stages: 6 });
    expect(counts.variables).toBe(3 + 2 * 2 + 8 * (spec.VARS_PER_SERVICE + spec.SECRETS_PER_SERVICE));

    await populate(emu, org, { fingerprintKey: KEY });
    const s = emu.state;
    expect(Object.keys(s.projects)).toHaveLength(1);
    expect(Object.keys(s.environments)).toHaveLength(2);
    const services = Object.values(s.services);
    expect(services).toHaveLength(8);
    expect(services.filter((x) => x.service_type === 'APPLICATION')).toHaveLength(4);
    const own = Object.values(s.variables).filter((v) => v.scope !== 'BUILT_IN');
    expect(own).toHaveLength(counts.variables);
    expect(own.filter((v) => v.is_secret)).toHaveLength(1 + 8 * spec.SECRETS_PER_SERVICE);
    expect(Object.values(s.serviceStatuses).every((x) => x.state === 'DEPLOYED')).toBe(true);
    // Every service sits in the stage the spec gives it.
    for (const e of org.projects[0].environments) {
      for (const svc of e.services) {
        const rec = services.find((x) => x.name === svc.name && s.environments[x.environment.id]?.name === e.name)!;
        const stage = Object.values(s.deploymentStages).find((st) => st.services.some((m: { service_id: string }) => m.service_id === rec.id))!;
        expect(stage.name).toBe(svc.stage);
      }
    }

    spec.writeManifest(org, dir);
    const env = { ...process.env, ...spec.SECRET_ENV, DRIFTLESS_API_URL: emu.url, DRIFTLESS_API_TOKEN: emu.tokens.READ, DRIFTLESS_FINGERPRINT_KEY: KEY };
    served = [];
    const r = await runPlan([dir], {}, { env, cwd: dir });
    await r.session?.close();
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.plan!.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    expect(served.length).toBe(r.requestCount);
    expect(r.requestCount).toBeLessThanOrEqual(requestBudget(SIZE));
  });

  it('the provider baseline issues exactly the reads it claims (counted by the server)', async () => {
    const { runBaseline, readsOf } = await bench('baseline-provider.mjs');
    served = [];
    const res = await runBaseline({ url: emu.url, token: emu.tokens.READ, parallelism: 4 });
    // PRIOR-ART section 4: application 9, container 10, environment 5, project 3, stage 1.
    expect(readsOf('application', 'x')).toHaveLength(9);
    expect(readsOf('container', 'x')).toHaveLength(10);
    expect(readsOf('environment', 'x')).toHaveLength(5);
    expect(readsOf('project', 'x')).toHaveLength(3);
    expect(readsOf('deployment_stage', 'x')).toHaveLength(1);
    expect(readsOf('container', 'x', 'six')).toHaveLength(6);
    const stages = Object.keys(emu.state.deploymentStages).length; // 3 per environment + the platform's DEFAULT
    const expected = 3 + 2 * 5 + stages + 4 * 9 + 4 * 10;
    expect(res.requests).toBe(expected);
    expect(served.length).toBe(expected + res.discoveryRequests);
    expect(res.failed).toBe(0);
  });
});

describe('bench cloning', () => {
  it('projects copied from the first one (fresh ids, own names) plan as a no-op too', async () => {
    const spec = await bench('lib/spec.mjs');
    const { populate } = await bench('lib/populate.mjs');
    const { cloneProjects } = await bench('lib/clone.mjs');
    const org = spec.orgSpec({ projects: 3, environments: 1, services: 2 });
    const first = await startEmulator({ rateLimit: 1_000_000 });
    let second: RunningEmulator | undefined;
    const cdir = mkdtempSync(join(tmpdir(), 'driftless-bench-clone-'));
    try {
      await populate(first, { projects: [org.projects[0]] }, { fingerprintKey: KEY });
      const state = cloneProjects(JSON.parse(JSON.stringify(first.state)), org.projects[0].name, org.projects.slice(1));
      second = await startEmulator({ rateLimit: 1_000_000, seed: state });
      expect(Object.values(second.state.projects).map((p) => p.name).sort()).toEqual(['project-00', 'project-01', 'project-02']);
      const ids = Object.keys(second.state.services);
      expect(new Set(ids).size).toBe(6);
      spec.writeManifest(org, cdir);
      const env = { ...process.env, ...spec.SECRET_ENV, DRIFTLESS_API_URL: second.url, DRIFTLESS_API_TOKEN: second.tokens.READ, DRIFTLESS_FINGERPRINT_KEY: KEY };
      const r = await runPlan([cdir], {}, { env, cwd: cdir });
      await r.session?.close();
      expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(r.plan!.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    } finally {
      await first.close();
      await second?.close();
      rmSync(cdir, { recursive: true, force: true });
    }
  });
});

describe('bench analysis', () => {
  it('budget formula of issue 6', async () => {
    const { requestBudget } = await bench('lib/analyse.mjs');
    expect(requestBudget({ projects: 1, environments: 3, services: 30 })).toBe(109);
  });

  it('judges each target from the measured figures', async () => {
    const { evaluateTargets, renderReport } = await bench('lib/report.mjs');
    const plan = (requests: number, wallMs: number) => ({ requests, wallMs, noop: true, serverSpanMs: wallMs / 2 });
    const results = {
      date: '2026-01-01T00:00:00Z',
      command: 'node bench/run.mjs',
      machine: { cpu: 'cpu', cores: 2, memoryGb: 4, os: 'os', node: 'v20', commit: 'abc', loadAtStart: '0', loadAtEnd: '0' },
      options: { runs: 3, latencyMs: 50, deployMs: 5000, pollIntervalMs: 1000 },
      sizes: [
        { label: '1x10x100', counts: { services: 1000, total: 13064 }, budget: 1040, plan: [plan(1035, 9000), plan(1035, 9500), plan(1035, 12000)], baseline: [{ requests: 9765, wallMs: 60000 }], change: [] },
        { label: '5x10x100', counts: { services: 5000, total: 65320 }, budget: 5168, plan: [plan(5258, 52000)], baseline: [{ requests: 48825, wallMs: 300000 }], change: [] },
      ],
      apply: [{ label: '1x1x100', counts: { services: 100 }, stages: 3, criticalPathMs: 15000, runs: [{ exit: 0, deployed: 100, wallMs: 30000, deployPhaseMs: 16000 }] }],
      core: [{ label: '50k', runs: [{ resources: 52256, total_cpu_ms: 1200, peak_rss_mb: 230, changes: 0 }] }],
      rateLimit: { limit: 200, windowS: 20, size: '1x4x95', needed: 400, runs: [{ status429: 0, exit: 0, requests: 397, wallMs: 25000, waitLines: ['API rate limit: waiting 20s'] }] },
      errors: [],
    };
    const t = evaluateTargets(results);
    const verdict = (id: string) => t.find((x: { id: string }) => x.id === id)?.met;
    expect(verdict('requests 1x10x100')).toBe(true);
    expect(verdict('requests 5x10x100')).toBe(false); // 5,258 > 5,168
    expect(verdict('ratio 1x10x100')).toBe(true);
    expect(verdict('plan 1,000 < 10 s')).toBe(true); // median 9.5 s
    expect(verdict('linear 5,000')).toBe(true); // 52 / 9.5 = 5.47
    expect(verdict('fresh apply (whole)')).toBe(false);
    expect(verdict('fresh apply (deploy phase)')).toBe(true);
    expect(verdict('pure core')).toBe(true);
    expect(verdict('rate limit')).toBe(true);
    expect(renderReport({ ...results, targets: t })).toContain('| 5x10x100 |');
  });

  it('judges the pull-request plan with --target of one environment: that environment\'s reads + 10, and the partial plan of the one change', async () => {
    const { targetBudget } = await bench('lib/analyse.mjs');
    const { evaluateTargets, renderReport } = await bench('lib/report.mjs');
    expect(targetBudget({ projects: 5, environments: 10, services: 100 })).toBe(113);
    const run = (requests: number, over: object = {}) => ({ address: 'project.project-00/environment.env-00', requests, wallMs: 2000, exit: 2, partial: true, changes: true, ...over });
    const size = (label: string, target: object[]) => ({ label, counts: { services: 1000, total: 1 }, budget: 1, plan: [], baseline: [], change: [], target, targetBudget: 113 });
    const results = {
      date: '2026-01-01T00:00:00Z',
      command: 'node bench/run.mjs',
      machine: { cpu: 'cpu', cores: 2, memoryGb: 4, os: 'os', node: 'v20', commit: 'abc', loadAtStart: '0', loadAtEnd: '0' },
      options: { runs: 1, latencyMs: 50, deployMs: 5000 },
      sizes: [size('1x10x100', [run(108)]), size('5x10x100', [run(114)]), size('1x3x30', [run(40, { partial: false })])],
      apply: [],
      core: [],
      errors: [],
    };
    const t = evaluateTargets(results);
    const verdict = (id: string) => t.find((x: { id: string }) => x.id === id)?.met;
    expect(verdict('target 1x10x100')).toBe(true);
    expect(verdict('target 5x10x100')).toBe(false); // 114 > 113
    expect(verdict('target 1x3x30')).toBe(false); // not said to be partial
    expect(renderReport({ ...results, targets: t })).toContain('| 1x10x100 | `project.project-00/environment.env-00` | 108 (113) |');
  });

  it('splits an apply log into plan reads, writes, deploys and polls', async () => {
    const { analyseLog } = await bench('lib/analyse.mjs');
    const log = [
      [0, 50, 'GET /organization', 200],
      [60, 50, 'GET /variable', 200],
      [200, 50, 'PUT /variable/{id}', 200],
      [300, 50, 'POST /environment/{id}/service/deploy', 200],
      [2400, 50, 'GET /environment/{id}/statuses', 200],
      [5500, 50, 'GET /environment/{id}/statuses', 200],
    ];
    expect(analyseLog(log)).toMatchObject({ requests: 6, planReads: 2, writes: 1, deployRequests: 1, polls: 2, otherReads: 0, minPollGapMs: 3100, deployPhaseMs: 5250 });
  });
});
