/**
 * Property: whatever happens to the organization between two runs, the plan made from the refresh
 * cache is the plan a full read makes, resource change for resource change.
 *
 * One in-process emulator whose organization evolves run after run, as a real one does between
 * cron runs. Each run makes a random sequence of out-of-band changes through the API: applies of
 * random manifests by another tool (creates, updates and deletes of projects, environments,
 * services, variables, secrets and stages, stage moves, deploys), and console edits (variable
 * values, descriptions, deletes, deploys and deletes started and not waited for). Then the plan of
 * a fixed manifest is computed from the cache of the previous run, and from a full read. Sometimes
 * the cache is taken in the middle of the changes, while deployments run.
 *
 * And the cascades the log does not spell out (issue 18): databases created outside the manifest
 * with an alias of their built-in host at a sibling service, deleted in the console (the alias goes
 * with the database; the log names only the database); a label group that services use, changed
 * by an apply with --no-deploy or in the console (the services are out of date: their statuses);
 * applies interrupted part-way. Every one of these is in the log: the cached plan must equal the
 * full one at once.
 *
 * The second property (issue 18) adds what a real log and a real machine do: this machine's clock
 * off by up to a month either way on any run, events the log shows late (after the next run, with
 * their own earlier timestamps) and events it never records. The plan from the cache equals the
 * full one at once for everything the log records (late events included, once shown), and after
 * at most 1 + ceil(lists / N) warm runs when an event was never recorded (the rotation of
 * --verify-requests N re-reads every cached list within ceil(lists / N) runs; the 1 is the run in
 * which the lists themselves changed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { applyPlan } from '../../src/apply/apply.js';
import { buildGraph } from '../../src/graph/build.js';
import { portFromClient, type ApiPort, type Query } from '../../src/live/api-port.js';
import { liveStateFromRecords } from '../../src/live/fetch.js';
import { readLiveRecords } from '../../src/live/read.js';
import { readLiveRecordsCached, type LiveSnapshot } from '../../src/live/refresh.js';
import { shapeOf } from '../../src/live/touched.js';
import { ReadOnlyPort } from '../support/read-only-api.js';
import { record } from '../support/reliability.js';
import type { DesiredGraph } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';

const KEY = 'property-fingerprint-key-0123456789';
const NUM_RUNS = Number(process.env.REFRESH_PROPERTY_RUNS ?? 500);

const PROJECTS = ['p0', 'p1'];
const ENVS = ['e0', 'e1'];
const SERVICES = ['api', 'web', 'job'];
const VALUES = ['a', 'b', 'c'];
const STAGES = ['one', 'two'];

interface Shape {
  /** The value of the label group `cost` (declared when set); services with `grouped` use it. */
  labels?: string;
  projects: Array<{
    name: string;
    description: string;
    variable?: string;
    environments: Array<{
      name: string;
      variable?: string;
      secret?: string;
      twoStages: boolean;
      services: Array<{ name: string; cpu: number; tag: string; variable?: string; secret?: string; stage: number; grouped?: boolean }>;
    }>;
  }>;
}

const vars = (v?: string, s?: string) => [...(v ? [{ key: 'V', value: v }] : []), ...(s ? [{ key: 'S', value: s, secret: true }] : [])];

/** A manifest of that shape, pruning everything it can (so out-of-band creations are planned deletes). */
function manifestOf(shape: Shape): Record<string, unknown> {
  return {
    version: 1,
    prune: { projects: true },
    ...(shape.labels ? { label_groups: [{ name: 'cost', labels: [{ key: 'cost-center', value: shape.labels }] }] } : {}),
    projects: shape.projects.map((p) => ({
      name: p.name,
      description: p.description,
      variables: vars(p.variable),
      prune: { environments: true, variables: true },
      environments: p.environments.map((e) => {
        const stages = e.twoStages ? STAGES : STAGES.slice(0, 1);
        return {
          name: e.name,
          mode: 'DEVELOPMENT',
          cluster: 'staging-cluster',
          variables: vars(e.variable, e.secret),
          prune: { services: true, deployment_stages: true, variables: true },
          deployment_stages: stages.map((st, i) => ({ name: st, services: e.services.filter((s) => Math.min(s.stage, stages.length - 1) === i).map((s) => s.name) })),
          services: e.services.map((s) => ({
            type: 'container',
            name: s.name,
            registry: 'docker-hub',
            image_name: `property/${s.name}`,
            tag: s.tag,
            cpu: s.cpu,
            memory: 256,
            variables: vars(s.variable, s.secret),
            prune: { variables: true },
            ...(shape.labels && s.grouped ? { label_groups: ['cost'] } : {}),
          })),
        };
      }),
    })),
  };
}

