/**
 * Environment templates (src/manifest/templates.ts): the merge rule, what the loader hands to
 * buildGraph (the plain manifest it would get if every environment were written out), and the
 * diagnostics about instantiated objects, located at the template and at the override.
 */
import { describe, expect, it } from 'vitest';
import { mergeObjects, relateDiagnostics } from '../../src/manifest/templates.js';
import { sourceOf, type ContainerSpec, type EnvironmentSpec, type Manifest } from '../../src/manifest/types.js';
import { fieldSourceOf } from '../../src/manifest/source-map.js';
import { buildGraph } from '../../src/graph/build.js';
import { renderDiagnosticGithub, renderDiagnostic } from '../../src/diag/render.js';
import { renderFailureMarkdown } from '../../src/render/markdown-failure.js';
import { load, loadText, tempTree } from './helpers.js';
import { at, environmentOf as env } from '../support/manifest-positions.js';
import { error as diagError } from '../../src/diag/diagnostic.js';

const TEMPLATE = `version: 1
projects:
  - name: shop
    templates:
      - name: web
        variables:
          - key: LOG_LEVEL
            value: info
        deployment_stages:
          - name: apps
            services: [api, web, debug]
        services:
          - type: application
            name: api
            git_repository:
              url: https://github.com/acme/api.git
              branch: main
            dockerfile_path: Dockerfile
            cpu: 250
            memory: 256
            ports:
              - name: http
                internal_port: 8080
              - name: admin
                internal_port: 9090
            arguments: [serve, --fast]
            variables:
              - key: FEATURE
                value: "off"
              - key: REGION
                value: eu
          - type: container
            name: web
            registry: docker-hub
            image_name: nginx
            tag: "1.25"
          - type: container
            name: debug
            registry: docker-hub
            image_name: busybox
            tag: latest
`;

const STAGING_AND_PRODUCTION = `version: 1
projects:
  - name: shop
    environments:
      - name: staging
        cluster: staging-cluster
        template: web
      - name: production
        cluster: production-cluster
        mode: PRODUCTION
        template: web
        exclude_services: [debug]
        overrides:
          services:
            api:
              cpu: 1000
              git_repository: {branch: release}
              arguments: [serve]
              ports:
                - name: http
                  publicly_accessible: true
              variables:
                - key: FEATURE
                  value: "on"
                - key: EXTRA
                  value: "1"
            web:
              tag: "1.27"
          variables:
            - key: LOG_LEVEL
              value: warn
        services:
          - type: container
            name: metrics
            registry: docker-hub
            image_name: prom
            tag: "2"
`;

/** The same two environments as TEMPLATE + STAGING_AND_PRODUCTION, written out in full. */
const WRITTEN_OUT = `version: 1
projects:
  - name: shop
    environments:
      - name: staging
        cluster: staging-cluster
        services:
          - type: application
            name: api
            git_repository: {url: https://github.com/acme/api.git, branch: main}
            dockerfile_path: Dockerfile
            cpu: 250
            memory: 256
            ports: [{name: http, internal_port: 8080}, {name: admin, internal_port: 9090}]
            arguments: [serve, --fast]
            variables: [{key: FEATURE, value: "off"}, {key: REGION, value: eu}]
          - {type: container, name: web, registry: docker-hub, image_name: nginx, tag: "1.25"}
          - {type: container, name: debug, registry: docker-hub, image_name: busybox, tag: latest}
        variables: [{key: LOG_LEVEL, value: info}]
        deployment_stages: [{name: apps, services: [api, web, debug]}]
      - name: production
        cluster: production-cluster
        mode: PRODUCTION
        services:
          - type: application
            name: api
            git_repository: {url: https://github.com/acme/api.git, branch: release}
            dockerfile_path: Dockerfile
            cpu: 1000
            memory: 256
            ports: [{name: http, internal_port: 8080, publicly_accessible: true}, {name: admin, internal_port: 9090}]
            arguments: [serve]
            variables: [{key: FEATURE, value: "on"}, {key: REGION, value: eu}, {key: EXTRA, value: "1"}]
          - {type: container, name: web, registry: docker-hub, image_name: nginx, tag: "1.27"}
          - {type: container, name: metrics, registry: docker-hub, image_name: prom, tag: "2"}
        variables: [{key: LOG_LEVEL, value: warn}]
        deployment_stages: [{name: apps, services: [api, web]}]
`;

