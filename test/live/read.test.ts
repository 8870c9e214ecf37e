/**
 * readLiveRecords against an in-memory API: which lists a plan reads for a given manifest (a kind's
 * organization-level list only when it is declared, named or pruned; an environment's lists only
 * when it is declared and live, or deleted with its parent; a service's variables only when it
 * declares or prunes them, its environment's and project's taken from that list), and what each
 * map of the result holds. The request budget is what issue 6 holds the reader to: a request
 * more is a slower plan on every run, a request less a plan blind to something it deletes.
 */
import { describe, expect, it } from 'vitest';
import { listResults, orgListsNeeded, readLiveRecords, readOrganizationLists, readVariableLists, type LiveRecords } from '../../src/live/read.js';
import { requestKey } from '../../src/live/touched.js';
import { buildGraph } from '../../src/graph/build.js';
import type { DesiredGraph, DesiredResource } from '../../src/model/resource.js';
import { after, emptyBesides, ReadOnlyApi } from '../support/read-only-api.js';

const ORG = 'org-1';

/** GETs answered a timer tick later from `lists` by request key (a list not given answers empty); every call recorded. */
class ListApi extends ReadOnlyApi {
  constructor(lists: Record<string, unknown>) {
    super({ lists, wait: () => after(1), missing: emptyBesides(ORG) });
  }
}

const vars = (parent: string, scope: string) => requestKey('/variable', { parent_id: parent, scope });

function graphOf(manifest: Record<string, unknown>): DesiredGraph {
  const built = buildGraph({ version: 1, ...manifest } as never);
  expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return built.graph;
}

