/**
 * How an API record becomes the attrs a plan compares (src/live/normalize.ts): which fields are
 * kept, the defaults the API leaves out, ids folded back into names, the fingerprint and protect
 * markers taken out of descriptions, and no secret value ever present. A field lost here is a
 * change plan never sees; a field added (or a default wrong) is a diff on every run.
 */
import { describe, expect, it } from 'vitest';
import { buildLiveLookup, normalizeAttrs, normalizeLive, serviceKindOf, versionOf } from '../../src/live/normalize.js';
import type { LiveLookup } from '../../src/live/record-helpers.js';
import { withFingerprintMarker } from '../../src/plan/fingerprint.js';
import { builtInHash } from '../../src/model/builtins.js';

const SVC_ID = 'a1b2c3d4-0000-4000-8000-000000000001';

function lookup(): LiveLookup {
  return buildLiveLookup({
    clusters: [{ id: 'c1', name: 'prod-cluster' }],
    registries: [{ id: 'r1', name: 'hub' }],
    helmRepositories: [{ id: 'h1', name: 'bitnami' }],
    annotationsGroups: [{ id: 'ag1', name: 'monitoring' }],
    labelsGroups: [{ id: 'lg1', name: 'team' }],
    alertReceivers: [{ id: 'ar1', name: 'ops' }, { id: 'ar2', name: 'dev' }],
    services: [
      { record: { id: SVC_ID, name: 'api', service_type: 'application' }, environment: 'prod', project: 'shop' },
      { record: { id: 's2', name: 'db', service_type: 'DATABASE' }, environment: 'prod', project: 'shop' },
      { record: { id: 's3', name: 'thing', service_type: 'UNKNOWN_KIND' }, environment: 'prod', project: 'shop' },
    ],
  });
}

