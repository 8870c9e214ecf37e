import { beforeEach, describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { LiveState } from '../../src/model/resource.js';
import { SecretValue } from '../../src/model/secret.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan, PlanOptions, ResourceChange } from '../../src/plan/types.js';
import { planHasChanges } from '../../src/plan/types.js';
import { ALL_SECRETS, API, KEY, PROD, apiRecords, fullManifest, id, liveFrom, type ApiRecords } from './fixtures.js';

function planOf(m: Manifest, live: LiveState, opts: PlanOptions = {}): Plan {
  const { graph, diagnostics } = buildGraph(m);
  expect(diagnostics).toEqual([]);
  return computePlan(graph, live, { fingerprintKey: KEY, ...opts });
}

function withRecords(edit: (r: ApiRecords) => void): LiveState {
  const r = apiRecords();
  edit(r);
  return liveFrom(r);
}

function change(plan: Plan, address: string): ResourceChange {
  const c = plan.changes.find((x) => x.address === address);
  expect(c, address).toBeDefined();
  return c!;
}

function touched(plan: Plan): string[] {
  return plan.changes.filter((c) => c.actions[0] !== 'no-op' || c.deploy).map((c) => `${c.actions.join(',')}${c.deploy ? '+deploy' : ''} ${c.address}`);
}

function emptyLive(): LiveState {
  const r = apiRecords();
  return liveFrom({ ...r, annotationsGroups: [], labelsGroups: [], alertReceivers: [], alertRules: [], webhooks: [], projects: [], environments: [], stages: [], services: [], variables: {} });
}

describe('computePlan: create', () => {
  // Computed in each test (not once at collection): mutation testing attributes it to the test.
  let plan: Plan;
  beforeEach(() => {
    plan = planOf(fullManifest(), emptyLive());
  });

  it('creates everything missing, in dependency order, and deploys every service', () => {
    expect(plan.summary).toMatchObject({ add: 21, change: 0, destroy: 0, deploy: 6, blocked: 0 });
    const creates = plan.changes.filter((c) => c.actions[0] === 'create').map((c) => c.address);
    expect(creates.indexOf(PROD)).toBeGreaterThan(creates.indexOf('project.shop'));
    expect(creates.indexOf('alert_rule.high-cpu')).toBeGreaterThan(creates.indexOf(API));
    expect(change(plan, API).deploy).toEqual({ reasons: ['created'], git_commit_id: 'a'.repeat(40) });
    expect(change(plan, `${PROD}/container.web`).deploy).toMatchObject({ image_tag: '1.27' });
    expect(plan.applyable).toBe(true);
    expect(planHasChanges(plan)).toBe(true);
  });

  it('gives apply the desired attrs with secrets as fingerprint placeholders', () => {
    const c = change(plan, 'project.shop/variable.API_KEY');
    expect(c.after).toMatchObject({ key: 'API_KEY', is_secret: true, value: { sensitive: true, fingerprint: c.fingerprints!.value } });
    expect(c.fingerprints!.value).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(change(plan, `${PROD}/terraform.infra`).fingerprints).toEqual({ 'tf_vars.db_password': expect.any(String) });
  });

  it('orders deployments by stage: unstaged services first, then the stages in manifest order', () => {
    expect(plan.deploy_order).toEqual([
      {
        environment: PROD,
        stages: [
          { stage: null, services: [`${PROD}/job.nightly`, `${PROD}/helm.chart`, `${PROD}/terraform.infra`] },
          { stage: 'data', services: [`${PROD}/database.db`] },
          { stage: 'apps', services: [API, `${PROD}/container.web`] },
        ],
      },
    ]);
  });

  it('records the ids of the objects apply resolves names to', () => {
    expect(plan.live_objects['cluster.production-cluster']).toEqual({ id: id('production-cluster'), version: expect.any(String) });
    expect(plan.live_objects['container_registry.docker-hub']?.id).toBe(id('docker-hub'));
  });

  it('reports a cluster that does not exist', () => {
    const m: Manifest = { version: 1, projects: [{ name: 'p', environments: [{ name: 'e', cluster: 'nope' }] }], clusters: [{ name: 'nope' }] };
    const p = computePlan(buildGraph(m).graph, emptyLive(), { fingerprintKey: KEY });
    expect(p.diagnostics.map((d) => [d.code, d.address])).toEqual([['live.not-found', 'cluster.nope']]);
    expect(p.diagnostics[0]!.detail).toContain('production-cluster');
    expect(p.applyable).toBe(false);
  });
});

describe('computePlan: update', () => {
  it('shows only the changed fields, before and after, and deploys the service', () => {
    const plan = planOf(fullManifest(), withRecords((r) => (r.services[0]!.cpu = 1000)));
    expect(touched(plan)).toEqual([`update+deploy ${API}`]);
    const c = change(plan, API);
    expect(c.fields).toEqual([{ field: 'cpu', before: 1000, after: 500 }]);
    expect(c.id).toBe(id('api'));
    expect(c.version).toBe('2026-11-01T10:00:00Z');
    expect(c.deploy!.reasons).toEqual(['configuration changed (cpu)']);
  });

  it('compares nested objects on the sub-fields the manifest owns only', () => {
    const plan = planOf(
      fullManifest(),
      withRecords((r) => {
        r.services[0]!.git_repository.root_path = '/srv';
        r.services[0]!.git_repository.branch = 'develop';
      }),
    );
    expect(change(plan, API).fields).toEqual([
      { field: 'git_repository', before: { url: 'https://github.com/acme/api.git', branch: 'develop', provider: 'GITHUB' }, after: { url: 'https://github.com/acme/api.git', branch: 'main', provider: 'GITHUB' } },
    ]);
  });

  it('does not deploy for a description change', () => {
    const m = fullManifest();
    (m.projects![0]!.environments![0]!.services![1]! as { description?: string }).description = 'Front';
    const plan = planOf(m, liveFrom(apiRecords()));
    expect(touched(plan)).toEqual([`update ${PROD}/container.web`]);
  });

  it('deploys every service that sees a changed environment variable, but not databases', () => {
    const plan = planOf(fullManifest(), withRecords((r) => (r.variables[id('production')]![2]!.value = 'a: 1\n')));
    expect(touched(plan)).toEqual([
      `update ${PROD}/variable.CONFIG_FILE`,
      `no-op+deploy ${API}`,
      `no-op+deploy ${PROD}/container.web`,
      `no-op+deploy ${PROD}/job.nightly`,
      `no-op+deploy ${PROD}/helm.chart`,
      `no-op+deploy ${PROD}/terraform.infra`,
    ]);
    expect(change(plan, API).deploy!.reasons).toEqual(['variable CONFIG_FILE changed']);
    expect(plan.summary).toMatchObject({ add: 0, change: 1, destroy: 0, deploy: 5 });
    // Services the manifest does not assign to a stage deploy with the live stage they are in.
    expect(plan.deploy_order).toEqual([
      {
        environment: PROD,
        stages: [
          { stage: 'DEFAULT', services: [`${PROD}/helm.chart`, `${PROD}/terraform.infra`] },
          { stage: 'apps', services: [API, `${PROD}/container.web`, `${PROD}/job.nightly`] },
        ],
      },
    ]);
  });

  it('deploys the services that use a changed annotations group', () => {
    const plan = planOf(fullManifest(), withRecords((r) => (r.annotationsGroups[0]!.scopes = ['PODS'])));
    expect(touched(plan)).toEqual(['update annotations_group.monitoring', `no-op+deploy ${API}`]);
    expect(change(plan, API).deploy!.reasons).toEqual(['annotations group monitoring changed']);
  });

  it('deploys a service whose pinned commit differs from the deployed one', () => {
    const plan = planOf(fullManifest(), withRecords((r) => (r.services[0]!.git_repository.deployed_commit_id = 'b'.repeat(40))));
    expect(touched(plan)).toEqual([`no-op+deploy ${API}`]);
    expect(change(plan, API).deploy).toEqual({
      reasons: ['git_commit_id bbbbbbbb -> aaaaaaaa'],
      git_commit_id: 'a'.repeat(40),
      before_git_commit_id: 'b'.repeat(40),
    });
  });

  it('deploys a live service that was never deployed', () => {
    const live = liveFrom(apiRecords());
    live.resources.get(`${PROD}/container.web`)!.status = { service_deployment_status: 'NEVER_DEPLOYED' };
    const plan = planOf(fullManifest(), live);
    expect(touched(plan)).toEqual([`no-op+deploy ${PROD}/container.web`]);
    expect(change(plan, `${PROD}/container.web`).deploy!.reasons).toEqual(['never deployed']);
  });

  it('detects a reordered deployment stage', () => {
    const plan = planOf(
      fullManifest(),
      withRecords((r) => {
        r.stages[1]!.deployment_order = 5;
      }),
    );
    expect(touched(plan)).toEqual([`update ${PROD}/deployment_stage.apps`]);
    expect(change(plan, `${PROD}/deployment_stage.apps`).fields).toEqual([{ field: 'after', after: 'data' }]);
  });

  it('detects a service moved out of its stage', () => {
    const plan = planOf(fullManifest(), withRecords((r) => r.stages[2]!.services.splice(1, 1)));
    // Finding 7: the lists shown are the stage's real members; nightly (in no stage of the
    // manifest) stays where it is, on both sides.
    expect(change(plan, `${PROD}/deployment_stage.apps`).fields).toEqual([{ field: 'services', before: ['api', 'nightly'], after: ['api', 'nightly', 'web'] }]);
  });

  it('matches case-insensitive names (database, stage) without a diff', () => {
    const plan = planOf(
      fullManifest(),
      withRecords((r) => {
        r.services[2]!.name = 'DB';
        r.stages[1]!.name = 'Data';
      }),
    );
    expect(touched(plan)).toEqual([]);
  });

  it('matches references by name case-insensitively too: groups, receivers, an alert target and a stage order', () => {
    const plan = planOf(
      fullManifest(),
      withRecords((r) => {
        r.annotationsGroups[0]!.name = 'MONITORING';
        r.labelsGroups[0]!.name = 'Team';
        r.alertReceivers[0]!.name = 'Slack-OPS';
        r.services[0]!.name = 'Api';
        r.stages[1]!.name = 'DATA';
      }),
    );
    expect(touched(plan)).toEqual([]);
    // A name that differs by more than case is still a difference.
    const renamed = planOf(fullManifest(), withRecords((r) => (r.alertReceivers[0]!.name = 'slack-ops-2')));
    expect(touched(renamed)).toContain('create alert_receiver.slack-ops');
  });

  it('a database cloned from a source that is neither declared nor live is an error; a declared source is fine', () => {
    const withClone = (source: string) => {
      const m = fullManifest();
      m.projects![0]!.environments![0]!.services!.push({ type: 'database', name: 'copy', database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', clone_from: { database: source } });
      const { graph } = buildGraph(m);
      return computePlan(graph, liveFrom(apiRecords()), { fingerprintKey: KEY });
    };
    const missing = withClone('nowhere');
    expect(change(missing, `${PROD}/database.copy`)).toMatchObject({ actions: ['create'], clone_from: `${PROD}/database.nowhere` });
    expect(missing.diagnostics.map((d) => [d.severity, d.code, d.summary, d.address])).toEqual([
      ['error', 'ref.unresolved', `database copy: clone source ${PROD}/database.nowhere is neither declared nor live`, `${PROD}/database.copy`],
    ]);
    expect(missing.applyable).toBe(false);
    const declared = withClone('db');
    expect(change(declared, `${PROD}/database.copy`).clone_from).toBe(`${PROD}/database.db`);
    expect(declared.diagnostics).toEqual([]);
    expect(declared.applyable).toBe(true);
  });

  it('shows a cluster upgrade when one is asked for and available', () => {
    const m = fullManifest();
    m.clusters = [{ name: 'production-cluster', upgrade_kubernetes: true }];
    const plan = planOf(m, withRecords((r) => (r.clusterStatuses[0]!.next_k8s_available_version = '1.31')));
    const c = change(plan, 'cluster.production-cluster');
    expect(c.actions).toEqual(['update']);
    expect(c.reasons).toEqual(['upgrade Kubernetes 1.30 -> 1.31']);
    expect(touched(planOf(m, liveFrom(apiRecords())))).toEqual([]);
  });
});

describe('computePlan: replace', () => {
  it('replaces an environment whose cluster changed, recreating its children, and blocks its database', () => {
    const m = fullManifest();
    m.projects![0]!.environments![0]!.cluster = 'staging-cluster';
    const plan = planOf(
      m,
      withRecords((r) => r.variables[id('production')]!.push({ id: 'v-stray', key: 'STRAY', value: '1', scope: 'ENVIRONMENT', variable_type: 'VALUE', is_secret: false })),
    );
    // Without allowReplace the environment and everything that goes with it is blocked.
    const blocked = change(plan, PROD);
    expect(blocked).toMatchObject({ actions: ['delete', 'create'], status: 'blocked' });
    expect(blocked.reasons).toEqual(['cluster cannot be changed in place (production-cluster -> staging-cluster)', 'replaces environment "production" with everything in it: re-run with --allow-replace to permit it']);
    expect(change(plan, API).status).toBe('blocked');
    expect(change(plan, `${PROD}/variable.STRAY`).status).toBe('blocked');
    expect(plan.changes.filter((c) => c.status === 'blocked').every((c) => c.requires?.some((r) => r.guard === 'allow_replace'))).toBe(true);
    expect(plan.summary).toMatchObject({ add: 0, destroy: 0 });
    expect(plan.applyable).toBe(false);

    const replacing = planOf(m, withRecords((r) => r.variables[id('production')]!.push({ id: 'v-stray', key: 'STRAY', value: '1', scope: 'ENVIRONMENT', variable_type: 'VALUE', is_secret: false })), { allowReplace: true });
    const env = change(replacing, PROD);
    expect(env.actions).toEqual(['delete', 'create']);
    expect(env.status).toBe('planned');
    expect(env.reasons).toEqual(['cluster cannot be changed in place (production-cluster -> staging-cluster)']);
    expect(env.fields).toEqual([{ field: 'cluster', before: 'production-cluster', after: 'staging-cluster', forces_replace: true }]);
    expect(change(replacing, API).actions).toEqual(['delete', 'create']);
    expect(change(replacing, API).deploy!.reasons[0]).toBe('replaced');
    expect(change(replacing, `${PROD}/database.db`).status).toBe('blocked');
    // an undeclared child goes with the environment
    expect(change(replacing, `${PROD}/variable.STRAY`)).toMatchObject({ actions: ['delete'], via_parent: PROD, status: 'planned' });
    expect(replacing.applyable).toBe(false);
    expect(replacing.summary.blocked).toBe(1);

    const allowed = planOf(m, liveFrom(apiRecords()), { allowDataLoss: true, allowReplace: true });
    expect(change(allowed, `${PROD}/database.db`).status).toBe('planned');
    expect(allowed.applyable).toBe(true);
  });

  it('replaces a database whose type changed, blocked without allowDataLoss', () => {
    const plan = planOf(fullManifest(), withRecords((r) => (r.services[2]!.type = 'MYSQL')));
    const db = change(plan, `${PROD}/database.db`);
    expect(db.actions).toEqual(['delete', 'create']);
    expect(db.status).toBe('blocked');
    // The fixture's database has been deployed: both guards hold, each with its flag.
    expect(db.reasons).toEqual([
      'type cannot be changed in place (MYSQL -> POSTGRESQL)',
      'destroys the data of a database: re-run with --allow-data-loss to permit it',
      'replaces the deployed database "db": re-run with --allow-replace to permit it',
    ]);
    expect(plan.summary).toMatchObject({ add: 0, destroy: 0, blocked: 1 });
    expect(change(planOf(fullManifest(), withRecords((r) => (r.services[2]!.type = 'MYSQL')), { allowDataLoss: true, allowReplace: true }), `${PROD}/database.db`).status).toBe('planned');
  });

  it('replaces a variable that becomes secret, or a file, or changes type', () => {
    const plan = planOf(
      fullManifest(),
      withRecords((r) => {
        const log = r.variables[id('shop')]![0]!;
        Object.assign(log, { is_secret: true, value: null });
        const port = r.variables[id('api')]![0]!;
        Object.assign(port, { variable_type: 'FILE', mount_path: '/port' });
      }),
    );
    expect(change(plan, 'project.shop/variable.LOG_LEVEL').actions).toEqual(['delete', 'create']);
    expect(change(plan, 'project.shop/variable.LOG_LEVEL').reasons).toEqual(['is_secret cannot be changed in place (true -> false)']);
    expect(change(plan, `${API}/variable.PORT`).reasons).toEqual(['variable_type cannot be changed in place (FILE -> VALUE)']);
  });

  it('replaces a service that changes kind (the API refuses two services with one name), blocked without --allow-replace', () => {
    const m = fullManifest();
    const env = m.projects![0]!.environments![0]!;
    env.services![1] = { type: 'application', name: 'web', git_repository: { url: 'https://github.com/acme/web.git' } };
    const { graph } = buildGraph(m);
    const live = liveFrom(apiRecords());
    const old = live.resources.get(`${PROD}/container.web`)!;
    const plan = computePlan(graph, live, { fingerprintKey: KEY });
    const c = change(plan, `${PROD}/application.web`);
    expect(c.actions).toEqual(['delete', 'create']);
    expect(c.replaces).toEqual({ address: `${PROD}/container.web`, kind: 'container' });
    expect(c.id).toBe(old.id);
    expect(c.status).toBe('blocked');
    expect(c.requires?.map((r) => r.guard)).toEqual(['allow_replace']);
    // The old container is the replace's old half: not also listed as unmanaged.
    expect(plan.changes.some((x) => x.address === `${PROD}/container.web`)).toBe(false);
    expect(plan.diagnostics).toEqual([]);
    const allowed = computePlan(graph, live, { fingerprintKey: KEY, allowReplace: true });
    expect(change(allowed, `${PROD}/application.web`).status).toBe('planned');
    expect(allowed.summary).toMatchObject({ add: 1, destroy: 1, blocked: 0 });
  });

  it('replaces an alert rule whose target changed', () => {
    const m = fullManifest();
    m.alert_rules![0]!.target = { cluster: 'production-cluster' };
    const c = change(planOf(m, liveFrom(apiRecords())), 'alert_rule.high-cpu');
    expect(c.actions).toEqual(['delete', 'create']);
    expect(c.fields[0]).toMatchObject({ field: 'target', forces_replace: true, after: { cluster: 'production-cluster' } });
  });
});

describe('computePlan: undeclared live resources', () => {
  const extra = (r: ApiRecords) => {
    r.projects.push({ id: 'p2', name: 'legacy', created_at: 'x' });
    r.environments.push({ id: 'e2', name: 'old', mode: 'STAGING', cluster_id: id('staging-cluster'), project: { id: 'p2' } });
    r.variables[id('api')]!.push({ id: 'v-x', key: 'STRAY', value: '1', scope: 'APPLICATION', variable_type: 'VALUE', is_secret: false });
    r.services.push({ id: 'db2', service_type: 'DATABASE', name: 'olddb', type: 'MYSQL', version: '8', mode: 'CONTAINER', environment: { id: id('production') } });
  };

  it('lists them as unmanaged without deleting, and hides the children of an unmanaged parent', () => {
    const m = fullManifest();
    m.scope = 'organization'; // owns the whole organization, undeclared projects included
    const plan = planOf(m, withRecords(extra));
    const unmanaged = plan.changes.filter((c) => c.status === 'unmanaged').map((c) => c.address);
    expect(unmanaged).toEqual([`${PROD}/database.olddb`, `${API}/variable.STRAY`, 'project.legacy']);
    expect(plan.changes.some((c) => c.address.startsWith('project.legacy/'))).toBe(false);
    expect(plan.summary).toMatchObject({ destroy: 0, unmanaged: 3 });
    expect(planHasChanges(plan)).toBe(false);
  });

  it('leaves an undeclared project out of scope by default: counted, not listed, its children hidden', () => {
    const plan = planOf(fullManifest(), withRecords(extra));
    const unmanaged = plan.changes.filter((c) => c.status === 'unmanaged').map((c) => c.address);
    expect(unmanaged).toEqual([`${PROD}/database.olddb`, `${API}/variable.STRAY`]);
    expect(plan.changes.some((c) => c.address.startsWith('project.legacy'))).toBe(false);
    expect(plan.out_of_scope).toEqual({ scope: 'kinds', counts: { project: 1 } });
    expect(plan.summary).toMatchObject({ destroy: 0, unmanaged: 2 });
  });

  it('deletes them where the manifest opts into pruning, children first, and blocks database deletion', () => {
    const m = fullManifest();
    m.prune = { projects: true };
    m.projects![0]!.environments![0]!.prune = { services: true };
    m.projects![0]!.environments![0]!.services![0]!.prune = { variables: true };
    const plan = planOf(m, withRecords(extra));
    expect(touched(plan)).toEqual([
      `no-op+deploy ${API}`,
      `delete ${PROD}/database.olddb`,
      `delete ${API}/variable.STRAY`,
      `delete project.legacy/environment.old`,
      `delete project.legacy`,
    ]);
    expect(change(plan, 'project.legacy/environment.old').via_parent).toBe('project.legacy');
    expect(change(plan, `${PROD}/database.olddb`).status).toBe('blocked');
    expect(change(plan, API).deploy!.reasons).toEqual(['variable STRAY changed']);
    // Finding 7: the blocked database delete is not counted as to destroy.
    expect(plan.summary.destroy).toBe(3);
    expect(plan.summary.blocked).toBe(1);
  });

  it('finding 5: keeps undeclared variables, secrets, aliases and overrides of a service without its opt-in, naming the key and the service; deletes exactly those with `prune: {variables: true}` and redeploys the service', () => {
    const strays = (r: ApiRecords) => {
      const svc = (over: Record<string, unknown>) => ({ created_at: 'x', updated_at: 'x', is_secret: false, description: null, mount_path: null, scope: 'APPLICATION', ...over });
      r.variables[id('api')]!.push(
        svc({ id: 'v-plain', key: 'OLD_FLAG', value: 'on', variable_type: 'VALUE' }),
        svc({ id: 'v-secret', key: 'OLD_TOKEN', value: null, is_secret: true, variable_type: 'VALUE' }),
        svc({ id: 'v-alias', key: 'OLD_ALIAS', value: null, variable_type: 'ALIAS', aliased_variable: { id: id('v-log'), key: 'LOG_LEVEL', scope: 'PROJECT', variable_type: 'VALUE' } }),
        svc({ id: 'v-over', key: 'LOG_LEVEL', value: 'debug', variable_type: 'OVERRIDE', overridden_variable: { id: id('v-log'), key: 'LOG_LEVEL', scope: 'PROJECT', variable_type: 'VALUE' } }),
      );
    };
    const stray = ['LOG_LEVEL', 'OLD_ALIAS', 'OLD_FLAG', 'OLD_TOKEN'].map((k) => `${API}/variable.${k}`);
    const kept = planOf(fullManifest(), withRecords(strays));
    const unmanaged = kept.changes.filter((c) => c.status === 'unmanaged');
    expect(unmanaged.map((c) => c.address).sort()).toEqual(stray);
    for (const c of unmanaged) expect(c.reasons).toEqual([`not in the manifest; kept: add \`prune: {variables: true}\` on ${API} to delete it`]);
    expect(planHasChanges(kept)).toBe(false);

    const m = fullManifest();
    m.projects![0]!.environments![0]!.services![0]!.prune = { variables: true };
    const pruned = planOf(m, withRecords(strays));
    expect(touched(pruned).sort()).toEqual([`no-op+deploy ${API}`, ...stray.map((a) => `delete ${a}`)].sort());
    expect(pruned.summary).toMatchObject({ destroy: 4, unmanaged: 0, blocked: 0 });
    // The declared PORT stays; the scope's opt-in is what the plan gives as the reason.
    expect(pruned.changes.some((c) => c.address === `${API}/variable.PORT` && c.actions[0] !== 'no-op')).toBe(false);
    expect(change(pruned, `${API}/variable.OLD_TOKEN`).reasons).toEqual([`not in the manifest, and ${API} prunes variable resources`]);
    // Another service's opt-in prunes nothing here.
    const other = fullManifest();
    other.projects![0]!.environments![0]!.services![1]!.prune = { variables: true };
    expect(planOf(other, withRecords(strays)).changes.filter((c) => c.status === 'unmanaged')).toHaveLength(4);
  });

  it("leaves the platform's DEFAULT stage alone, even when stages are pruned", () => {
    const m = fullManifest();
    m.projects![0]!.environments![0]!.prune = { deployment_stages: true };
    const plan = planOf(m, withRecords((r) => r.stages.push({ id: 'st-x', name: 'old', deployment_order: 9, environment: { id: id('production') }, services: [] })));
    expect(touched(plan)).toEqual([`delete ${PROD}/deployment_stage.old`]);
    expect(plan.changes.some((c) => c.address.endsWith('deployment_stage.DEFAULT'))).toBe(false);
  });

  it('refuses a plan that destroys more than maxDestroy', () => {
    const m = fullManifest();
    m.prune = { projects: true };
    const plan = planOf(m, withRecords(extra), { maxDestroy: 1 });
    expect(plan.diagnostics.map((d) => d.code)).toEqual(['plan.max-destroy']);
    expect(plan.applyable).toBe(false);
    expect(planOf(m, withRecords(extra), { maxDestroy: 2 }).applyable).toBe(true);
  });
});

describe('computePlan: secrets', () => {
  it('shows nothing for an unchanged secret', () => {
    expect(touched(planOf(fullManifest(), liveFrom(apiRecords())))).toEqual([]);
  });

  it('shows a changed secret as changed, without its value', () => {
    const m = fullManifest();
    m.projects![0]!.variables![1]!.value = new SecretValue('sk_live_NEW_VALUE_DO_NOT_PRINT');
    const plan = planOf(m, liveFrom(apiRecords()));
    const c = change(plan, 'project.shop/variable.API_KEY');
    expect(c.actions).toEqual(['update']);
    expect(c.fields).toEqual([{ field: 'value', sensitive: true }]);
    expect(JSON.stringify(plan)).not.toMatch(/DO_NOT_PRINT/);
  });

  it('shows a secret not written by driftless once, as value unknown', () => {
    const plan = planOf(
      fullManifest(),
      withRecords((r) => {
        r.variables[id('shop')]![1]!.description = 'Payment API key';
        r.webhooks[0]!.description = null;
      }),
    );
    expect(change(plan, 'project.shop/variable.API_KEY').fields).toEqual([{ field: 'value', sensitive: true, before_unknown: true }]);
    expect(change(plan, 'webhook.https:%2F%2Fhooks.example.com%2Fdeploy').fields).toEqual([{ field: 'target_secret', sensitive: true, before_unknown: true }]);
  });

  it('detects a changed sensitive terraform variable and write-only receiver url', () => {
    const m = fullManifest();
    (m.projects![0]!.environments![0]!.services![5]! as { tf_vars: Record<string, unknown> }).tf_vars.db_password = new SecretValue('other');
    m.alert_receivers![0]!.webhook_url = new SecretValue('https://hooks.slack.com/other');
    const plan = planOf(m, liveFrom(apiRecords()));
    expect(change(plan, `${PROD}/terraform.infra`).fields).toEqual([{ field: 'terraform_variables_source', sensitive: true }]);
    expect(change(plan, 'alert_receiver.slack-ops').fields).toEqual([{ field: 'webhook_url', sensitive: true }]);
  });

  it('treats a different fingerprint key as changed (the documented cost of rotating it)', () => {
    const plan = planOf(fullManifest(), liveFrom(apiRecords()), { fingerprintKey: 'another-key' });
    expect(change(plan, 'project.shop/variable.API_KEY').fields).toEqual([{ field: 'value', sensitive: true }]);
  });

  it('never puts a secret value into the plan', () => {
    const m = fullManifest();
    m.projects![0]!.environments![0]!.cluster = 'staging-cluster';
    for (const live of [emptyLive(), liveFrom(apiRecords())]) {
      const json = JSON.stringify(planOf(m, live, { allowDataLoss: true }));
      for (const s of ALL_SECRETS) expect(json).not.toContain(s);
    }
  });
});

describe('computePlan: determinism', () => {
  it('gives the same plan for the same inputs', () => {
    const a = JSON.stringify(planOf(fullManifest(), withRecords((r) => (r.services[0]!.cpu = 1))));
    const b = JSON.stringify(planOf(fullManifest(), withRecords((r) => (r.services[0]!.cpu = 1))));
    expect(a).toBe(b);
  });
});

describe('computePlan: an EMAIL alert receiver without auth_password', () => {
  const mail = { name: 'oncall', type: 'EMAIL' as const, to: 'a@example.com', from: 'b@example.com', smarthost: 'smtp.example.com:25' };

  it('is an error when it must be created (the API requires a password to create one), naming the receiver and the fix', () => {
    const plan = planOf({ ...fullManifest(), alert_receivers: [...(fullManifest().alert_receivers ?? []), mail] }, emptyLive());
    const d = plan.diagnostics.filter((x) => x.code === 'plan.receiver-password');
    expect(d).toHaveLength(1);
    expect(d[0]!.severity).toBe('error');
    expect(d[0]!.summary).toContain('alert receiver "oncall" (EMAIL)');
    expect(d[0]!.detail).toContain('auth_password: ${env:NAME}');
    expect(plan.applyable).toBe(false);
  });

  it('is fine when the manifest gives a password', () => {
    const withPassword = planOf({ ...fullManifest(), alert_receivers: [...(fullManifest().alert_receivers ?? []), { ...mail, auth_password: new SecretValue('pw') as any }] }, emptyLive());
    expect(withPassword.diagnostics.filter((x) => x.code === 'plan.receiver-password')).toEqual([]);
  });
});
