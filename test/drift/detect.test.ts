/**
 * detectDrift on hand-made plans: which differences count as drift, how their origin is judged from
 * the live timestamps against the last deployment, and what is not drift (deploys that only follow
 * a variable change, changes that happen through a replaced parent).
 */
import { describe, expect, it } from 'vitest';
import { detectDrift } from '../../src/drift/detect.js';
import type { DesiredGraph, LiveResource, LiveState } from '../../src/model/resource.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';

const ENV = 'project.p/environment.e';
const APP = `${ENV}/application.api`;

function liveOf(resources: Array<Partial<LiveResource> & { address: string }>): LiveState {
  return {
    organizationId: 'o',
    requestCount: 3,
    resources: new Map(resources.map((r) => [r.address, { kind: 'application', name: 'x', id: 'id', attrs: {}, record: {}, version: 'v', ...r } as LiveResource])),
  };
}
const change = (c: Partial<ResourceChange> & { address: string }): ResourceChange => ({ kind: 'application', name: 'api', actions: ['no-op'], status: 'planned', reasons: [], fields: [], depends_on: [], ...c });
const planOf = (changes: ResourceChange[]): Plan => ({
  format_version: '1.0',
  organization_id: 'o',
  changes,
  summary: { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 },
  deploy_order: [],
  live_objects: {},
  request_count: 3,
  options: { allow_data_loss: false },
  applyable: true,
  diagnostics: [],
});
const graph: DesiredGraph = { resources: new Map(), order: [] };
const deployedAt = '2026-11-20T10:00:00.000Z';
const appLive = (updated: string) => ({ address: APP, parent: ENV, record: { updated_at: updated }, status: { last_deployment_date: deployedAt } });

