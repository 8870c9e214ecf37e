/**
 * Environment templates against the real emulator: staging and production made from one template
 * with overrides go plan -> apply -> plan clean, each environment gets exactly its own values, and
 * a problem of an instantiated object is located at the template and at the override, by
 * validate and plan alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, ONLY_USAGE_LINE, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

interface Variant {
  prodCpu?: number;
  prodTag?: string;
  stagingCpu?: number;
}

/** One template of three services; production overrides cpu, an image tag, a branch and a variable, and leaves the worker out. */
function shop(v: Variant = {}): string {
  return `version: 1
projects:
  - name: shop
    templates:
      - name: web-stack
        variables:
          - key: LOG_LEVEL
            value: info
        deployment_stages:
          - name: backend
            services: [api, worker]
          - name: frontend
            services: [web]
        services:
          - type: application
            name: api
            git_repository:
              url: https://github.com/driftless-examples/api.git
              branch: main
            dockerfile_path: Dockerfile
            cpu: 250
            memory: 256
            ports:
              - name: http
                internal_port: 8080
            variables:
              - key: FEATURE_X
                value: "off"
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            cpu: 250
            memory: 256
          - type: container
            name: worker
            registry: docker-hub
            image_name: library/busybox
            tag: "1.36"
    environments:
      - name: staging
        mode: STAGING
        cluster: staging-cluster
        template: web-stack${v.stagingCpu ? `
        overrides:
          services:
            api:
              cpu: ${v.stagingCpu}` : ''}
      - name: production
        mode: PRODUCTION
        cluster: production-cluster
        template: web-stack
        exclude_services: [worker]
        overrides:
          services:
            api:
              cpu: ${v.prodCpu ?? 1000}
              git_repository:
                branch: release
              ports:
                - name: http
                  publicly_accessible: true
              variables:
                - key: FEATURE_X
                  value: "on"
            web:
              tag: "${v.prodTag ?? '1.28'}"
          variables:
            - key: LOG_LEVEL
              value: warn
        services:
          - type: container
            name: metrics
            registry: docker-hub
            image_name: library/prometheus
            tag: "2.53"
`;
}

/** The emulator's records, per environment name: services by name, and variables by scope and key. */
function liveByEnvironment(h: Harness) {
  const s = h.emu.state as unknown as Record<string, Record<string, Record<string, any>>>;
  const envName = (id: string) => String(s.environments![id]!.name);
  const services = new Map<string, Record<string, any>>();
  for (const svc of Object.values(s.services!)) services.set(`${envName(svc.environment.id)}/${svc.name}`, svc);
  return { services };
}

