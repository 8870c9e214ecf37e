import { describe, expect, it } from 'vitest';
import { sourceOf, fieldSourceOf, keySourceOf } from '../../src/manifest/index.js';
import { hasErrors } from '../../src/diag/diagnostic.js';
import { APP, load, manifestWith, tempTree } from './helpers.js';

describe('loadManifest: one file', () => {
  it('returns the manifest with the source of every object and field', async () => {
    const dir = tempTree({ 'm.yaml': manifestWith() });
    const r = await load(dir, ['m.yaml']);
    expect(r.diagnostics).toEqual([]);
    expect(r.files).toEqual(['m.yaml']);
    const project = r.manifest!.projects![0]!;
    expect(project.name).toBe('shop');
    expect(sourceOf(project)).toEqual({ file: 'm.yaml', start: { line: 3, col: 5 }, end: expect.any(Object) });
    const service = project.environments![0]!.services![0]!;
    expect(service).toMatchObject({ type: 'application', name: 'api', dockerfile_path: 'Dockerfile' });
    expect(fieldSourceOf(service, 'name')).toMatchObject({ file: 'm.yaml', start: { line: 9, col: 19 } });
    expect(keySourceOf(service, 'name')).toMatchObject({ start: { line: 9, col: 13 } });
    expect(sourceOf(service, 'dockerfile_path')!.start.line).toBe(11);
  });

  it('keeps the source information out of JSON and key listings', async () => {
    const dir = tempTree({ 'm.yaml': manifestWith() });
    const r = await load(dir, ['m.yaml']);
    const project = r.manifest!.projects![0]!;
    expect(Object.keys(project)).toEqual(['name', 'environments']);
    expect(JSON.parse(JSON.stringify(r.manifest))).toEqual({
      version: 1,
      projects: [{ name: 'shop', environments: [{ name: 'prod', cluster: 'production-cluster', services: [{ type: 'application', name: 'api', git_repository: { url: 'https://github.com/acme/api.git' }, dockerfile_path: 'Dockerfile' }] }] }],
    });
  });

  it('does not fill defaults: a field the manifest omits stays absent (it is not owned)', async () => {
    const dir = tempTree({ 'm.yaml': manifestWith() });
    const r = await load(dir, ['m.yaml']);
    const env = r.manifest!.projects![0]!.environments![0]!;
    expect('mode' in env).toBe(false);
    expect('cpu' in env.services![0]!).toBe(false);
  });

  it('reports a missing path', async () => {
    const dir = tempTree({});
    const r = await load(dir, ['nope.yaml']);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toMatchObject([{ severity: 'error', code: 'manifest.not-found', summary: 'no such file or directory: nope.yaml' }]);
  });
});

describe('loadManifest: a directory', () => {
  it('merges the *.yaml and *.yml files in name order and ignores other and hidden files', async () => {
    const dir = tempTree({
      'b.yml': 'version: 1\nprojects:\n  - name: second\n',
      'a.yaml': 'version: 1\nprojects:\n  - name: first\nwebhooks:\n  - target_url: https://hooks.example.com/a\n    events: [DEPLOYMENT_FAILED]\n',
      'notes.txt': 'not a manifest',
      '.prettierrc.yaml': 'semi: false\n',
      'sub/c.yaml': 'projects: [{name: nested}]\n',
    });
    const r = await load(dir);
    expect(r.diagnostics).toEqual([]);
    expect(r.files).toEqual(['a.yaml', 'b.yml']);
    expect(r.manifest!.projects!.map((p) => p.name)).toEqual(['first', 'second']);
    expect(r.manifest!.webhooks).toHaveLength(1);
    // Each merged entry still knows its own file.
    expect(sourceOf(r.manifest!.projects![1])!.file).toBe('b.yml');
  });

  it('is deterministic whatever the order the paths are given in', async () => {
    const dir = tempTree({ 'x.yaml': 'projects: [{name: x}]\n', 'y.yaml': 'projects: [{name: y}]\n' });
    const one = await load(dir, ['y.yaml', 'x.yaml']);
    const dirLoad = await load(dir, ['.']);
    expect(dirLoad.manifest!.projects!.map((p) => p.name)).toEqual(['x', 'y']);
    expect(one.manifest!.projects!.map((p) => p.name)).toEqual(['y', 'x']);
  });

  it('merges a project declared in two files, and names both places when they spell it differently', async () => {
    const same = await load(tempTree({ 'a.yaml': 'projects:\n  - name: shop\n    description: d\n', 'b.yaml': '\nprojects:\n  - name: shop\n    variables: [{key: A, value: "1"}]\n' }));
    expect(same.diagnostics).toEqual([]);
    expect(same.manifest!.projects).toEqual([{ name: 'shop', description: 'd', variables: [{ key: 'A', value: '1' }] }]);
    const dir = tempTree({ 'a.yaml': 'projects:\n  - name: shop\n', 'b.yaml': '\nprojects:\n  - name: Shop\n' });
    const r = await load(dir);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'manifest.conflict',
      summary: 'project `Shop` is spelled `shop` in another file',
      range: { file: 'b.yaml', start: { line: 3, col: 11 } },
      address: 'project.shop',
    });
    expect(r.diagnostics[0]!.detail).toContain('a.yaml:2:11');
  });

  it('refuses `organization` declared in two files', async () => {
    const dir = tempTree({ 'a.yaml': 'organization: {name: acme}\n', 'b.yaml': 'organization: {description: x}\n' });
    const r = await load(dir);
    expect(r.diagnostics).toMatchObject([{ code: 'manifest.duplicate', range: { file: 'b.yaml', start: { line: 1, col: 1 } } }]);
    expect(r.diagnostics[0]!.detail).toContain('a.yaml:1:1');
  });

  it('reports an empty directory', async () => {
    const dir = tempTree({ 'readme.md': '# nothing' });
    const r = await load(dir);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toMatchObject([{ code: 'manifest.empty-directory' }]);
  });
});

