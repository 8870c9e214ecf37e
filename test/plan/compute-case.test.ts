/**
 * Names of case-insensitive objects (projects, environments, services, groups, receivers) that
 * differ live only in case are the same names: computePlan plans nothing for them, neither on the
 * objects themselves nor on what refers to them by name (a service's groups, an alert rule's
 * receivers and target).
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan } from '../../src/plan/types.js';
import { API, KEY, apiRecords, fullManifest, liveFrom } from './fixtures.js';

const touched = (plan: Plan) => plan.changes.filter((c) => c.actions[0] !== 'no-op' || c.deploy).map((c) => `${c.actions.join(',')} ${c.address}`);

describe('computePlan: names that differ only in case', () => {
  it('plans nothing when the live objects and the references to them are spelled in another case', () => {
    const r = apiRecords();
    r.annotationsGroups[0]!.name = 'MONITORING';
    r.labelsGroups[0]!.name = 'Team';
    r.alertReceivers[0]!.name = 'Slack-Ops';
    r.services[0]!.name = 'API';
    r.projects[0]!.name = 'SHOP';
    r.environments[0]!.name = 'Production';
    const plan = computePlan(buildGraph(fullManifest()).graph, liveFrom(r), { fingerprintKey: KEY });
    expect(touched(plan)).toEqual([]);
    expect(plan.diagnostics).toEqual([]);
  });

  it('still changes a reference whose name differs by more than case', () => {
    const m = fullManifest();
    m.alert_receivers!.push({ name: 'pager', type: 'SLACK', description: 'Pager', send_resolved: true, webhook_url: m.alert_receivers![0]!.webhook_url });
    m.alert_rules![0]!.receivers = ['pager'];
    const r = apiRecords();
    r.alertReceivers[0]!.name = 'Slack-Ops';
    const plan = computePlan(buildGraph(m).graph, liveFrom(r), { fingerprintKey: KEY });
    const rule = plan.changes.find((c) => c.address === 'alert_rule.high-cpu')!;
    expect(rule.actions).toEqual(['update']);
    expect(rule.fields.map((f) => [f.field, f.before, f.after])).toEqual([['alert_receivers', ['Slack-Ops'], ['pager']]]);
    expect(plan.changes.find((c) => c.address === API)!.actions).toEqual(['no-op']);
  });
});
