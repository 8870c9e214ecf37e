import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/live/audit-log.js';
import { NEVER_CACHED_ORG_LISTS, requestKey, stalenessOf, topologyOf } from '../../src/live/touched.js';

const ORG = 'o';
/** Project p1 > environments e1 (services a1, a2) and e2 (service b1); project p2 > e3. */
const responses: Record<string, unknown> = {
  '/organization': { results: [{ id: ORG }] },
  [`/organization/${ORG}/project`]: { results: [{ id: 'p1' }, { id: 'p2' }] },
  [`/organization/${ORG}/cluster`]: { results: [] },
  [`/organization/${ORG}/cluster/status`]: { results: [] },
  [`/organization/${ORG}/webhook`]: { results: [] },
  [`/organization/${ORG}/helmRepository`]: { results: [] },
  [`/organization/${ORG}/annotationsGroups`]: { results: [] },
  [`/organization/${ORG}/labelsGroups`]: { results: [] },
  [`/organization/${ORG}/alert-rules`]: { results: [] },
  [`/organization/${ORG}/alert-receivers`]: { results: [] },
  '/project/p1/environment': { results: [{ id: 'e1' }, { id: 'e2' }] },
  '/project/p2/environment': { results: [{ id: 'e3' }] },
  '/environment/e1/services': { results: [{ id: 'a1' }, { id: 'a2' }] },
  '/environment/e2/services': { results: [{ id: 'b1' }] },
  '/environment/e3/services': { results: [] },
  '/environment/e1/statuses': {},
  '/environment/e2/statuses': {},
  '/environment/e1/deploymentStage': { results: [] },
  [requestKey('/variable', { parent_id: 'a1', scope: 'APPLICATION' })]: { results: [] },
  [requestKey('/variable', { parent_id: 'a2', scope: 'APPLICATION' })]: { results: [] },
  [requestKey('/variable', { parent_id: 'b1', scope: 'APPLICATION' })]: { results: [] },
  [requestKey('/variable', { parent_id: 'e3', scope: 'ENVIRONMENT' })]: { results: [] },
  [requestKey('/variable', { parent_id: 'p2', scope: 'PROJECT' })]: { results: [] },
};
const topo = topologyOf(responses);
const v = (parent: string, scope: string) => requestKey('/variable', { parent_id: parent, scope });

function stale(...events: Array<Partial<AuditEvent>>): string[] {
  const s = stalenessOf(
    events.map((e, i) => ({ id: `x${i}`, timestamp: '2026-11-25T16:00:00Z', event_type: 'UPDATE', target_type: 'APPLICATION', ...e })),
    topo,
  );
  if ('reason' in s) throw new Error(s.reason);
  // The organization and the clusters are always re-read; the rest is what the events touched.
  return Object.keys(responses).filter((k) => k !== '/organization' && !NEVER_CACHED_ORG_LISTS.has(k.split('/').slice(3).join('/')) && s.isStale(k)).sort();
}

