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
  describe('a fresh environment with stages', () => {
    const core = `${ENV}/application.db`;
    const front = `${ENV}/container.web`;
    const stageCore = `${ENV}/deployment_stage.core`;
    const stageFront = `${ENV}/deployment_stage.front`;
    const fresh = () =>
      planSteps(
        plan(
          [
            change('project.p', 'project', ['create'], { depends_on: [] }),
            change(ENV, 'environment', ['create']),
            change(core, 'application', ['create'], { deploy: { reasons: ['created'] } }),
            change(`${core}/variable.A`, 'variable', ['create'], { after: { key: 'A', value: '1', variable_type: 'VALUE', is_secret: false } }),
            change(`${core}/variable.B`, 'variable', ['create'], { after: { key: 'B', value: '2', variable_type: 'VALUE', is_secret: false } }),
            change(`${core}/variable.S`, 'variable', ['create'], {
              after: { key: 'S', value: { sensitive: true, fingerprint: 'f' }, variable_type: 'VALUE', is_secret: true },
              sensitive_fields: ['value'],
              fingerprints: { value: 'f' },
            }),
            change(`${core}/variable.D`, 'variable', ['create'], { after: { key: 'D', value: '4', variable_type: 'VALUE', is_secret: false, description: 'why' } }),
            change(front, 'container', ['create'], { deploy: { reasons: ['created'] } }),
            change(`${front}/variable.X`, 'variable', ['create'], { after: { key: 'X', value: 'x', variable_type: 'VALUE', is_secret: false } }),
            change(stageCore, 'deployment_stage', ['create'], { depends_on: [ENV, core], after: { name: 'core', services: ['db'] } }),
            change(stageFront, 'deployment_stage', ['create'], { depends_on: [ENV, stageCore, front], after: { name: 'front', services: ['web'], after: 'core' } }),
          ],
          [{ environment: ENV, stages: [{ stage: 'core', services: [core] }, { stage: 'front', services: [front] }] }],
        ),
      );

    it('moves each member in by a step of its own, after the stage and the service exist', () => {
      const d = deps(fresh());
      expect(d[`create ${stageCore}`]).toEqual([`create ${ENV}`]);
      expect(d[`create ${stageFront}`]).toEqual([`create ${ENV}`, `create ${stageCore}`]);
      expect(d[`move db into ${stageCore}`]).toEqual([`create ${core}`, `create ${stageCore}`]);
      expect(d[`move web into ${stageFront}`]).toEqual([`create ${front}`, `create ${stageFront}`]);
    });

    it('deploys the first stage without waiting for the services of the later ones', () => {
      const d = deps(fresh());
      expect(d[`deploy ${ENV} stage core #0`]).toEqual(
        [`create ${ENV}`, `create ${core}`, `create ${core}/variable.D`, `create ${core}/variable.S`, `create ${stageCore}`, `import variables of ${core}`, `move db into ${stageCore}`, 'create project.p'].sort(),
      );
      expect(d[`deploy ${ENV} stage front #1`]).toEqual(
        [`create ${ENV}`, `create ${front}`, `create ${front}/variable.X`, `create ${stageFront}`, `deploy ${ENV} stage core #0`, `move web into ${stageFront}`, 'create project.p'].sort(),
      );
    });

    it('imports the plain variables of a service with one step, and creates secrets, described and lone ones on their own', () => {
      const steps = fresh();
      const imports = steps.filter((s) => s.type === 'import-variables');
      expect(imports).toHaveLength(1);
      expect(imports[0]).toMatchObject({ service: core, changes: [{ address: `${core}/variable.A` }, { address: `${core}/variable.B` }] });
      expect(deps(steps)[`import variables of ${core}`]).toEqual([`create ${core}`]);
      expect(steps.map((s) => s.id)).toEqual(expect.arrayContaining([`create ${core}/variable.S`, `create ${core}/variable.D`, `create ${front}/variable.X`]));
    });
  });

  it('never imports a variable that another change refers to (an import answers no ids)', () => {
    const svc = `${ENV}/application.api`;
    const plainVar = (k: string) => change(`${svc}/variable.${k}`, 'variable', ['create'], { after: { key: k, value: k, variable_type: 'VALUE', is_secret: false } });
    const steps = planSteps(
      plan([
        change(svc, 'application', ['create']),
        plainVar('A'),
        plainVar('B'),
        plainVar('C'),
        change(`${svc}/variable.ALIAS`, 'variable', ['create'], { depends_on: [svc, `${svc}/variable.C`], after: { key: 'ALIAS', variable_type: 'ALIAS', is_secret: false } }),
      ]),
    );
    const batch = steps.find((s) => s.type === 'import-variables');
    expect(batch).toMatchObject({ changes: [{ address: `${svc}/variable.A` }, { address: `${svc}/variable.B` }] });
    expect(deps(steps)[`create ${svc}/variable.ALIAS`]).toEqual([`create ${svc}`, `create ${svc}/variable.C`]);
  });

  it('deletes a stage only after the services that leave it have moved into their new stage', () => {
    const steps = planSteps(
      plan([
        change(`${ENV}/deployment_stage.old`, 'deployment_stage', ['delete'], { id: 's0' }),
        change(`${ENV}/deployment_stage.new`, 'deployment_stage', ['update'], {
          id: 's1',
          fields: [{ field: 'services', before: ['a'], after: ['a', 'b'] }],
          after: { name: 'new', services: ['a', 'b'] },
        }),
        change(`${ENV}/application.b`, 'application', ['no-op'], { id: 'b' }),
      ]),
    );
    const d = deps(steps);
    expect(d[`move b into ${ENV}/deployment_stage.new`]).toEqual([`update ${ENV}/deployment_stage.new`]);
    expect(d[`delete ${ENV}/deployment_stage.old`]).toEqual([`move b into ${ENV}/deployment_stage.new`, `update ${ENV}/deployment_stage.new`]);
    expect(steps.some((s) => s.id.startsWith('move a'))).toBe(false);
  });
});
