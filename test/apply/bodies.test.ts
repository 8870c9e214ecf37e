import { describe, expect, it } from 'vitest';
import { createBody, updateBody } from '../../src/apply/bodies.js';
import { IdRegistry, UnresolvedReferenceError } from '../../src/apply/refs.js';
import { SecretValue, isSecretValue } from '../../src/model/secret.js';
import { splitFingerprintMarker } from '../../src/plan/fingerprint.js';
import type { LiveResource, LiveState } from '../../src/model/resource.js';

function live(resources: Array<Pick<LiveResource, 'address' | 'id'> & Partial<LiveResource>>): LiveState {
  return {
    organizationId: 'org',
    requestCount: 0,
    resources: new Map(resources.map((r) => [r.address, { kind: 'project', name: '', attrs: {}, record: { id: r.id }, version: 'v', ...r } as LiveResource])),
  };
}

const refs = new IdRegistry(
  'org',
  live([
    { address: 'container_registry.docker-hub', id: 'reg-1' },
    { address: 'annotations_group.obs', id: 'ag-1' },
    { address: 'alert_receiver.oncall', id: 'rcv-1' },
    { address: 'cluster.prod', id: 'cl-1' },
  ]),
);
const ctx = { address: 'project.p/environment.e/container.web', refs, fingerprintKey: 'k' };

