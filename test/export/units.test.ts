/**
 * The pure parts of export: placeholder names (valid, deterministic, unique) and the table of
 * defaults the export leaves out, which must be exactly the manifest schema's defaults.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envVarName, PlaceholderAllocator } from '../../src/export/placeholders.js';
import { allManifestDefaults } from '../../src/export/defaults.js';
import { exportManifest, unmanagedFields } from '../../src/export/to-manifest.js';
import type { LiveResource, LiveState } from '../../src/model/resource.js';

describe('placeholder names', () => {
  it('are valid environment variable names derived from where the secret lives', () => {
    expect(envVarName(['shop', 'prod-eu', 'api', 'DB_PASSWORD'])).toBe('SHOP_PROD_EU_API_DB_PASSWORD');
    expect(envVarName(['9lives', 'café au lait'])).toBe('_9LIVES_CAFE_AU_LAIT');
    expect(envVarName(['--', ''])).toBe('SECRET');
    for (const n of [envVarName(['a.b/c', 'x y']), envVarName(['WEBHOOK', 'hooks.example.com/x?y=1'])]) expect(n).toMatch(/^[A-Z_][A-Z0-9_]*$/);
  });

  it('are unique: a second holder of a name gets a numbered suffix, in allocation order', () => {
    const a = new PlaceholderAllocator();
    const where = { address: 'x', field: 'value', fingerprinted: false };
    expect(a.allocate(['shop', 'db-password'], where)).toBe('${env:SHOP_DB_PASSWORD}');
    expect(a.allocate(['shop', 'db_password'], where)).toBe('${env:SHOP_DB_PASSWORD_2}');
    expect(a.allocate(['shop', 'DB PASSWORD'], where)).toBe('${env:SHOP_DB_PASSWORD_3}');
    expect(a.list.map((p) => p.env)).toEqual(['SHOP_DB_PASSWORD', 'SHOP_DB_PASSWORD_2', 'SHOP_DB_PASSWORD_3']);
  });
});

describe('defaults left out of an export', () => {
  it('are exactly the defaults of schemas/manifest.schema.json', () => {
    const schema = JSON.parse(readFileSync(new URL('../../schemas/manifest.schema.json', import.meta.url), 'utf8'));
    const found = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, any>;
      if (n.properties && typeof n.properties === 'object')
        for (const [k, v] of Object.entries<any>(n.properties)) if (v && v.default !== undefined) found.add(`${k}=${JSON.stringify(v.default)}`);
      for (const v of Object.values(n)) walk(v);
    };
    walk(schema);
    const ours = new Set<string>();
    for (const table of Object.values(allManifestDefaults())) for (const [k, v] of Object.entries(table)) ours.add(`${k}=${JSON.stringify(v)}`);
    // Not fields of exported objects: the format version, the manifest's scope (an export always
    // writes it: organization or declared), cluster upgrades and prune switches (an export never prunes or upgrades).
    const notExported = [...found].filter((d) => d.startsWith('version=') || d === 'scope="kinds"' || d === 'upgrade_kubernetes=false' || /^(projects|annotation_groups|label_groups|alert_receivers|alert_rules|webhooks|environments|services|deployment_stages|variables)=false$/.test(d));
    expect([...ours].sort()).toEqual([...found].filter((d) => !notExported.includes(d)).sort());
  });
});

describe('exportManifest (pure)', () => {
  const live = (resources: Array<Partial<LiveResource> & { address: string; kind: LiveResource['kind']; name: string }>): LiveState => ({
    organizationId: 'org',
    requestCount: 0,
    resources: new Map(resources.map((r) => [r.address, { id: 'id', attrs: {}, record: {}, version: 'v', ...r } as LiveResource])),
  });

  it('escapes ${ in values so the loader reads back the live text, and warns about references it could not name', () => {
    const state = live([
      { address: 'project.p', kind: 'project', name: 'p', attrs: { name: 'p', description: null } },
      { address: 'project.p/variable.T', kind: 'variable', name: 'T', parent: 'project.p', attrs: { key: 'T', variable_type: 'VALUE', is_secret: false, value: 'a ${b} $${c}', description: null } },
      { address: 'project.p/environment.e', kind: 'environment', name: 'e', parent: 'project.p', attrs: { name: 'e', mode: 'DEVELOPMENT', cluster: 'c1' } },
      {
        address: 'project.p/environment.e/container.web',
        kind: 'container',
        name: 'web',
        parent: 'project.p/environment.e',
        attrs: { name: 'web', description: null, registry: 'hub', image_name: 'nginx', tag: '1', cpu: 500, memory: 512, labels_groups: ['(unknown id 42)'] },
      },
    ]);
    const r = exportManifest(state);
    const p = (r.manifest.projects as any[])[0];
    expect(p.variables).toEqual([{ key: 'T', value: 'a $${b} $$${c}' }]);
    // Settings are written even at their default (DEVELOPMENT mode, container cpu 500 and memory
    // 512): the manifest owns them, so a console edit is drift. A scope without variables says so
    // (`variables: []`): it owns them, so one added by hand later is drift.
    expect(p.environments[0]).toEqual({ name: 'e', cluster: 'c1', mode: 'DEVELOPMENT', variables: [], services: [{ name: 'web', type: 'container', label_groups: ['(unknown id 42)'], registry: 'hub', image_name: 'nginx', tag: '1', cpu: 500, memory: 512, variables: [] }] });
    expect(r.warnings).toEqual([expect.stringContaining('projects.p.environments.e.services.web.label_groups.0: refers to an object driftless could not find by name')]);
  });

  it('writes an EMAIL receiver\'s password as a placeholder even without a user name (the API requires one to create it)', () => {
    const r = exportManifest(live([{ address: 'alert_receiver.pager', kind: 'alert_receiver', name: 'pager', attrs: { name: 'pager', type: 'EMAIL', description: null, to: 'a@b.c', from: 'b@b.c', smarthost: 'smtp:25', require_tls: false } }]));
    expect((r.manifest.alert_receivers as any[])[0]).toMatchObject({ name: 'pager', auth_password: '${env:ALERT_RECEIVER_PAGER_AUTH_PASSWORD}' });
    expect((r.manifest.alert_receivers as any[])[0].auth_username).toBeUndefined();
  });

  it('names the fields set in the API that a manifest cannot declare, and only those holding more than the default', () => {
    const probe = { type: { http: { path: '/' } }, port: 80 };
    // An application's or container's probes and storage are exported: not named.
    expect(unmanagedFields({ kind: 'application', record: { healthchecks: { readiness_probe: probe, liveness_probe: null }, storage: [{ size: 1 }], autoscaling: null, gpu: 0, cpu_architecture: 'ARM64', docker_target_build_stage: 'final' } })).toEqual(['cpu_architecture', 'docker_target_build_stage']);
    // A job's probes still have no key in a manifest.
    expect(unmanagedFields({ kind: 'job', record: { healthchecks: { readiness_probe: probe, liveness_probe: null }, auto_deploy: false, source: { image: {} } } })).toEqual(['healthchecks']);
    expect(unmanagedFields({ kind: 'container', record: { healthchecks: { readiness_probe: null, liveness_probe: null }, storage: [], autoscaling: null, gpu: 0, cpu_architecture: 'AMD64', ephemeral_storage_in_gib: null } })).toEqual([]);
    expect(unmanagedFields({ kind: 'job', record: { auto_deploy: true, source: { docker: { dockerfile_raw: 'FROM x' } }, schedule: { lifecycle_type: 'TERRAFORM' } } })).toEqual(['auto_deploy', 'source.docker.dockerfile_raw', 'schedule.lifecycle_type']);
    expect(unmanagedFields({ kind: 'job', record: { auto_deploy: false, source: { image: {} }, schedule: { lifecycle_type: 'GENERIC' } } })).toEqual([]);
    expect(unmanagedFields({ kind: 'helm', record: { ports: [{ internal_port: 80 }], values_override: { set_json: [['a', '1']], file: { git: { paths: ['v.yaml'] } } } } })).toEqual(['ports', 'values_override.set_json', 'values_override.file.git']);
    expect(unmanagedFields({ kind: 'terraform', record: { backend: { kubernetes: {}, user_provided: null }, use_cluster_credentials: false, provider_version: { read_from_terraform_block: false } } })).toEqual([]);
    expect(unmanagedFields({ kind: 'terraform', record: { backend: { user_provided: {} }, use_cluster_credentials: true, provider_version: { read_from_terraform_block: true } } })).toEqual(['backend (user_provided)', 'use_cluster_credentials', 'provider_version (read from the terraform block)']);
  });
});