const optional = <T,>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const subset = <T,>(items: readonly T[]) => fc.subarray([...items], { minLength: 0 });

const shapeArb: fc.Arbitrary<Shape> = subset(PROJECTS).chain((projects) =>
  fc.tuple(
    ...projects.map((name) =>
      fc.record({
        name: fc.constant(name),
        description: fc.constantFrom(...VALUES),
        variable: optional(fc.constantFrom(...VALUES)),
        environments: subset(ENVS).chain((envs) =>
          fc.tuple(
            ...envs.map((env) =>
              fc.record({
                name: fc.constant(env),
                variable: optional(fc.constantFrom(...VALUES)),
                secret: optional(fc.constantFrom(...VALUES)),
                twoStages: fc.boolean(),
                services: subset(SERVICES).chain((svcs) =>
                  fc.tuple(
                    ...svcs.map((svc) =>
                      fc.record({
                        name: fc.constant(svc),
                        cpu: fc.constantFrom(250, 500),
                        tag: fc.constantFrom('1.0', '1.1'),
                        variable: optional(fc.constantFrom(...VALUES)),
                        secret: optional(fc.constantFrom(...VALUES)),
                        stage: fc.nat(1),
                        grouped: fc.boolean(),
                      }),
                    ),
                  ),
                ),
              }),
            ),
          ),
        ),
      }),
    ),
  ),
).chain((projects) => optional(fc.constantFrom(...VALUES)).map((labels) => ({ projects, ...(labels ? { labels } : {}) })));

/** What the observed manifest declares: every name of the pools, so every list is read. */
const OBSERVED: Shape = {
  labels: 'a',
  projects: PROJECTS.map((name) => ({
    name,
    description: 'a',
    variable: 'a',
    environments: ENVS.map((env) => ({ name: env, variable: 'a', secret: 'a', twoStages: true, services: SERVICES.map((svc, i) => ({ name: svc, cpu: 250, tag: '1.0', variable: 'a', secret: 'a', stage: i % 2, grouped: true })) })),
  })),
};

