/**
 * What an environment gets from its template (src/manifest/templates.ts), beyond the merge rule:
 * its own objects after the template's, each located where it was written; names matched as the
 * rest of the manifest matches them (services and templates case-insensitively, variable keys
 * exactly); and every mistake an error at the file and line that made it, also when the template
 * and the environment are in different files.
 */
import { describe, expect, it } from 'vitest';
import { relateDiagnostics } from '../../src/manifest/templates.js';
import { sourceOf } from '../../src/manifest/types.js';
import { fieldSourceOf, keySourceOf } from '../../src/manifest/source-map.js';
import { error as diagError } from '../../src/diag/diagnostic.js';
import { load, loadText, tempTree } from './helpers.js';
import { at, environmentOf as envOf, where } from '../support/manifest-positions.js';

const TEMPLATE = `version: 1
projects:
  - name: shop
    templates:
      - name: web
        variables:
          - {key: LOG_LEVEL, value: info}
          - {key: REGION, value: eu}
        deployment_stages:
          - name: apps
            services: [api, worker]
        services:
          - type: container
            name: api
            registry: hub
            image_name: api
            tag: "1"
          - type: container
            name: worker
            registry: hub
            image_name: worker
            tag: "1"
`;

const withEnv = (envYaml: string) => `${TEMPLATE}    environments:\n${envYaml}`;

describe("an environment's own objects beside its template's", () => {
  it("come after the template's, each located where the environment writes it; the lists it does not write are located in the template", async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        services:
          - {type: container, name: cron, registry: hub, image_name: cron, tag: "1"}
        variables:
          - {key: log_level, value: debug}
`);
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
    const prod = envOf(r.manifest, 'prod');
    expect(prod.services!.map((s) => s.name)).toEqual(['api', 'worker', 'cron']);
    // Variable keys are case-sensitive: `log_level` is a variable of its own, not a clash.
    expect(prod.variables!.map((v) => [v.key, v.value])).toEqual([
      ['LOG_LEVEL', 'info'],
      ['REGION', 'eu'],
      ['log_level', 'debug'],
    ]);
    expect(where(fieldSourceOf(prod.services, '0'))).toBe(`m.yaml:${at(text, 'type: container').line}:${at(text, 'type: container').col}`);
    expect(where(fieldSourceOf(prod.services, '2'))).toBe(`m.yaml:${at(text, '{type: container, name: cron').line}:${at(text, '{type: container, name: cron').col}`);
    expect(where(fieldSourceOf(prod.variables, '2'))).toBe(`m.yaml:${at(text, '{key: log_level').line}:${at(text, '{key: log_level').col}`);
    // The lists: the environment's own `services:` and `variables:`; the stages, which it does not write, the template's.
    expect(where(keySourceOf(prod, 'services'))?.split(':')[1]).toBe(String(at(text, 'services:', 3).line));
    expect(where(keySourceOf(prod, 'variables'))?.split(':')[1]).toBe(String(at(text, 'variables:', 2).line));
    expect(where(keySourceOf(prod, 'deployment_stages'))?.split(':')[1]).toBe(String(at(text, 'deployment_stages:').line));
    // The list written by the environment is located at its value, the list object as well.
    expect(sourceOf(prod, 'services')?.start.line).toBe(at(text, '{type: container, name: cron').line);
    expect(sourceOf(prod.services)?.start.line).toBe(at(text, '{type: container, name: cron').line);
    expect(where(fieldSourceOf(prod.deployment_stages, '0'))).toBe(`m.yaml:${at(text, '- name: apps').line}:${at(text, 'name: apps').col}`);
    // A service not overridden is where the template defines it and where the environment names the template.
    expect(r.templates!.byAddress.get('project.shop/environment.prod/container.worker')!.map((x) => [x.message, x.range.start.line])).toEqual([
      ['defined', at(text, 'name: worker').line - 1],
      ['instantiated', at(text, 'template: web').line],
    ]);
  });

  it('a template without variables or stages gives the environment none: no empty lists', async () => {
    const text = `version: 1
projects:
  - name: shop
    templates:
      - name: bare
        services:
          - {type: container, name: api, registry: hub, image_name: api, tag: "1"}
    environments:
      - name: prod
        cluster: c
        template: bare
`;
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
    const prod = envOf(r.manifest, 'prod') as unknown as Record<string, unknown>;
    expect(Object.keys(prod).sort()).toEqual(['cluster', 'name', 'services']);
  });

  it('an environment may name its template in another case; the template is then used, not "unused"', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: WEB
        exclude_services: [WORKER]
        overrides:
          services:
            API: {tag: "2"}
`);
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
    const prod = envOf(r.manifest, 'prod');
    expect(prod.services!.map((s) => [s.name, (s as { tag?: string }).tag])).toEqual([['api', '2']]);
    expect(prod.deployment_stages![0]!.services).toEqual(['api']);
    // The stage's list keeps its place in the template (a stage problem points there).
    expect(sourceOf(prod.deployment_stages![0]!.services)?.start).toEqual(at(text, '[api, worker]'));
    // Another environment of the template, with nothing excluded, has the template's stages as they are.
    const other = await loadText(withEnv('      - {name: other, cluster: c, template: web, overrides: {services: {api: {tag: "3"}}}}\n'));
    expect(envOf(other.manifest, 'other').deployment_stages![0]!.services).toEqual(['api', 'worker']);
    expect(r.templates!.byAddress.get('project.shop/environment.prod/container.api')!.map((x) => x.message)).toEqual(['defined', 'overridden']);
  });
});

