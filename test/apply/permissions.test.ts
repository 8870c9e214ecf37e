import { describe, expect, it } from 'vitest';
import { capabilitiesNeeded, NIL_UUID, probesFor, runProbe, tokenRefusals } from '../../src/apply/permissions.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { FakeApi, HttpError } from './fake-api.js';

function change(address: string, actions: ResourceChange['actions'], extra: Partial<ResourceChange> = {}): ResourceChange {
  return { address, kind: address.split('/').pop()!.split('.')[0] as ResourceChange['kind'], name: address.split('.').pop()!, actions, status: 'planned', fields: [], reasons: [], ...extra } as ResourceChange;
}

function planOf(changes: ResourceChange[]): Plan {
  return { organization_id: 'org-1', changes } as unknown as Plan;
}

const WRITE = change('project.p', ['create']);
const DEPLOY = change('project.p/environment.e/application.a', ['no-op'], { deploy: { reasons: ['changed'] } });

describe('token permissions before the first write', () => {
  it('needs Write for steps and Deploy for deployments, never for blocked or unmanaged changes', () => {
    expect(capabilitiesNeeded(planOf([WRITE, DEPLOY]))).toEqual({ write: 1, deploy: 1 });
    expect(capabilitiesNeeded(planOf([{ ...WRITE, status: 'blocked' }, { ...DEPLOY, status: 'unmanaged' }]))).toEqual({ write: 0, deploy: 0 });
    expect(probesFor(planOf([DEPLOY])).map((p) => `${p.capability} ${p.method} ${p.path}`)).toEqual([`Deploy POST /application/${NIL_UUID}/deploy`]);
    expect(probesFor(planOf([WRITE])).map((p) => `${p.capability} ${p.method} ${p.path}`)).toEqual([`Write DELETE /organization/org-1/labelsGroups/${NIL_UUID}`]);
  });

  it('reads 403 as denied, 401 as unauthorized, any other client error as allowed, and a failure as unknown', async () => {
    const probe = { capability: 'Write' as const, method: 'DELETE' as const, path: '/x' };
    const answering = (e: unknown) => new FakeApi().on('DELETE', '/x', () => Promise.reject(e));
    expect(await runProbe(answering(new HttpError(403, 'forbidden')), probe)).toBe('denied');
    expect(await runProbe(answering(new HttpError(401, 'no token')), probe)).toBe('unauthorized');
    expect(await runProbe(answering(new HttpError(404, 'not found')), probe)).toBe('allowed');
    expect(await runProbe(answering(new HttpError(400, 'bad body')), probe)).toBe('allowed');
    expect(await runProbe(answering(new HttpError(503, 'down')), probe)).toBe('unknown');
    expect(await runProbe(answering(new HttpError(429, 'slow down')), probe)).toBe('unknown');
  });

  it('names every missing scope, and says nothing when the API cannot tell', async () => {
    const api = new FakeApi()
      .on('DELETE', '/organization/:o/labelsGroups/:id', () => Promise.reject(new HttpError(404, 'no such group')))
      .on('POST', '/application/:id/deploy', () => Promise.reject(new HttpError(403, 'needs DEPLOY')));
    const d = await tokenRefusals(planOf([WRITE, DEPLOY]), api);
    expect(d.map((x) => [x.code, x.summary])).toEqual([['apply.token-scope', 'The API token lacks the Deploy scope this plan needs. Nothing was changed.']]);
    const flaky = new FakeApi().on('DELETE', '/organization/:o/labelsGroups/:id', () => Promise.reject(new HttpError(502, 'bad gateway')));
    expect(await tokenRefusals(planOf([WRITE]), flaky)).toEqual([]);
  });
});
