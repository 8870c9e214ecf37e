/**
 * The full-read line's list of what the cache lacked (`describeLacking`): every organization list
 * the reader asks for named as a user names it, each list once, at most three named and the rest
 * counted, and an object the cache has no name for shown by its id.
 */
import { describe, expect, it } from 'vitest';
import { describeLacking } from '../../src/live/cache-lacks.js';
import { ORG_LISTS, routes, type OrgListName } from '../../src/api/routes.js';

describe('describeLacking', () => {
  it('names every organization list the reader reads in words', () => {
    const words = Object.fromEntries((Object.keys(ORG_LISTS) as OrgListName[]).map((name) => [name, describeLacking([routes.orgList('o1', name)], {})]));
    expect(words).toEqual({
      projects: "(1: the organization's projects)",
      clusters: "(1: the organization's clusters)",
      clusterStatuses: "(1: the organization's cluster statuses)",
      containerRegistries: "(1: the organization's container registries)",
      helmRepositories: "(1: the organization's helm repositories)",
      annotationsGroups: "(1: the organization's annotations groups)",
      labelsGroups: "(1: the organization's labels groups)",
      alertReceivers: "(1: the organization's alert receivers)",
      alertRules: "(1: the organization's alert rules)",
      webhooks: "(1: the organization's webhooks)",
    });
    // A list it does not know by a word is named by its path.
    expect(describeLacking(['/organization/o1/newThing'], {})).toBe("(1: the organization's newThing)");
  });

  it('names the lists of an environment and the variables of a project, an environment or a service by the names the cache holds', () => {
    const responses = {
      '/organization/o1/project': { results: [{ id: 'p1', name: 'shop' }, { id: 'p2' }] },
      '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }] },
      '/environment/e1/services': [{ id: 's1', name: 'api' }],
      '/environment/e1/statuses': { results: [{ id: 'x1', name: 'not a name source' }] },
    };
    expect(describeLacking(['/environment/e1/services', '/environment/e1/statuses', '/environment/e1/deploymentStage'], responses)).toBe(
      '(3: the services of environment "prod", the service statuses of environment "prod", the deployment stages of environment "prod")',
    );
    expect(describeLacking(['/variable?parent_id=p1&scope=PROJECT', '/variable?parent_id=e1&scope=ENVIRONMENT', '/variable?parent_id=s1&scope=CONTAINER'], responses)).toBe(
      '(3: the variables of project "shop", the variables of environment "prod", the variables of service "api")',
    );
    // Only the lists of projects, environments and services name objects; an id without a name stays an id.
    expect(describeLacking(['/variable?parent_id=x1&scope=CONTAINER', '/project/p2/environment'], responses)).toBe('(2: the variables of object x1, the environments of project p2)');
  });

  it('counts each list once, names three, and says how many more', () => {
    const keys = ['/project/a/environment', '/project/b/environment', '/project/a/environment', '/project/c/environment'];
    expect(describeLacking(keys, {})).toBe('(3: the environments of project a, the environments of project b, the environments of project c)');
    expect(describeLacking([...keys, '/project/d/environment', '/project/e/environment'], {})).toBe(
      '(5: the environments of project a, the environments of project b, the environments of project c and 2 more)',
    );
  });

  it('shows a key of no known shape without its query', () => {
    expect(describeLacking(['/something/else?secret_filter=1'], {})).toBe('(1: /something/else)');
  });
});
