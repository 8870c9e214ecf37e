/**
 * applyPlan with `noDeploy` (`apply --no-deploy`): the configuration steps run, no deployment is
 * started (not even the Deploy-scope probe is sent), and the deploys the plan marks come back as
 * `pending_deploys`, one `deploy_pending` event each; the human outcome lists them once.
 */
import { describe, expect, it } from 'vitest';
import { applyPlan, plannedDeploys, withoutDeploys } from '../../src/apply/apply.js';
import type { ApplyEvent } from '../../src/apply/events.js';
import { renderApplyOutcome } from '../../src/cli/apply-view.js';
import type { DesiredGraph, LiveState } from '../../src/model/resource.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { createPalette } from '../../src/render/palette.js';
import { FakeApi, virtualTiming } from './fake-api.js';

const ENV = 'project.p/environment.e';
const WEB = `${ENV}/container.web`;
const API = `${ENV}/container.api`;

function change(address: string, actions: ResourceChange['actions'], reasons: string[]): ResourceChange {
  return {
    address,
    kind: 'container',
    name: address.split('.').pop()!,
    parent: ENV,
    actions,
    status: 'planned',
    reasons: [],
    fields: actions[0] === 'update' ? [{ field: 'memory', before: 256, after: 384 }] : [],
    depends_on: [ENV],
    id: `${address.split('.').pop()}-id`,
    version: 'v1',
    deploy: { reasons },
  };
}

const plan: Plan = {
  format_version: '1.0',
  organization_id: 'org',
  changes: [change(WEB, ['update'], ['configuration changed (memory)']), change(API, ['no-op'], ['configuration changed since its last deployment'])],
  summary: { add: 0, change: 1, destroy: 0, deploy: 2, unmanaged: 0, blocked: 0 },
  deploy_order: [{ environment: ENV, stages: [{ stage: null, services: [WEB, API] }] }],
  live_objects: {},
  request_count: 0,
  options: { allow_data_loss: false },
  applyable: true,
  diagnostics: [],
};

const record = (id: string, name: string) => ({ id, name, image_name: 'acme/x', tag: '1', memory: 256, registry: { id: 'reg' } });
const live: LiveState = {
  organizationId: 'org',
  requestCount: 0,
  resources: new Map([
    [ENV, { address: ENV, id: 'env-id', kind: 'environment', name: 'e', attrs: {}, record: { id: 'env-id' }, version: 'v1' }],
    [WEB, { address: WEB, id: 'web-id', kind: 'container', name: 'web', attrs: { memory: 256 }, record: record('web-id', 'web'), version: 'v1' }],
    [API, { address: API, id: 'api-id', kind: 'container', name: 'api', attrs: {}, record: record('api-id', 'api'), version: 'v1' }],
  ]),
};
const desired: DesiredGraph = {
  resources: new Map([
    [WEB, { address: WEB, kind: 'container', name: 'web', parent: ENV, attrs: { name: 'web', memory: 384 }, dependsOn: [] }],
    [API, { address: API, kind: 'container', name: 'api', parent: ENV, attrs: { name: 'api' }, dependsOn: [] }],
  ]),
  order: [WEB, API],
};

describe('apply --no-deploy', () => {
  it('writes the configuration, starts no deployment, and returns the deploys it left pending', async () => {
    const api = new FakeApi().on('PUT', '/container/:id', ({ params, body }) => ({ id: params.id, ...(body as object) }));
    const events: ApplyEvent[] = [];
    const r = await applyPlan(plan, { api, live, desired, fingerprintKey: 'k', timing: virtualTiming(), onEvent: (e) => events.push(e) }, { noDeploy: true });
    expect(r.status).toBe('applied');
    // The Write probe, the update; no Deploy probe, no deploy request.
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['DELETE /organization/org/labelsGroups/00000000-0000-0000-0000-000000000000', 'PUT /container/web-id']);
    expect(r.summary).toMatchObject({ change: 1, deploy: 0 });
    expect(r.pending_deploys).toEqual([
      { address: WEB, reasons: ['configuration changed (memory)'] },
      { address: API, reasons: ['configuration changed since its last deployment'] },
    ]);
    expect(events.filter((e) => e.type === 'deploy_pending').map((e) => (e as { address: string }).address)).toEqual([WEB, API]);
    expect(events.find((e) => e.type === 'change_summary')).toMatchObject({ deploy: 0, pending_deploy: 2 });

    const out = renderApplyOutcome(r, createPalette(false));
    expect(out).toContain('Not deployed (--no-deploy): 2 services the plan would have deployed; the next plan shows them as to deploy:');
    expect(out).toContain(`~ ${WEB}: configuration changed (memory)`);
    expect(out).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed; 0 deployed, 2 not deployed (--no-deploy).');
  });

  it('takes the deploys out of a copy of the plan, leaving the plan itself as it was', () => {
    expect(plannedDeploys(plan).map((d) => d.address)).toEqual([WEB, API]);
    const held = withoutDeploys(plan);
    expect([held.deploy_order, held.summary.deploy, held.changes.some((c) => c.deploy)]).toEqual([[], 0, false]);
    // The original plan is untouched.
    expect(plan.changes.every((c) => c.deploy)).toBe(true);
  });
});
