/**
 * A managed database's instance_type against the managed-database listing of its cluster's
 * provider and region: the allowed values and the nearest one named at the manifest location,
 * one request per distinct listing, none when nothing needs one.
 */
import { describe, expect, it } from 'vitest';
import { runPlanChecks } from '../../src/checks/index.js';
import { FakePort, apiError, cluster, liveDatabase, liveState, lineOf, loadYaml, type Call } from './support.js';

const LISTINGS: Record<string, string[]> = {
  '/aws/managedDatabase/instanceType/eu-west-3/POSTGRESQL': ['db.t3.micro', 'db.t3.medium', 'db.r5.large'],
  '/aws/managedDatabase/instanceType/eu-west-3/REDIS': ['cache.t3.micro', 'cache.t3.small'],
  '/aws/managedDatabase/instanceType/us-east-1/POSTGRESQL': ['db.t3.micro', 'db.m5.large'],
};

function listingApi(): FakePort {
  return new FakePort((c: Call) => {
    const names = LISTINGS[c.path];
    if (c.method !== 'GET' || !names) throw apiError(404, `no route ${c.method} ${c.path}`);
    return { results: names.map((name) => ({ name })) };
  });
}

const LIVE = liveState(cluster('paris', 'AWS', 'eu-west-3'), cluster('virginia', 'AWS', 'us-east-1'), cluster('belgium', 'GCP', 'europe-west1'));

function db(name: string, type: string, instanceType: string): string {
  return [
    `          - type: database`,
    `            name: ${name}`,
    `            database_type: ${type}`,
    `            version: "16"`,
    `            mode: MANAGED`,
    `            instance_type: ${instanceType}`,
  ].join('\n');
}

function manifest(envs: Array<{ name: string; cluster: string; services: string[] }>): string {
  const out = ['version: 1', 'projects:', '  - name: shop', '    environments:'];
  for (const e of envs) out.push(`      - name: ${e.name}`, `        cluster: ${e.cluster}`, '        services:', ...e.services);
  return out.join('\n') + '\n';
}