type Op =
  /** `noDeploy`: apply --no-deploy; `interruptAfterMs`: the apply is interrupted (SIGINT) that long after it starts. */
  | { kind: 'apply'; shape: Shape; noDeploy: boolean; interruptAfterMs?: number }
  | { kind: 'add-database'; pick: number; aliasAt: number }
  | { kind: 'delete-database'; pick: number }
  | { kind: 'change-group'; value: string }
  | { kind: 'set-variable'; pick: number; value: string }
  | { kind: 'delete-variable'; pick: number }
  | { kind: 'delete-service'; pick: number }
  | { kind: 'deploy'; pick: number }
  | { kind: 'move-stage'; pick: number; stage: number }
  | { kind: 'describe-project'; pick: number; value: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('apply' as const), shape: shapeArb, noDeploy: fc.boolean(), interruptAfterMs: optional(fc.integer({ min: 0, max: 60 })) }), weight: 3 },
  fc.record({ kind: fc.constant('add-database' as const), pick: fc.nat(), aliasAt: fc.nat() }),
  fc.record({ kind: fc.constant('delete-database' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('change-group' as const), value: fc.constantFrom(...VALUES, 'console') }),
  { arbitrary: fc.record({ kind: fc.constant('set-variable' as const), pick: fc.nat(), value: fc.constantFrom(...VALUES, 'console') }), weight: 2 },
  fc.record({ kind: fc.constant('delete-variable' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('delete-service' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('deploy' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('move-stage' as const), pick: fc.nat(), stage: fc.nat() }),
  fc.record({ kind: fc.constant('describe-project' as const), pick: fc.nat(), value: fc.constantFrom(...VALUES, 'console') }),
);

let emu: RunningEmulator;
let admin: ApiClient;
let consoleUser: ApiClient;
let api: ApiPort;
let console_: ApiPort;
let observed: DesiredGraph;
const dirs: string[] = [];

beforeAll(async () => {
  // No rate limit: the property makes tens of thousands of requests.
  emu = await startEmulator({ deployDurationMs: 20, rateLimit: 1_000_000_000 });
  admin = createApiClient({ baseUrl: emu.url, token: emu.tokens.ADMIN });
  consoleUser = createApiClient({ baseUrl: emu.url, token: emu.tokens.CONSOLE!, authScheme: 'Bearer' });
  api = portFromClient(admin);
  console_ = portFromClient(consoleUser);
  const built = buildGraph(manifestOf(OBSERVED) as never);
  expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  observed = built.graph;
});

afterAll(async () => {
  await admin?.close();
  await consoleUser?.close();
  await emu?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const records = <T,>(collection: string, keep: (r: Record<string, any>) => boolean = () => true): T[] =>
  Object.values((emu.state as unknown as Record<string, Record<string, Record<string, any>>>)[collection] ?? {}).filter(keep) as T[];
const pick = <T,>(items: T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

/** How many changes of each new kind took place (a property that never exercised them proves nothing). */
const happened = new Map<string, number>();
const count = (what: string) => happened.set(what, (happened.get(what) ?? 0) + 1);

/** An out-of-band change. Refusals of the API (a 409 of a stage being deleted...) are part of life. */
async function perform(op: Op): Promise<void> {
  try {
    switch (op.kind) {
      case 'apply': {
        const built = buildGraph(manifestOf(op.shape) as never);
        const live = liveStateFromRecords(await readLiveRecords(api, built.graph), built.graph);
        const plan = computePlan(built.graph, live, { fingerprintKey: KEY, allowDataLoss: true, allowReplace: true });
        const interrupt = new AbortController();
        const timer = op.interruptAfterMs === undefined ? undefined : setTimeout(() => interrupt.abort(), op.interruptAfterMs);
        try {
          const result = await applyPlan(plan, { api, live, desired: built.graph, fingerprintKey: KEY, signal: interrupt.signal }, { pollIntervalMs: 10, maxPollIntervalMs: 20, timeoutMs: 30_000, allowDataLoss: true, allowReplace: true, noDeploy: op.noDeploy });
          if (result.status === 'interrupted') count('interrupted apply');
          if (op.noDeploy && (result.pending_deploys?.length ?? 0) > 0) count('apply --no-deploy with pending deploys');
        } finally {
          clearTimeout(timer);
        }
        return;
      }
      case 'add-database': {
        // Outside the manifest: a database, and an alias of its host at a sibling service.
        const env = pick(records<Record<string, any>>('environments'), op.pick);
        if (!env) return;
        const db = await api.post<Record<string, any>>(`/environment/${env.id}/database`, { name: 'db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', cpu: 250, memory: 256, storage: 10 });
        const host = records<Record<string, any>>('variables', (v) => v.variable_type === 'BUILT_IN' && v.service_id === db.id && String(v.key).endsWith('_HOST_INTERNAL'))[0];
        const at = pick(records<Record<string, any>>('services', (x) => x.environment?.id === env.id && x.service_type === 'CONTAINER'), op.aliasAt);
        if (host && at) {
          await console_.post(`/variable/${host.id}/alias`, { key: 'DB_HOST', alias_scope: 'CONTAINER', alias_parent_id: at.id });
          count('database with an alias of its host');
        }
        return;
      }
      case 'delete-database': {
        // The console's batch route; not waited for (the alias goes when the database is gone).
        const db = pick(records<Record<string, any>>('services', (x) => x.service_type === 'DATABASE'), op.pick);
        if (db) {
          await console_.post(`/environment/${db.environment.id}/service/delete`, { database_ids: [db.id] });
          count('database deleted in the console');
        }
        return;
      }
      case 'change-group': {
        const g = records<Record<string, any>>('labelsGroups', (x) => x.name === 'cost')[0];
        if (g) {
          await console_.put(`/organization/${emu.organizationId}/labelsGroups/${g.id}`, { name: 'cost', labels: [{ key: 'cost-center', value: op.value, propagate_to_cloud_provider: false }] });
          if (records<Record<string, any>>('services', (x) => (x.labels_groups ?? []).some((r: { id: string }) => r.id === g.id)).length > 0) count('label group in use changed in the console');
        }
        return;
      }
      case 'set-variable': {
        const v = pick(records<Record<string, any>>('variables', (x) => x.scope !== 'BUILT_IN' && x.variable_type !== 'BUILT_IN' && x.variable_type !== 'ALIAS'), op.pick);
        if (v) await console_.put(`/variable/${v.id}`, { key: v.key, value: op.value });
        return;
      }
      case 'delete-variable': {
        const v = pick(records<Record<string, any>>('variables', (x) => x.scope !== 'BUILT_IN' && x.variable_type !== 'BUILT_IN'), op.pick);
        if (v) await console_.delete(`/variable/${v.id}`);
        return;
      }
      case 'delete-service': {
        const s = pick(records<Record<string, any>>('services'), op.pick);
        if (s) await console_.delete(`/container/${s.id}`);
        return;
      }
      case 'deploy': {
        const s = pick(records<Record<string, any>>('services'), op.pick);
        if (s) await console_.post(`/container/${s.id}/deploy`, {});
        return;
      }
      case 'move-stage': {
        const s = pick(records<Record<string, any>>('services'), op.pick);
        const envId = s?.environment?.id ?? s?.environment_id;
        const st = pick(records<Record<string, any>>('deploymentStages', (x) => x.environment?.id === envId), op.stage);
        if (s && st) await console_.put(`/deploymentStage/${st.id}/service/${s.id}`);
        return;
      }
      case 'describe-project': {
        const p = pick(records<Record<string, any>>('projects'), op.pick);
        if (p) await console_.put(`/project/${p.id}`, { name: p.name, description: op.value });
        return;
      }
    }
  } catch (e) {
    const status = (e as { status?: number }).status;
    if (status === undefined || status >= 500) throw e;
  }
}

async function settled(): Promise<void> {
  for (let i = 0; i < 500 && Object.keys(emu.state.operations ?? {}).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(Object.keys(emu.state.operations ?? {})).toEqual([]);
}

/** The records with their maps as sorted entries: the reader fills them in the order answers arrive. */
const comparable = (r: Awaited<ReturnType<typeof readLiveRecords>>) =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Map ? [...v].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : v]));

const read = (port: ApiPort) => readLiveRecords(port, observed);
const planOf = (recs: Awaited<ReturnType<typeof readLiveRecords>>) => computePlan(observed, liveStateFromRecords(recs, observed), { fingerprintKey: KEY, allowDataLoss: true, allowReplace: true });

describe('the refresh cache, property', () => {
  it(`after ${NUM_RUNS} random sequences of out-of-band changes, the plan from the cache is the plan from a full read`, async () => {
    let cache: LiveSnapshot | { unusable: string } = { unusable: 'no cache yet' };
    const readers = { refresh: 0, full: 0 };
    const reasons = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 4 }), fc.boolean(), async (ops, midway) => {
        for (const [i, op] of ops.entries()) {
          await perform(op);
          // A cache written while the changes (and their deployments) are still going on.
          if (midway && i === Math.floor(ops.length / 2)) {
            try {
              cache = (await readLiveRecordsCached(api, read, { previous: cache, overlapMs: 5_000 })).snapshot;
            } catch (e) {
              // A read racing a deletion in progress may meet a 404 (a full read would too): no cache then.
              if ((e as { status?: number }).status !== 404) throw e;
            }
          }
        }
        await settled();
        // Every event here is logged at once: a narrow overlap window (this log writes thousands of
        // events a minute, which a 5-minute window would read again on every run).
        const refreshed = await readLiveRecordsCached(api, read, { previous: cache, overlapMs: 5_000 });
        const full = await readLiveRecords(api, observed);
        readers[refreshed.reader]++;
        if (refreshed.fullReadReason) reasons.set(refreshed.fullReadReason, (reasons.get(refreshed.fullReadReason) ?? 0) + 1);
        expect(planOf(refreshed.records).changes).toEqual(planOf(full).changes);
        expect(comparable(refreshed.records)).toEqual(comparable(full));
        cache = refreshed.snapshot;
      }),
      // The organization carries over from run to run: shrinking a run alone would not replay it.
      { numRuns: NUM_RUNS, endOnFailure: true },
    );
    // Not a property of full reads: every run but the first refreshed (the first may have taken its
    // cache midway); any other reason to read everything would be a bug here.
    expect([...reasons.keys()].filter((r) => r !== 'no cache yet')).toEqual([]);
    expect(readers.refresh).toBeGreaterThanOrEqual(NUM_RUNS - 1);
    record('refresh-property', {
      title: 'The plan from the refresh cache equals the plan from a full read after random sequences of out-of-band changes on one evolving organization (applies, console edits, deploys and deletes not waited for, caches taken mid-way; databases with an alias of their host deleted in the console, a label group in use changed by apply --no-deploy or in the console, interrupted applies): at once, since the log records each of them',
      file: 'test/live/refresh.property.test.ts',
      command: 'npm test',
      figures: {
        sequences: NUM_RUNS,
        'plans from the cache': readers.refresh,
        'full reads': readers.full,
        ...Object.fromEntries([...happened].sort(([a], [b]) => a.localeCompare(b))),
      },
    });
    // The sequences of issue 18 took place (with enough runs to expect each).
    if (NUM_RUNS >= 100) {
      for (const what of ['interrupted apply', 'apply --no-deploy with pending deploys', 'database with an alias of its host', 'database deleted in the console', 'label group in use changed in the console']) {
        expect(happened.get(what) ?? 0, what).toBeGreaterThan(0);
      }
    }
  }, 600_000);
});