describe('buildLiveLookup', () => {
  it('maps each id to its name, and each managed service to its name, kind, environment and project', () => {
    const l = lookup();
    expect([...l.clusters]).toEqual([['c1', 'prod-cluster']]);
    expect([...l.registries]).toEqual([['r1', 'hub']]);
    expect([...l.helmRepositories]).toEqual([['h1', 'bitnami']]);
    expect([...l.annotationsGroups]).toEqual([['ag1', 'monitoring']]);
    expect([...l.labelsGroups]).toEqual([['lg1', 'team']]);
    expect([...l.alertReceivers]).toEqual([['ar1', 'ops'], ['ar2', 'dev']]);
    // A service of a kind driftless does not manage is nobody's name.
    expect([...l.services]).toEqual([
      [SVC_ID, { name: 'api', kind: 'application', environment: 'prod', project: 'shop' }],
      ['s2', { name: 'db', kind: 'database', environment: 'prod', project: 'shop' }],
    ]);
  });

  it('a list the read did not need is an empty map', () => {
    const l = buildLiveLookup({});
    expect([l.clusters, l.registries, l.helmRepositories, l.annotationsGroups, l.labelsGroups, l.alertReceivers, l.services].map((m) => m.size)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('serviceKindOf and versionOf', () => {
  it('reads the service type case-insensitively; no type is no kind', () => {
    expect(serviceKindOf({ service_type: 'container' })).toBe('container');
    expect(serviceKindOf({ service_type: 'HELM' })).toBe('helm');
    expect(serviceKindOf({ service_type: 42 })).toBeUndefined();
    expect(serviceKindOf({})).toBeUndefined();
  });

  it('uses updated_at, else a short hash of the record that changes with it', () => {
    expect(versionOf({ id: 'x', updated_at: '2026-01-01T00:00:00Z' })).toBe('2026-01-01T00:00:00Z');
    const a = versionOf({ id: 'x', updated_at: '' });
    expect(a).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(versionOf({ id: 'x', updated_at: '' })).toBe(a);
    expect(versionOf({ id: 'y', updated_at: '' })).not.toBe(a);
  });
});

describe('normalizeLive: address, name, id, parent, markers', () => {
  it('the organization has the fixed address; a webhook is named by its URL, a variable by its key', () => {
    const org = normalizeLive('organization', { id: 'o1', name: 'acme' }, undefined, lookup());
    expect(org.address).toBe('organization');
    expect(org.name).toBe('acme');
    expect(org.id).toBe('o1');
    expect('parent' in org).toBe(false);
    expect(normalizeLive('webhook', { id: 'w', target_url: 'https://h.example/x', kind: 'STANDARD' }, undefined, lookup()).name).toBe('https://h.example/x');
    const v = normalizeLive('variable', { id: 'v', key: 'LOG', value: 'x', scope: 'PROJECT' }, 'project.shop', lookup());
    expect(v.name).toBe('LOG');
    expect(v.address).toBe('project.shop/variable.LOG');
    expect(v.parent).toBe('project.shop');
    // A record without a name or an id still has both, visibly.
    const anon = normalizeLive('container_registry', {}, undefined, lookup());
    expect(anon.name).toBe('container_registry');
    expect(anon.id).toBe('');
  });

  it('takes the secrets\' fingerprints out of a description, and the protect mark out of a project\'s', () => {
    const rec = { id: 'p1', name: 'shop', description: withFingerprintMarker('Online shop', { protect: 'true', API_KEY: 'fp1' }) };
    const p = normalizeLive('project', rec, undefined, lookup());
    expect(p.attrs).toEqual({ name: 'shop', description: 'Online shop' });
    expect(p.protected).toBe(true);
    expect(p.fingerprints).toEqual({ API_KEY: 'fp1' });
    expect(p.record).toBe(rec);

    const onlyMark = normalizeLive('project', { id: 'p2', name: 'x', description: withFingerprintMarker('', { protect: 'true' }) }, undefined, lookup());
    expect(onlyMark.protected).toBe(true);
    expect(onlyMark.fingerprints).toBeUndefined();
    expect(onlyMark.attrs.description).toBeNull();

    const plain = normalizeLive('project', { id: 'p3', name: 'y', description: 'hi' }, undefined, lookup());
    expect(plain.protected).toBeUndefined();
    expect(plain.fingerprints).toBeUndefined();

    // A webhook cannot carry the protect mark: a `protect` entry there is a fingerprint like any other.
    const w = normalizeLive('webhook', { id: 'w', target_url: 'u', description: withFingerprintMarker('d', { protect: 'true', secret: 'fp' }) }, undefined, lookup());
    expect(w.protected).toBeUndefined();
    expect(w.fingerprints).toEqual({ protect: 'true', secret: 'fp' });
  });

  it('an application records what it last deployed', () => {
    const r = normalizeLive('application', { id: 's', name: 'api', git_repository: { url: 'https://g/a.git', branch: 'main', deployed_commit_id: 'abc123' } }, 'project.shop/environment.prod', lookup());
    expect(r.deployed).toEqual({ git_commit_id: 'abc123' });
    const none = normalizeLive('application', { id: 's', name: 'api', git_repository: { url: 'https://g/a.git' } }, 'project.shop/environment.prod', lookup());
    expect(none.deployed).toBeUndefined();
  });
});

describe('normalizeAttrs, kind by kind', () => {
  const attrs = (kind: Parameters<typeof normalizeAttrs>[0], r: Record<string, unknown>, extra = {}) => normalizeAttrs(kind, r, lookup(), extra).attrs;

  it('organization: its fields, admin emails as a set, nulls absent', () => {
    expect(attrs('organization', { name: 'acme', description: 'd', website_url: 'https://a', repository: null, logo_url: 'l', icon_url: null, admin_emails: ['b@x', 'a@x'] })).toEqual({
      name: 'acme',
      description: 'd',
      website_url: 'https://a',
      logo_url: 'l',
      admin_emails: ['a@x', 'b@x'],
    });
    expect(attrs('organization', { name: 'acme', repository: 'r', icon_url: 'i' })).toEqual({ name: 'acme', description: null, repository: 'r', icon_url: 'i' });
  });

  it('cluster: the next version from the status list; an upgrade asked for only when one is available and nothing runs', () => {
    expect(attrs('cluster', { kubernetes_version: '1.29' }, { clusterStatus: { next_k8s_available_version: '1.30', status: 'DEPLOYED' } })).toEqual({
      kubernetes_version: '1.29',
      next_k8s_available_version: '1.30',
      upgrade_kubernetes: false,
    });
    expect(attrs('cluster', { version: '1.28', next_k8s_available_version: '1.29' })).toEqual({ kubernetes_version: '1.28', next_k8s_available_version: '1.29', upgrade_kubernetes: false });
    expect(attrs('cluster', { kubernetes: '1.27' })).toEqual({ kubernetes_version: '1.27', next_k8s_available_version: null, upgrade_kubernetes: true });
    expect(attrs('cluster', {})).toEqual({ kubernetes_version: null, next_k8s_available_version: null, upgrade_kubernetes: true });
    expect(attrs('cluster', { kubernetes_version: '1.29' }, { clusterStatus: { next_k8s_available_version: '', status: 'DEPLOYED' } }).upgrade_kubernetes).toBe(true);
    for (const status of ['DEPLOYING', 'QUEUED', 'STOP_QUEUED']) {
      expect(attrs('cluster', { kubernetes_version: '1.29' }, { clusterStatus: { next_k8s_available_version: '1.30', status } }).upgrade_kubernetes).toBe(true);
    }
    expect(attrs('cluster', { kubernetes_version: '1.29' }, { clusterStatus: { next_k8s_available_version: '1.30', status: 'INGRESS_READY' } }).upgrade_kubernetes).toBe(false);
  });

  it('container registry and helm repository: name, kind, url', () => {
    expect(attrs('container_registry', { id: 'r', name: 'hub', kind: 'DOCKER_HUB', url: 'https://hub', config: { password: 'x' } })).toEqual({ name: 'hub', kind: 'DOCKER_HUB', url: 'https://hub' });
    // A null the API answers stays (it differs from a declared URL); only what it leaves out is absent.
    expect(attrs('helm_repository', { name: 'b', kind: 'HTTPS', url: null })).toEqual({ name: 'b', kind: 'HTTPS', url: null });
    expect(attrs('helm_repository', { name: 'b', kind: 'HTTPS' })).toEqual({ name: 'b', kind: 'HTTPS' });
  });

  it('annotations and labels groups: entries sorted by key, values as strings, scopes as a set', () => {
    expect(attrs('annotations_group', { name: 'm', annotations: [{ key: 'z', value: 1 }, { key: 'a', value: 'x' }], scopes: ['PODS', 'DEPLOYMENTS'] })).toEqual({
      name: 'm',
      annotations: [{ key: 'a', value: 'x' }, { key: 'z', value: '1' }],
      scopes: ['DEPLOYMENTS', 'PODS'],
    });
    expect(attrs('annotations_group', { name: 'e' })).toEqual({ name: 'e', annotations: [], scopes: [] });
    expect(attrs('labels_group', { name: 't', labels: [{ key: 'team', value: 'shop' }, { key: 'cost', value: 'web', propagate_to_cloud_provider: true }, { key: 'x', value: 'y', propagate_to_cloud_provider: 'true' }] })).toEqual({
      name: 't',
      labels: [
        { key: 'cost', value: 'web', propagate_to_cloud_provider: true },
        { key: 'team', value: 'shop', propagate_to_cloud_provider: false },
        { key: 'x', value: 'y', propagate_to_cloud_provider: false },
      ],
    });
    expect(attrs('labels_group', { name: 'e' })).toEqual({ name: 'e', labels: [] });
  });

  it('alert receiver: its fields without nulls, the webhook URL never, the fingerprints apart', () => {
    const n = normalizeAttrs('alert_receiver', { name: 'ops', type: 'EMAIL', description: withFingerprintMarker('Ops', { webhook_url: 'fp' }), send_resolved: false, owner: null, severity: 'HIGH', to: 'a@x', from: 'b@x', smarthost: 'smtp:25', auth_username: 'u', require_tls: true, webhook_url: 'https://secret' }, lookup());
    expect(n.attrs).toEqual({ name: 'ops', type: 'EMAIL', description: 'Ops', send_resolved: false, severity: 'HIGH', to: 'a@x', from: 'b@x', smarthost: 'smtp:25', auth_username: 'u', require_tls: true });
    expect(n.fingerprints).toEqual({ webhook_url: 'fp' });
    expect(attrs('alert_receiver', { name: 'slack', type: 'SLACK', send_resolved: true, owner: 'me' })).toEqual({ name: 'slack', type: 'SLACK', description: null, send_resolved: true, owner: 'me' });
  });

  it('alert rule on a cluster, and on a service by id, by its embedded names, or unknown', () => {
    const base = { name: 'cpu', description: 'd', severity: 'HIGH', enabled: true, condition: { kind: 'CUSTOM', promql: 'x', operator: 'ABOVE', threshold: '0.9', function: 'AVG' } };
    expect(attrs('alert_rule', { ...base, tag: 't', for_duration: 'PT5M', alert_receiver_ids: ['ar2', 'ar1', 'zz'], presentation: { summary: 's', runbook_url: null }, target: { target_type: ' CLUSTER ', target_id: 'c1' } })).toEqual({
      name: 'cpu',
      description: 'd',
      tag: 't',
      condition: { kind: 'CUSTOM', promql: 'x', operator: 'ABOVE', threshold: 0.9, function: 'AVG' },
      for_duration: 'PT5M',
      severity: 'HIGH',
      enabled: true,
      alert_receivers: ['(unknown id zz)', 'dev', 'ops'],
      presentation: { summary: 's' },
      target: { cluster: 'prod-cluster' },
    });
    expect(attrs('alert_rule', { ...base, cluster_id: 'c1', target: { target_type: 'CLUSTER' } }).target).toEqual({ cluster: 'prod-cluster' });
    expect(attrs('alert_rule', { ...base, target: { target_type: 'APPLICATION', target_id: SVC_ID } }).target).toEqual({ project: 'shop', environment: 'prod', service: 'api' });
    expect(attrs('alert_rule', { ...base, target: { target_type: 'APPLICATION', target_id: 'gone', service: { project_name: 'p', environment_name: 'e', name: 'n' } } }).target).toEqual({ project: 'p', environment: 'e', service: 'n' });
    expect(attrs('alert_rule', { ...base, target: { target_id: 'gone' } }).target).toEqual({ project: '?', environment: '?', service: '(unknown id gone)' });
    const bare = attrs('alert_rule', { name: 'n', severity: 'LOW', enabled: false });
    expect(bare).toEqual({ name: 'n', description: null, condition: {}, severity: 'LOW', enabled: false, alert_receivers: [], target: { project: '?', environment: '?', service: '(unknown id undefined)' } });
  });

  it('webhook: events and filters as sets, the secret never, the fingerprints apart', () => {
    const n = normalizeAttrs('webhook', { target_url: 'u', kind: 'SLACK', description: 'd', events: ['B', 'A'], enabled: true, project_names_filter: ['y', 'x'], environment_types_filter: ['PROD', 'DEV'], secret: 'whsec' }, lookup());
    expect(n.attrs).toEqual({ target_url: 'u', kind: 'SLACK', description: 'd', events: ['A', 'B'], enabled: true, project_names_filter: ['x', 'y'], environment_types_filter: ['DEV', 'PROD'] });
    expect(attrs('webhook', { target_url: 'u', kind: 'STANDARD', enabled: false })).toEqual({ target_url: 'u', kind: 'STANDARD', description: null, events: [], enabled: false });
  });

  it('environment: its cluster by name (from cluster_id or the embedded cloud provider)', () => {
    expect(attrs('environment', { name: 'prod', mode: 'PRODUCTION', cluster_id: 'c1' })).toEqual({ name: 'prod', mode: 'PRODUCTION', cluster: 'prod-cluster' });
    expect(attrs('environment', { name: 'dev', cloud_provider: { cluster: 'c1' } })).toEqual({ name: 'dev', cluster: 'prod-cluster' });
    expect(attrs('environment', { name: 'x', cluster_id: 'c9' }).cluster).toBe('(unknown id c9)');
  });

  it('deployment stage: its services by name as a set, order 0 when absent', () => {
    expect(attrs('deployment_stage', { name: 's', description: 'd', services: [{ service_id: 's2' }, { service_id: SVC_ID }, { service_id: 'x' }], deployment_order: 2 })).toEqual({
      name: 's',
      description: 'd',
      services: ['(unknown id x)', 'api', 'db'],
      deployment_order: 2,
    });
    expect(attrs('deployment_stage', { name: 's' })).toEqual({ name: 's', description: null, services: [], deployment_order: 0 });
  });
});

describe('variables: the value of a plain one only, never of a secret', () => {
  const v = (r: Record<string, unknown>) => normalizeAttrs('variable', r, lookup());

  it('a plain variable keeps its value (as a string); a secret has none, its fingerprint apart', () => {
    expect(v({ key: 'A', value: 5 }).attrs).toEqual({ key: 'A', variable_type: 'VALUE', is_secret: false, value: '5', description: null });
    const s = v({ key: 'S', value: 'leak', is_secret: true, description: withFingerprintMarker('', { value: 'fp' }) });
    expect(s.attrs).toEqual({ key: 'S', variable_type: 'VALUE', is_secret: true, description: null });
    expect(s.fingerprints).toEqual({ value: 'fp' });
    expect(v({ key: 'N', value: null }).attrs).toEqual({ key: 'N', variable_type: 'VALUE', is_secret: false, description: null });
    expect(v({ key: 'T', is_secret: 'true', value: 'v' }).attrs.value).toBe('v');
  });

  it('a file variable: its mount path (and type) and interpolation flag', () => {
    expect(v({ key: 'F', value: 'c', mount_path: '/etc/f', enable_interpolation_in_file: false }).attrs).toEqual({
      key: 'F',
      variable_type: 'FILE',
      is_secret: false,
      value: 'c',
      mount_path: '/etc/f',
      description: null,
      enable_interpolation_in_file: false,
    });
    expect(v({ key: 'F', value: 'c', mount_path: '/f', enable_interpolation_in_file: 'yes' }).attrs).not.toHaveProperty('enable_interpolation_in_file');
  });

  it('an alias names what it follows, an override its scope; neither carries a value', () => {
    expect(v({ key: 'AL', variable_type: 'ALIAS', value: 'resolved', aliased_variable: { key: 'LOG', scope: 'PROJECT' } }).attrs).toEqual({ key: 'AL', variable_type: 'ALIAS', is_secret: false, description: null, aliased_key: 'LOG', aliased_scope: 'PROJECT' });
    expect(v({ key: 'AL', variable_type: 'ALIAS', aliased_secret: { key: 'K', scope: 'ENVIRONMENT' } }).attrs).toMatchObject({ aliased_key: 'K', aliased_scope: 'ENVIRONMENT' });
    expect(v({ key: 'AL', variable_type: 'ALIAS' }).attrs).toEqual({ key: 'AL', variable_type: 'ALIAS', is_secret: false, description: null });
    expect(v({ key: 'O', variable_type: 'OVERRIDE', value: 'w', overridden_variable: { scope: 'PROJECT' } }).attrs).toEqual({ key: 'O', variable_type: 'OVERRIDE', is_secret: false, value: 'w', description: null, overridden_scope: 'PROJECT' });
    expect(v({ key: 'O', variable_type: 'OVERRIDE', is_secret: true, overridden_secret: { scope: 'ENVIRONMENT' } }).attrs.overridden_scope).toBe('ENVIRONMENT');
    expect(v({ key: 'V', variable_type: 'VALUE', value: 'x', aliased_variable: { key: 'K', scope: 'P' }, overridden_variable: { scope: 'P' } }).attrs).toEqual({ key: 'V', variable_type: 'VALUE', is_secret: false, value: 'x', description: null });
  });

  it('an external secret: its reference (written as the value), its secret manager', () => {
    expect(v({ key: 'X', variable_type: 'EXTERNAL_SECRET', value: 'arn:1', secret_manager_access_id: 'sm1' }).attrs).toEqual({ key: 'X', variable_type: 'EXTERNAL_SECRET', is_secret: false, description: null, secret_manager_access_id: 'sm1', reference: 'arn:1' });
    expect(v({ key: 'X', variable_type: 'EXTERNAL_SECRET', reference: 'arn:2', value: 'arn:1' }).attrs.reference).toBe('arn:2');
    expect(v({ key: 'X', variable_type: 'EXTERNAL_SECRET' }).attrs).not.toHaveProperty('reference');
    expect(v({ key: 'X', value: 'arn:1' }).attrs).not.toHaveProperty('reference');
  });

  it('an alias of a service\'s built-in names that service and the built-in, within the alias\'s environment', () => {
    const key = `QOVERY_APPLICATION_${builtInHash(SVC_ID)}_HOST_INTERNAL`;
    const alias = { id: 'v', key: 'API_HOST', variable_type: 'ALIAS', aliased_variable: { key, scope: 'BUILT_IN' } };
    expect(normalizeLive('variable', alias, 'project.SHOP/environment.Prod/application.web', lookup()).attrs).toMatchObject({ aliased_key: key, aliased_service: 'api', aliased_builtin: 'HOST_INTERNAL' });
    // Another environment's service with that hash is not it: the alias's service is gone.
    expect(normalizeLive('variable', alias, 'project.shop/environment.staging/application.web', lookup()).attrs).not.toHaveProperty('aliased_service');
    expect(normalizeLive('variable', alias, 'project.other/environment.prod/application.web', lookup()).attrs).not.toHaveProperty('aliased_service');
    // Not a built-in: nothing added.
    const plain = { ...alias, aliased_variable: { key, scope: 'PROJECT' } };
    expect(normalizeLive('variable', plain, 'project.shop/environment.prod/application.web', lookup()).attrs).not.toHaveProperty('aliased_service');
    const notHashed = { ...alias, aliased_variable: { key: 'QOVERY_ENVIRONMENT_ID', scope: 'BUILT_IN' } };
    expect(normalizeLive('variable', notHashed, 'project.shop/environment.prod/application.web', lookup()).attrs).not.toHaveProperty('aliased_service');
    // Two services whose ids share the hash, in two environments: each environment finds its own.
    const twin = `${SVC_ID.slice(0, 8)}-ffff-4000-8000-000000000009`;
    const both = buildLiveLookup({
      services: [
        { record: { id: SVC_ID, name: 'api', service_type: 'APPLICATION' }, environment: 'prod', project: 'shop' },
        { record: { id: twin, name: 'other', service_type: 'APPLICATION' }, environment: 'staging', project: 'shop' },
      ],
    });
    expect(normalizeLive('variable', alias, 'project.shop/environment.prod/application.web', both).attrs).toMatchObject({ aliased_service: 'api' });
    expect(normalizeLive('variable', alias, 'project.shop/environment.staging/application.web', both).attrs).toMatchObject({ aliased_service: 'other' });
    // A project's alias has no environment to look in.
    expect(normalizeLive('variable', alias, 'project.shop', lookup()).attrs).not.toHaveProperty('aliased_service');
  });
});

describe('services: the fields every kind shares', () => {
  it('icon, groups by name (embedded or by id), the description without the marker', () => {
    const n = normalizeAttrs('container', {
      name: 'web',
      description: withFingerprintMarker('Web', { protect: 'true' }),
      icon_uri: 'app://x',
      annotations_groups: [{ id: 'ag1' }, { id: 'zz' }],
      labels_groups: [{ id: 'lg9', name: 'embedded' }, { id: 'lg1' }],
      registry_id: 'r1',
      image_name: 'acme/web',
      tag: '1',
    }, lookup());
    expect(n.attrs).toMatchObject({ name: 'web', description: 'Web', icon_uri: 'app://x', annotations_groups: ['(unknown id zz)', 'monitoring'], labels_groups: ['embedded', 'team'] });
    expect(n.fingerprints).toEqual({ protect: 'true' });
    const bare = normalizeAttrs('container', { name: 'web', icon_uri: null, registry_id: 'r1' }, lookup()).attrs;
    expect(bare).not.toHaveProperty('icon_uri');
    expect(bare).not.toHaveProperty('annotations_groups');
    expect(bare).not.toHaveProperty('labels_groups');
    expect(bare.description).toBeNull();
  });
});