const envs = (m: Manifest | undefined) => m!.projects![0]!.environments!;

describe('the merge rule', () => {
  it('merges maps deeply, keyed lists by key (matching items merge, new ones are added), and replaces other lists and scalars', () => {
    const base = { cpu: 250, git_repository: { url: 'u', branch: 'main' }, arguments: ['a', 'b'], ports: [{ name: 'http', internal_port: 80 }], variables: [{ key: 'A', value: '1' }] };
    const patch = { cpu: 500, git_repository: { branch: 'release' }, arguments: ['c'], ports: [{ name: 'http', publicly_accessible: true }, { name: 'grpc', internal_port: 9000 }], variables: [{ key: 'B', value: '2' }, { key: 'A', value: '3' }] };
    expect(mergeObjects(base, patch)).toEqual({
      cpu: 500,
      git_repository: { url: 'u', branch: 'release' },
      arguments: ['c'],
      ports: [{ name: 'http', internal_port: 80, publicly_accessible: true }, { name: 'grpc', internal_port: 9000 }],
      variables: [{ key: 'A', value: '3' }, { key: 'B', value: '2' }],
    });
    // Neither input is changed: one template serves every environment.
    expect(base.cpu).toBe(250);
    expect(base.ports).toEqual([{ name: 'http', internal_port: 80 }]);
  });

  it('replaces a keyed list whose override items lack the key (a database `storage` in GB is a number)', () => {
    expect(mergeObjects({ storage: 10 }, { storage: 20 })).toEqual({ storage: 20 });
    expect(mergeObjects({ ports: [{ name: 'a', internal_port: 1 }] }, { ports: [{ internal_port: 2 }] })).toEqual({ ports: [{ internal_port: 2 }] });
  });
});

describe('expansion in the loader', () => {
  it('gives buildGraph the same manifest as the environments written out in full', async () => {
    const oneFile = TEMPLATE + STAGING_AND_PRODUCTION.split('  - name: shop\n')[1];
    const expanded = await loadText(oneFile);
    const plain = await loadText(WRITTEN_OUT);
    expect(expanded.diagnostics).toEqual([]);
    expect(plain.diagnostics).toEqual([]);
    expect(JSON.parse(JSON.stringify(expanded.manifest))).toEqual(JSON.parse(JSON.stringify(plain.manifest)));
    const a = buildGraph(expanded.manifest!);
    const b = buildGraph(plain.manifest!);
    expect(a.diagnostics).toEqual([]);
    expect([...a.graph.resources.values()].map((n) => [n.address, n.attrs])).toEqual([...b.graph.resources.values()].map((n) => [n.address, n.attrs]));
    expect(a.graph.order).toEqual(b.graph.order);
    // Nothing of the template syntax is left for buildGraph.
    const p = expanded.manifest!.projects![0]!;
    expect(p.templates).toBeUndefined();
    for (const e of p.environments!) for (const k of ['template', 'overrides', 'exclude_services'] as const) expect(e[k]).toBeUndefined();
  });

  it('keeps the range of every value where it was written: the template, or the override that changed it', async () => {
    const text = TEMPLATE + STAGING_AND_PRODUCTION.split('  - name: shop\n')[1];
    const { manifest } = await loadText(text);
    const prodApi = env(manifest, 'production').services!.find((s) => s.name === 'api')!;
    const stagingApi = env(manifest, 'staging').services!.find((s) => s.name === 'api')!;
    const value = (needle: string) => ({ file: 'm.yaml', start: { ...at(text, needle), col: at(text, needle).col + needle.indexOf(':') + 2 } });
    expect(sourceOf(prodApi, 'cpu')).toMatchObject(value('cpu: 1000')); // the override
    expect(sourceOf(stagingApi, 'cpu')).toMatchObject(value('cpu: 250')); // the template
    expect(sourceOf(prodApi, 'memory')).toMatchObject(value('memory: 256'));
    expect(sourceOf(prodApi)).toMatchObject({ start: at(text, 'type: application') });
    const web = env(manifest, 'production').services!.find((s) => s.name === 'web') as ContainerSpec;
    expect(web.tag).toBe('1.27');
    expect(sourceOf(web, 'tag')).toMatchObject(value('tag: "1.27"'));
    // An overridden variable is the template's item (where it is defined) with the override's value.
    const logLevel = env(manifest, 'production').variables![0]!;
    expect(logLevel.value).toBe('warn');
    expect(fieldSourceOf(env(manifest, 'production').variables, '0')).toMatchObject({ start: at(text, 'key: LOG_LEVEL') });
    expect(sourceOf(logLevel, 'value')).toMatchObject(value('value: warn'));
  });

  it('works with a template and no overrides, and leaves environments without a template alone', async () => {
    const text = `${TEMPLATE}    environments:
      - name: preview
        cluster: staging-cluster
        template: web
      - name: plain
        cluster: staging-cluster
`;
    const { manifest, diagnostics } = await loadText(text);
    expect(diagnostics).toEqual([]);
    expect(env(manifest, 'preview').services!.map((s) => s.name)).toEqual(['api', 'web', 'debug']);
    expect(env(manifest, 'plain')).toEqual({ name: 'plain', cluster: 'staging-cluster' } satisfies Partial<EnvironmentSpec>);
  });
});

