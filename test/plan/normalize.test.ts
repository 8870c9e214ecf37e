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

describe('normalisation of a helm chart\'s raw values files', () => {
  const helmRecord = (values: Array<{ name: string; content: string }>) => ({
    id: 'h1', name: 'cache', service_type: 'HELM', environment: { id: 'e1' }, source: { git_repository: { url: 'https://github.com/acme/c.git', branch: 'main', root_path: '/' } },
    values_override: { set: [], set_string: [], file: { raw: { values } } }, arguments: [], timeout_sec: 600, auto_deploy: false, allow_cluster_wide_resources: false,
  });
  const lookup = buildLiveLookup({} as any);

  it('names a single file values.yaml (the console\'s name is a label), and keeps the names of several', async () => {
    const { normalizeAttrs } = await import('../../src/live/normalize.js');
    const one = normalizeAttrs('helm', helmRecord([{ name: 'override', content: 'a: 1\n' }]) as any, lookup);
    expect((one.attrs.values_override as any).file).toEqual({ raw: { values: [{ name: 'values.yaml', content: 'a: 1\n' }] } });
    const two = normalizeAttrs('helm', helmRecord([{ name: 'a', content: 'x' }, { name: 'b', content: 'y' }]) as any, lookup);
    expect((two.attrs.values_override as any).file.raw.values.map((v: any) => v.name)).toEqual(['a', 'b']);
  });
});

