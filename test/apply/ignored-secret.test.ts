/**
 * An update of an object whose secret is under `ignore_changes`: the secret is not sent, and the
 * description's fingerprint marker keeps the fingerprint the live record has for it (so that taking
 * the secret back later compares it instead of rewriting it as unknown). Without the rule, the
 * secret is sent and its own fingerprint written.
 */
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply.js';
import type { DesiredGraph, DesiredResource, LiveState } from '../../src/model/resource.js';
import { SecretValue } from '../../src/model/secret.js';
import { fingerprint, withFingerprintMarker } from '../../src/plan/fingerprint.js';
import type { Plan } from '../../src/plan/types.js';
import { FakeApi, virtualTiming } from './fake-api.js';

const KEY = 'k';
const ADDRESS = 'project.p/variable.TOKEN';
const LIVE_FP = fingerprint('the value live', KEY);

function run(ignore: boolean) {
  const d: DesiredResource = {
    address: ADDRESS,
    kind: 'variable',
    name: 'TOKEN',
    parent: 'project.p',
    attrs: { key: 'TOKEN', variable_type: 'VALUE', is_secret: true, value: new SecretValue('the value in git'), description: 'new text' },
    sensitiveFields: ['value'],
    dependsOn: [],
    ...(ignore ? { ignoreChanges: { fields: ['value'], attrPaths: ['value'], pins: [] } } : {}),
  };
  const desired: DesiredGraph = { resources: new Map([[ADDRESS, d]]), order: [ADDRESS] };
  const record = { id: 'var-1', key: 'TOKEN', is_secret: true, value: null, variable_type: 'VALUE', description: withFingerprintMarker('old text', { value: LIVE_FP }) };
  const live: LiveState = {
    organizationId: 'org',
    requestCount: 0,
    resources: new Map([
      ['project.p', { address: 'project.p', id: 'p-1', kind: 'project', name: 'p', attrs: {}, record: { id: 'p-1' }, version: 'v1' }],
      [ADDRESS, { address: ADDRESS, id: 'var-1', kind: 'variable', name: 'TOKEN', parent: 'project.p', attrs: { key: 'TOKEN', description: 'old text', is_secret: true }, record, version: 'v1', fingerprints: { value: LIVE_FP } }],
    ]),
  };
  const plan: Plan = {
    format_version: '1.0',
    organization_id: 'org',
    changes: [{ address: ADDRESS, kind: 'variable', name: 'TOKEN', parent: 'project.p', actions: ['update'], status: 'planned', reasons: [], fields: [{ field: 'description', before: 'old text', after: 'new text' }], depends_on: ['project.p'], id: 'var-1', version: 'v1' }],
    summary: { add: 0, change: 1, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 },
    deploy_order: [],
    live_objects: { 'project.p': { id: 'p-1', version: 'v1' }, [ADDRESS]: { id: 'var-1', version: 'v1' } },
    request_count: 0,
    options: { allow_data_loss: false },
    applyable: true,
    diagnostics: [],
  };
  const api = new FakeApi().on('PUT', '/variable/:id', ({ params, body }) => ({ id: params.id, ...(body as object) }));
  return { api, done: applyPlan(plan, { api, live, desired, fingerprintKey: KEY, probeToken: false, timing: virtualTiming() }) };
}

describe('an update next to an ignored secret', () => {
  it('does not send the secret, and keeps its live fingerprint in the marker', async () => {
    const { api, done } = run(true);
    expect((await done).status).toBe('applied');
    const body = api.calls.find((c) => c.method === 'PUT')!.body as Record<string, unknown>;
    expect('value' in body).toBe(false);
    expect(body.description).toBe(withFingerprintMarker('new text', { value: LIVE_FP }));
  });

  it('without ignore_changes, sends it and writes its own fingerprint', async () => {
    const { api, done } = run(false);
    expect((await done).status).toBe('applied');
    const body = api.calls.find((c) => c.method === 'PUT')!.body as Record<string, unknown>;
    expect(body.value).toBeInstanceOf(SecretValue);
    expect(body.description).toBe(withFingerprintMarker('new text', { value: fingerprint('the value in git', KEY) }));
  });
});