describe('instance_type of managed databases', () => {
  it('is an error at the instance_type, naming the allowed values and the nearest one', async () => {
    const yaml = manifest([{ name: 'prod', cluster: 'paris', services: [db('pg', 'POSTGRESQL', 'db.t3.mediun')] }]);
    const api = listingApi();
    const diags = await runPlanChecks(await loadYaml(yaml), LIVE, api);
    expect(diags).toHaveLength(1);
    const d = diags[0]!;
    expect(d).toMatchObject({ severity: 'error', code: 'check.instance-type', address: 'project.shop/environment.prod/database.pg' });
    expect(d.range).toMatchObject({ file: 'main.yaml', start: { line: lineOf(yaml, 'db.t3.mediun'), col: 28 } });
    expect(d.summary).toBe('database pg: instance_type "db.t3.mediun" is not offered for POSTGRESQL in AWS region eu-west-3 (cluster paris)');
    expect(d.detail).toContain('Allowed: db.t3.micro, db.t3.medium, db.r5.large.');
    expect(d.detail).toContain('Did you mean "db.t3.medium"?');
    expect(api.calls).toEqual([{ method: 'GET', path: '/aws/managedDatabase/instanceType/eu-west-3/POSTGRESQL' }]);
  });

  it('suggests nothing when no allowed value is close, and accepts a listed one', async () => {
    const yaml = manifest([{ name: 'prod', cluster: 'paris', services: [db('pg', 'POSTGRESQL', 'huge'), db('cache', 'REDIS', 'cache.t3.small')] }]);
    const diags = await runPlanChecks(await loadYaml(yaml), LIVE, listingApi());
    expect(diags.map((d) => d.summary)).toEqual(['database pg: instance_type "huge" is not offered for POSTGRESQL in AWS region eu-west-3 (cluster paris)']);
    expect(diags[0]!.detail).not.toContain('Did you mean');
  });

  it('asks for each distinct (provider, region, database type) once, however many databases use it', async () => {
    const yaml = manifest([
      { name: 'prod', cluster: 'paris', services: [db('a', 'POSTGRESQL', 'db.t3.micro'), db('b', 'POSTGRESQL', 'db.r5.large'), db('c', 'REDIS', 'cache.t3.micro')] },
      { name: 'staging', cluster: 'paris', services: [db('a', 'POSTGRESQL', 'db.t3.nano')] },
      { name: 'us', cluster: 'virginia', services: [db('a', 'POSTGRESQL', 'db.m5.large'), db('b', 'POSTGRESQL', 'db.t3.medium')] },
    ]);
    const api = listingApi();
    const diags = await runPlanChecks(await loadYaml(yaml), LIVE, api);
    expect(api.calls.map((c) => c.path).sort()).toEqual([
      '/aws/managedDatabase/instanceType/eu-west-3/POSTGRESQL',
      '/aws/managedDatabase/instanceType/eu-west-3/REDIS',
      '/aws/managedDatabase/instanceType/us-east-1/POSTGRESQL',
    ]);
    expect(api.requestCount).toBe(3);
    // Only the two wrong ones, in manifest order; the same type is fine in one region and not in another.
    expect(diags.map((d) => [d.address, d.range?.start.line])).toEqual([
      ['project.shop/environment.staging/database.a', lineOf(yaml, 'db.t3.nano')],
      ['project.shop/environment.us/database.b', lineOf(yaml, 'db.t3.medium')],
    ]);
    expect(diags[1]!.detail).toContain('Allowed: db.t3.micro, db.m5.large.');
  });

  it('makes no request when no managed database sets an instance type, or its provider has no listing', async () => {
    const yaml = `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: paris
        services:
          - type: database
            name: pg
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
      - name: gcp
        cluster: belgium
        services:
${db('pg', 'POSTGRESQL', 'db-custom-1-3840')}
`;
    const api = listingApi();
    expect(await runPlanChecks(await loadYaml(yaml), LIVE, api)).toEqual([]);
    expect(api.calls).toEqual([]);
  });

  it('only warns when the live database already runs a type the listing no longer offers (nothing is sent)', async () => {
    const yaml = manifest([{ name: 'prod', cluster: 'paris', services: [db('pg', 'POSTGRESQL', 'db.m4.large')] }]);
    const live = liveState(...LIVE.resources.values(), liveDatabase('shop', 'prod', 'PG', 'db.m4.large'));
    const diags = await runPlanChecks(await loadYaml(yaml), live, listingApi());
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({ severity: 'warning', code: 'check.instance-type' });
    expect(diags[0]!.summary).toContain('no longer offered');

    // A change to another unlisted type is sent, so it is an error.
    const changed = await runPlanChecks(await loadYaml(manifest([{ name: 'prod', cluster: 'paris', services: [db('pg', 'POSTGRESQL', 'db.m4.xlarge')] }])), live, listingApi());
    expect(changed.map((d) => d.severity)).toEqual(['error']);
  });

  it('warns, once per listing, that it could not check when the listing fails', async () => {
    const yaml = manifest([{ name: 'prod', cluster: 'paris', services: [db('a', 'POSTGRESQL', 'db.t3.micro'), db('b', 'POSTGRESQL', 'db.t3.medium')] }]);
    const api = new FakePort(() => {
      throw apiError(503, 'service unavailable');
    });
    const diags = await runPlanChecks(await loadYaml(yaml), LIVE, api);
    expect(api.requestCount).toBe(1);
    expect(diags.map((d) => [d.severity, d.code])).toEqual([
      ['warning', 'check.instance-type-unchecked'],
      ['warning', 'check.instance-type-unchecked'],
    ]);
    expect(diags[0]!.detail).toContain('service unavailable');
  });
});