describe('environment templates', () => {
  it('staging and production from one template with overrides: plan -> apply -> plan clean, each environment with its own values', async () => {
    h = await startHarness();
    h.write({ 'm/shop.yaml': shop() });
    const validate = await h.run(['validate', 'm']);
    expect(validate.code).toBe(0);

    const planned = await h.run(['plan', 'm', '--json']);
    expect(planned.code).toBe(0);
    const created = JSON.parse(planned.stdout).resource_changes.filter((c: { change: { actions: string[] } }) => c.change.actions.includes('create')).map((c: { address: string }) => c.address);
    // Each environment gets its own objects: the template's (less the excluded worker) and its own.
    expect(created.filter((a: string) => /\/(application|container)\.[^/]+$/.test(a)).sort()).toEqual([
      'project.shop/environment.production/application.api',
      'project.shop/environment.production/container.metrics',
      'project.shop/environment.production/container.web',
      'project.shop/environment.staging/application.api',
      'project.shop/environment.staging/container.web',
      'project.shop/environment.staging/container.worker',
    ]);

    const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(first.stderr).toMatch(ONLY_USAGE_LINE);
    expect(first.code).toBe(0);

    const { services } = liveByEnvironment(h);
    expect([...services.keys()].sort()).toEqual(['production/api', 'production/metrics', 'production/web', 'staging/api', 'staging/web', 'staging/worker']);
    expect(services.get('staging/api')!.cpu).toBe(250);
    expect(services.get('production/api')!.cpu).toBe(1000);
    expect(services.get('staging/api')!.git_repository.branch).toBe('main');
    expect(services.get('production/api')!.git_repository.branch).toBe('release');
    expect(services.get('staging/web')!.tag).toBe('1.27');
    expect(services.get('production/web')!.tag).toBe('1.28');
    expect(services.get('production/api')!.ports[0].publicly_accessible).toBe(true);

    // Variable values per environment, as the API holds them.
    const state = h.emu.state as unknown as Record<string, Record<string, Record<string, any>>>;
    const valueOf = (key: string, envName: string) => {
      const envId = Object.values(state.environments!).find((e) => e.name === envName)!.id;
      const serviceIds = new Set(Object.values(state.services!).filter((x) => x.environment.id === envId).map((x) => x.id));
      // Environment-scope variables have the environment as parent, service-scope ones a service of it.
      const found = Object.values(state.variables!).filter((x) => x.key === key && (x.parent_id === envId || serviceIds.has(x.parent_id)));
      return found.map((x) => x.value);
    };
    expect(valueOf('LOG_LEVEL', 'staging')).toEqual(['info']);
    expect(valueOf('LOG_LEVEL', 'production')).toEqual(['warn']);
    expect(valueOf('FEATURE_X', 'staging')).toEqual(['off']);
    expect(valueOf('FEATURE_X', 'production')).toEqual(['on']);

    const again = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(again.stderr).toMatch(ONLY_USAGE_LINE);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');

    // One override changed: only production's web changes.
    h.write({ 'm/shop.yaml': shop({ prodTag: '1.29' }) });
    const changed = await h.run(['plan', 'm', '--json']);
    const doc = JSON.parse(changed.stdout);
    const touched = doc.resource_changes.filter((c: { change: { actions: string[] } }) => !c.change.actions.includes('no-op')).map((c: { address: string }) => c.address);
    expect(touched).toEqual(['project.shop/environment.production/container.web']);
  });

  it('drift of an instantiated object names the template line and the override line, not the shared template alone', async () => {
    h = await startHarness();
    const text = shop();
    h.write({ 'm/shop.yaml': text });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    const lines = text.split('\n');
    const lineOf = (needle: string, from = 0) => lines.findIndex((l, i) => i >= from && l.includes(needle)) + 1;
    const templateApi = lineOf('- type: application');
    const productionApi = lineOf('            api:', lineOf('- name: production'));
    const stagingTemplateKey = lineOf('template: web-stack', lineOf('- name: staging'));
    const templateWeb = lines.findIndex((l) => l.trim() === 'name: web');

    // The console changes production's api (its cpu comes from the override) and staging's web (from the template).
    const { services } = liveByEnvironment(h);
    const edit = async (kind: string, svc: Record<string, any>, body: Record<string, unknown>) => {
      const res = await fetch(`${h.emu.url}/${kind}/${svc.id}`, {
        method: 'PUT',
        headers: { Authorization: `Token ${h.env.DRIFTLESS_API_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: svc.name, ...body }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    };
    const api = services.get('production/api')!;
    await edit('application', api, { cpu: 1500, git_repository: { url: api.git_repository.url, branch: api.git_repository.branch }, build_mode: api.build_mode, dockerfile_path: api.dockerfile_path });
    const web = services.get('staging/web')!;
    await edit('container', web, { cpu: 300, image_name: web.image_name, tag: web.tag, registry_id: web.registry.id });

    const human = await h.run(['drift', 'm']);
    expect(human.code).toBe(2);
    expect(human.stdout).toContain(`defined at m/shop.yaml:${templateApi}, overridden at m/shop.yaml:${productionApi}`);
    expect(human.stdout).toContain(`defined at m/shop.yaml:${templateWeb}, instantiated at m/shop.yaml:${stagingTemplateKey}`);
    const markdown = await h.run(['drift', 'm', '--format', 'markdown']);
    expect(markdown.stdout).toContain(`| defined at m/shop.yaml:${templateApi}, overridden at m/shop.yaml:${productionApi} |`);
    const json = JSON.parse((await h.run(['drift', 'm', '--format', 'json'])).stdout);
    const item = json.items.find((i: { address: string }) => i.address === 'project.shop/environment.production/application.api');
    expect(item.related.map((r: { message: string; range: { file: string; start: { line: number } } }) => `${r.message} ${r.range.file}:${r.range.start.line}`)).toEqual([
      `defined m/shop.yaml:${templateApi}`,
      `overridden m/shop.yaml:${productionApi}`,
    ]);
  });

  it('a problem of an instantiated object is located at the template and at the override, by validate and plan alike', async () => {
    h = await startHarness();
    // A schema problem in an override (offline: validate and plan both refuse it).
    h.write({ 'm/shop.yaml': shop({ prodCpu: 0 }) });
    const text = shop({ prodCpu: 0 });
    const lineOf = (needle: string, nth = 1) => {
      let i = -1;
      for (let k = 0; k < nth; k++) i = text.indexOf(needle, i + 1);
      const before = text.slice(0, i).split('\n');
      return `${before.length}:${before[before.length - 1]!.length + 1}`;
    };
    const defined = `m/shop.yaml:${lineOf('type: application')}`;
    const overridden = `m/shop.yaml:${lineOf('api:')}`;

    const human = await h.run(['validate', 'm']);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(`--> m/shop.yaml:${lineOf('cpu: 0').replace(/:(\d+)$/, (_, c) => `:${Number(c) + 5}`)}`);
    expect(human.stderr).toContain(`= defined at ${defined}, overridden at ${overridden}`);

    const json = JSON.parse((await h.run(['validate', 'm', '--format', 'json'])).stdout);
    expect(json.diagnostics.map((d: { code: string; related?: Array<{ message: string; range: { file: string; start: { line: number; col: number } } }> }) => [d.code, d.related?.map((r) => `${r.message} ${r.range.file}:${r.range.start.line}:${r.range.start.col}`)])).toEqual([
      ['schema.out-of-range', [`defined ${defined}`, `overridden ${overridden}`]],
    ]);

    const github = await h.run(['validate', 'm', '--format', 'github']);
    expect(github.stdout).toContain(`::error file=m/shop.yaml,line=${lineOf('cpu: 0').split(':')[0]},`);
    expect(github.stdout).toContain(`%0Adefined at ${defined}, overridden at ${overridden}`);

    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`= defined at ${defined}, overridden at ${overridden}`);
  });

  it('a plan-time check (a cluster maximum) of an overridden value is located at the override and at the template, by plan and validate --remote', async () => {
    h = await startHarness();
    const text = shop({ stagingCpu: 6000 });
    h.write({ 'm/shop.yaml': text });
    const at = (needle: string) => {
      const before = text.slice(0, text.indexOf(needle)).split('\n');
      return `${before.length}:${before[before.length - 1]!.length + 1}`;
    };
    const cpuValue = at('cpu: 6000').replace(/:(\d+)$/, (_, c) => `:${Number(c) + 5}`);
    const overridden = at('            api:\n              cpu: 6000').replace(/:(\d+)$/, (_, c) => `:${Number(c) + 12}`);
    const both = `= defined at m/shop.yaml:${at('type: application')}, overridden at m/shop.yaml:${overridden}`;

    const offline = await h.run(['validate', 'm']);
    expect(offline.code).toBe(0);
    for (const argv of [['plan', 'm'], ['validate', 'm', '--remote']]) {
      const r = await h.run(argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.stderr).toContain('error[limit.cluster-maximum]: application `api`: cpu 6000 millicores is above the maximum_cpu 4000 of cluster `staging-cluster`');
      expect(r.stderr).toContain(`--> m/shop.yaml:${cpuValue}`);
      expect(r.stderr).toContain(both);
    }
  });
});