describe('stalenessOf: the cached lists an event makes stale', () => {
  it('nothing but the organization without events', () => {
    expect(stale()).toEqual([]);
  });
  it('the clusters are always re-read: an upgrade ends with no event', () => {
    const s = stalenessOf([], topo) as { isStale(k: string): boolean };
    expect(['/organization', `/organization/${ORG}/cluster`, `/organization/${ORG}/cluster/status`].every((k) => s.isStale(k))).toBe(true);
    expect(s.isStale(`/organization/${ORG}/webhook`)).toBe(false);
  });
  // A variable change also makes the services that see it out of date: their environment's
  // services and statuses are re-read with the variable lists.
  it('a service variable: that service\'s list, and its environment\'s services and statuses', () => {
    expect(stale({ target_type: 'APPLICATION', target_id: 'a2', sub_target_type: 'VARIABLE', environment_id: 'e1', project_id: 'p1' })).toEqual(['/environment/e1/services', '/environment/e1/statuses', v('a2', 'APPLICATION')]);
  });
  it('an environment variable or secret: every list of the environment (its services inherit it)', () => {
    expect(stale({ target_type: 'ENVIRONMENT', target_id: 'e1', sub_target_type: 'SECRET', environment_id: 'e1', project_id: 'p1' })).toEqual(['/environment/e1/services', '/environment/e1/statuses', v('a1', 'APPLICATION'), v('a2', 'APPLICATION')].sort());
  });
  it('a project variable: every list of the project, and none of another project', () => {
    expect(stale({ target_type: 'PROJECT', target_id: 'p1', sub_target_type: 'VARIABLE', project_id: 'p1' })).toEqual(
      ['/environment/e1/services', '/environment/e1/statuses', '/environment/e2/services', '/environment/e2/statuses', v('a1', 'APPLICATION'), v('a2', 'APPLICATION'), v('b1', 'APPLICATION')].sort(),
    );
    expect(stale({ target_type: 'PROJECT', target_id: 'p2', sub_target_type: 'VARIABLE', project_id: 'p2' })).toEqual(['/environment/e3/services', v('e3', 'ENVIRONMENT'), v('p2', 'PROJECT')].sort());
  });
  it('a service update or deploy: its environment\'s services and statuses; a create or delete also the stages', () => {
    const tagChange = JSON.stringify({ id: 'b1', name: 'web', before: { tag: '1' }, after: { tag: '2' } });
    expect(stale({ target_type: 'CONTAINER', target_id: 'b1', environment_id: 'e2', change: tagChange })).toEqual(['/environment/e2/services', '/environment/e2/statuses']);
    expect(stale({ event_type: 'DEPLOYED', target_type: 'APPLICATION', target_id: 'a1', environment_id: 'e1' })).toEqual(['/environment/e1/services', '/environment/e1/statuses']);
    // The labels groups count their services (associated_items_count): a service that comes or goes changes them.
    expect(stale({ event_type: 'DELETE', target_type: 'APPLICATION', target_id: 'a1', environment_id: 'e1' })).toEqual(['/environment/e1/deploymentStage', '/environment/e1/services', '/environment/e1/statuses', `/organization/${ORG}/labelsGroups`, v('a1', 'APPLICATION'), v('a2', 'APPLICATION')].sort());
  });
  it('a service gone (DELETED, its deletion over): its stage membership and the aliases of its built-ins (of a database too) went with it', () => {
    expect(stale({ event_type: 'DELETED', target_type: 'DATABASE', target_id: 'd1', environment_id: 'e1' })).toEqual(['/environment/e1/deploymentStage', '/environment/e1/services', '/environment/e1/statuses', `/organization/${ORG}/labelsGroups`, v('a1', 'APPLICATION'), v('a2', 'APPLICATION')].sort());
  });
  it('a service joining or leaving a labels group, or a helm service its repository: their counts of users', () => {
    const joined = JSON.stringify({ id: 'b1', name: 'web', before: { labels_groups: [] }, after: { labels_groups: [{ id: 'g' }] } });
    expect(stale({ target_type: 'CONTAINER', target_id: 'b1', environment_id: 'e2', change: joined })).toEqual(['/environment/e2/services', '/environment/e2/statuses', `/organization/${ORG}/labelsGroups`]);
    // A change the log does not spell out may be anything.
    expect(stale({ target_type: 'CONTAINER', target_id: 'b1', environment_id: 'e2' })).toEqual(['/environment/e2/services', '/environment/e2/statuses', `/organization/${ORG}/labelsGroups`]);
    expect(stale({ event_type: 'CREATE', target_type: 'HELM', target_id: 'h1', environment_id: 'e2' })).toEqual(['/environment/e2/deploymentStage', '/environment/e2/services', '/environment/e2/statuses', `/organization/${ORG}/helmRepository`, `/organization/${ORG}/labelsGroups`].filter((k) => k in responses));
  });
  it('a terraform plan (dry run) moves its service\'s status', () => {
    expect(stale({ event_type: 'DEPLOYED_DRY_RUN', target_type: 'TERRAFORM', target_id: 'b1', environment_id: 'e2' })).toEqual(['/environment/e2/services', '/environment/e2/statuses']);
  });
  it('a service event without its environment is placed through the cached services', () => {
    expect(stale({ target_type: 'APPLICATION', target_id: 'b1', change: JSON.stringify({ id: 'b1', before: { cpu: 1 }, after: { cpu: 2 } }) })).toEqual(['/environment/e2/services', '/environment/e2/statuses']);
  });
  it('a stage change or move: the stages of its environment', () => {
    expect(stale({ target_type: 'ENVIRONMENT', target_id: 'e1', sub_target_type: 'DEPLOYMENT_STAGE', environment_id: 'e1', project_id: 'p1' })).toEqual(['/environment/e1/deploymentStage']);
  });
  it('an environment change: the project list (it counts environments), its project\'s environment list and its own lists', () => {
    expect(stale({ event_type: 'UPDATE', target_type: 'ENVIRONMENT', target_id: 'e2', environment_id: 'e2', project_id: 'p1' })).toEqual(['/environment/e2/services', '/environment/e2/statuses', `/organization/${ORG}/project`, '/project/p1/environment']);
    // Deleted, its services go with it: the groups and repositories they used count one user less.
    expect(stale({ event_type: 'DELETE', target_type: 'ENVIRONMENT', target_id: 'e2', environment_id: 'e2', project_id: 'p1' })).toEqual(['/environment/e2/services', '/environment/e2/statuses', `/organization/${ORG}/helmRepository`, `/organization/${ORG}/labelsGroups`, `/organization/${ORG}/project`, '/project/p1/environment']);
  });
  it('organization-level objects: their list; a cluster or helm repository change also what embeds it', () => {
    expect(stale({ target_type: 'WEBHOOK', target_id: 'w' })).toEqual([`/organization/${ORG}/webhook`]);
    expect(stale({ target_type: 'ORGANIZATION', target_id: ORG, sub_target_type: 'ALERT_RULE' })).toEqual([`/organization/${ORG}/alert-rules`]);
    expect(stale({ event_type: 'CREATE', target_type: 'CLUSTER', target_id: 'c' })).toEqual([]);
    expect(stale({ target_type: 'CLUSTER', target_id: 'c' })).toEqual(['/project/p1/environment', '/project/p2/environment']);
    // A changed repository, registry or group also makes the deployed services that use it out of date: every statuses list.
    expect(stale({ target_type: 'HELM_REPOSITORY', target_id: 'h', sub_target_type: 'SECRET' })).toEqual(['/environment/e1/services', '/environment/e1/statuses', '/environment/e2/services', '/environment/e2/statuses', '/environment/e3/services', `/organization/${ORG}/helmRepository`]);
    expect(stale({ event_type: 'DELETE', target_type: 'ORGANIZATION', target_id: ORG, sub_target_type: 'ANNOTATIONS_GROUP' })).toEqual(['/environment/e1/services', '/environment/e1/statuses', '/environment/e2/services', '/environment/e2/statuses', '/environment/e3/services', `/organization/${ORG}/annotationsGroups`]);
    // A labels group renamed or deleted: every services list (the records that used it) and statuses.
    expect(stale({ event_type: 'DELETE', target_type: 'ORGANIZATION', target_id: ORG, sub_target_type: 'LABELS_GROUP' })).toEqual(['/environment/e1/services', '/environment/e1/statuses', '/environment/e2/services', '/environment/e2/statuses', '/environment/e3/services', `/organization/${ORG}/labelsGroups`]);
    expect(stale({ event_type: 'UPDATE', target_type: 'ORGANIZATION', target_id: ORG, sub_target_type: 'LABELS_GROUP' })).toEqual(['/environment/e1/services', '/environment/e1/statuses', '/environment/e2/services', '/environment/e2/statuses', '/environment/e3/services', `/organization/${ORG}/labelsGroups`]);
    expect(stale({ event_type: 'CREATE', target_type: 'ORGANIZATION', target_id: ORG, sub_target_type: 'LABELS_GROUP' })).toEqual([`/organization/${ORG}/labelsGroups`]);
  });
  it('an environment read while an operation ran: its lists are re-read until it is over (states move on without an event)', () => {
    const busy = { ...responses, '/environment/e2/statuses': { environment: { state: 'DEPLOYING' }, applications: [{ id: 'b1', state: 'BUILDING' }] } };
    const s = stalenessOf([], topologyOf(busy));
    expect('reason' in s).toBe(false);
    const stale = Object.keys(busy).filter((k) => k !== '/organization' && !k.includes('/cluster') && (s as { isStale(k: string): boolean }).isStale(k));
    expect(stale.sort()).toEqual(['/environment/e2/services', '/environment/e2/statuses']);
  });
  it('what driftless never reads changes nothing: a member, a token, a shell', () => {
    expect(stale({ target_type: 'ORGANIZATION', target_id: ORG, sub_target_type: 'API_TOKEN' }, { event_type: 'SHELL', target_type: 'APPLICATION', target_id: 'a1' }, { target_type: 'ORGANIZATION', target_id: ORG })).toEqual([]);
  });
  it('an event it cannot place or does not know is a reason, never a guess', () => {
    const reason = (e: Partial<AuditEvent>) => stalenessOf([{ id: 'x', timestamp: '2026-11-25T16:00:00Z', event_type: 'UPDATE', target_type: 'APPLICATION', ...e }], topo);
    expect(reason({ target_type: 'APPLICATION', target_id: 'unknown-service' })).toEqual({ reason: expect.stringContaining('cannot place') });
    expect(reason({ target_type: 'ORGANIZATION', sub_target_type: 'SOMETHING_NEW' })).toEqual({ reason: expect.stringContaining('does not understand') });
    expect(reason({ event_type: 'TELEPORT' })).toEqual({ reason: expect.stringContaining('does not understand (TELEPORT of APPLICATION)') });
  });
});

