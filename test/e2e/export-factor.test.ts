/**
 * `export --factor` on the emulator: staging and production that differ in a cpu, an image tag, a
 * variable value (and a secret) and a service present in one only are exported with one
 * environment template; the factored export describes exactly what the plain export does (the same
 * desired graph), and plan on it is clean.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAST, ONLY_USAGE_LINE, startHarness, type Harness } from './helpers.js';
import { loadManifest } from '../../src/manifest/index.js';
import { buildGraph } from '../../src/graph/build.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const SECRETS = { STAGING_API_KEY: 'staging-key-0123', PRODUCTION_API_KEY: 'production-key-4567' };

function environment(name: string, o: { cpu: number; tag: string; logLevel: string; worker: boolean }): string {
  return `      - name: ${name}
        cluster: ${name}-cluster
        mode: ${name.toUpperCase()}
        variables:
          - key: LOG_LEVEL
            value: ${o.logLevel}
          - key: REGION
            value: eu-west-3
        deployment_stages:
          - name: apps
            services: [api, web]
        services:
          - type: application
            name: api
            git_repository:
              url: https://github.com/driftless-examples/api.git
              branch: main
            dockerfile_path: Dockerfile
            cpu: ${o.cpu}
            memory: 512
            ports:
              - internal_port: 8080
                publicly_accessible: true
            variables:
              - key: API_KEY
                value: \${env:${name.toUpperCase()}_API_KEY}
                secret: true
              - key: FEATURE_X
                value: "on"
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "${o.tag}"
            cpu: 250
            memory: 256
${o.worker ? `          - type: container
            name: worker
            registry: docker-hub
            image_name: library/busybox
            tag: "1.36"
` : ''}`;
}

const ORGANIZATION = `version: 1
projects:
  - name: shop
    environments:
${environment('staging', { cpu: 250, tag: '1.27', logLevel: 'debug', worker: true })}${environment('production', { cpu: 1000, tag: '1.28', logLevel: 'warn', worker: false })}`;

/** address -> attrs of the desired graph of a manifest (what plan compares with the live state). */
async function desired(h: Harness, file: string, env: Record<string, string>) {
  const loaded = await loadManifest([file], { env, cwd: h.dir });
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const graph = buildGraph(loaded.manifest!).graph;
  // Secret values are opaque objects: compared by what they hold.
  return new Map([...graph.resources].map(([a, r]) => [a, JSON.parse(JSON.stringify(r.attrs, (_k, v) => (v && typeof v === 'object' && typeof v.reveal === 'function' ? `secret:${String(v.reveal())}` : v)))]));
}

