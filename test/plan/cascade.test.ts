/**
 * The pure rules of what goes with a deleted parent (src/plan/cascade.ts) and of a service that
 * changes kind (src/plan/kind-change.ts), and how computePlan applies them (issue 18).
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import { databasesGoingWith, destroyCount, heldDataLoss } from '../../src/plan/cascade.js';
import { kindReplacement } from '../../src/plan/kind-change.js';
import type { ResourceChange } from '../../src/plan/types.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import { KEY, PROD, apiRecords, fullManifest, liveFrom } from './fixtures.js';

const del = (address: string, kind: ResourceChange['kind'], via?: string, status: ResourceChange['status'] = 'planned'): ResourceChange => ({
  address, kind, name: address.split('.').pop()!, actions: ['delete'], status, reasons: [], fields: [], depends_on: [], ...(via ? { via_parent: via } : {}),
});

describe('databasesGoingWith', () => {
  it('gives each ancestor on a database via_parent chain the databases deleted with it, relative to it', () => {
    const changes = [
      del('project.p', 'project'),
      del('project.p/environment.e', 'environment', 'project.p'),
      del('project.p/environment.e/database.b', 'database', 'project.p/environment.e'),
      del('project.p/environment.e/database.a', 'database', 'project.p/environment.e'),
      del('project.p/environment.e/application.api', 'application', 'project.p/environment.e'),
    ];
    const held = databasesGoingWith(changes);
    expect(held.get('project.p/environment.e')).toEqual(['database.a', 'database.b']);
    expect(held.get('project.p')).toEqual(['environment.e/database.a', 'environment.e/database.b']);
    expect(held.has('project.p/environment.e/application.api')).toBe(false);
  });

  it('ignores a database deleted on its own, one left unmanaged, and one not deleted', () => {
    const own = del('project.p/environment.e/database.a', 'database');
    const unmanaged = { ...del('project.p/environment.e/database.b', 'database', 'project.p/environment.e', 'unmanaged') };
    const kept: ResourceChange = { ...del('project.p/environment.e/database.c', 'database', 'project.p/environment.e'), actions: ['no-op'] };
    expect(databasesGoingWith([own, unmanaged, kept]).size).toBe(0);
  });
});

describe('heldDataLoss', () => {
  it('is a data-loss requirement naming the databases, and nothing without one', () => {
    expect(heldDataLoss(undefined)).toEqual([]);
    expect(heldDataLoss([])).toEqual([]);
    expect(heldDataLoss(['database.db'])).toEqual([{ guard: 'allow_data_loss', reason: 'destroys the data of the database that goes with it (database.db)' }]);
    expect(heldDataLoss(['a', 'b'])[0]!.reason).toBe('destroys the data of the 2 databases that go with it (a, b)');
  });
});

describe('destroyCount', () => {
  it('counts every delete and replace, what goes with a parent and what is blocked included, never an unmanaged object', () => {
    const replace: ResourceChange = { ...del('x.r', 'container'), actions: ['delete', 'create'] };
    const create: ResourceChange = { ...del('x.c', 'container'), actions: ['create'] };
    expect(destroyCount([del('a', 'environment'), del('a/b', 'application', 'a'), del('a/c', 'database', 'a', 'blocked'), del('u', 'project', undefined, 'unmanaged'), replace, create])).toBe(4);
  });
});

describe('kindReplacement', () => {
  const desired = { address: 'project.p/environment.e/container.api', kind: 'container', name: 'api' } as DesiredResource;
  const live = (kind: LiveResource['kind'], deployed: boolean): LiveResource =>
    ({ address: `project.p/environment.e/${kind}.api`, kind, name: 'api', id: 'i', version: 'v', attrs: {}, status: { service_deployment_status: deployed ? 'UP_TO_DATE' : 'NEVER_DEPLOYED' } }) as LiveResource;

  it('needs --allow-replace for a deployed service, nothing for one never deployed', () => {
    expect(kindReplacement(desired, live('application', true)).requires.map((r) => r.guard)).toEqual(['allow_replace']);
    expect(kindReplacement(desired, live('application', false)).requires).toEqual([]);
  });

  it('needs --allow-data-loss when the old service is a database, deployed or not', () => {
    expect(kindReplacement(desired, live('database', false)).requires.map((r) => r.guard)).toEqual(['allow_data_loss']);
    expect(kindReplacement(desired, live('database', true)).requires.map((r) => r.guard)).toEqual(['allow_data_loss', 'allow_replace']);
  });
});

describe('computePlan: a pruned environment', () => {
  const manifest = () => {
    const m = fullManifest();
    const project = m.projects![0]!;
    project.prune = { environments: true };
    // The production environment (with its database) is removed from the manifest.
    project.environments = project.environments!.filter((e) => e.name !== 'production');
    return m;
  };

  it('lists what goes with it, blocks it and all of it on its database, and counts it for --max-destroy', () => {
    const live = liveFrom(apiRecords());
    const plan = computePlan(buildGraph(manifest()).graph, live, { fingerprintKey: KEY, maxDestroy: 1 });
    const inProd = [...live.resources.values()].filter((l) => l.address.startsWith(`${PROD}/`) && l.attrs.variable_type !== 'BUILT_IN' && !(l.kind === 'deployment_stage' && l.name === 'DEFAULT'));
    expect(inProd.some((l) => l.kind === 'database')).toBe(true);
    const env = plan.changes.find((c) => c.address === PROD)!;
    expect(env).toMatchObject({ actions: ['delete'], status: 'blocked' });
    expect(env.requires).toEqual([{ guard: 'allow_data_loss', reason: expect.stringMatching(/^destroys the data of the database that goes with it \(database\.db\)$/) }]);
    for (const l of inProd) expect(plan.changes.find((c) => c.address === l.address), l.address).toMatchObject({ actions: ['delete'], status: 'blocked' });
    expect(plan.summary.destroy).toBe(0);
    expect(plan.summary.blocked).toBe(inProd.length + 1);
    expect(plan.diagnostics.map((d) => d.code)).toContain('plan.max-destroy');
    expect(plan.diagnostics.find((d) => d.code === 'plan.max-destroy')!.summary).toBe(`The plan destroys ${inProd.length + 1} resources (${inProd.length + 1} of them blocked for now), more than --max-destroy 1`);

    const allowed = computePlan(buildGraph(manifest()).graph, live, { fingerprintKey: KEY, allowDataLoss: true });
    expect(allowed.summary).toMatchObject({ destroy: inProd.length + 1, blocked: 0 });
    expect(allowed.applyable).toBe(true);
  });
});