describe('updateBody (full-replacement PUT from the live record)', () => {
  const record = {
    id: 'svc-1',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-02T00:00:00Z',
    environment: { id: 'env-1' },
    service_type: 'CONTAINER',
    maximum_cpu: 4000,
    name: 'web',
    registry: { id: 'reg-0', name: 'old', url: 'https://old' },
    image_name: 'nginx',
    tag: '1.0',
    cpu: 250,
    memory: 256,
    min_running_instances: 2,
    healthchecks: { readiness_probe: { type: { http: { path: '/' } } } },
    annotations_groups: [{ id: 'ag-0', name: 'old-group', annotations: [], scopes: [] }],
    ports: [{ id: 'port-1', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP', is_default: true }],
  };

  it('keeps what the manifest does not own, lays the desired attrs over it, and sends no read-only field', () => {
    const body = updateBody(
      'container',
      { name: 'web', registry: 'docker-hub', cpu: 500, annotations_groups: ['obs'], ports: [{ internal_port: 8080, publicly_accessible: false }] },
      record,
      ctx,
    );
    expect(body).toEqual({
      name: 'web',
      registry_id: 'reg-1',
      image_name: 'nginx',
      tag: '1.0',
      cpu: 500,
      memory: 256,
      min_running_instances: 2,
      healthchecks: record.healthchecks,
      annotations_groups: [{ id: 'ag-1' }],
      // the live port keeps its id (and what the manifest leaves out)
      ports: [{ id: 'port-1', internal_port: 8080, external_port: 443, publicly_accessible: false, protocol: 'HTTP', is_default: true }],
    });
  });

  it('never copies a live null back where the API types the field otherwise (ports, storage, git repository)', () => {
    // An API that answers an unset optional field as null (`external_port: null` on a private port)
    // must not get that null back: the real API's document types these fields integer / string.
    const app = {
      ...record,
      service_type: 'APPLICATION',
      git_repository: { url: 'https://github.com/acme/api.git', branch: 'main', root_path: null, provider: 'GITHUB', git_token_id: null, name: 'acme/api' },
      ports: [
        { id: 'port-1', name: 'http', internal_port: 8080, external_port: null, publicly_accessible: false, protocol: 'HTTP', is_default: true, public_path: null },
        { id: 'port-2', name: 'admin', internal_port: 9090, external_port: null, publicly_accessible: false, protocol: 'HTTP', is_default: false },
      ],
      storage: [{ id: 'st-1', type: 'FAST_SSD', size: 10, mount_point: '/data' }],
    };
    const actx = { ...ctx, address: 'project.p/environment.e/application.api' };
    // A manifest that lists the first port (kept by id) and leaves the second to the live record.
    const body = updateBody('application', { name: 'api', cpu: 500, ports: [{ internal_port: 8080, publicly_accessible: false }] }, app, actx) as any;
    expect(body.ports).toEqual([{ id: 'port-1', name: 'http', internal_port: 8080, publicly_accessible: false, protocol: 'HTTP', is_default: true }]);
    expect(body.git_repository).toEqual({ url: 'https://github.com/acme/api.git', branch: 'main', provider: 'GITHUB' });
    const untouched = updateBody('application', { name: 'api', cpu: 500 }, app, actx) as any;
    expect(untouched.ports).toEqual([
      { id: 'port-1', name: 'http', internal_port: 8080, publicly_accessible: false, protocol: 'HTTP', is_default: true },
      { id: 'port-2', name: 'admin', internal_port: 9090, publicly_accessible: false, protocol: 'HTTP', is_default: false },
    ]);
    expect(JSON.stringify(untouched)).not.toContain('null');
  });

  it('gives a port the edit creates the protocol the edit request requires (HTTP, the default), and keeps a live one', () => {
    const actx = { ...ctx, address: 'project.p/environment.e/application.api' };
    const app = { ...record, service_type: 'APPLICATION', ports: [{ id: 'port-1', internal_port: 8080, publicly_accessible: true, protocol: 'GRPC', is_default: true }] };
    const body = updateBody('application', { name: 'api', ports: [{ internal_port: 8080, publicly_accessible: true }, { internal_port: 9100, publicly_accessible: false }] }, app, actx) as any;
    expect(body.ports).toEqual([
      { id: 'port-1', internal_port: 8080, publicly_accessible: true, protocol: 'GRPC', is_default: true },
      { internal_port: 9100, publicly_accessible: false, protocol: 'HTTP' },
    ]);
  });

  it('leaves out the instance_type a container-mode database answers as null (the edit request types it string)', () => {
    const db = { id: 'db-1', service_type: 'DATABASE', name: 'pg', type: 'POSTGRESQL', mode: 'CONTAINER', version: '16', accessibility: 'PRIVATE', cpu: 250, memory: 512, storage: 10, instance_type: null, disk_type: null };
    const body = updateBody('database', { name: 'pg', storage: 20 }, db, { ...ctx, address: 'project.p/environment.e/database.pg' }) as any;
    expect(body).toMatchObject({ name: 'pg', storage: 20, cpu: 250 });
    expect(body).not.toHaveProperty('instance_type');
    const managed = updateBody('database', { name: 'pg' }, { ...db, mode: 'MANAGED', instance_type: 'db.t3.medium', disk_type: 'gp3' }, { ...ctx, address: 'project.p/environment.e/database.pg' }) as any;
    expect(managed).toMatchObject({ instance_type: 'db.t3.medium', disk_type: 'gp3' });
  });
});

describe('createBody', () => {
  it('resolves names to ids and fills what the API requires', () => {
    const body = createBody(
      'alert_rule',
      { name: 'cpu', condition: { promql: 'up == 0' }, severity: 'HIGH', alert_receivers: ['oncall'], target: { cluster: 'prod' } },
      { ...ctx, address: 'alert_rule.cpu' },
    );
    expect(body).toMatchObject({
      name: 'cpu',
      severity: 'HIGH',
      alert_receiver_ids: ['rcv-1'],
      condition: { kind: 'CUSTOM', operator: 'NONE', function: 'NONE', threshold: 0, promql: 'up == 0' },
      enabled: true,
    });
    expect(body).not.toHaveProperty('alert_receivers');
    expect(body).not.toHaveProperty('target');
  });

  it('keeps secrets wrapped and records their fingerprint in the description', () => {
    const secret = new SecretValue('hunter2');
    const body = createBody('webhook', { target_url: 'https://x', events: ['DEPLOYMENT_STARTED'], target_secret: secret, description: 'CI hook' }, { ...ctx, address: 'webhook.https:%2F%2Fx' });
    expect(isSecretValue(body.target_secret)).toBe(true);
    expect(JSON.stringify(body)).not.toContain('hunter2');
    const { description, fingerprints } = splitFingerprintMarker(body.description as string);
    expect(description).toBe('CI hook');
    expect(Object.keys(fingerprints)).toEqual(['target_secret']);
  });

  it('keeps the live description of a secret whose manifest does not own it, with a fresh marker', () => {
    const record = {
      id: 'wh-1', created_at: '2026-01-01T00:00:00Z', target_url: 'https://x', kind: 'STANDARD', enabled: true,
      events: ['DEPLOYMENT_STARTED'], description: 'written in the console [driftless:v1 target_secret=AAAAAAAAAAAAAAAA]',
    };
    const body = updateBody('webhook', { target_url: 'https://x', target_secret: new SecretValue('rotated') }, record, { ...ctx, address: 'webhook.https:%2F%2Fx' });
    const { description, fingerprints } = splitFingerprintMarker(body.description as string);
    expect(description).toBe('written in the console');
    expect(fingerprints.target_secret).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(fingerprints.target_secret).not.toBe('AAAAAAAAAAAAAAAA');
  });

  it('names a reference that resolves to nothing, and who needs it', () => {
    expect(() => createBody('container', { name: 'web', registry: 'quay' }, ctx)).toThrow(UnresolvedReferenceError);
    expect(() => createBody('container', { name: 'web', registry: 'quay' }, ctx)).toThrow(
      'container_registry.quay does not exist (needed by project.p/environment.e/container.web)',
    );
  });
});
