/**
 * `protect:` and the `moved` guard as pure functions (src/plan/protect.ts, src/plan/protect-mark.ts,
 * src/graph/protect.ts): the manifest's mark with its line, the live mark in a description, what is
 * blocked whatever the flags, and what is not.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { loadManifestFromSources } from '../../src/manifest/load.js';
import { buildLiveLookup, normalizeLive } from '../../src/live/normalize.js';
import type { ApiRecord } from '../../src/live/record-helpers.js';
import type { Address, DesiredGraph, LiveResource, LiveState, ResourceKind } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import { splitProtectMark, withProtectMark } from '../../src/plan/protect-mark.js';
import { withFingerprintMarker } from '../../src/plan/fingerprint.js';
import { desiredToRequest } from '../../src/apply/bodies.js';
import { blockingOf, refusedWithout } from '../../src/plan/guards.js';
import { planToJson } from '../../src/render/json.js';
import { protectMarksLine, summaryLine } from '../../src/render/describe.js';
import { planHasChanges, planHasWrites } from '../../src/plan/types.js';
import { stepActionOf } from '../../src/apply/steps.js';
import type { Diagnostic } from '../../src/diag/diagnostic.js';

function graphOf(files: Record<string, string>): { graph: DesiredGraph; diagnostics: Diagnostic[] } {
  const sources = Object.entries(files).map(([name, text]) => ({ file: { path: `/m/${name}`, root: '/m', display: name }, text }));
  const loaded = loadManifestFromSources(sources, { env: {}, readFile: () => ({ ok: false, reason: 'none' }) });
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return buildGraph(loaded.manifest!);
}

const P = 'project.shop';
const E = `${P}/environment.prod`;

/** Live records of project shop / environment prod with an application api and a database pg. */
function liveOf(o: { apiDescription?: string | null; projectDescription?: string | null; cluster?: string; extraEnv?: boolean } = {}): LiveState {
  const lookup = buildLiveLookup({ clusters: [{ id: 'c1', name: 'production-cluster' }, { id: 'c2', name: 'staging-cluster' }] });
  const resources = new Map<Address, LiveResource>();
  const add = (kind: ResourceKind, r: ApiRecord, parent?: Address) => {
    const l = normalizeLive(kind, { updated_at: '2026-11-01T00:00:00Z', ...r }, parent, lookup);
    if (kind === 'application' || kind === 'database') l.status = { service_deployment_status: 'UP_TO_DATE', last_deployment_date: '2026-11-01T00:00:00Z' };
    resources.set(l.address, l);
  };
  add('project', { id: 'p1', name: 'shop', description: o.projectDescription ?? null });
  add('environment', { id: 'e1', name: 'prod', mode: 'PRODUCTION', cluster_id: 'c1' }, P);
  add('application', { id: 'a1', name: 'api', service_type: 'APPLICATION', description: o.apiDescription ?? null, git_repository: { url: 'https://github.com/acme/api.git' }, dockerfile_path: 'Dockerfile' }, E);
  add('database', { id: 'd1', name: 'pg', service_type: 'DATABASE', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', storage: 10 }, E);
  if (o.extraEnv) add('environment', { id: 'e2', name: 'staging', mode: 'STAGING', cluster_id: 'c1' }, P);
  return { organizationId: 'org', resources, requestCount: 1 };
}

const manifest = (o: { api?: string; db?: string; env?: string; project?: string; cluster?: string; apiKind?: string; prune?: boolean; withApi?: boolean; extra?: string } = {}) => `version: 1
projects:
  - name: shop
${o.project ? `    protect: ${o.project}\n` : ''}    environments:
      - name: prod
        mode: PRODUCTION
        cluster: ${o.cluster ?? 'production-cluster'}
${o.env ? `        protect: ${o.env}\n` : ''}${o.prune ? '        prune: { services: true }\n' : ''}        services:
${o.withApi === false ? '' : `          - type: ${o.apiKind ?? 'application'}
            name: api
${o.api ? `            protect: ${o.api}\n` : ''}            git_repository: { url: https://github.com/acme/api.git }
            dockerfile_path: Dockerfile
`}          - type: database
            name: pg
${o.db ? `            protect: ${o.db}\n` : ''}            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            storage: 10
${o.extra ?? ''}`;

const ALL = { allowReplace: true, allowDataLoss: true };
const at = (d: Diagnostic) => `${d.range?.file}:${d.range?.start.line}`;

describe('the protect mark in a description', () => {
  it('shares the driftless marker with fingerprints, and comes out of the description and the fingerprints', () => {
    expect(withFingerprintMarker('Orders API', withProtectMark({}, true))).toBe('Orders API [driftless:v1 protect=true]');
    expect(withProtectMark({ 'tf_vars.PASSWORD': 'abc', protect: 'true' }, false)).toEqual({ 'tf_vars.PASSWORD': 'abc' });
    expect(splitProtectMark({ 'tf_vars.PASSWORD': 'abc', protect: 'true' })).toEqual({ marked: true, fingerprints: { 'tf_vars.PASSWORD': 'abc' } });
    const l = liveOf({ apiDescription: 'Orders API [driftless:v1 protect=true]' }).resources.get(`${E}/application.api`)!;
    expect(l.protected).toBe(true);
    expect(l.attrs.description).toBe('Orders API');
    expect(l.fingerprints).toBeUndefined();
    const project = liveOf({ projectDescription: '[driftless:v1 protect=true]' }).resources.get(P)!;
    expect(project).toMatchObject({ protected: true, attrs: { description: null } });
  });

  it('is written on projects and services only: an environment has no description', () => {
    const refs = {} as never;
    const body = (kind: ResourceKind, protectMark: boolean) => desiredToRequest(kind, { name: 'x', description: 'd' }, { address: 'a', refs, fingerprintKey: 'k', protectMark });
    expect(body('application', true).description).toBe('d [driftless:v1 protect=true]');
    expect(body('project', true).description).toBe('d [driftless:v1 protect=true]');
    expect(body('application', false).description).toBe('d');
    expect(body('environment', true).description).toBe('d');
  });

  it('leaves no room for a description too long to carry it: an error at the object', () => {
    const long = 'x'.repeat(240);
    const r = graphOf({ 'main.yaml': manifest({ api: 'true' }).replace('            git_repository', `            description: ${long}\n            git_repository`) });
    expect(r.diagnostics.map((d) => [d.code, at(d)])).toEqual([['graph.description-too-long', 'main.yaml:9']]);
    expect(r.diagnostics[0]!.summary).toContain('with `protect: true` at most 227 are allowed');
  });
});

describe('protect: the mark in the manifest', () => {
  it('records the value and the line of the key', () => {
    const { graph } = graphOf({ 'main.yaml': manifest({ api: 'true', env: 'false' }) });
    expect(graph.resources.get(`${E}/application.api`)!.protect).toMatchObject({ value: true, source: { file: 'main.yaml', start: { line: 12 } } });
    expect(graph.resources.get(E)!.protect).toMatchObject({ value: false, source: { file: 'main.yaml', start: { line: 8 } } });
    expect(graph.resources.get(`${E}/database.pg`)!.protect).toBeUndefined();
  });

  it('carries through a template and an environment override', () => {
    const { graph } = graphOf({
      'main.yaml': `version: 1
projects:
  - name: shop
    templates:
      - name: base
        services:
          - type: database
            name: pg
            protect: true
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
    environments:
      - name: prod
        cluster: production-cluster
        template: base
        protect: true
      - name: dev
        cluster: staging-cluster
        template: base
        overrides:
          services:
            pg: { protect: false }
`,
    });
    expect(graph.resources.get(`${E}/database.pg`)!.protect?.value).toBe(true);
    expect(graph.resources.get(E)!.protect?.value).toBe(true);
    expect(graph.resources.get(`${P}/environment.dev/database.pg`)!.protect?.value).toBe(false);
  });

  it('notes a protect mark to record when the live mark is all that differs: not a change, but apply writes it', () => {
    const marked = liveOf({ apiDescription: '[driftless:v1 protect=true]' });
    const record = computePlan(graphOf({ 'main.yaml': manifest({ api: 'true' }) }).graph, liveOf());
    const api = record.changes.find((c) => c.address === `${E}/application.api`)!;
    // Driftless's own note in the description: the object is unchanged, the plan says "No changes".
    expect(api.actions).toEqual(['no-op']);
    expect(api.fields).toEqual([]);
    expect(api.protect_mark).toBe(true);
    expect(api.deploy).toBeUndefined();
    expect(record.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0, marks: 1 });
    expect(planHasChanges(record)).toBe(false);
    expect(planHasWrites(record)).toBe(true);
    expect(summaryLine(record)).toBe('No changes.');
    expect(protectMarksLine(record)).toBe(`Apply also records the protect mark on 1 object (${E}/application.api): driftless's note in the description, no change to the object.`);
    // ... and apply makes one update of it (saved plans included).
    expect(stepActionOf(api)).toBe('update');
    // Nothing to record once the mark is live, nor when the manifest says nothing.
    for (const plan of [computePlan(graphOf({ 'main.yaml': manifest({ api: 'true' }) }).graph, marked), computePlan(graphOf({ 'main.yaml': manifest() }).graph, marked)]) {
      expect(plan.summary).toMatchObject({ add: 0, change: 0, destroy: 0 });
      expect(plan.summary.marks).toBeUndefined();
      expect(plan.changes.some((c) => c.protect_mark !== undefined)).toBe(false);
      expect(planHasWrites(plan)).toBe(false);
    }
    // The JSON plan says it as a no-op carrying the mark.
    const json = planToJson(record, { driftless_version: 't', timestamp: '2026-11-27T00:00:00Z' }).resource_changes.find((c) => c.address === `${E}/application.api`)!;
    expect(json.change.actions).toEqual(['no-op']);
    expect(json.change.protect_mark).toBe(true);
    expect(json.change.changed_fields).toEqual([]);
    // `protect: false` clears a live mark the same way.
    const clearing = computePlan(graphOf({ 'main.yaml': manifest({ api: 'false' }) }).graph, marked);
    const clear = clearing.changes.find((c) => c.address === `${E}/application.api`)!;
    expect({ actions: clear.actions, fields: clear.fields, protect_mark: clear.protect_mark }).toEqual({ actions: ['no-op'], fields: [], protect_mark: false });
    expect(protectMarksLine(clearing)).toContain('clears it from 1 object');
    // An environment cannot carry it: nothing to record.
    const env = computePlan(graphOf({ 'main.yaml': manifest({ env: 'true' }) }).graph, liveOf());
    expect(env.summary.change).toBe(0);
    expect(env.summary.marks).toBeUndefined();
  });

  it('shows the mark as a field of an update when something else of the object changes too', () => {
    const record = computePlan(graphOf({ 'main.yaml': manifest({ api: 'true' }).replace('dockerfile_path: Dockerfile', 'dockerfile_path: build/Dockerfile') }).graph, liveOf());
    const api = record.changes.find((c) => c.address === `${E}/application.api`)!;
    expect(api.actions).toEqual(['update']);
    expect(api.fields.map((f) => f.field).sort()).toEqual(['dockerfile_path', 'protect']);
    expect(api.protect_mark).toBeUndefined();
    const json = planToJson(record, { driftless_version: 't', timestamp: '2026-11-27T00:00:00Z' }).resource_changes.find((c) => c.address === `${E}/application.api`)!;
    expect(json.change.patch).toContainEqual({ op: 'add', path: '/protect', value: true });
  });
});

describe('guardProtected (through computePlan)', () => {
  it('blocks the replacement of a protected environment whatever the flags, and what goes with it, at the line of the mark', () => {
    const plan = computePlan(graphOf({ 'main.yaml': manifest({ env: 'true', cluster: 'staging-cluster' }) }).graph, liveOf(), ALL);
    const env = plan.changes.find((c) => c.address === E)!;
    expect(env.status).toBe('blocked');
    expect(env.protection).toMatchObject({ address: E, by: 'manifest', at: 'main.yaml:8:18' });
    expect(blockingOf(env, plan.options)).toEqual({ reasons: [env.protection!.reason], flags: [] });
    for (const child of [`${E}/application.api`, `${E}/database.pg`]) expect(plan.changes.find((c) => c.address === child)!.status).toBe('blocked');
    expect(plan.summary).toMatchObject({ add: 0, destroy: 0, blocked: 3 });
    expect(plan.applyable).toBe(false);
    expect(plan.diagnostics.filter((d) => d.code === 'plan.protected').map(at)).toEqual(['main.yaml:8']);
    expect(refusedWithout(plan.changes, plan.options)).toBe('whatever the flags (protected)');
  });

  it('blocks the replacement of an environment holding a protected service', () => {
    const plan = computePlan(graphOf({ 'main.yaml': manifest({ db: 'true', cluster: 'staging-cluster' }) }).graph, liveOf(), ALL);
    expect(plan.changes.find((c) => c.address === E)!.protection).toMatchObject({ address: `${E}/database.pg`, by: 'manifest' });
    expect(plan.diagnostics.filter((d) => d.code === 'plan.protected').map(at)).toEqual(['main.yaml:15', 'main.yaml:15']);
  });

  it('blocks the deletion of an undeclared object whose live record carries the mark', () => {
    const plan = computePlan(graphOf({ 'main.yaml': manifest({ withApi: false, prune: true }) }).graph, liveOf({ apiDescription: 'x [driftless:v1 protect=true]' }), ALL);
    const api = plan.changes.find((c) => c.address === `${E}/application.api`)!;
    expect(api).toMatchObject({ actions: ['delete'], status: 'blocked', protection: { by: 'live' } });
    expect(plan.summary.destroy).toBe(0);
    // Without the mark, the same plan deletes it.
    const unmarked = computePlan(graphOf({ 'main.yaml': manifest({ withApi: false, prune: true }) }).graph, liveOf(), ALL);
    expect(unmarked.changes.find((c) => c.address === `${E}/application.api`)!.status).toBe('planned');
  });

  it('takes the mark of a service declared again with another kind for the live one it would replace', () => {
    const plan = computePlan(graphOf({ 'main.yaml': manifest({ api: 'true', apiKind: 'container', prune: true }).replace('            git_repository: { url: https://github.com/acme/api.git }\n            dockerfile_path: Dockerfile\n', '            registry: docker-hub\n            image_name: nginx\n            tag: "1"\n') }).graph, liveOf(), ALL);
    // One replacement at the new address, naming the live application it deletes (./kind-change.ts).
    const replacing = plan.changes.find((c) => c.address === `${E}/container.api`)!;
    expect(replacing).toMatchObject({ actions: ['delete', 'create'], replaces: { address: `${E}/application.api` }, status: 'blocked', protection: { by: 'manifest', at: 'main.yaml:12:22' } });
    expect(plan.applyable).toBe(false);
  });

  it('lets `protect: false` lift a live mark, and blocks nothing when nothing is deleted', () => {
    const plan = computePlan(graphOf({ 'main.yaml': manifest({ api: 'false', env: 'true' }) }).graph, liveOf({ apiDescription: '[driftless:v1 protect=true]' }), ALL);
    expect(plan.summary.blocked).toBe(0);
    expect(plan.applyable).toBe(true);
  });
});

describe('moved: no entry leads to a deletion', () => {
  const twoTo = `moved:
  - from: project.shop/environment.staging
    to: project.shop/environment.prod2
  - from: project.shop/environment.stg
    to: project.shop/environment.prod2
`;
  it('two entries with one `to` are an error at the second `to`', () => {
    const r = graphOf({ 'main.yaml': manifest({ extra: twoTo }).replace('      - name: prod\n', '      - name: prod2\n') });
    expect(r.diagnostics.map((d) => [d.code, at(d)])).toEqual([['moved.duplicate-to', 'main.yaml:23']]);
    expect(r.diagnostics[0]!.summary).toBe('moved: two entries rename to project.shop/environment.prod2: project.shop/environment.staging and project.shop/environment.stg (main.yaml:20:5)');
  });

  it('never deletes the `from` of an entry, even when the entry is refused', () => {
    // The first entry names nothing live; the second, refused, names the live staging: the plan
    // would create prod2 and prune staging (with its database): blocked instead.
    const entries = `moved:
  - from: project.shop/environment.stg
    to: project.shop/environment.prod2
  - from: project.shop/environment.staging
    to: project.shop/environment.prod2
`;
    const text = manifest({ extra: entries }).replace('    environments:\n', '    prune: { environments: true }\n    environments:\n      - name: prod2\n        cluster: staging-cluster\n');
    const { graph, diagnostics } = graphOf({ 'main.yaml': text });
    expect(diagnostics.map((d) => d.code)).toEqual(['moved.duplicate-to']);
    const plan = computePlan(graph, liveOf({ extraEnv: true }), ALL);
    const staging = plan.changes.find((c) => c.address === `${P}/environment.staging`)!;
    expect(staging).toMatchObject({ actions: ['delete'], status: 'blocked', protection: { by: 'moved', at: 'main.yaml:25:5' } });
    expect(plan.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual(['plan.moved-delete']);
    expect(plan.applyable).toBe(false);
    expect(plan.summary.destroy).toBe(0);
  });

  it('never deletes what holds the `from` of an entry', () => {
    // A service renamed inside an environment that is pruned: the environment is not deleted.
    const entries = `moved:
  - from: project.shop/environment.prod/application.api
    to: project.shop/environment.prod/application.backend
`;
    const text = `version: 1
projects:
  - name: shop
    prune: { environments: true }
    environments: []
${entries}`;
    const plan = computePlan(graphOf({ 'main.yaml': text }).graph, liveOf(), ALL);
    expect(plan.changes.find((c) => c.address === E)).toMatchObject({ status: 'blocked', protection: { by: 'moved', address: `${E}/application.api` } });
  });
});