/**
 * The API as a log that is late or forgetful shows it: events of `hidden` are left out of every
 * events answer (a late one is shown again later, with its own timestamp; a dropped one never).
 */
class ForgetfulLog extends ReadOnlyPort {
  readonly hidden = new Set<string>();
  constructor(private readonly api: ApiPort) {
    super();
  }
  get requestCount(): number {
    return this.api.requestCount;
  }
  serverDate(): Date | undefined {
    return this.api.serverDate?.();
  }
  async get<T>(path: string, query?: Query): Promise<T> {
    const body = await this.api.get<any>(path, query);
    if (!/^\/organization\/[^/]+\/events$/.test(path)) return body as T;
    return { ...body, events: body.events.filter((e: { id: string }) => !this.hidden.has(e.id)) } as T;
  }
}

type Fate = 'logged' | 'late' | 'dropped';
const fateArb: fc.Arbitrary<Fate> = fc.constantFrom<Fate>('logged', 'logged', 'logged', 'late', 'dropped');
/** This machine's clock against the API's, on a run: up to a month either way. */
const skewArb = fc.constantFrom(0, 20 * 60_000, -20 * 60_000, 2 * 3_600_000, -2 * 3_600_000, 31 * 86_400_000, -31 * 86_400_000);
const VERIFY = 5;

