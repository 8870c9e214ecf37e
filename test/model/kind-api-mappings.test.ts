/**
 * The API-side mappings of every kind (issue 22): record -> attrs (src/live/normalize.ts) and
 * attrs -> request body (src/apply/bodies.ts) are its descriptor's, not cases of the stages. A
 * kind whose descriptor lost its mapping, or a stage that grew a case for one kind again, fails
 * here; the mappings' field-by-field behaviour is test/live/normalize.test.ts's and
 * test/apply/bodies.test.ts's.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { descriptors, isServiceKind, RESOURCE_KINDS, serviceMappings } from '../../src/model/kinds/index.js';
import { createBody, updateBody } from '../../src/apply/bodies.js';
import { IdRegistry } from '../../src/apply/refs.js';
import { buildLiveLookup, normalizeLive } from '../../src/live/normalize.js';
import type { LiveResource, LiveState } from '../../src/model/resource.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('every kind maps its API records', () => {
  it('its descriptor has fromRecord (a service kind: its own fields in service.fromRecord too)', () => {
    for (const k of RESOURCE_KINDS) {
      expect(typeof descriptors()[k].fromRecord, k).toBe('function');
      if (isServiceKind(k)) expect(typeof serviceMappings(k).fromRecord, k).toBe('function');
    }
  });

  it('a record of every kind normalises to attrs under the address its descriptor names', () => {
    const lookup = buildLiveLookup({ clusters: [{ id: 'c1', name: 'prod' }] });
    const record = { id: 'x1', name: 'n', key: 'K', target_url: 'https://hook', cluster_id: 'c1', service_type: 'CONTAINER' };
    for (const k of RESOURCE_KINDS) {
      const r = normalizeLive(k, record, undefined, lookup);
      expect(r.attrs, k).toBeTypeOf('object');
      expect(r.kind, k).toBe(k);
    }
    expect(normalizeLive('organization', record, undefined, lookup).address).toBe('organization');
    expect(normalizeLive('webhook', record, undefined, lookup).address).toBe('webhook.https:%2F%2Fhook');
    expect(normalizeLive('variable', record, 'project.p', lookup).address).toBe('project.p/variable.K');
    expect(normalizeLive('environment', record, 'project.p', lookup).attrs.cluster).toBe('prod');
  });

  it('normalize.ts and bodies.ts name no kind in a comparison or a case: the descriptors decide', () => {
    for (const file of ['src/live/normalize.ts', 'src/apply/bodies.ts']) {
      const text = readFileSync(ROOT + file, 'utf8');
      for (const k of RESOURCE_KINDS) {
        const q = `['"]${k}['"]`;
        expect(text, `${file}: ${k}`).not.toMatch(new RegExp(`(===|!==)\\s*${q}|${q}\\s*(===|!==)|case\\s+${q}`));
      }
    }
  });
});

describe('the request mappings of the kinds that are not services', () => {
  const state: LiveState = {
    organizationId: 'org',
    requestCount: 0,
    resources: new Map(
      [
        { address: 'alert_receiver.oncall', id: 'rcv-1' },
        { address: 'cluster.prod', id: 'cl-1' },
      ].map((r) => [r.address, { kind: 'project', name: '', attrs: {}, record: { id: r.id }, version: 'v', ...r } as LiveResource]),
    ),
  };
  const ctx = (address: string) => ({ address, refs: new IdRegistry('org', state), fingerprintKey: 'k' });

  it('an environment sends no cluster name (its create sends the cluster id, its writer resolves it)', () => {
    const body = createBody('environment', { name: 'prod', mode: 'PRODUCTION', cluster: 'prod' }, ctx('project.p/environment.prod'));
    expect(body).toEqual({ name: 'prod', mode: 'PRODUCTION' });
  });

  it('a deployment stage sends neither its services nor the stage it comes after (calls of their own)', () => {
    const body = createBody('deployment_stage', { name: 'build', description: 'first', services: ['web'], after: 'init' }, ctx('project.p/environment.e/deployment_stage.build'));
    expect(body).toEqual({ name: 'build', description: 'first' });
  });

  it('an alert rule update sends its receivers by id and no target; a record\'s receiver ids are copied, not shared', () => {
    const record = { id: 'ar-1', name: 'cpu', severity: 'LOW', condition: { kind: 'CUSTOM', promql: 'up == 0', operator: 'NONE', function: 'NONE', threshold: 0 }, alert_receiver_ids: ['rcv-0'], target: { target_type: 'CLUSTER', target_id: 'cl-1' } };
    const named = updateBody('alert_rule', { name: 'cpu', alert_receivers: ['oncall'], target: { cluster: 'prod' } }, record, ctx('alert_rule.cpu'));
    expect(named.alert_receiver_ids).toEqual(['rcv-1']);
    expect(named).not.toHaveProperty('alert_receivers');
    expect(named).not.toHaveProperty('target');
    const kept = updateBody('alert_rule', { name: 'cpu', severity: 'HIGH' }, record, ctx('alert_rule.cpu'));
    expect(kept.alert_receiver_ids).toEqual(['rcv-0']);
    expect(kept.alert_receiver_ids).not.toBe(record.alert_receiver_ids);
  });
});
