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
import { isSecretValue } from '../../src/model/secret.js';

const api = (o: Doc = {}): Doc => ({ name: 'api', type: 'container', registry: 'docker-hub', image_name: 'acme/api', tag: '1', cpu: 250, variables: [{ key: 'A', value: '1' }], ...o });
const web = (o: Doc = {}): Doc => ({ name: 'web', type: 'container', registry: 'docker-hub', image_name: 'nginx', tag: '1.27', ...o });
const env = (name: string, services: Doc[], variables: Doc[] = []): Doc => ({ name, cluster: 'c', variables, services });

/** The environments a project loads to (templates expanded), as plain data with lists sorted by name. */
function loaded(project: Doc): unknown {
  const text = stringify({ version: 1, projects: [project] });
  // Every secret placeholder set, to a value of its own name.
  const env = Object.fromEntries([...text.matchAll(/\$\{env:(\w+)\}/g)].map((m) => [m[1]!, `value of ${m[1]}`]));
  const r = loadManifestFromSources([{ file: { display: 'm.yaml' } as never, text }], { env, readFile: () => ({ ok: false, reason: 'none' }) as never });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const sortBy = (k: string) => (a: Doc, b: Doc) => String(a[k]).localeCompare(String(b[k]));
  // Secret values compared by what they are (so that a secret taken from another environment shows).
  const revealed = JSON.stringify(r.manifest!.projects![0]!.environments, (_k, v: unknown) => (isSecretValue(v) ? `secret:${v.reveal()}` : v));
  return (JSON.parse(revealed) as Doc[]).map((e) => ({
    ...e,
    services: ((e.services as Doc[] | undefined) ?? []).sort(sortBy('name')),
    variables: ((e.variables as Doc[] | undefined) ?? []).sort(sortBy('key')),
  }));
}

describe('factorProject', () => {
  it('writes shared services once, as the base environment has them, and per environment only what differs; it loads back to the same environments', () => {
    const project = {
      name: 'shop',
      environments: [
        env('production', [api({ cpu: 1000 }), web({ tag: '1.28' })], [{ key: 'LOG', value: 'warn' }, { key: 'REGION', value: 'eu' }]),
        env('staging', [api(), web(), { name: 'worker', type: 'container', registry: 'docker-hub', image_name: 'busybox', tag: '1' }], [{ key: 'LOG', value: 'debug' }, { key: 'REGION', value: 'eu' }]),
        env('qa', [api({ variables: [{ key: 'A', value: '2' }] }), web()], [{ key: 'LOG', value: 'debug' }, { key: 'REGION', value: 'eu' }]),
      ],
    };
    const f = factorProject(project, { base: 'staging' });
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

describe('factorProject: the base environment, secrets and stages (issue 19)', () => {
  const envPart = (envName: string) => envName.toUpperCase().replace(/\W/g, '_');
  const secret = (key: string, envName: string): Doc => ({ key, value: `\${env:SHOP_${envPart(envName)}_${key}}`, secret: true });
  const preview = (name: string) => env(name, [api({ cpu: 100, variables: [{ key: 'A', value: '1' }, secret('API_KEY', name)] }), web({ tag: 'pr' })], [{ key: 'URL', value: `https://${name}.example.com` }, secret('DB_PASSWORD', name)]);
  const production = env('production', [api({ cpu: 1000, variables: [{ key: 'A', value: '1' }, secret('API_KEY', 'production')] }), web()], [{ key: 'URL', value: 'https://shop.example.com' }, secret('DB_PASSWORD', 'production')]);

  it('--base picks the environment the template is built from: its values, not a blend of the others', () => {
    const project = { name: 'shop', environments: [preview('pr-1'), preview('pr-2'), production] };
    const f = factorProject(project, { base: 'production' });
    const t = (f.templates as Doc[])[0]!;
    expect((t.services as Doc[]).map((s) => [s.name, s.cpu, s.tag])).toEqual([
      ['api', 1000, '1'],
      ['web', undefined, '1.27'],
    ]);
    expect(t.variables).toEqual([{ key: 'URL', value: 'https://shop.example.com' }]);
    expect(loaded(f)).toEqual(loaded(project));
    // Without --base: the environment sharing the most services, the first on a tie (here pr-1, whose URL the template then has).
    const d = factorProject(project);
    expect(((d.templates as Doc[])[0]!.variables as Doc[])[0]).toEqual({ key: 'URL', value: 'https://pr-1.example.com' });
    expect(loaded(d)).toEqual(loaded(project));
  });

  it("never puts a secret in the template: each environment writes its own, never another environment's secret name", () => {
    const project = { name: 'shop', environments: [preview('pr-1'), production] };
    for (const base of ['production', 'pr-1']) {
      const f = factorProject(project, { base });
      expect(JSON.stringify(f.templates)).not.toContain('${env:');
      for (const e of f.environments as Doc[]) {
        const own = [...JSON.stringify(e).matchAll(/\$\{env:(\w+)\}/g)].map((m) => m[1]!);
        expect(own.length, String(e.name)).toBe(2);
        expect(own.every((n) => n.startsWith(`SHOP_${envPart(String(e.name))}_`)), `${String(e.name)}: ${own.join(', ')}`).toBe(true);
      }
      expect(loaded(f)).toEqual(loaded(project));
    }
  });

  it('puts the shared stages in the template, and leaves each environment only the stages of its own services', () => {
    const worker = { name: 'worker', type: 'container', registry: 'docker-hub', image_name: 'busybox', tag: '1' };
    const shared = [{ name: 'data', services: ['api'] }, { name: 'apps', services: ['web'] }];
    const project = {
      name: 'shop',
      environments: [
        { ...env('production', [api(), web(), worker]), deployment_stages: [...shared, { name: 'jobs', services: ['worker'] }] },
        { ...env('staging', [api(), web()]), deployment_stages: shared },
        { ...env('qa', [api(), web()]), deployment_stages: shared },
      ],
    };
    const f = factorProject(project, { base: 'production' });
    expect((f.templates as Doc[])[0]!.deployment_stages).toEqual(shared);
    const envs = f.environments as Doc[];
    expect(envs.map((e) => e.deployment_stages)).toEqual([[{ name: 'jobs', services: ['worker'] }], undefined, undefined]);
    expect(loaded(f)).toEqual(loaded(project));
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
