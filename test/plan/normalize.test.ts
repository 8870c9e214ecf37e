import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import { planHasChanges } from '../../src/plan/types.js';
import { buildLiveLookup, normalizeLive } from '../../src/live/normalize.js';
import { KEY, apiRecords, fullManifest, liveFrom } from './fixtures.js';

describe('normalisation: desired and live of the same objects are equal', () => {
  const { graph, diagnostics } = buildGraph(fullManifest());

  it('builds the full manifest without diagnostics', () => {
    expect(diagnostics).toEqual([]);
  });

  it('plans no change for any kind when live matches the manifest', () => {
    const plan = computePlan(graph, liveFrom(apiRecords()), { fingerprintKey: KEY });
    const changed = plan.changes.filter((c) => c.actions[0] !== 'no-op' || c.deploy || c.status !== 'planned');
    expect(changed.map((c) => `${c.address} ${c.actions.join(',')} ${c.status} ${JSON.stringify(c.fields)}`)).toEqual([]);
    expect(planHasChanges(plan)).toBe(false);
    const kinds = new Set(plan.changes.map((c) => c.kind));
    for (const k of ['organization', 'cluster', 'annotations_group', 'labels_group', 'alert_receiver', 'alert_rule', 'webhook', 'project', 'environment', 'deployment_stage', 'application', 'container', 'database', 'job', 'helm', 'terraform', 'variable'])
      expect(kinds, k).toContain(k);
  });

  it('folds ids back into names', () => {
    const live = liveFrom(apiRecords());
    expect(live.resources.get('project.shop/environment.production')!.attrs.cluster).toBe('production-cluster');
    expect(live.resources.get('alert_rule.high-cpu')!.attrs).toMatchObject({
      alert_receivers: ['slack-ops'],
      target: { project: 'shop', environment: 'production', service: 'api' },
    });
    expect(live.resources.get('project.shop/environment.production/container.web')!.attrs.registry).toBe('docker-hub');
    expect(live.resources.get('project.shop/environment.production/application.api')!.attrs.annotations_groups).toEqual(['monitoring']);
  });

  it('strips the fingerprint marker from descriptions and keeps the fingerprints apart', () => {
    const live = liveFrom(apiRecords());
    const secret = live.resources.get('project.shop/variable.API_KEY')!;
    expect(secret.attrs.description).toBe('Payment API key');
    expect(Object.keys(secret.fingerprints ?? {})).toEqual(['value']);
    expect(secret.attrs).not.toHaveProperty('value');
  });

  it('an id the lookup does not know stays visible instead of vanishing', () => {
    const lookup = buildLiveLookup({});
    const env = normalizeLive('environment', { id: 'e', name: 'x', mode: 'STAGING', cluster_id: 'c-9' }, 'project.p', lookup);
    expect(env.attrs.cluster).toBe('(unknown id c-9)');
    expect(env.address).toBe('project.p/environment.x');
  });

  it('uses updated_at as the version, or a hash of the record', () => {
    const lookup = buildLiveLookup({});
    expect(normalizeLive('project', { id: 'p', name: 'p', updated_at: '2026-01-01T00:00:00Z' }, undefined, lookup).version).toBe('2026-01-01T00:00:00Z');
    const a = normalizeLive('project', { id: 'p', name: 'p' }, undefined, lookup).version;
    const b = normalizeLive('project', { id: 'p', name: 'q' }, undefined, lookup).version;
    expect(a).toMatch(/^sha256:/);
    expect(a).not.toBe(b);
  });
});
