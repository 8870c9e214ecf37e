/** The out-of-scope line of plan and drift, every kind in its own words, and which undeclared kinds a manifest owns. */
import { describe, expect, it } from 'vitest';
import type { DesiredGraph, DesiredResource } from '../../src/model/resource.js';
import { OWNABLE_ORGANIZATION_KINDS, outOfScopeLine, ownsUndeclaredAtTop } from '../../src/plan/scope.js';

describe('out-of-scope line', () => {
  it('names every kind in words, singular or plural, in a fixed order, with the scope', () => {
    expect(OWNABLE_ORGANIZATION_KINDS).toEqual(['project', 'annotations_group', 'labels_group', 'alert_receiver', 'alert_rule', 'webhook']);
    expect(outOfScopeLine({ scope: 'kinds', counts: { webhook: 2, alert_rule: 1, alert_receiver: 3, labels_group: 1, annotations_group: 2, project: 1 } })).toBe(
      '1 project, 2 annotation groups, 1 label group, 3 alert receivers, 1 alert rule and 2 webhooks outside this manifest are not managed by it (scope: kinds, the default).',
    );
    expect(outOfScopeLine({ scope: 'declared', counts: { project: 2, annotations_group: 1, labels_group: 2, alert_receiver: 1, alert_rule: 2, webhook: 1 } })).toBe(
      '2 projects, 1 annotation group, 2 label groups, 1 alert receiver, 2 alert rules and 1 webhook outside this manifest are not managed by it (scope: declared).',
    );
    expect(outOfScopeLine({ scope: 'declared', counts: { webhook: 1 } })).toBe('1 webhook outside this manifest is not managed by it (scope: declared).');
    expect(outOfScopeLine({ scope: 'kinds', counts: { project: 0 } })).toBeUndefined();
    expect(outOfScopeLine(undefined)).toBeUndefined();
  });
});

describe('undeclared objects a manifest owns', () => {
  const graph = (scope: DesiredGraph['scope'], kinds: DesiredResource['kind'][], prune?: DesiredResource['kind'][]): DesiredGraph => ({
    resources: new Map(kinds.map((kind, i) => [`${kind}.x${i}`, { address: `${kind}.x${i}`, kind, name: `x${i}`, attrs: {}, dependsOn: [] } as DesiredResource])),
    order: [],
    ...(scope ? { scope } : {}),
    ...(prune ? { prune } : {}),
  });

  it('kinds (the default): the kinds it declares at top level, never projects; pruned kinds always', () => {
    const owns = ownsUndeclaredAtTop(graph(undefined, ['webhook', 'project']));
    expect(owns('webhook')).toBe(true);
    expect(owns('project')).toBe(false);
    expect(owns('alert_rule')).toBe(false);
    expect(ownsUndeclaredAtTop(graph(undefined, [], ['project']))('project')).toBe(true);
    // A declared child (parent set) does not make its kind owned at top level.
    const child: DesiredGraph = { resources: new Map([['p/variable.X', { address: 'p/variable.X', kind: 'variable', name: 'X', parent: 'p', attrs: {}, dependsOn: [] } as DesiredResource]]), order: [] };
    expect(ownsUndeclaredAtTop(child)('variable')).toBe(false);
  });

  it('organization owns everything; declared owns nothing but what it prunes', () => {
    expect(ownsUndeclaredAtTop(graph('organization', []))('alert_receiver')).toBe(true);
    expect(ownsUndeclaredAtTop(graph('declared', ['webhook']))('webhook')).toBe(false);
    expect(ownsUndeclaredAtTop(graph('declared', [], ['webhook']))('webhook')).toBe(true);
  });
});