describe('detectDrift', () => {
  it('a field changed after the last deployment is a change outside Git; before it, a change in Git not applied', () => {
    const fields = [{ field: 'cpu', before: 2000, after: 1000 }];
    const outside = detectDrift(planOf([change({ address: APP, parent: ENV, actions: ['update'], fields })]), graph, liveOf([appLive('2026-11-21T00:00:00.000Z')]));
    expect(outside.items).toMatchObject([{ drift: 'changed', origin: 'outside_git', fields: [{ field: 'cpu', live: 2000, git: 1000 }], since: '2026-11-21T00:00:00.000Z', last_deployment: deployedAt }]);
    const inGit = detectDrift(planOf([change({ address: APP, parent: ENV, actions: ['update'], fields })]), graph, liveOf([appLive('2026-11-19T00:00:00.000Z')]));
    expect(inGit.items[0]!.origin).toBe('git');
    expect(inGit.fingerprint).toBe(outside.fingerprint);
    expect(inGit.summary).toEqual({ drifted: 1, outside_git: 0, git: 1, unknown: 0, not_fixed_by_apply: 0 });
    expect(inGit.items[0]).toMatchObject({ apply_action: 'update it to match Git', apply_fixes: true });
    expect(inGit.items[0]).not.toHaveProperty('fix');
  });

  it('at the exact boundary (updated_at equal to the last deployment) the change is in Git; one millisecond later it is outside Git', () => {
    // A record written in the same instant as the deployment was part of what was deployed: the
    // live side has not changed since, so Git moved. Expected values are written out here, not
    // computed by the code under test.
    const fields = [{ field: 'cpu', before: 2000, after: 1000 }];
    const judgeAt = (updated: string) => detectDrift(planOf([change({ address: APP, parent: ENV, actions: ['update'], fields })]), graph, liveOf([appLive(updated)])).items[0]!;
    const equal = judgeAt(deployedAt);
    expect(equal).toMatchObject({ origin: 'git', since: deployedAt, last_deployment: deployedAt });
    expect(equal.summary).toBe(`cpu differs, and the live record has not changed since the last deployment (${deployedAt}): changed in Git, not applied yet`);
    const justAfter = judgeAt('2026-11-20T10:00:00.001Z');
    expect(justAfter.origin).toBe('outside_git');
    expect(justAfter.summary).toBe(`cpu changed live at 2026-11-20T10:00:00.001Z, after the last deployment (${deployedAt}): changed outside Git`);
    expect(judgeAt('2026-11-20T09:59:59.999Z').origin).toBe('git');
  });

  it('an environment-level change is judged against the newest deployment below it, boundary included', () => {
    const VAR = `${ENV}/variable.LOG`;
    const older = '2026-11-20T08:00:00.000Z';
    const newer = '2026-11-20T12:00:00.000Z';
    const judgeAt = (updated: string) =>
      detectDrift(
        planOf([change({ address: VAR, kind: 'variable', name: 'LOG', parent: ENV, actions: ['update'], fields: [{ field: 'value', before: 'a', after: 'b' }] })]),
        graph,
        liveOf([
          { address: ENV, kind: 'environment', record: {} },
          { address: APP, parent: ENV, record: {}, status: { last_deployment_date: newer } },
          { address: `${ENV}/application.worker`, parent: ENV, record: {}, status: { last_deployment_date: older } },
          { address: VAR, kind: 'variable', parent: ENV, record: { updated_at: updated } },
        ]),
      ).items[0]!;
    // Between the two deployments: the newest deployment already carried it.
    expect(judgeAt('2026-11-20T10:00:00.000Z')).toMatchObject({ origin: 'git', last_deployment: newer });
    expect(judgeAt(newer)).toMatchObject({ origin: 'git', last_deployment: newer });
    expect(judgeAt('2026-11-20T12:00:00.001Z')).toMatchObject({ origin: 'outside_git', last_deployment: newer });
  });

  it('without a deployment to judge against, the origin is unknown', () => {
    const r = detectDrift(
      planOf([change({ address: 'alert_receiver.ops', kind: 'alert_receiver', name: 'ops', actions: ['update'], fields: [{ field: 'owner', before: 'a', after: 'b' }] })]),
      graph,
      liveOf([{ address: 'alert_receiver.ops', kind: 'alert_receiver', record: { updated_at: '2026-11-21T00:00:00.000Z' } }]),
    );
    expect(r.items[0]!.origin).toBe('unknown');
  });

  it('a deploy that only follows a variable change is not drift of its own; a service not running the pinned commit is', () => {
    const followsVariable = change({ address: APP, parent: ENV, deploy: { reasons: ['variable LOG_LEVEL changed'] } });
    expect(detectDrift(planOf([followsVariable]), graph, liveOf([appLive(deployedAt)])).in_sync).toBe(true);
    const pinned = change({ address: APP, parent: ENV, deploy: { reasons: ['git_commit_id 1111aaaa -> 2222bbbb'] } });
    expect(detectDrift(planOf([pinned]), graph, liveOf([appLive(deployedAt)])).items).toMatchObject([{ drift: 'not_deployed', summary: 'not running what Git says: git_commit_id 1111aaaa -> 2222bbbb', apply_action: 'deploy it' }]);
  });

  it('unmanaged and pruned objects are drift; deletions and creations that go with a replaced parent are not listed again', () => {
    const r = detectDrift(
      planOf([
        change({ address: `${ENV}/container.rogue`, kind: 'container', name: 'rogue', parent: ENV, status: 'unmanaged' }),
        change({ address: `${ENV}/container.old`, kind: 'container', name: 'old', parent: ENV, actions: ['delete'] }),
        change({ address: `${ENV}/variable.X`, kind: 'variable', name: 'X', parent: ENV, actions: ['delete'], via_parent: ENV }),
        change({ address: `${ENV}/container.new`, kind: 'container', name: 'new', parent: ENV, actions: ['create'] }),
      ]),
      graph,
      liveOf([{ address: `${ENV}/container.rogue`, record: { created_at: '2026-11-21T00:00:00.000Z' } }]),
      { deployedBefore: new Set([`${ENV}/container.new`]) },
    );
    expect(r.items.map((i) => [i.name, i.drift, i.origin, i.apply_action, i.apply_fixes])).toEqual([
      ['new', 'missing', 'outside_git', 'create it', true],
      ['old', 'unmanaged', 'outside_git', 'delete it', true],
      ['rogue', 'unmanaged', 'outside_git', 'leave it (no `prune: {services: true}` on project.p/environment.e)', false],
    ]);
    expect(r.summary.not_fixed_by_apply).toBe(1);
    expect(r.items.find((i) => i.name === 'rogue')!.since).toBe('2026-11-21T00:00:00.000Z');
  });

  it('finding 5: a variable kept in a service that does not prune is drift apply does not fix; the advice names the exact opt-in and where the service is declared', () => {
    const declared: DesiredGraph = {
      resources: new Map([[APP, { address: APP, kind: 'application', name: 'api', parent: ENV, attrs: {}, dependsOn: [], source: { file: 'm/main.yaml', start: { line: 12, col: 5 } } }]]),
      order: [APP],
    };
    const kept = change({ address: `${APP}/variable.OLD`, kind: 'variable', name: 'OLD', parent: APP, status: 'unmanaged' });
    // Created before the last deployment: as likely removed from Git as created by hand.
    const before = detectDrift(planOf([kept]), declared, liveOf([appLive(deployedAt), { address: `${APP}/variable.OLD`, kind: 'variable', parent: APP, record: { created_at: '2026-11-19T00:00:00.000Z' } }]));
    expect(before.in_sync).toBe(false);
    expect(before.items).toEqual([
      expect.objectContaining({
        drift: 'unmanaged',
        origin: 'unknown',
        apply_fixes: false,
        apply_action: `leave it (no \`prune: {variables: true}\` on ${APP})`,
        fix: `declare it in the manifest under ${APP} (declared at m/main.yaml:12), add \`prune: {variables: true}\` on ${APP} so that apply deletes it, or delete it in the console`,
      }),
    ]);
    expect(before.items[0]!.summary).toBe(`exists live but not in Git: removed from Git, or created outside Git before the last deployment (${deployedAt}); pruning is off for its scope, so apply leaves it`);
    expect(before.summary).toMatchObject({ drifted: 1, not_fixed_by_apply: 1 });
    // Created after it: nothing driftless deployed made it.
    const after = detectDrift(planOf([kept]), declared, liveOf([appLive(deployedAt), { address: `${APP}/variable.OLD`, kind: 'variable', parent: APP, record: { created_at: '2026-11-21T00:00:00.000Z' } }]));
    expect(after.items[0]).toMatchObject({ origin: 'outside_git', apply_fixes: false });
    // The same variable where the service prunes variables: apply deletes it.
    const pruned = detectDrift(planOf([{ ...kept, status: 'planned', actions: ['delete'] }]), declared, liveOf([appLive(deployedAt)]));
    expect(pruned.items[0]).toMatchObject({ drift: 'unmanaged', apply_action: 'delete it', apply_fixes: true });
    expect(pruned.summary.not_fixed_by_apply).toBe(0);
  });

  it('an undeclared organization-level object names the top-level key; a blocked delete is not offered to apply', () => {
    const hook = change({ address: 'webhook.https:%2F%2Fh.example', kind: 'webhook', name: 'https://h.example', status: 'unmanaged' });
    const db = change({ address: `${ENV}/database.pg`, kind: 'database', name: 'pg', parent: ENV, actions: ['delete'], status: 'blocked', reasons: ['not in the manifest', 'destroys the data of a database: re-run with --allow-data-loss to permit it'] });
    const r = detectDrift(planOf([hook, db]), graph, liveOf([]));
    const byName = new Map(r.items.map((i) => [i.name, i]));
    expect(byName.get('https://h.example')).toMatchObject({ apply_fixes: false, apply_action: 'leave it (no `prune: {webhooks: true}` at the top level of the manifest)' });
    expect(byName.get('https://h.example')!.fix).toBe('declare it in the manifest, add `prune: {webhooks: true}` at the top level of the manifest so that apply deletes it, delete it in the console, or set `scope: declared` if it is not this manifest\'s business');
    expect(byName.get('pg')).toMatchObject({ apply_fixes: false });
    expect(byName.get('pg')!.apply_action).toMatch(/^refuse to delete it \(.*--allow-data-loss/);
    expect(byName.get('pg')!.fix).toMatch(/^apply with --allow-data-loss/);
    expect(r.summary.not_fixed_by_apply).toBe(2);
  });

  it('lists a missing environment once, not each of its services and variables again', () => {
    const r = detectDrift(
      planOf([
        change({ address: ENV, kind: 'environment', name: 'e', parent: 'project.p', actions: ['create'] }),
        change({ address: APP, parent: ENV, actions: ['create'], deploy: { reasons: ['created'] } }),
        change({ address: `${APP}/variable.X`, kind: 'variable', name: 'X', parent: APP, actions: ['create'] }),
      ]),
      graph,
      liveOf([]),
    );
    expect(r.items.map((i) => [i.address, i.drift])).toEqual([[ENV, 'missing']]);
  });
});
