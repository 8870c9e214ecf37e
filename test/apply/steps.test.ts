import { describe, expect, it } from 'vitest';
import { planSteps } from '../../src/apply/steps.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';

function change(address: string, kind: ResourceChange['kind'], actions: ResourceChange['actions'], extra: Partial<ResourceChange> = {}): ResourceChange {
  const i = address.lastIndexOf('/');
  const parent = i > 0 ? address.slice(0, i) : undefined;
  return {
    address,
    kind,
    name: address.slice(address.lastIndexOf('.') + 1),
    ...(parent ? { parent } : {}),
    actions,
    status: 'planned',
    reasons: [],
    fields: [],
    depends_on: parent ? [parent] : [],
    ...extra,
  };
}

function plan(changes: ResourceChange[], deploy_order: Plan['deploy_order'] = []): Plan {
  return {
    format_version: '1.0',
    organization_id: 'org',
    changes,
    summary: { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 },
    deploy_order,
    live_objects: {},
    request_count: 0,
    options: { allow_data_loss: false },
    applyable: true,
    diagnostics: [],
  };
}

const ENV = 'project.p/environment.e';
const deps = (steps: ReturnType<typeof planSteps>) => Object.fromEntries(steps.map((s) => [s.id, [...s.dependsOn].sort()]));

describe('planSteps', () => {
  it('batches the services an environment deletes into one step, and sends nothing for what goes with its parent', () => {
    const steps = planSteps(
      plan([
        change(`${ENV}/container.a`, 'container', ['delete'], { id: 'a' }),
        change(`${ENV}/container.b`, 'container', ['delete'], { id: 'b' }),
        change(`${ENV}/container.b/variable.X`, 'variable', ['delete'], { id: 'x', via_parent: `${ENV}/container.b` }),
        change(`${ENV}/application.c`, 'application', ['no-op']),
      ]),
    );
    expect(steps.map((s) => s.id)).toEqual([`delete services of ${ENV}`]);
    expect(steps[0]).toMatchObject({ type: 'delete-services', changes: [{ address: `${ENV}/container.a` }, { address: `${ENV}/container.b` }] });
  });

  it('deletes a stage after its services moved out, a receiver after the rules that used it changed', () => {
    const steps = planSteps(
      plan([
        change(`${ENV}/deployment_stage.old`, 'deployment_stage', ['delete'], { id: 's0' }),
        change(`${ENV}/deployment_stage.new`, 'deployment_stage', ['update'], { id: 's1' }),
        change('alert_receiver.old', 'alert_receiver', ['delete'], { id: 'r0', depends_on: [] }),
        change('alert_rule.cpu', 'alert_rule', ['update'], { id: 'rule', depends_on: [] }),
      ]),
    );
    expect(deps(steps)).toEqual({
      [`delete ${ENV}/deployment_stage.old`]: [`update ${ENV}/deployment_stage.new`],
      [`update ${ENV}/deployment_stage.new`]: [],
      'delete alert_receiver.old': ['update alert_rule.cpu'],
      'update alert_rule.cpu': [],
    });
  });

  it('deploys stage after stage, each after the configuration its services see', () => {
    const api = `${ENV}/application.api`;
    const web = `${ENV}/container.web`;
    const steps = planSteps(
      plan(
        [
          change('project.p/variable.REGION', 'variable', ['update'], { id: 'v', depends_on: [] }),
          change(`${api}/variable.KEY`, 'variable', ['create'], { depends_on: [] }),
          change(web, 'container', ['update'], { id: 'w', depends_on: [], deploy: { reasons: ['configuration changed'] } }),
          change('project.q/variable.OTHER', 'variable', ['update'], { id: 'o', depends_on: [] }),
        ],
        [{ environment: ENV, stages: [{ stage: 'first', services: [web] }, { stage: 'second', services: [api] }] }],
      ),
    );
    const d = deps(steps);
    expect(d[`deploy ${ENV} stage first #0`]).toEqual([`update ${web}`, 'update project.p/variable.REGION']);
    expect(d[`deploy ${ENV} stage second #1`]).toEqual([`create ${api}/variable.KEY`, `deploy ${ENV} stage first #0`, 'update project.p/variable.REGION']);
  });
});