describe('export --factor', () => {
  it('writes shared services once as a template with per-environment overrides, describing exactly what the plain export does; plan on it is clean', async () => {
    h = await startHarness();
    h.write({ 'built/org.yaml': ORGANIZATION });
    const built = await h.run(['apply', 'built', '--auto-approve', ...FAST], { env: SECRETS });
    expect(built.code).toBe(0);

    const plain = await h.run(['export', '--project', 'shop', '--out', 'plain.yaml']);
    const factored = await h.run(['export', '--project', 'shop', '--out', 'factored.yaml', '--factor']);
    expect(plain.code).toBe(0);
    expect(factored.code).toBe(0);
    expect(factored.stderr).toContain('Exported 1 project, 2 environments, 5 services to factored.yaml');
    expect(plain.stderr).toContain('Exported 1 project, 2 environments, 5 services to plain.yaml');

    const text = readFileSync(path.join(h.dir, 'factored.yaml'), 'utf8');
    const doc = parse(text);
    const project = doc.projects[0];
    expect(project.templates).toHaveLength(1);
    const template = project.templates[0];
    expect(template.services.map((s: { name: string }) => s.name).sort()).toEqual(['api', 'web']);
    const [staging, production] = ['staging', 'production'].map((n) => project.environments.find((e: { name: string }) => e.name === n));
    for (const e of [staging, production]) {
      expect(e.template).toBe(template.name);
      expect(e.services?.map((s: { name: string }) => s.name) ?? []).toEqual(e === staging ? ['worker'] : []);
    }
    // What differs is written per environment, and only that: one of the two holds the template's value.
    const cpu = [staging, production].map((e) => e.overrides?.services?.api?.cpu);
    expect(cpu.filter((x) => x !== undefined)).toHaveLength(1);
    expect([template.services.find((s: { name: string }) => s.name === 'api').cpu, ...cpu].filter((x) => x !== undefined).sort()).toEqual([1000, 250]);
    const tags = [staging, production].map((e) => e.overrides?.services?.web?.tag).filter((x) => x !== undefined);
    expect(tags).toHaveLength(1);
    const logLevels = [staging, production].flatMap((e) => (e.overrides?.variables ?? []).filter((v: { key: string }) => v.key === 'LOG_LEVEL'));
    expect(logLevels).toHaveLength(1);
    expect(Object.keys(logLevels[0])).toEqual(['key', 'value']);
    expect(template.variables.map((v: { key: string }) => v.key).sort()).toEqual(['LOG_LEVEL', 'REGION']);
    // A value both environments share is not repeated in any override.
    expect(text.match(/eu-west-3/g)).toHaveLength(1);
    expect(text.match(/library\/nginx/g)).toHaveLength(1);

    // The same desired state as the plain export, object by object.
    const placeholders = [...new Set([...text.matchAll(/\$\{env:([A-Z0-9_]+)\}/g)].map((m) => m[1]!))];
    expect(placeholders.sort()).toEqual(['SHOP_PRODUCTION_API_API_KEY', 'SHOP_STAGING_API_API_KEY']);
    const env = { SHOP_STAGING_API_API_KEY: SECRETS.STAGING_API_KEY, SHOP_PRODUCTION_API_API_KEY: SECRETS.PRODUCTION_API_KEY };
    expect(await desired(h, 'factored.yaml', env)).toEqual(await desired(h, 'plain.yaml', env));

    const plan = await h.run(['plan', 'factored.yaml', '--detailed-exitcode'], { env });
    expect(plan.stderr).toMatch(ONLY_USAGE_LINE);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
    for (const out of [plain, factored, plan]) for (const v of Object.values(SECRETS)) expect(out.stdout + out.stderr).not.toContain(v);
  });

  it('leaves a project whose environments share no service as the plain export writes it', async () => {
    h = await startHarness();
    h.write({ 'built/org.yaml': ORGANIZATION.replace(/name: web\n/, 'name: web-staging\n').replace(/services: \[api, web\]/, 'services: [api, web-staging]').replace(/name: api\n/, 'name: api-staging\n').replace(/services: \[api, web-staging\]/, 'services: [api-staging, web-staging]') });
    expect((await h.run(['apply', 'built', '--auto-approve', ...FAST], { env: SECRETS })).code).toBe(0);
    const plain = await h.run(['export', '--project', 'shop']);
    const factored = await h.run(['export', '--project', 'shop', '--factor']);
    expect(factored.code).toBe(0);
    expect(factored.stdout).toBe(plain.stdout);
    expect(factored.stdout).not.toContain('template');
  });

  it('--base picks the environment the template is built from; no secret name is in the template; the stages are; plan is clean', async () => {
    h = await startHarness();
    // Staging's own worker deploys in a stage of its own, after the shared ones.
    h.write({ 'built/org.yaml': ORGANIZATION.replace('            services: [api, web]\n', '            services: [api, web]\n          - name: jobs\n            services: [worker]\n') });
    expect((await h.run(['apply', 'built', '--auto-approve', ...FAST], { env: SECRETS })).code).toBe(0);

    const factored = await h.run(['export', '--project', 'shop', '--out', 'factored.yaml', '--factor', '--base', 'production']);
    expect(factored.code, factored.stderr).toBe(0);
    const text = readFileSync(path.join(h.dir, 'factored.yaml'), 'utf8');
    const project = parse(text).projects[0];
    const template = project.templates[0];
    // Production's values, not a blend.
    expect(template.services.find((s: { name: string }) => s.name === 'api').cpu).toBe(1000);
    expect(template.services.find((s: { name: string }) => s.name === 'web').tag).toBe('1.28');
    expect(template.variables.find((v: { key: string }) => v.key === 'LOG_LEVEL').value).toBe('warn');
    // No secret in the template: each environment names its own.
    expect(JSON.stringify(template)).not.toContain('${env:');
    for (const e of project.environments as Array<{ name: string }>) {
      const names = [...JSON.stringify(e).matchAll(/\$\{env:(\w+)\}/g)].map((m) => m[1]);
      expect(names).toEqual([`SHOP_${e.name.toUpperCase()}_API_API_KEY`]);
    }
    // The shared stages once, in the template (the platform's DEFAULT stage first); staging adds its own.
    expect(template.deployment_stages.map((st: { name: string }) => st.name)).toEqual(['DEFAULT', 'apps']);
    expect(template.deployment_stages[1].services).toEqual(['api', 'web']);
    const stagesOf = (n: string) => project.environments.find((e: { name: string }) => e.name === n).deployment_stages;
    expect(stagesOf('production')).toBeUndefined();
    expect(stagesOf('staging')).toEqual([{ name: 'jobs', services: ['worker'] }]);

    const env = { SHOP_STAGING_API_API_KEY: SECRETS.STAGING_API_KEY, SHOP_PRODUCTION_API_API_KEY: SECRETS.PRODUCTION_API_KEY };
    const plain = await h.run(['export', '--project', 'shop', '--out', 'plain.yaml']);
    expect(plain.code).toBe(0);
    expect(await desired(h, 'factored.yaml', env)).toEqual(await desired(h, 'plain.yaml', env));
    const plan = await h.run(['plan', 'factored.yaml', '--detailed-exitcode'], { env });
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);

    const staging = await h.run(['export', '--project', 'shop', '--factor', '--base', 'STAGING']);
    expect(parse(staging.stdout).projects[0].templates[0].services.find((s: { name: string }) => s.name === 'api').cpu).toBe(250);
  });

  it('refuses --base without --factor, and a --base no exported project has, writing nothing', async () => {
    h = await startHarness();
    h.write({ 'built/org.yaml': ORGANIZATION });
    expect((await h.run(['apply', 'built', '--auto-approve', ...FAST], { env: SECRETS })).code).toBe(0);
    const alone = await h.run(['export', '--base', 'production']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('--base needs --factor');
    const nowhere = await h.run(['export', '--factor', '--base', 'prod', '--out', 'x.yaml']);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('--base prod: no exported project has an environment of that name; nothing was written');
    expect(nowhere.stderr).toMatch(/Exported environments: (staging, production|production, staging)\./);
    expect(existsSync(path.join(h.dir, 'x.yaml'))).toBe(false);
  });
});