describe('the refresh cache, property: clock skew, late and unrecorded events', () => {
  const runs = Math.max(20, Math.round(NUM_RUNS / 5));
  it(`after ${runs} random sequences, the cached plan equals the full one at once for what the log records, and within 1 + ceil(lists / ${VERIFY}) runs otherwise`, async () => {
    const log = new ForgetfulLog(api);
    let cache: LiveSnapshot | { unusable: string } = { unusable: 'no cache yet' };
    const reasons = new Map<string, number>();
    let worst = 0;
    let worstBound = 0;
    let warmRuns = 0;
    const cases = { late: 0, dropped: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ op: opArb, fate: fateArb }), { minLength: 1, maxLength: 4 }), fc.array(skewArb, { minLength: 16, maxLength: 16 }), async (steps, skews) => {
        const late: string[] = [];
        let dropped = false;
        for (const { op, fate } of steps) {
          const before = new Set(Object.keys(emu.state.auditEvents));
          await perform(op);
          const written = Object.keys(emu.state.auditEvents).filter((id) => !before.has(id));
          if (fate === 'logged' || written.length === 0) continue;
          for (const id of written) log.hidden.add(id);
          if (fate === 'late') late.push(...written);
          else dropped = true;
        }
        await settled();
        if (late.length > 0) cases.late++;
        if (dropped) cases.dropped++;
        const full = await readLiveRecords(api, observed);
        const expected = planOf(full).changes;
        let run = 0;
        const refresh = async () => {
          const skew = skews[run % skews.length]!;
          run++;
          // A late event shows within a minute of its timestamp here: the window is a minute wide.
          const r = await readLiveRecordsCached(log, read, { previous: cache, now: () => new Date(Date.now() + skew), verifyRequests: VERIFY, overlapMs: 60_000 });
          warmRuns++;
          if (r.fullReadReason) reasons.set(r.fullReadReason, (reasons.get(r.fullReadReason) ?? 0) + 1);
          cache = r.snapshot;
          return r;
        };
        const first = await refresh();
        // What the log records is seen at once (the late events are not shown yet).
        if (!dropped && late.length === 0) {
          expect(planOf(first.records).changes).toEqual(expected);
          expect(comparable(first.records)).toEqual(comparable(full));
        }
        // The late events show, with their own (earlier) timestamps: the overlap window reads them.
        for (const id of late) log.hidden.delete(id);
        if (late.length > 0) {
          const second = await refresh();
          if (!dropped) {
            expect(planOf(second.records).changes).toEqual(expected);
            expect(comparable(second.records)).toEqual(comparable(full));
          }
        }
        if (dropped) {
          const lists = Object.keys((cache as LiveSnapshot).responses).filter((k) => {
            const s = shapeOf(k);
            return s.kind !== 'organization' && s.kind !== 'other' && !(s.kind === 'org-list' && s.list.startsWith('cluster'));
          }).length;
          const bound = 1 + Math.ceil(lists / VERIFY);
          let records = first.records;
          let used = 1;
          while (JSON.stringify(comparable(records)) !== JSON.stringify(comparable(full)) && used < bound + (late.length > 0 ? 1 : 0)) {
            records = (await refresh()).records;
            used++;
          }
          worst = Math.max(worst, used);
          worstBound = Math.max(worstBound, bound);
          expect(planOf(records).changes).toEqual(expected);
          expect(comparable(records)).toEqual(comparable(full));
        }
      }),
      { numRuns: runs, endOnFailure: true },
    );
    // Skewed clocks never cost a full read: the only reasons are the first run's and the rotation's.
    expect([...reasons.keys()].filter((r) => r !== 'no cache yet' && !r.startsWith('the audit log did not explain a change to '))).toEqual([]);
    expect(worst).toBeGreaterThan(0);
    const rotation = [...reasons].filter(([r]) => r.startsWith('the audit log did not explain')).reduce((n, [, c]) => n + c, 0);
    record('refresh-property-skew', {
      title: `The refresh cache under clock skew (this machine's clock up to 31 days off the API's), late and unrecorded audit events: the cached plan equals the full one at once for what the log records, and within 1 + ceil(lists / ${VERIFY}) warm runs otherwise`,
      file: 'test/live/refresh.property.test.ts',
      command: 'npm test',
      figures: {
        sequences: runs,
        'warm runs': warmRuns,
        'sequences with a late event': cases.late,
        'sequences with an unrecorded event': cases.dropped,
        'most warm runs before an unrecorded change was seen': worst,
        'largest bound 1 + ceil(lists / N) met': worstBound,
        'full reads: the audit log did not explain a change': rotation,
        'full reads for any other reason (skew, late events)': 0,
        'wrong plans': 0,
      },
    });
  }, 900_000);
});
