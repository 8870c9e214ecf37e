/**
 * `alias: {service, builtin}` from the graph to the plan (issue 20), pure: the graph keeps the
 * names and makes the alias depend on its service; a live alias of a hashed key
 * (`QOVERY_POSTGRESQL_Z<hash>_...`) reads back as those names when a service of its environment
 * has that hash; the plan replaces the alias with its service, refuses to delete a service a
 * declared hashed alias points at (naming both), and apply's step graph creates the alias after
 * the service.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import { planSteps } from '../../src/apply/steps.js';
import { buildLiveLookup, normalizeLive } from '../../src/live/normalize.js';
import type { ApiRecord } from '../../src/live/record-helpers.js';
import type { Manifest, VariableSpec } from '../../src/manifest/types.js';
import type { Address, LiveResource, LiveState } from '../../src/model/resource.js';
import { builtInHash, builtInsOfKind, isBuiltInOf, parseBuiltInKey } from '../../src/model/builtins.js';

const P = 'project.p';
const E = `${P}/environment.e`;
const PG = `${E}/database.pg`;
const WEB = `${E}/container.web`;
const ALIAS = `${WEB}/variable.DB`;
const T = '2026-01-01T00:00:00Z';
const PG_ID = '5e9b62fb-0000-4000-8000-000000000001';
const OTHER_ID = '0a1b2c3d-0000-4000-8000-000000000002';

interface Desired {
  alias?: VariableSpec['alias'];
  secret?: boolean;
  withPg?: boolean;
  prune?: boolean;
  pgType?: string;
}

function manifest(o: Desired = {}): Manifest {
  const pg = { type: 'database', name: 'pg', database_type: o.pgType ?? 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', cpu: 250, memory: 256, storage: 10 };
  const web = {
    type: 'container', name: 'web', registry: 'docker-hub', image_name: 'nginx', tag: '1', cpu: 250, memory: 256,
    variables: [{ key: 'DB', alias: o.alias ?? { service: 'PG', builtin: 'DATABASE_URL_INTERNAL' }, ...(o.secret !== undefined ? { secret: o.secret } : {}) }],
  };
  return {
    version: 1,
    projects: [{ name: 'p', environments: [{ name: 'e', cluster: 'c', services: o.withPg === false ? [web] : [pg, web], ...(o.prune ? { prune: { services: true } } : {}) }] }],
  } as unknown as Manifest;
}

const key = (id: string, suffix = 'DATABASE_URL_INTERNAL') => `QOVERY_POSTGRESQL_${builtInHash(id)}_${suffix}`;

/** The live state: pg (id PG_ID, or `pgId`), another database, web, and web's alias of `aliasedKey`. */
function live(aliasedKey: string | undefined, o: { pgId?: string; pgType?: string } = {}): LiveState {
  const env = { id: 'env-e', name: 'e', cluster_id: 'cluster-c', mode: 'DEVELOPMENT', updated_at: T };
  const services: ApiRecord[] = [
    { id: o.pgId ?? PG_ID, name: 'pg', service_type: 'DATABASE', type: o.pgType ?? 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', cpu: 250, memory: 256, storage: 10, environment: { id: env.id }, updated_at: T },
    { id: OTHER_ID, name: 'other', service_type: 'DATABASE', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', cpu: 250, memory: 256, storage: 10, environment: { id: env.id }, updated_at: T },
    { id: 'web-id', name: 'web', service_type: 'CONTAINER', registry: { id: 'reg', name: 'docker-hub' }, image_name: 'nginx', tag: '1', cpu: 250, memory: 256, environment: { id: env.id }, updated_at: T },
  ];
  const lookup = buildLiveLookup({ clusters: [{ id: 'cluster-c', name: 'c' }], registries: [{ id: 'reg', name: 'docker-hub' }], services: services.map((record) => ({ record, environment: 'e', project: 'p' })) });
  const resources = new Map<Address, LiveResource>();
  const add = (l: LiveResource) => resources.set(l.address, l);
  add(normalizeLive('cluster', { id: 'cluster-c', name: 'c' }, undefined, lookup));
  add(normalizeLive('project', { id: 'proj-p', name: 'p', updated_at: T }, undefined, lookup));
  add(normalizeLive('environment', env, P, lookup));
  for (const s of services) add(normalizeLive(s.service_type === 'DATABASE' ? 'database' : 'container', s, E, lookup));
  if (aliasedKey !== undefined) {
    add(normalizeLive('variable', {
      id: 'alias-id', key: 'DB', scope: 'CONTAINER', variable_type: 'ALIAS', is_secret: true, updated_at: T,
      aliased_secret: { id: 'builtin-id', key: aliasedKey, scope: 'BUILT_IN', variable_type: 'BUILT_IN' },
    }, WEB, lookup));
  }
  return { organizationId: 'org', resources, requestCount: 0 };
}

function planOf(m: Manifest, l: LiveState, opts: { allowDataLoss?: boolean } = {}) {
  const built = buildGraph(m);
  expect(built.diagnostics).toEqual([]);
  return computePlan(built.graph, l, { fingerprintKey: 'k', allowDataLoss: opts.allowDataLoss === true, allowReplace: true });
}

const changeOf = (plan: ReturnType<typeof planOf>, address: string) => plan.changes.find((c) => c.address === address)!;

describe('built-in keys', () => {
  it('are QOVERY_<KIND>_Z<first 8 hex digits of the id>_<SUFFIX>; other keys are not a service built-in', () => {
    expect(builtInHash(PG_ID)).toBe('Z5E9B62FB');
    expect(parseBuiltInKey('QOVERY_POSTGRESQL_Z5E9B62FB_DATABASE_URL_INTERNAL')).toEqual({ kind: 'POSTGRESQL', hash: 'Z5E9B62FB', suffix: 'DATABASE_URL_INTERNAL' });
    expect(parseBuiltInKey('QOVERY_ENVIRONMENT_ID')).toBeUndefined();
    expect(parseBuiltInKey('QOVERY_KUBERNETES_NAMESPACE_NAME')).toBeUndefined();
    expect(isBuiltInOf(key(PG_ID), PG_ID, 'DATABASE_URL_INTERNAL')).toBe(true);
    expect(isBuiltInOf(key(PG_ID), OTHER_ID, 'DATABASE_URL_INTERNAL')).toBe(false);
    expect(isBuiltInOf(key(PG_ID), PG_ID, 'PASSWORD')).toBe(false);
    expect(builtInsOfKind('database').map((b) => b.suffix)).toEqual(['HOST_INTERNAL', 'PORT', 'LOGIN', 'DEFAULT_DATABASE_NAME', 'PASSWORD', 'DATABASE_URL_INTERNAL']);
    expect(builtInsOfKind('application').map((b) => b.suffix)).toEqual(['HOST_INTERNAL', 'NAME']);
  });
});

describe('alias: {service, builtin} in the graph', () => {
  it('names the service (as declared, whatever the case written) and the built-in, takes its secrecy, and depends on the service', () => {
    const { graph, diagnostics } = buildGraph(manifest());
    expect(diagnostics).toEqual([]);
    const v = graph.resources.get(ALIAS)!;
    expect(v.attrs).toEqual({ key: 'DB', variable_type: 'ALIAS', is_secret: true, aliased_scope: 'BUILT_IN', aliased_service: 'pg', aliased_builtin: 'DATABASE_URL_INTERNAL' });
    expect(v.dependsOn).toContain(PG);
    expect(graph.order.indexOf(PG)).toBeLessThan(graph.order.indexOf(ALIAS));
    const host = buildGraph(manifest({ alias: { service: 'pg', builtin: 'HOST_INTERNAL' } })).graph.resources.get(ALIAS)!;
    expect(host.attrs.is_secret).toBe(false);
  });

  it('is refused outside a service\'s variables (the API aliases a built-in from a lower scope only)', () => {
    const m = manifest();
    m.projects![0]!.environments![0]!.variables = [{ key: 'E', alias: { service: 'pg', builtin: 'PASSWORD' } }];
    expect(buildGraph(m).diagnostics.map((d) => [d.code, d.address])).toEqual([['ref.builtin-alias-scope', `${E}/variable.E`]]);
  });

  it('refuses `secret:` that contradicts the built-in, and a built-in the kind does not have, listing those it has', () => {
    const wrong = buildGraph(manifest({ secret: false }));
    expect(wrong.diagnostics.map((d) => [d.code, d.address])).toEqual([['ref.alias-secret', ALIAS]]);
    const unknown = buildGraph(manifest({ alias: { service: 'web', builtin: 'PASSWORD' } }));
    expect(unknown.diagnostics.map((d) => [d.code, d.summary, d.detail])).toEqual([
      ['ref.unresolved', 'variable DB: alias of built-in PASSWORD, which container web does not have', 'A container has HOST_INTERNAL, NAME.'],
    ]);
    // With its article (issue 19: "A environment"): an application.
    const m = manifest({ alias: { service: 'api', builtin: 'PASSWORD' } });
    m.projects![0]!.environments![0]!.services!.push({ type: 'application', name: 'api', git_repository: { url: 'https://github.com/x/api.git', branch: 'main' }, dockerfile_path: 'Dockerfile' } as any);
    expect(buildGraph(m).diagnostics.map((d) => d.detail)).toEqual([expect.stringMatching(/^An application has /)]);
  });
});

describe('a live alias of a hashed key', () => {
  it('reads back as the service of its environment with that hash, and the suffix; no name for a hash no service there has', () => {
    expect(live(key(PG_ID)).resources.get(ALIAS)!.attrs).toMatchObject({ aliased_key: key(PG_ID), aliased_service: 'pg', aliased_builtin: 'DATABASE_URL_INTERNAL' });
    expect(live(key(OTHER_ID, 'PASSWORD')).resources.get(ALIAS)!.attrs).toMatchObject({ aliased_service: 'other', aliased_builtin: 'PASSWORD' });
    const gone = live(key('ffffffff-0000-4000-8000-000000000000')).resources.get(ALIAS)!.attrs;
    expect(gone.aliased_service).toBeUndefined();
    expect(gone.aliased_builtin).toBeUndefined();
  });
});

describe('alias: {service, builtin} in the plan', () => {
  it('is clean against the live alias of its service key, created when missing, and replaced when it points at another service', () => {
    expect(changeOf(planOf(manifest(), live(key(PG_ID))), ALIAS).actions).toEqual(['no-op']);
    const created = changeOf(planOf(manifest(), live(undefined)), ALIAS);
    expect(created.actions).toEqual(['create']);
    expect(created.depends_on).toContain(PG);
    const elsewhere = changeOf(planOf(manifest(), live(key(OTHER_ID))), ALIAS);
    expect(elsewhere.actions).toEqual(['delete', 'create']);
    expect(elsewhere.fields.find((f) => f.field === 'aliased_service')).toMatchObject({ before: 'other', after: 'pg', forces_replace: true });
  });

  it('follows its service renamed in place by a `moved` entry (same id, same key): no change to the alias', () => {
    const m = manifest({ alias: { service: 'db', builtin: 'DATABASE_URL_INTERNAL' } });
    const env = m.projects![0]!.environments![0]!;
    env.services = env.services!.map((s) => (s.name === 'pg' ? { ...s, name: 'db' } : s));
    m.moved = [{ from: PG, to: `${E}/database.db` }];
    const plan = planOf(m, live(key(PG_ID)));
    expect(changeOf(plan, `${E}/database.db`).previous_address).toBe(PG);
    expect(changeOf(plan, ALIAS).actions).toEqual(['no-op']);
  });

  it('is replaced with its service (a new key), with the service\'s guards', () => {
    const plan = planOf(manifest({ pgType: 'MYSQL' }), live(key(PG_ID)));
    expect(changeOf(plan, PG).actions).toEqual(['delete', 'create']);
    const alias = changeOf(plan, ALIAS);
    expect(alias.actions).toEqual(['delete', 'create']);
    expect(alias.reasons[0]).toBe(`replaced with ${PG}, whose built-in it aliases`);
    // pg's replacement loses data: blocked without --allow-data-loss, and the alias with it.
    expect(alias.status).toBe('blocked');
    expect(changeOf(planOf(manifest({ pgType: 'MYSQL' }), live(key(PG_ID)), { allowDataLoss: true }), ALIAS).status).toBe('planned');
  });

  it('apply creates the alias after the service it aliases', () => {
    const plan = planOf(manifest(), { organizationId: 'org', resources: live(undefined).resources, requestCount: 0 });
    const noPg = { ...plan, changes: plan.changes.map((c) => (c.address === PG ? { ...c, actions: ['create'] as ['create'], id: undefined } : c)) };
    const steps = planSteps(noPg);
    const aliasStep = steps.find((s) => s.type === 'change' && s.change.address === ALIAS)!;
    expect(aliasStep.dependsOn).toContain(`create ${PG}`);
  });
});

describe('a declared alias of a hashed key whose service the plan deletes', () => {
  it('is an error at the alias naming both; none while the service stays (unmanaged)', () => {
    const m = manifest({ alias: key(PG_ID), withPg: false, prune: true });
    const plan = planOf(m, live(key(PG_ID)), { allowDataLoss: true });
    expect(changeOf(plan, PG).actions).toEqual(['delete']);
    const errors = plan.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, d.address, d.summary])).toEqual([
      ['plan.alias-of-deleted-service', ALIAS, `${ALIAS} aliases ${key(PG_ID)}, a built-in of ${PG}, which this plan deletes`],
    ]);
    expect(plan.applyable).toBe(false);
    const kept = planOf(manifest({ alias: key(PG_ID), withPg: false }), live(key(PG_ID)));
    expect(kept.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('is an error when it is to be created and no service of its environment has the hash (its service is gone)', () => {
    const ghost = key('ffffffff-0000-4000-8000-000000000000');
    const plan = planOf(manifest({ alias: ghost }), live(undefined));
    expect(plan.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.address, d.summary])).toEqual([
      ['plan.alias-of-deleted-service', ALIAS, `${ALIAS} aliases ${ghost}, a built-in of a service ${E} does not have (none has the hash ZFFFFFFFF)`],
    ]);
    // Created with pg's key: nothing to say; and an environment-wide built-in is not a service's.
    expect(planOf(manifest({ alias: key(PG_ID) }), live(undefined)).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(planOf(manifest({ alias: 'QOVERY_KUBERNETES_NAMESPACE_NAME' }), live(undefined)).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('is an error too when the plan replaces the service: the hashed key does not follow it', () => {
    const plan = planOf(manifest({ alias: key(PG_ID), pgType: 'MYSQL' }), live(key(PG_ID)), { allowDataLoss: true });
    const errors = plan.diagnostics.filter((d) => d.code === 'plan.alias-of-deleted-service');
    expect(errors.map((d) => d.summary)).toEqual([`${ALIAS} aliases ${key(PG_ID)}, a built-in of ${PG}, which this plan replaces`]);
    expect(errors[0]!.detail).toContain('alias: {service: pg, builtin: DATABASE_URL_INTERNAL}');
  });
});
