/**
 * src/export/factor.ts: what `export --factor` writes, checked by expanding it with the loader
 * itself (the factored project must load to exactly the environments it was made from), including
 * what an override cannot express (it stays written out in the environment).
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { factorProject, overrideFor } from '../../src/export/factor.js';
import { loadManifestFromSources } from '../../src/manifest/load.js';
import type { Doc } from '../../src/export/to-manifest.js';

const api = (o: Doc = {}): Doc => ({ name: 'api', type: 'container', registry: 'docker-hub', image_name: 'acme/api', tag: '1', cpu: 250, variables: [{ key: 'A', value: '1' }], ...o });
const web = (o: Doc = {}): Doc => ({ name: 'web', type: 'container', registry: 'docker-hub', image_name: 'nginx', tag: '1.27', ...o });
const env = (name: string, services: Doc[], variables: Doc[] = []): Doc => ({ name, cluster: 'c', variables, services });

/** The environments a project loads to (templates expanded), as plain data with lists sorted by name. */
function loaded(project: Doc): unknown {
  const text = stringify({ version: 1, projects: [project] });
  const r = loadManifestFromSources([{ file: { display: 'm.yaml' } as never, text }], { env: {}, readFile: () => ({ ok: false, reason: 'none' }) as never });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const sortBy = (k: string) => (a: Doc, b: Doc) => String(a[k]).localeCompare(String(b[k]));
  return (JSON.parse(JSON.stringify(r.manifest!.projects![0]!.environments)) as Doc[]).map((e) => ({
    ...e,
    services: ((e.services as Doc[] | undefined) ?? []).sort(sortBy('name')),
    variables: ((e.variables as Doc[] | undefined) ?? []).sort(sortBy('key')),
  }));
}

describe('factorProject', () => {
  it('writes shared services once, and per environment only what differs; it loads back to the same environments', () => {
    const project = {
      name: 'shop',
      environments: [
        env('production', [api({ cpu: 1000 }), web({ tag: '1.28' })], [{ key: 'LOG', value: 'warn' }, { key: 'REGION', value: 'eu' }]),
        env('staging', [api(), web(), { name: 'worker', type: 'container', registry: 'docker-hub', image_name: 'busybox', tag: '1' }], [{ key: 'LOG', value: 'debug' }, { key: 'REGION', value: 'eu' }]),
        env('qa', [api({ variables: [{ key: 'A', value: '2' }] }), web()], [{ key: 'LOG', value: 'debug' }, { key: 'REGION', value: 'eu' }]),
      ],
    };
    const f = factorProject(project);
    expect(f.templates).toEqual([
      {
        name: 'shop',
        variables: [{ key: 'LOG', value: 'debug' }, { key: 'REGION', value: 'eu' }],
        services: [api(), web()],
      },
    ]);
    const envs = f.environments as Doc[];
    expect(envs[0]).toEqual({ name: 'production', cluster: 'c', template: 'shop', overrides: { services: { api: { cpu: 1000 }, web: { tag: '1.28' } }, variables: [{ key: 'LOG', value: 'warn' }] }, variables: [] });
    expect(envs[1]).toEqual({ name: 'staging', cluster: 'c', template: 'shop', variables: [], services: [(project.environments[1]!.services as Doc[])[2]] });
    expect(envs[2]).toEqual({ name: 'qa', cluster: 'c', template: 'shop', overrides: { services: { api: { variables: [{ key: 'A', value: '2' }] } } }, variables: [] });
    expect(loaded(f)).toEqual(loaded(project));
  });

  it('keeps written out, and excluded from the template, a service an override cannot express: a nested field the template has and it lacks, another kind', () => {
    const probe = (period?: number) => ({ healthchecks: { readiness_probe: { type: { tcp: { port: 80 } }, ...(period ? { period_seconds: period } : {}) } } });
    const project = {
      name: 'shop',
      environments: [
        env('a', [api(probe(5)), web()]),
        env('b', [api(probe(5)), web()]),
        env('c', [api(probe()), { name: 'web', type: 'application', git_repository: { url: 'https://github.com/acme/web.git' }, dockerfile_path: 'Dockerfile' }]),
      ],
    };
    const f = factorProject(project);
    const c = (f.environments as Doc[])[2]!;
    expect(c.exclude_services).toEqual(['api', 'web']);
    expect((c.services as Doc[]).map((s) => [s.name, s.type])).toEqual([
      ['api', 'container'],
      ['web', 'application'],
    ]);
    expect((f.templates as Doc[])[0]!.services).toEqual([api(probe(5)), web()]);
    expect(loaded(f)).toEqual(loaded(project));
  });

  it('puts the deployment stages in the template when every environment has them (less the services it leaves out)', () => {
    const stages = (names: string[]) => [{ name: 'apps', services: names }];
    const project = {
      name: 'shop',
      environments: [
        { ...env('a', [api(), web()]), deployment_stages: stages(['api', 'web']) },
        { ...env('b', [api()]), deployment_stages: stages(['api']) },
        { ...env('c', [api(), web()]), deployment_stages: stages(['api', 'web']) },
      ],
    };
    const f = factorProject(project);
    expect((f.templates as Doc[])[0]!.deployment_stages).toEqual(stages(['api', 'web']));
    expect((f.environments as Doc[])[1]).toMatchObject({ exclude_services: ['web'] });
    expect((f.environments as Doc[])[1]!.deployment_stages).toBeUndefined();
    expect(loaded(f)).toEqual(loaded(project));
  });

  it('changes nothing when no service is shared', () => {
    const project = { name: 'shop', environments: [env('a', [api()]), env('b', [web()])] };
    expect(factorProject(project)).toBe(project);
  });
});

describe('overrideFor', () => {
  it('says only what changes: nested fields, keyed items by key', () => {
    const t = { cpu: 1, git: { url: 'u', branch: 'main' }, ports: [{ name: 'http', internal_port: 80 }], arguments: ['a'] };
    expect(overrideFor(t, { cpu: 1, git: { url: 'u', branch: 'rel' }, ports: [{ name: 'http', internal_port: 80, publicly_accessible: true }], arguments: ['b'] })).toEqual({
      git: { branch: 'rel' },
      ports: [{ name: 'http', publicly_accessible: true }],
      arguments: ['b'],
    });
  });

  it('is undefined when the instance lacks what the template sets (an override adds and changes, never removes)', () => {
    expect(overrideFor({ cpu: 1, memory: 2 }, { cpu: 1 })).toBeUndefined();
    expect(overrideFor({ ports: [{ name: 'a', internal_port: 1 }, { name: 'b', internal_port: 2 }] }, { ports: [{ name: 'a', internal_port: 1 }] })).toBeUndefined();
  });
});