describe('mistakes, each at its file and line', () => {
  it('`overrides` without a template is an error at the key', async () => {
    const text = withEnv(`      - name: web-env
        cluster: c
        template: web
      - name: prod
        cluster: c
        overrides:
          services:
            api: {tag: "2"}
`);
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.summary, d.address, where(d.range)])).toEqual([
      ['error', 'manifest.only-with', '`overrides` of environment `prod` is only allowed with `template`', 'project.shop/environment.prod', `m.yaml:${at(text, 'overrides:').line}:${at(text, 'overrides:').col}`],
    ]);
    expect(r.diagnostics[0]!.detail).toBe('It changes the services of a template: name one with `template: NAME`, or write the services in the environment itself.');
  });

  it('a bad value in an overridden variable points at the override, the template variable it overrides, and the override item', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          variables:
            - key: REGION
              value: us
              secret: maybe
`);
    const r = await loadText(text);
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0]!;
    expect(d.range?.start.line).toBe(at(text, 'secret: maybe').line);
    expect(d.related?.map((x) => [x.message, where(x.range)])).toEqual([
      ['defined', `m.yaml:${at(text, '{key: REGION').line}:${at(text, '{key: REGION').col}`],
      ['overridden', `m.yaml:${at(text, 'key: REGION', 2).line}:${at(text, 'key: REGION', 2).col}`],
    ]);
  });

  it('a bad value in an override written in another file than the template (names in another case) points at the template in its own file', async () => {
    const env = `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: c
        template: Web
        overrides:
          services:
            Api:
              cpu: 0
`;
    const r = await load(tempTree({ 'a-template.yaml': TEMPLATE, 'b-env.yaml': env }));
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, d.summary])).toEqual([['schema.out-of-range', '`cpu` of `Api` of environment `prod` must be >= 1']]);
    const d = errors[0]!;
    expect(where(d.range)).toMatch(new RegExp(`^b-env\\.yaml:${at(env, 'cpu: 0').line}:`));
    expect(d.related?.map((x) => [x.message, where(x.range)])).toEqual([
      ['defined', `a-template.yaml:${at(TEMPLATE, 'type: container').line}:${at(TEMPLATE, 'type: container').col}`],
      ['overridden', `b-env.yaml:${at(env, 'Api:').line}:${at(env, 'Api:').col}`],
    ]);
  });

  it('a missing ${env:} in an override points at the override and the template service, not at other environments', async () => {
    const text = withEnv(`      - name: staging
        cluster: c
        template: web
      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            api:
              image_name: \${env:MISSING_IMAGE}
`);
    const r = await loadText(text);
    const missing = r.diagnostics.filter((d) => d.code === 'ref.env-missing');
    expect(missing).toHaveLength(1);
    expect(missing[0]!.range?.start.line).toBe(at(text, 'MISSING_IMAGE').line);
    expect(missing[0]!.related?.map((x) => [x.message, x.range.start.line])).toEqual([
      ['defined', at(text, 'type: container').line],
      ['overridden', at(text, 'api:').line],
    ]);
  });

  it('a diagnostic that already names its other places, or points at the one place, is left as it is', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
`);
    const r = await loadText(text);
    const api = envOf(r.manifest, 'prod').services![0]!;
    const own = { message: 'elsewhere', range: { file: 'x.yaml', start: { line: 1, col: 1 } } };
    const withOwn = diagError('x.check', 'already related', { address: 'project.shop/environment.prod/container.api', related: [own] });
    const atDefinition = diagError('x.check', 'at the definition', { address: 'project.shop/environment.prod/container.api', range: sourceOf(api) });
    const out = relateDiagnostics(r.templates, [withOwn, atDefinition]);
    expect(out[0]).toEqual(withOwn);
    // The place the diagnostic points at is not repeated: only the environment's `template:` line is added.
    expect(out[1]!.related?.map((x) => [x.message, x.range.start.line])).toEqual([['instantiated', at(text, 'template: web').line]]);
    // Without templates, the diagnostics come back unchanged.
    expect(relateDiagnostics(undefined, [atDefinition])).toEqual([atDefinition]);
  });
});