const app = (name: string, extra: Record<string, unknown> = {}) => ({ type: 'application', name, git_repository: { url: `https://github.com/acme/${name}.git` }, ...extra });
const db = (name: string) => ({ type: 'database', name, database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', storage: 10 });
const env = (name: string, extra: Record<string, unknown> = {}) => ({ name, cluster: 'c1', ...extra });

/** A live organization: project shop (p1) > environment prod (e1) > api (s1), worker (s2), postgres (d1). */
function live(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [`/organization/${ORG}/project`]: { results: [{ id: 'p1', name: 'shop' }, { id: 'p2', name: 'legacy' }] },
    [`/organization/${ORG}/cluster`]: { results: [{ id: 'c1', name: 'c1' }] },
    '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }, { id: 'e2', name: 'old' }] },
    '/project/p2/environment': { results: [{ id: 'e9', name: 'main' }] },
    '/environment/e1/services': {
      results: [
        { id: 's1', name: 'api', service_type: 'APPLICATION' },
        { id: 's2', name: 'worker', service_type: 'APPLICATION' },
        { id: 'd1', name: 'postgres', service_type: 'DATABASE' },
        { id: 'x1', name: 'mystery', service_type: 'SOMETHING_NEW' },
      ],
    },
    '/environment/e2/services': { results: [{ id: 's3', name: 'cron', service_type: 'JOB' }] },
    '/environment/e9/services': { results: [{ id: 's9', name: 'site', service_type: 'CONTAINER' }] },
    '/environment/e1/statuses': { applications: [{ id: 's1', state: 'DEPLOYED' }] },
    [vars('s1', 'APPLICATION')]: {
      results: [
        { id: 'v1', key: 'A', value: '1', scope: 'APPLICATION' },
        { id: 'v2', key: 'E', value: '2', scope: 'ENVIRONMENT' },
        { id: 'v3', key: 'P', value: '3', scope: 'PROJECT' },
        { id: 'b1', key: 'QOVERY_X', value: 'x', scope: 'BUILT_IN' },
      ],
    },
    [vars('s2', 'APPLICATION')]: { results: [{ id: 'w1', key: 'W', value: 'w', scope: 'APPLICATION' }, { id: 'v2', key: 'E', value: '2', scope: 'ENVIRONMENT' }] },
    [vars('e1', 'ENVIRONMENT')]: { results: [{ id: 'v2', key: 'E', value: '2', scope: 'ENVIRONMENT' }, { id: 'v3', key: 'P', value: '3', scope: 'PROJECT' }] },
    [vars('p1', 'PROJECT')]: { results: [{ id: 'v3', key: 'P', value: '3', scope: 'PROJECT' }] },
    ...extra,
  };
}

async function readFor(manifest: Record<string, unknown>, lists = live()): Promise<{ calls: string[]; out: LiveRecords }> {
  const api = new ListApi(lists);
  const out = await readLiveRecords(api, graphOf(manifest), { parallelism: 1 });
  return { calls: api.calls, out };
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

describe('listResults', () => {
  it('reads the API list convention, a bare array, and nothing else', () => {
    expect(listResults({ results: [{ id: 'a' }] })).toEqual([{ id: 'a' }]);
    expect(listResults([{ id: 'b' }])).toEqual([{ id: 'b' }]);
    expect(listResults({ results: 'no' })).toEqual([]);
    expect(listResults(null)).toEqual([]);
    expect(listResults(undefined)).toEqual([]);
  });
});

describe('orgListsNeeded: an organization-level list is read only when the manifest needs it', () => {
  const needs = (m: Record<string, unknown>) => sorted(orgListsNeeded(graphOf(m)));

  it('a manifest of projects only reads the project list', () => {
    expect(needs({ projects: [{ name: 'shop' }] })).toEqual(['projects']);
  });

  it('an environment names its cluster: the cluster list, not the status list (that is for declared clusters)', () => {
    expect(needs({ projects: [{ name: 'shop', environments: [env('prod')] }] })).toEqual(['clusters', 'projects']);
    expect(needs({ clusters: [{ name: 'c1' }] })).toEqual(['clusterStatuses', 'clusters']);
  });

  it('a kind pruned at the top level is read even when none is declared', () => {
    expect(needs({ webhooks: [] })).toEqual([]);
    expect(needs({ prune: { webhooks: true } })).toEqual(['webhooks']);
    expect(needs({ prune: { annotation_groups: true } })).toEqual(['annotationsGroups']);
    expect(needs({ prune: { label_groups: true } })).toEqual(['labelsGroups']);
    expect(needs({ prune: { alert_receivers: true } })).toEqual(['alertReceivers']);
    expect(needs({ prune: { projects: true } })).toEqual(['projects']);
  });

  it('scope: organization reads every organization-level list it owns', () => {
    const all = needs({ scope: 'organization' });
    for (const l of ['projects', 'annotationsGroups', 'labelsGroups', 'alertReceivers', 'alertRules', 'webhooks']) expect(all).toContain(l);
    expect(all).not.toContain('clusterStatuses');
    expect(all).not.toContain('containerRegistries');
    expect(all).not.toContain('helmRepositories');
  });

  it('groups are read when a service names one, not for an empty list', () => {
    const withGroups = (field: string, groups: string[]) => needs({ projects: [{ name: 'shop', environments: [env('prod', { services: [app('api', { [field]: groups })] })] }] });
    expect(withGroups('label_groups', ['team'])).toContain('labelsGroups');
    expect(withGroups('label_groups', [])).not.toContain('labelsGroups');
    expect(withGroups('annotation_groups', ['mon'])).toContain('annotationsGroups');
    expect(withGroups('annotation_groups', [])).not.toContain('annotationsGroups');
    expect(withGroups('label_groups', ['team'])).not.toContain('annotationsGroups');
  });

  it('a container names its registry; an application needs neither registries nor helm repositories', () => {
    const container = { type: 'container', name: 'web', registry: 'hub', image_name: 'acme/web', tag: '1' };
    const of = (svc: unknown) => needs({ projects: [{ name: 'shop', environments: [env('prod', { services: [svc] })] }] });
    expect(of(container)).toEqual(['clusters', 'containerRegistries', 'projects']);
    expect(of(app('api'))).toEqual(['clusters', 'projects']);
  });

  it('alert rules read their own list and what they name (receivers)', () => {
    const m = {
      alert_receivers: [{ name: 'ops', type: 'EMAIL', send_resolved: true, to: 'a@b.c', from: 'd@b.c', smarthost: 'smtp:25' }],
      alert_rules: [
        {
          name: 'cpu',
          target: { cluster: 'c1' },
          condition: { kind: 'CUSTOM', promql: 'x', operator: 'ABOVE', threshold: 1, function: 'AVG' },
          for_duration: 'PT5M',
          severity: 'HIGH',
          enabled: true,
          receivers: ['ops'],
        },
      ],
    };
    const got = needs(m);
    expect(got).toContain('alertRules');
    expect(got).toContain('alertReceivers');
    expect(got).not.toContain('webhooks');
    expect(got).not.toContain('projects');
  });
});

describe('readOrganizationLists', () => {
  it('takes the organization from a list answer or a bare record, and reads each list under its id', async () => {
    const api = new ListApi({ '/organization': { id: 'o2', name: 'bare' }, '/organization/o2/webhook': [{ id: 'w' }] });
    const out = await readOrganizationLists(api, ['webhooks'], 2);
    expect(out.organization).toEqual({ id: 'o2', name: 'bare' });
    expect(out.lists).toEqual({ webhooks: [{ id: 'w' }] });
    expect(api.calls).toEqual(['/organization', '/organization/o2/webhook']);
    expect([out.environments, out.variables, out.services, out.stages, out.statuses].map((m) => m.size)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('readLiveRecords: the lists below a project', () => {
  it('a declared live project reads its environments; an undeclared one and a declared one not live read nothing', async () => {
    const { calls, out } = await readFor({ projects: [{ name: 'shop' }, { name: 'new-one' }] });
    expect(calls).toEqual(['/organization', `/organization/${ORG}/project`, '/project/p1/environment']);
    expect(sorted(out.environments.keys())).toEqual(['p1']);
    expect(out.environments.get('p1')!.map((e) => e.id)).toEqual(['e1', 'e2']);
  });

  it('an empty manifest reads the organization only', async () => {
    const { calls } = await readFor({});
    expect(calls).toEqual(['/organization']);
  });

  it('of two live projects under one name (case aside), the first listed is the one read', async () => {
    const { calls } = await readFor({ projects: [{ name: 'shop' }] }, live({ [`/organization/${ORG}/project`]: { results: [{ id: 'p1', name: 'Shop' }, { id: 'p3', name: 'shop' }] } }));
    expect(calls).toContain('/project/p1/environment');
    expect(calls).not.toContain('/project/p3/environment');
  });

  it('a declared environment not live reads nothing of its own', async () => {
    const { calls } = await readFor({ projects: [{ name: 'shop', environments: [env('staging', { services: [app('api', { variables: [] })] })] }] });
    expect(calls).toEqual(['/organization', `/organization/${ORG}/project`, `/organization/${ORG}/cluster`, '/project/p1/environment']);
  });

  it('holds the requests in flight to the parallelism asked for (8 by default)', async () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ id: `q${i}`, name: `p${i}` }));
    const manifest = { projects: many.map((p) => ({ name: p.name })) };
    const lists = live({ [`/organization/${ORG}/project`]: { results: many } });
    const two = new ListApi(lists);
    await readLiveRecords(two, graphOf(manifest), { parallelism: 2 });
    expect(two.calls.filter((c) => c.startsWith('/project/'))).toHaveLength(10);
    expect(two.maxInFlight).toBe(2);
    const dflt = new ListApi(lists);
    await readLiveRecords(dflt, graphOf(manifest));
    expect(dflt.calls.filter((c) => c.startsWith('/project/'))).toHaveLength(10);
    expect(dflt.maxInFlight).toBe(8);
  });

  it('a graph without prune lists (not built from a manifest) deletes, so reads, nothing more', async () => {
    const resources = new Map<string, DesiredResource>([
      ['project.shop', { address: 'project.shop', kind: 'project', name: 'shop', attrs: {} } as DesiredResource],
      ['project.shop/environment.prod', { address: 'project.shop/environment.prod', kind: 'environment', name: 'prod', parent: 'project.shop', attrs: {} } as DesiredResource],
      ['project.shop/environment.prod/application.api', { address: 'project.shop/environment.prod/application.api', kind: 'application', name: 'api', parent: 'project.shop/environment.prod', attrs: {} } as DesiredResource],
    ]);
    const api = new ListApi(live());
    await readLiveRecords(api, { resources, order: [...resources.keys()] } as DesiredGraph, { parallelism: 1 });
    expect(api.calls).toEqual(['/organization', `/organization/${ORG}/project`, `/organization/${ORG}/cluster`, '/project/p1/environment', '/environment/e1/services', '/environment/e1/statuses']);
  });

  it('an environment variable named like a service does not make that service\'s list read', async () => {
    const { calls } = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { variables: [{ key: 'WORKER', value: 'x' }] })] }] });
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('e1', 'ENVIRONMENT')]);
  });

  it('matches a project by name case-insensitively', async () => {
    const { calls } = await readFor({ projects: [{ name: 'SHOP' }] });
    expect(calls).toContain('/project/p1/environment');
  });

  it('a declared environment reads its services and statuses; stages only when it declares or prunes them', async () => {
    const plain = await readFor({ projects: [{ name: 'shop', environments: [env('prod')] }] });
    expect(plain.calls.filter((c) => c.startsWith('/environment/'))).toEqual(['/environment/e1/services', '/environment/e1/statuses']);
    expect(plain.out.services.get('e1')!.map((s) => s.id)).toEqual(['s1', 's2', 'd1', 'x1']);
    expect(plain.out.statuses.get('e1')).toEqual({ applications: [{ id: 's1', state: 'DEPLOYED' }] });
    expect(plain.out.stages.size).toBe(0);
    // No variables declared or pruned anywhere: not one variable list.
    expect(plain.calls.filter((c) => c.startsWith('/variable'))).toEqual([]);

    const pruned = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { prune: { deployment_stages: true } })] }] });
    expect(pruned.calls).toContain('/environment/e1/deploymentStage');
    expect(pruned.out.stages.get('e1')).toEqual([]);

    const declared = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { services: [app('api')], deployment_stages: [{ name: 'one', services: ['api'] }] })] }] });
    expect(declared.calls).toContain('/environment/e1/deploymentStage');
  });

  it('an undeclared environment is read only when its project prunes environments', async () => {
    const kept = await readFor({ projects: [{ name: 'shop', environments: [env('prod')] }] });
    expect(kept.calls.some((c) => c.startsWith('/environment/e2/'))).toBe(false);

    const { calls, out } = await readFor({ projects: [{ name: 'shop', environments: [env('prod')], prune: { environments: true } }] });
    // Everything that goes with it: its three lists and the variables of each of its services.
    expect(calls.filter((c) => c.startsWith('/environment/e2/'))).toEqual(['/environment/e2/services', '/environment/e2/statuses', '/environment/e2/deploymentStage']);
    expect(calls).toContain(vars('s3', 'JOB'));
    // The declared environment is not read twice as deleted.
    expect(calls.filter((c) => c === '/environment/e1/services')).toHaveLength(1);
    expect(calls).not.toContain('/environment/e1/deploymentStage');
    expect(out.services.get('e2')!.map((s) => s.id)).toEqual(['s3']);
    // The project of a deleted environment is declared: its variables are not this reader's.
    expect(calls).not.toContain(vars('p1', 'PROJECT'));
    expect(out.variables.has('p1')).toBe(false);
  });

  it('a database in a deleted environment has no variable list', async () => {
    const { calls } = await readFor(
      { projects: [{ name: 'shop', environments: [env('prod')], prune: { environments: true } }] },
      live({ '/environment/e2/services': { results: [{ id: 'd2', name: 'pg', service_type: 'DATABASE' }, { id: 's3', name: 'cron', service_type: 'JOB' }] } }),
    );
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('s3', 'JOB')]);
  });

  it('a deleted environment with no service reads its own variable list', async () => {
    const { calls, out } = await readFor(
      { projects: [{ name: 'shop', environments: [env('prod')], prune: { environments: true } }] },
      live({ '/environment/e2/services': { results: [] } }),
    );
    expect(calls).toContain(vars('e2', 'ENVIRONMENT'));
    expect(calls).not.toContain(vars('p1', 'PROJECT'));
    expect(out.variables.has('p1')).toBe(false);
  });

  it('an undeclared project is read only when the top level prunes projects, with everything in it', async () => {
    const kept = await readFor({ projects: [{ name: 'shop' }] });
    expect(kept.calls).not.toContain('/project/p2/environment');

    const { calls, out } = await readFor({
      prune: { projects: true },
      projects: [{ name: 'shop' }],
    }, live({ [vars('s9', 'CONTAINER')]: { results: [{ id: 'k', key: 'K', scope: 'CONTAINER' }, { id: 'pe', key: 'PE', scope: 'ENVIRONMENT' }, { id: 'pp', key: 'PP', scope: 'PROJECT' }] } }));
    expect(calls).toContain('/project/p2/environment');
    expect(calls.filter((c) => c.startsWith('/environment/e9/'))).toEqual(['/environment/e9/services', '/environment/e9/statuses', '/environment/e9/deploymentStage']);
    // One variable list, the service's: it also holds its environment's and its project's.
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('s9', 'CONTAINER')]);
    expect(out.variables.get('s9')!.map((v) => v.id)).toEqual(['k']);
    expect(out.variables.get('e9')!.map((v) => v.id)).toEqual(['pe']);
    expect(out.variables.get('p2')!.map((v) => v.id)).toEqual(['pp']);
    // The declared project is not deleted: nothing of its environments is read.
    expect(calls.some((c) => c.startsWith('/environment/e1/'))).toBe(false);
  });

  it('a deleted project without services reads its environment and project lists', async () => {
    const { calls, out } = await readFor(
      { prune: { projects: true }, projects: [{ name: 'shop' }] },
      live({ '/environment/e9/services': { results: [] }, [vars('e9', 'ENVIRONMENT')]: { results: [{ id: 'ee', key: 'EE', scope: 'ENVIRONMENT' }, { id: 'pp', key: 'PP', scope: 'PROJECT' }] } }),
    );
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('e9', 'ENVIRONMENT')]);
    // The environment's list also holds its project's variables.
    expect(out.variables.get('e9')!.map((v) => v.id)).toEqual(['ee']);
    expect(out.variables.get('p2')!.map((v) => v.id)).toEqual(['pp']);

    const empty = await readFor({ prune: { projects: true }, projects: [{ name: 'shop' }] }, live({ '/project/p2/environment': { results: [] } }));
    expect(empty.calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('p2', 'PROJECT')]);
  });
});