describe('diagnostics', () => {
  const withEnv = (envYaml: string) => `${TEMPLATE}    environments:\n${envYaml}`;
  const range = (text: string, needle: string, nth = 1) => expect.objectContaining({ file: 'm.yaml', start: at(text, needle, nth) });

  it('an override of a service the template does not have: error at the override with the nearest name', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            apii: {cpu: 500}
`);
    const r = await loadText(text);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0]!;
    expect(d.code).toBe('ref.unresolved');
    expect(d.summary).toBe('environment `prod` overrides service `apii`, which template `web` does not declare');
    expect(d.detail).toContain('Did you mean `api`?');
    expect(d.range).toEqual(range(text, 'apii:'));
    expect(d.related).toEqual([{ message: 'template declared', range: range(text, 'web', 1) }]);
  });

  it('an unknown template, an exclusion of an unknown service, and an unknown variable override are errors with suggestions', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: wbe
      - name: stage
        cluster: c
        template: web
        exclude_services: [debgu]
        overrides:
          variables:
            - key: LOG_LEVL
              value: debug
`);
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.range?.start, d.summary, d.detail])).toEqual([
      [at(text, 'wbe'), 'environment `prod` uses template `wbe`, which the project does not declare', 'Did you mean `web`? Templates of this project: web.'],
      [at(text, 'debgu'), 'environment `stage` excludes service `debgu`, which template `web` does not declare', expect.stringMatching(/^Did you mean `debug`\? Services of the template: api, web, debug\./)],
      [at(text, 'LOG_LEVL'), 'environment `stage` overrides variable `LOG_LEVL`, which template `web` does not declare', expect.stringMatching(/^Did you mean `LOG_LEVEL`\? Variables of the template: LOG_LEVEL\./)],
    ]);
  });

  it('a name both instantiated and declared by the environment is an error that points at both', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        services:
          - {type: container, name: WEB, registry: docker-hub, image_name: nginx, tag: "2"}
        variables:
          - {key: LOG_LEVEL, value: debug}
`);
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.summary, d.range?.start, d.related])).toEqual([
      ['manifest.duplicate', 'environment `prod` declares service `WEB`, which its template `web` already declares', at(text, 'WEB'), [{ message: 'defined', range: range(text, 'type: container') }]],
      ['manifest.duplicate', 'environment `prod` declares variable `LOG_LEVEL`, which its template `web` already declares', at(text, 'LOG_LEVEL', 2), [{ message: 'defined', range: range(text, 'key: LOG_LEVEL') }]],
    ]);
  });

  it('overrides without a template, a service both overridden and excluded, a template declared twice', async () => {
    const text = withEnv(`      - name: a
        cluster: c
        exclude_services: [web]
      - name: b
        cluster: c
        template: web
        exclude_services: [web]
        overrides:
          services:
            web: {tag: "2"}
`).replace('    environments:', '      - name: WEB\n    environments:');
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.summary, d.range?.start, d.related?.map((x) => [x.message, x.range.start])])).toEqual([
      ['manifest.duplicate', 'template `WEB` is declared twice in project `shop`', at(text, 'WEB'), [['first declared', at(text, 'web')]]],
      ['manifest.only-with', '`exclude_services` of environment `a` is only allowed with `template`', at(text, 'exclude_services'), undefined],
      ['manifest.exclusive', 'service `web` is both overridden and excluded in environment `b`', at(text, 'web: {tag'), [['excluded', at(text, '[web]', 2)]].map(([m, p]) => [m, { ...(p as object), col: (p as { col: number }).col + 1 }])],
    ]);
  });

  it('a bad value in an override points at the override and at the template service (schema, per file), in every renderer', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            api:
              cpu: 0
`);
    const r = await loadText(text);
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0]!;
    expect(d.code).toBe('schema.out-of-range');
    const value = at(text, 'cpu: 0');
    expect(d.range).toMatchObject({ file: 'm.yaml', start: { line: value.line, col: value.col + 5 } });
    const defined = at(text, 'type: application');
    const overridden = at(text, 'api:', 1);
    expect(d.related).toEqual([
      { message: 'defined', range: range(text, 'type: application') },
      { message: 'overridden', range: range(text, 'api:') },
    ]);
    const both = `defined at m.yaml:${defined.line}:${defined.col}, overridden at m.yaml:${overridden.line}:${overridden.col}`;
    expect(renderDiagnostic(d)).toContain(`= ${both}`);
    expect(renderDiagnosticGithub(d)).toContain(`::error file=m.yaml,line=${value.line},col=${value.col + 5},`);
    expect(renderDiagnosticGithub(d)).toContain(`%0A${both}`);
    expect(renderFailureMarkdown([d], { command: 'driftless plan' })).toContain(`at \`m.yaml:${value.line}:${value.col + 5}\`, defined at \`m.yaml:${defined.line}:${defined.col}\`, overridden at \`m.yaml:${overridden.line}:${overridden.col}\``);
  });

  it('a field the service kind does not have, set by an override, is found once the override is applied', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            web:
              dockerfile_path: Dockerfile
`);
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.summary, d.range?.start, d.address, d.related?.map((x) => [x.message, x.range.start])])).toEqual([
      ['schema.unknown-key', 'unknown key `dockerfile_path` in container `web`', at(text, 'dockerfile_path: Dockerfile', 2), 'project.shop/environment.prod/container.web', [['defined', at(text, 'type: container')], ['overridden', at(text, 'web:', 1)]]],
    ]);
  });

  it('a problem in a template service not overridden points at the template and at each environment that instantiates it, once', async () => {
    const text = withEnv(`      - name: one
        cluster: c
        template: web
      - name: two
        cluster: c
        template: web
`).replace('value: "off"', 'value: ${env:MISSING_FEATURE}');
    const r = await loadText(text);
    const missing = r.diagnostics.filter((d) => d.code === 'ref.env-missing');
    expect(missing.map((d) => [d.range?.start.line, d.related])).toEqual([
      [
        at(text, 'MISSING_FEATURE').line,
        [
          { message: 'defined', range: range(text, 'type: application') },
          { message: 'instantiated', range: range(text, 'template: web', 1) },
          { message: 'instantiated', range: range(text, 'template: web', 2) },
        ],
      ],
    ]);
  });

  it('a problem a later stage reports by address (graph, plan, organization checks) points at the template and the override', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            api:
              cpu: 64000
        services:
          - {type: container, name: own, registry: docker-hub, image_name: nginx, tag: "2"}
`);
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
    const api = env(r.manifest, 'prod').services!.find((s) => s.name === 'api')!;
    const later = [
      diagError('limit.cluster-maximum', 'cpu 64000 is above the cluster maximum', { address: 'project.shop/environment.prod/application.api', range: sourceOf(api, 'cpu') }),
      diagError('api.some-check', 'a variable of the service', { address: 'project.shop/environment.prod/application.api/variable.FEATURE' }),
      diagError('api.some-check', 'a service of the environment itself', { address: 'project.shop/environment.prod/container.own' }),
    ];
    const both = [['defined', at(text, 'type: application')], ['overridden', at(text, 'api:')]];
    expect(relateDiagnostics(r.templates, later).map((d) => d.related?.map((x) => [x.message, x.range.start]))).toEqual([both, both, undefined]);
  });

  it('the template locations are a part of the load result, not hidden on the manifest; buildGraph puts them on the objects', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            api: {cpu: 500}
`);
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
    // They do not ride on the manifest object (only the source ranges of its values do): a copy of
    // it (narrowing, caching) loses nothing.
    expect(Object.getOwnPropertySymbols(r.manifest!).map(String)).toEqual(['Symbol(driftless.source)', 'Symbol(driftless.fieldSources)', 'Symbol(driftless.keySources)']);
    const both = [['defined', at(text, 'type: application')], ['overridden', at(text, 'api:')]];
    expect([...r.templates!.byAddress.get('project.shop/environment.prod/application.api')!].map((x) => [x.message, x.range.start])).toEqual(both);
    const graph = buildGraph(r.manifest!, { templates: r.templates }).graph;
    expect(graph.resources.get('project.shop/environment.prod/application.api')!.related?.map((x) => [x.message, x.range.start])).toEqual(both);
    // Without them, the same manifest builds the same objects with no locations.
    expect(buildGraph(r.manifest!).graph.resources.get('project.shop/environment.prod/application.api')!.related).toBeUndefined();
  });

  it('the template is checked like written environments: a stage naming a service the template lacks', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
`).replace('services: [api, web, debug]', 'services: [api, web, debug, wrker]');
    const r = await loadText(text);
    const errors = r.diagnostics.filter((x) => x.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.range?.start.line).toBe(at(text, 'wrker').line);
    expect(errors[0]!.related).toEqual([{ message: 'defined', range: range(text, 'name: apps') }, { message: 'instantiated', range: range(text, 'template: web') }]);
  });

  it('an override of a secret variable written in clear is warned about, located at both places, and its value never shown', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            api:
              variables:
                - key: FEATURE
                  value: hunter2-in-clear
`).replace('value: "off"', 'value: ${env:FEATURE_SECRET}\n                secret: true');
    const r = await load(tempTree({ 'm.yaml': text }), ['.'], { env: { FEATURE_SECRET: 'x' } });
    const d = r.diagnostics.find((x) => x.code === 'secret.in-clear')!;
    expect(d.range?.start.line).toBe(at(text, 'hunter2-in-clear').line);
    expect(d.related?.map((x) => x.message)).toEqual(['defined', 'overridden']);
    expect(JSON.stringify(r.diagnostics)).not.toContain('hunter2');
    expect(renderDiagnostic(d)).not.toContain('hunter2');
  });
});

describe('hostile keys', () => {
  it('keeps a `__proto__` key of a free-form map as data, in the template and in an override', () => {
    const base = JSON.parse('{"values_override": {"set": {"__proto__": {"a": "1"}, "b": "2"}}}');
    const patch = JSON.parse('{"values_override": {"set": {"__proto__": {"c": "3"}}}}');
    const merged = mergeObjects(base, patch) as { values_override: { set: Record<string, unknown> } };
    expect(Object.keys(merged.values_override.set)).toEqual(['__proto__', 'b']);
    expect(JSON.stringify(merged)).toBe('{"values_override":{"set":{"__proto__":{"a":"1","c":"3"},"b":"2"}}}');
    expect(({} as Record<string, unknown>).c).toBeUndefined();
  });
});

describe('an unused template', () => {
  it('is a warning at its name: it creates nothing by itself', async () => {
    const text = `${TEMPLATE}    environments:\n      - name: plain\n        cluster: c\n`;
    const r = await loadText(text);
    expect(r.manifest).toBeDefined();
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.summary, d.range?.start])).toEqual([
      ['warning', 'manifest.unused-template', 'template `web` of project `shop` is used by no environment', at(text, 'web')],
    ]);
  });
});

describe('a template that cannot be instantiated', () => {
  it('is the one error: the names it would have declared are not reported missing', async () => {
    const text = `${TEMPLATE}    environments:
      - name: prod
        cluster: c
        template: wbe
        deployment_stages:
          - {name: extra, services: [api]}
        variables:
          - {key: LOG_ALIAS, alias: LOG_LEVEL}
`;
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.summary])).toEqual([
      ['manifest.unused-template', 'template `web` of project `shop` is used by no environment'],
      ['ref.unresolved', 'environment `prod` uses template `wbe`, which the project does not declare'],
    ]);
  });

  it('other template errors do not hide the reference checks: one run shows every problem', async () => {
    const text = `${TEMPLATE}    environments:
      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            apii: {cpu: 500}
        variables:
          - {key: LOG_ALIAS, alias: LOG_LEVL}
`;
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.range?.start.line])).toEqual([
      ['ref.unresolved', at(text, 'apii').line],
      ['ref.unresolved', at(text, 'LOG_LEVL').line],
    ]);
  });
});