describe('what each template mistake tells the user to do', () => {
  it('names the fix in its detail: rename, exclude, override, or use the template', async () => {
    const text = `${TEMPLATE}      - name: WEB
      - name: spare
    environments:
      - name: prod
        cluster: c
        template: web
        exclude_services: [worker]
        overrides:
          services:
            worker: {tag: "2"}
        services:
          - {type: container, name: API, registry: hub, image_name: api, tag: "2"}
        variables:
          - {key: REGION, value: us}
`;
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.summary, d.detail, d.range?.start.line])).toEqual([
      ['error', 'manifest.duplicate', 'template `WEB` is declared twice in project `shop`', 'Template names are unique in a project (case-insensitive); rename or remove one.', at(text, '- name: WEB').line],
      ['warning', 'manifest.unused-template', 'template `spare` of project `shop` is used by no environment', 'A template creates nothing by itself: name it in an environment with `template:`, or remove it.', at(text, 'spare').line],
      ['error', 'manifest.exclusive', 'service `worker` is both overridden and excluded in environment `prod`', 'An excluded service does not exist in this environment: remove the override or the exclusion.', at(text, 'worker: {tag').line],
      ['error', 'manifest.duplicate', 'environment `prod` declares service `API`, which its template `web` already declares', "Change it with `overrides:` instead, or leave the template's out with `exclude_services:`; a name is declared once per environment.", at(text, 'name: API').line],
      ['error', 'manifest.duplicate', 'environment `prod` declares variable `REGION`, which its template `web` already declares', 'Change it with `overrides:` instead; a name is declared once per environment.', at(text, '{key: REGION, value: us}').line],
    ]);
    expect(r.diagnostics.every((d) => d.address === 'project.shop' || d.address === 'project.shop/environment.prod')).toBe(true);
  });
});