describe('stalenessOf: projects, registries, helm sources and events it cannot place', () => {
  it('a project changed: the project list and its environment list; deleted, also its variables and the lists counting its services\' users', () => {
    expect(stale({ event_type: 'UPDATE', target_type: 'PROJECT', target_id: 'p2' })).toEqual([`/organization/${ORG}/project`, '/project/p2/environment']);
    // The log may name the project only as project_id.
    expect(stale({ event_type: 'UPDATE', target_type: 'PROJECT', project_id: 'p2' })).toEqual([`/organization/${ORG}/project`, '/project/p2/environment']);
    expect(stale({ event_type: 'CREATE', target_type: 'PROJECT', target_id: 'p9' })).toEqual([`/organization/${ORG}/project`]);
    expect(stale({ event_type: 'DELETE', target_type: 'PROJECT', target_id: 'p2' })).toEqual(['/environment/e3/services', `/organization/${ORG}/helmRepository`, `/organization/${ORG}/labelsGroups`, `/organization/${ORG}/project`, '/project/p2/environment', v('e3', 'ENVIRONMENT'), v('p2', 'PROJECT')]);
  });

  it('a container registry changed: the registries and every services and statuses list (records embed it); created, only the registries', () => {
    const registries = `/organization/${ORG}/containerRegistry`;
    const s = stalenessOf([{ id: 'x', timestamp: '2026-11-25T16:00:00Z', event_type: 'UPDATE', target_type: 'CONTAINER_REGISTRY', target_id: 'r' }], topo) as { isStale(k: string): boolean };
    expect(s.isStale(registries)).toBe(true);
    expect(stale({ event_type: 'UPDATE', target_type: 'CONTAINER_REGISTRY', target_id: 'r' })).toEqual(['/environment/e1/services', '/environment/e1/statuses', '/environment/e2/services', '/environment/e2/statuses', '/environment/e3/services']);
    const created = stalenessOf([{ id: 'x', timestamp: '2026-11-25T16:00:00Z', event_type: 'CREATE', target_type: 'CONTAINER_REGISTRY', target_id: 'r' }], topo) as { isStale(k: string): boolean };
    expect(created.isStale(registries)).toBe(true);
    expect(stale({ event_type: 'CREATE', target_type: 'CONTAINER_REGISTRY', target_id: 'r' })).toEqual([]);
  });

  it('a helm service updated: its repository\'s count only when the change may name its source', () => {
    const helm = (change?: string) => stale({ event_type: 'UPDATE', target_type: 'HELM', target_id: 'b1', environment_id: 'e2', ...(change ? { change } : {}) });
    const base = ['/environment/e2/services', '/environment/e2/statuses'];
    expect(helm(JSON.stringify({ before: { source: { a: 1 } }, after: { source: { a: 2 } } }))).toEqual([...base, `/organization/${ORG}/helmRepository`]);
    expect(helm(JSON.stringify({ before: { cpu: 1 }, after: { cpu: 2 } }))).toEqual(base);
    // Not JSON: it may say anything.
    expect(helm('cpu changed')).toEqual([...base, `/organization/${ORG}/helmRepository`, `/organization/${ORG}/labelsGroups`]);
    expect(helm()).toEqual([...base, `/organization/${ORG}/helmRepository`, `/organization/${ORG}/labelsGroups`]);
    // An application's change never touches the helm repositories.
    expect(stale({ event_type: 'CREATE', target_type: 'APPLICATION', target_id: 'a9', environment_id: 'e1' })).toEqual(['/environment/e1/deploymentStage', '/environment/e1/services', '/environment/e1/statuses', `/organization/${ORG}/labelsGroups`]);
    // A service cloned joins its environment's stages.
    expect(stale({ event_type: 'CLONE', target_type: 'APPLICATION', target_id: 'a9', environment_id: 'e1', sub_target_type: 'VARIABLE' })).toEqual(['/environment/e1/services', '/environment/e1/statuses']);
  });

  it('a member or a role changed: nothing driftless reads', () => {
    expect(stale({ target_type: 'MEMBERS_AND_ROLES', sub_target_type: 'ALERT_RULE' })).toEqual([]);
  });

  it('says which event it cannot place, and why', () => {
    const reason = (e: Partial<AuditEvent>) => (stalenessOf([{ id: 'x', timestamp: '2026-11-25T16:00:00Z', event_type: 'UPDATE', target_type: 'APPLICATION', ...e }], topo) as { reason: string }).reason;
    expect(reason({ target_type: 'APPLICATION', target_id: 'zz', sub_target_type: 'VARIABLE', target_name: 'api' })).toBe('the audit log holds an event driftless cannot place (UPDATE of APPLICATION/VARIABLE "api": no environment)');
    expect(reason({ target_type: 'PROJECT', sub_target_type: 'VARIABLE' })).toBe('the audit log holds an event driftless cannot place (UPDATE of PROJECT/VARIABLE)');
    expect(reason({ target_type: 'ENVIRONMENT', sub_target_type: 'DEPLOYMENT_STAGE' })).toBe('the audit log holds an event driftless cannot place (UPDATE of ENVIRONMENT/DEPLOYMENT_STAGE: no environment)');
    expect(reason({ target_type: 'ENVIRONMENT', target_id: 'e-new' })).toBe('the audit log holds an event driftless cannot place (UPDATE of ENVIRONMENT: no project)');
    // The environment's project from the cache when the event does not say it.
    expect(stale({ target_type: 'ENVIRONMENT', target_id: 'e3' })).toEqual(['/environment/e3/services', `/organization/${ORG}/project`, '/project/p2/environment']);
    // A variable event names its environment or project by id or by the event's own fields.
    expect(stale({ target_type: 'ENVIRONMENT', sub_target_type: 'VARIABLE', environment_id: 'e3', project_id: 'p2' })).toEqual(['/environment/e3/services', v('e3', 'ENVIRONMENT')]);
    expect(stale({ target_type: 'PROJECT', sub_target_type: 'SECRET', project_id: 'p2' })).toEqual(['/environment/e3/services', v('e3', 'ENVIRONMENT'), v('p2', 'PROJECT')]);
  });
});