describe('readLiveRecords: variables, read per scope with the fewest lists', () => {
  it('a service that declares variables reads its unified list; its environment and project take theirs from it', async () => {
    const { calls, out } = await readFor({
      projects: [{ name: 'shop', variables: [{ key: 'P', value: '3' }], environments: [env('prod', { variables: [{ key: 'E', value: '2' }], services: [app('api', { variables: [{ key: 'A', value: '1' }] }), app('worker')] })] }],
    });
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('s1', 'APPLICATION')]);
    // Each scope keeps its own: a built-in is nobody's to manage.
    expect(out.variables.get('s1')!.map((v) => v.id)).toEqual(['v1']);
    expect(out.variables.get('e1')!.map((v) => v.id)).toEqual(['v2']);
    expect(out.variables.get('p1')!.map((v) => v.id)).toEqual(['v3']);
    expect(out.variables.has('s2')).toBe(false);
  });

  it('an empty `variables: []` and `prune: {variables: true}` each read the service list', async () => {
    const empty = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { services: [app('api', { variables: [] })] })] }] });
    expect(empty.calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('s1', 'APPLICATION')]);
    const pruned = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { services: [app('worker', { prune: { variables: true } })] })] }] });
    expect(pruned.calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('s2', 'APPLICATION')]);
    expect(pruned.out.variables.get('s2')!.map((v) => v.id)).toEqual(['w1']);
  });

  it('two services with variables: one list each, the environment covered by the first', async () => {
    const { calls, out } = await readFor({
      projects: [{ name: 'shop', environments: [env('prod', { services: [app('api', { variables: [] }), app('worker', { variables: [] })] })] }],
    });
    expect(sorted(calls.filter((c) => c.startsWith('/variable')))).toEqual(sorted([vars('s1', 'APPLICATION'), vars('s2', 'APPLICATION')]));
    expect(out.variables.get('e1')!.map((v) => v.id)).toEqual(['v2']);
    expect(out.variables.get('p1')!.map((v) => v.id)).toEqual(['v3']);
  });

  it('an environment with variables and no service list reads its own, which covers its project', async () => {
    const { calls, out } = await readFor({
      projects: [{ name: 'shop', variables: [{ key: 'P', value: '3' }], environments: [env('prod', { variables: [{ key: 'E', value: '2' }], services: [app('api')] })] }],
    });
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('e1', 'ENVIRONMENT')]);
    expect(out.variables.get('e1')!.map((v) => v.id)).toEqual(['v2']);
    expect(out.variables.get('p1')!.map((v) => v.id)).toEqual(['v3']);
  });

  it('a project that alone declares (or prunes) variables reads the project list', async () => {
    const declared = await readFor({ projects: [{ name: 'shop', variables: [{ key: 'P', value: '3' }] }] });
    expect(declared.calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('p1', 'PROJECT')]);
    expect(declared.out.variables.get('p1')!.map((v) => v.id)).toEqual(['v3']);
    const pruned = await readFor({ projects: [{ name: 'shop', environments: [env('prod')], prune: { variables: true } }] });
    expect(pruned.calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('p1', 'PROJECT')]);
    const environmentPrunes = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { prune: { variables: true } })] }] });
    expect(environmentPrunes.calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('e1', 'ENVIRONMENT')]);
  });

  it('a declared service not live reads nothing; a database never has a variable list', async () => {
    const { calls } = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { services: [app('ghost', { variables: [] }), db('postgres')]})] }] });
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([]);
  });

  it('an undeclared service the environment prunes has its variables read: they go with it', async () => {
    const { calls } = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { services: [app('api')], prune: { services: true } })] }] });
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('s2', 'APPLICATION')]);
  });

  it('a live service replaced by another kind under its name has its variables read', async () => {
    const { calls } = await readFor({ projects: [{ name: 'shop', environments: [env('prod', { services: [{ type: 'container', name: 'Worker', registry: 'hub', image_name: 'a/w', tag: '1' }] })] }] });
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('s2', 'APPLICATION')]);
  });

  it('a service moved from an earlier name is read under it', async () => {
    const { calls } = await readFor({
      moved: [{ from: 'project.shop/environment.prod/application.api', to: 'project.shop/environment.prod/application.backend' }],
      projects: [{ name: 'shop', environments: [env('prod', { services: [app('backend', { variables: [] })] })] }],
    });
    expect(calls.filter((c) => c.startsWith('/variable'))).toEqual([vars('s1', 'APPLICATION')]);
  });

  it('a project moved twice is read under whichever earlier name is live', async () => {
    const { calls } = await readFor({
      moved: [{ from: 'project.shop', to: 'project.mid' }, { from: 'project.mid', to: 'project.store' }],
      projects: [{ name: 'store' }],
    });
    expect(calls).toContain('/project/p1/environment');
  });

  it('a project moved from an earlier name is read under it', async () => {
    const { calls } = await readFor({ moved: [{ from: 'project.shop', to: 'project.store' }], projects: [{ name: 'store', environments: [env('prod')] }] });
    expect(calls).toContain('/project/p1/environment');
    expect(calls).toContain('/environment/e1/services');
  });
});

describe('readVariableLists', () => {
  it('keeps the scope each list was read for, and fills a covered scope only when it has no list of its own', async () => {
    const api = new ListApi(live());
    const out = await readOrganizationLists(api, [], 1);
    out.variables.set('p1', [{ id: 'own' }]);
    await readVariableLists(api, out, [{ id: 's1', scope: 'APPLICATION' }], new Map([['e1', { listOf: 's1', scope: 'ENVIRONMENT' }], ['p1', { listOf: 's1', scope: 'PROJECT' }], ['e7', { listOf: 'nope', scope: 'ENVIRONMENT' }]]), 1);
    expect(out.variables.get('s1')!.map((v) => v.id)).toEqual(['v1']);
    expect(out.variables.get('e1')!.map((v) => v.id)).toEqual(['v2']);
    expect(out.variables.get('p1')).toEqual([{ id: 'own' }]);
    expect(out.variables.has('e7')).toBe(false);
  });
});