describe('the load result', () => {
  it('carries the template locations only when the manifest uses templates', async () => {
    const plain = await load(tempTree({ 'm.yaml': 'version: 1\nprojects:\n  - name: shop\n    environments:\n      - {name: prod, cluster: c}\n' }));
    expect(plain.diagnostics).toEqual([]);
    expect(plain.templates).toBeUndefined();
    const templated = await loadText(withEnv('      - {name: prod, cluster: c, template: web}\n'));
    expect(templated.templates?.byAddress.size).toBeGreaterThan(0);
  });

  it('an overridden environment variable is located at the template and at its override, for every later check', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          variables:
            - {key: LOG_LEVEL, value: debug}
`);
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
    const places = (key: string) => r.templates!.byAddress.get(`project.shop/environment.prod/variable.${key}`)!.map((x) => [x.message, x.range.start.line]);
    expect(places('LOG_LEVEL')).toEqual([
      ['defined', at(text, '{key: LOG_LEVEL').line],
      ['overridden', at(text, '{key: LOG_LEVEL', 2).line],
    ]);
    expect(places('REGION')).toEqual([
      ['defined', at(text, '{key: REGION').line],
      ['instantiated', at(text, 'template: web').line],
    ]);
    expect(envOf(r.manifest, 'prod').variables!.map((v) => [v.key, v.value])).toEqual([
      ['LOG_LEVEL', 'debug'],
      ['REGION', 'eu'],
    ]);
  });

  it("an unknown template in one project is the one error there, whatever another project holds", async () => {
    const text = `${TEMPLATE}    environments:
      - {name: prod, cluster: c, template: web}
  - name: blog
    environments:
      - name: prod
        cluster: c
        template: wbe
        deployment_stages:
          - {name: extra, services: [api]}
`;
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.summary])).toEqual([['ref.unresolved', 'environment `prod` uses template `wbe`, which the project does not declare']]);
  });

  it("a previews declaration's overrides are checked, but their ${env:} is read only when a preview is made", async () => {
    const text = `${TEMPLATE}    previews:
      template: web
      name: "pr-{number}"
      cluster: c
      overrides:
        services:
          api: {tag: "\${env:PREVIEW_TAG}"}
    environments:
      - {name: staging, cluster: c, template: web}
`;
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
    expect((r.manifest!.projects![0]!.previews as unknown as Record<string, unknown>).overrides).toBeUndefined();
  });
});

describe('more of what an environment gets', () => {
  it("its own deployment stages come after the template's; one with a template stage's name is an error at both", async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        services:
          - {type: container, name: cron, registry: hub, image_name: cron, tag: "1"}
        deployment_stages:
          - {name: extra, services: [cron]}
      - name: dup
        cluster: c
        template: web
        deployment_stages:
          - {name: APPS, services: [api]}
`);
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.summary, d.range?.start.line, d.related?.map((x) => [x.message, x.range.start.line])])).toEqual([
      ['manifest.duplicate', 'environment `dup` declares deployment stage `APPS`, which its template `web` already declares', at(text, 'APPS').line, [['defined', at(text, '- name: apps').line]]],
    ]);
    const ok = await loadText(text.replace(/      - name: dup[\s\S]*$/, ''));
    expect(ok.diagnostics).toEqual([]);
    expect(envOf(ok.manifest, 'prod').deployment_stages!.map((s) => s.name)).toEqual(['apps', 'extra']);
  });

  it('an explicitly empty list of the environment stays, empty', async () => {
    const text = withEnv('      - {name: prod, cluster: c, template: web, variables: []}\n').replace(/        variables:\n.*\n.*\n/, '');
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
    expect(envOf(r.manifest, 'prod').variables).toEqual([]);
  });

  it('a template used only by previews is not "unused"', async () => {
    const text = `${TEMPLATE}    previews: {template: web, name: "pr-{number}", cluster: c}
    environments:
      - {name: plain, cluster: c}
`;
    const r = await loadText(text);
    expect(r.diagnostics).toEqual([]);
  });

  it('an unknown service or variable override with no near name lists what the template has, or says none', async () => {
    const text = `version: 1
projects:
  - name: shop
    templates:
      - name: vars
        variables:
          - {key: LOG_LEVEL, value: info}
      - name: bare
        services:
          - {type: container, name: api, registry: hub, image_name: api, tag: "1"}
    environments:
      - name: a
        cluster: c
        template: vars
        overrides:
          services:
            zzzzzzzz: {tag: "2"}
      - name: b
        cluster: c
        template: bare
        overrides:
          variables:
            - {key: QQQQQQQQ, value: x}
          services:
            qqqqqqqq: {tag: "2"}
      - name: d
        cluster: c
        template: vars
        overrides:
          variables:
            - {key: ZZZZZZZZ, value: x}
`;
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.summary, d.detail, d.related?.map((x) => [x.message, x.range.start.line])])).toEqual([
      ['ref.unresolved', 'environment `a` overrides service `zzzzzzzz`, which template `vars` does not declare', 'Services of the template: none. A service of this environment only is written in its own `services:`.', [['template declared', at(text, 'name: vars').line]]],
      ['ref.unresolved', 'environment `b` overrides variable `QQQQQQQQ`, which template `bare` does not declare', 'Variables of the template: none. A variable of this environment only is written in its own `variables:`.', [['template declared', at(text, 'name: bare').line]]],
      ['ref.unresolved', 'environment `b` overrides service `qqqqqqqq`, which template `bare` does not declare', 'Services of the template: api. A service of this environment only is written in its own `services:`.', [['template declared', at(text, 'name: bare').line]]],
      ['ref.unresolved', 'environment `d` overrides variable `ZZZZZZZZ`, which template `vars` does not declare', 'Variables of the template: LOG_LEVEL. A variable of this environment only is written in its own `variables:`.', [['template declared', at(text, 'name: vars').line]]],
    ]);
  });

  it('an override of a variable is matched by its exact key: `region` does not point at the template\'s `REGION`', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          variables:
            - key: region
              value: us
              secret: maybe
`);
    const r = await loadText(text);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]!.related?.map((x) => x.message)).toEqual(['overridden']);
  });

  it('a missing ${env:} in a one-line override is located at both places; one outside any template has no other place', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        overrides:
          services:
            api: {image_name: "\${env:MISSING_IMAGE}"}
      - name: plain
        cluster: c
        services:
          - {type: container, name: solo, registry: hub, image_name: "\${env:MISSING_SOLO}", tag: "1"}
`);
    const r = await loadText(text);
    const missing = r.diagnostics.filter((d) => d.code === 'ref.env-missing');
    expect(missing.map((d) => [d.range?.start.line, d.related?.map((x) => x.message)])).toEqual([
      [at(text, 'MISSING_IMAGE').line, ['defined', 'overridden']],
      [at(text, 'MISSING_SOLO').line, undefined],
    ]);
  });

  it('the checks of a plain environment still run beside templated ones, and without any template', async () => {
    const stage = `      - name: plain
        cluster: c
        services:
          - {type: container, name: solo, registry: hub, image_name: solo, tag: "1"}
        deployment_stages:
          - {name: s, services: [solo, ghost]}
`;
    for (const text of [withEnv(`      - {name: prod, cluster: c, template: web}\n${stage}`), `version: 1\nprojects:\n  - name: shop\n    environments:\n${stage}`]) {
      const r = await loadText(text);
      expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.range?.start.line)).toEqual([at(text, 'ghost').line]);
    }
  });

  it('an environment naming a template its project does not declare is an error, also beside a plain environment and a plain project', async () => {
    const text = `version: 1
projects:
  - name: plain
    environments:
      - {name: prod, cluster: c}
  - name: shop
    environments:
      - {name: plain, cluster: c}
      - {name: prod, cluster: c, template: web}
`;
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.summary])).toEqual([['ref.unresolved', 'environment `prod` uses template `web`, which the project does not declare']]);
  });

  it('a service both overridden and excluded points at its place in the exclusion list', async () => {
    const text = withEnv(`      - name: prod
        cluster: c
        template: web
        exclude_services: [api, worker]
        overrides:
          services:
            worker: {tag: "2"}
`);
    const r = await loadText(text);
    expect(r.diagnostics.map((d) => [d.code, d.related?.map((x) => [x.message, x.range.start])])).toEqual([
      ['manifest.exclusive', [['excluded', at(text, 'worker]', 2)]]],
    ]);
  });

  it('a file or an item that is not a mapping is an error, never a crash', async () => {
    const files: Array<Record<string, string>> = [
      { 'a.yaml': TEMPLATE, 'b.yaml': '"just a string"\n' },
      { 'a.yaml': TEMPLATE, 'b.yaml': 'version: 1\nprojects: [~]\n' },
      { 'a.yaml': TEMPLATE.replace('    templates:\n', '    templates:\n      - ~\n') },
      { 'a.yaml': `${TEMPLATE}    environments:\n      - ~\n` },
      { 'a.yaml': `${TEMPLATE}    environments:\n      - name: prod\n        cluster: c\n        template: web\n        overrides:\n          services:\n            api: ~\n` },
    ];
    for (const tree of files) {
      const r = await load(tempTree(tree));
      expect(r.diagnostics.filter((d) => d.severity === 'error').length, JSON.stringify(tree)).toBeGreaterThan(0);
      expect(r.diagnostics.every((d) => d.range !== undefined), JSON.stringify(r.diagnostics)).toBe(true);
    }
  });
});

describe('relateDiagnostics', () => {
  it('says a template value\'s problem once for all its environments, but keeps two problems about objects apart', async () => {
    const text = withEnv('      - {name: one, cluster: c, template: web}\n      - {name: two, cluster: c, template: web}\n');
    const r = await loadText(text);
    const api = envOf(r.manifest, 'one').services![0]!;
    const byRange = diagError('x.check', 'a value', { range: sourceOf(api, 'tag') });
    const out = relateDiagnostics(r.templates, [byRange, { ...byRange }]);
    expect(out).toHaveLength(1);
    expect(out[0]!.related?.map((x) => x.message)).toEqual(['defined', 'instantiated', 'instantiated']);
    const byAddress = diagError('x.check', 'an object', { address: 'project.shop/environment.one/container.api', range: sourceOf(api, 'tag') });
    expect(relateDiagnostics(r.templates, [byAddress, { ...byAddress }])).toHaveLength(2);
    // A diagnostic about an object written out in full is returned as it is.
    const plain = diagError('x.check', 'not templated', { address: 'project.shop/environment.zzz' });
    expect(relateDiagnostics(r.templates, [plain])[0]).toBe(plain);
  });
});