describe('duplicates inside one scope', () => {
  const cases: Array<[string, string, string]> = [
    [
      'environment',
      `version: 1\nprojects:\n  - name: shop\n    environments:\n      - {name: prod, cluster: c}\n      - {name: PROD, cluster: c}\n`,
      'environment of project `shop`: `PROD` is declared twice',
    ],
    ['service', manifestWith(APP + APP.replace('api', 'API')), 'service of environment `prod`: `API` is declared twice'],
    [
      'variable key',
      `version: 1\nprojects:\n  - name: shop\n    variables:\n      - {key: A, value: "1"}\n      - {key: A, value: "2"}\n`,
      'variable `A` is declared twice',
    ],
    [
      'alert receiver',
      `alert_receivers:\n  - {name: ops, type: SLACK, webhook_url: "\${env:U}"}\n  - {name: ops, type: SLACK, webhook_url: "\${env:U}"}\n`,
      'alert receiver `ops` is declared twice',
    ],
    [
      'webhook target_url',
      `webhooks:\n  - {target_url: "https://h.example.com/x", events: [DEPLOYMENT_FAILED]}\n  - {target_url: "https://h.example.com/x", events: [DEPLOYMENT_STARTED]}\n`,
      'webhook with target_url `https://h.example.com/x` is declared twice',
    ],
    [
      'annotation group',
      `annotation_groups:\n  - {name: g, annotations: {a: b}, scopes: [PODS]}\n  - {name: g, annotations: {a: c}, scopes: [PODS]}\n`,
      'annotation group `g` is declared twice',
    ],
    [
      'service in two stages',
      manifestWith(APP) + `        deployment_stages:\n          - {name: one, services: [api]}\n          - {name: two, services: [api]}\n`,
      'service `api` is listed in two deployment stages',
    ],
  ];
  it.each(cases)('%s', async (_what, yaml, summary) => {
    const dir = tempTree({ 'm.yaml': yaml });
    const r = await load(dir, ['m.yaml'], { env: { U: 'https://hooks.slack.com/x' } });
    const d = r.diagnostics.filter((x) => x.code === 'manifest.duplicate');
    expect(d.map((x) => x.summary)).toEqual([summary]);
    expect(d[0]!.detail).toMatch(/m\.yaml:\d+:\d+/);
    expect(d[0]!.range!.file).toBe('m.yaml');
    expect(hasErrors(r.diagnostics)).toBe(true);
  });
});

describe('all problems at once', () => {
  it('checks the valid files further when another file fails the schema', async () => {
    const dir = tempTree({
      'a.yaml': 'version: 1\nprojects:\n  - name: shop\n    descripton: typo\n',
      'b.yaml': 'version: 1\nalert_receivers:\n  - {name: ops, type: SLACK, webhook_url: "${env:NOT_SET}"}\n  - {name: ops, type: SLACK, webhook_url: "${env:NOT_SET}"}\nalert_rules:\n  - {name: r, target: {cluster: c}, condition: {promql: up}, severity: LOW, receivers: [nobody]}\n',
      'c.yaml': '# empty\n',
    });
    const r = await load(dir);
    expect(r.diagnostics.map((d) => `${d.range?.file}:${d.range?.start.line} ${d.code}`)).toEqual([
      'a.yaml:4 schema.unknown-key',
      'b.yaml:3 ref.env-missing',
      'b.yaml:4 manifest.duplicate',
      'b.yaml:4 ref.env-missing',
      'c.yaml:1 manifest.empty-file',
    ]);
    // The unknown receiver is not reported: it could be declared in the broken file.
  });
});

describe('a problem repeated at one place', () => {
  it('is reported once, with the places of every repeat: a template mistake seen by each environment that instantiates it', async () => {
    const dir = tempTree({
      'm.yaml': `version: 1
projects:
  - name: shop
    templates:
      - name: stack
        services:
          - {type: container, name: web, registry: docker-hub, image_name: nginx, tag: "1", ignore_changes: [tagg]}
    environments:
      - {name: staging, cluster: staging-cluster, template: stack}
      - {name: production, cluster: production-cluster, template: stack}
`,
    });
    const r = await load(dir);
    expect(r.diagnostics.map((d) => [d.code, `${d.range!.file}:${d.range!.start.line}`])).toEqual([['manifest.ignore-path', 'm.yaml:7']]);
    expect(r.diagnostics[0]!.related!.filter((x) => x.message === 'instantiated').map((x) => x.range.start.line)).toEqual([9, 10]);
  });
});

