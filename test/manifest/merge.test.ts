/**
 * mergeManifestFiles on its own (the loader's directory merge, without the schema and the checks
 * around it): where every merged value says it was written (diagnostics of later stages point
 * there), which declarations form one object when a file declares a name twice, and the messages
 * and addresses of what two files may not both write.
 */
import { describe, expect, it } from 'vitest';
import type { SourceRange } from '../../src/diag/diagnostic.js';
import { mergeManifestFiles } from '../../src/manifest/merge.js';
import { parseYamlFile } from '../../src/manifest/parse-yaml.js';
import { fieldSourceOf, keySourceOf } from '../../src/manifest/source-map.js';
import { sourceOf } from '../../src/manifest/types.js';

type Obj = Record<string, any>;

function merge(files: Record<string, string>) {
  const parts = Object.entries(files).map(([file, text]) => {
    const parsed = parseYamlFile(text, file);
    expect(parsed.diagnostics).toEqual([]);
    return { file, value: parsed.value as Obj };
  });
  const r = mergeManifestFiles(parts);
  return { manifest: r.manifest as unknown as Obj, diagnostics: r.diagnostics };
}

const at = (r: SourceRange | undefined) => (r ? `${r.file}:${r.start.line}:${r.start.col}` : undefined);

const A = `version: 1
clusters:
  - name: c1
projects:
  - name: shop
    variables:
      - {key: REGION, value: eu}
    environments:
      - name: prod
        cluster: c1
        overrides:
          services:
            api: {cpu: 500}
            web: {cpu: 250}
`;

const B = `version: 1
clusters:
  - name: c2
  - name: c3
projects:
  - name: shop
    environments:
      - name: prod
        mode: PRODUCTION
        overrides:
          services:
            worker: {cpu: 100}
          variables:
            - {key: LOG, value: debug}
`;

describe('where merged values were written', () => {
  it('each organization-level list entry where its own file wrote it, the list where the first file wrote it', () => {
    const { manifest, diagnostics } = merge({ 'a.yaml': A, 'b.yaml': B });
    expect(diagnostics).toEqual([]);
    expect(manifest.clusters.map((c: Obj) => c.name)).toEqual(['c1', 'c2', 'c3']);
    expect(['0', '1', '2'].map((i) => at(fieldSourceOf(manifest.clusters, i)))).toEqual(['a.yaml:3:5', 'b.yaml:3:5', 'b.yaml:4:5']);
    expect(at(sourceOf(manifest.clusters))).toBe('a.yaml:3:3');
    expect(at(fieldSourceOf(manifest, 'clusters'))).toBe('a.yaml:3:3');
    expect(at(keySourceOf(manifest, 'clusters'))).toBe('a.yaml:2:1');
    expect(at(sourceOf(manifest))).toBe('a.yaml:1:1');
  });

  it('a list that only a later file writes is located in that file', () => {
    const { manifest } = merge({ 'a.yaml': 'version: 1\nclusters: []\n', 'b.yaml': B });
    expect(at(fieldSourceOf(manifest.clusters, '0'))).toBe('b.yaml:3:5');
    expect(at(sourceOf(manifest.clusters))).toBe('b.yaml:3:3');
    const later = merge({ 'a.yaml': 'version: 1\norganization: {name: acme}\n', 'b.yaml': B }).manifest;
    expect(at(fieldSourceOf(later, 'clusters'))).toBe('b.yaml:3:3');
    expect(at(keySourceOf(later, 'clusters'))).toBe('b.yaml:2:1');
    expect(at(fieldSourceOf(later, 'organization'))).toBe('a.yaml:2:15');
  });

  it('a project and an environment of several files: at the first declaration, each list entry where it was written', () => {
    const { manifest } = merge({ 'a.yaml': A, 'b.yaml': B });
    expect(at(fieldSourceOf(manifest, 'projects'))).toBe('a.yaml:5:3');
    expect(at(sourceOf(manifest.projects))).toBe('a.yaml:5:3');
    expect(at(fieldSourceOf(manifest.projects, '0'))).toBe('a.yaml:5:5');
    const shop = manifest.projects[0];
    expect(at(sourceOf(shop))).toBe('a.yaml:5:5');
    expect(at(fieldSourceOf(shop, 'name'))).toBe('a.yaml:5:11');
    expect(at(fieldSourceOf(shop, 'environments'))).toBe('a.yaml:9:7');
    expect(at(keySourceOf(shop, 'environments'))).toBe('a.yaml:8:5');
    expect(at(sourceOf(shop.environments))).toBe('a.yaml:9:7');
    const prod = shop.environments[0];
    expect(at(fieldSourceOf(shop.environments, '0'))).toBe('a.yaml:9:9');
    expect(at(fieldSourceOf(prod, 'mode'))).toBe('b.yaml:9:15');
    expect(at(fieldSourceOf(prod, 'cluster'))).toBe('a.yaml:10:18');
  });

  it("an environment's overrides written in two files: one mapping, each service entry and variable where it was written", () => {
    const { manifest } = merge({ 'a.yaml': A, 'b.yaml': B });
    const overrides = manifest.projects[0].environments[0].overrides;
    expect(Object.keys(overrides.services)).toEqual(['api', 'web', 'worker']);
    expect(overrides.variables).toEqual([{ key: 'LOG', value: 'debug' }]);
    expect(at(sourceOf(overrides))).toBe('a.yaml:12:11');
    expect(at(fieldSourceOf(manifest.projects[0].environments[0], 'overrides'))).toBe('a.yaml:12:11');
    expect(at(sourceOf(overrides.services))).toBe('a.yaml:13:13');
    expect(at(fieldSourceOf(overrides, 'services'))).toBe('a.yaml:13:13');
    expect(at(keySourceOf(overrides.services, 'worker'))).toBe('b.yaml:12:13');
    expect(at(fieldSourceOf(overrides.services, 'web'))).toBe('a.yaml:14:18');
    expect(at(fieldSourceOf(overrides.variables, '0'))).toBe('b.yaml:14:15');
  });
});

describe('which declarations are one object', () => {
  it('a name declared twice in one file stays two entries; another file adds to the first of them', () => {
    const a = 'version: 1\nprojects:\n  - name: shop\n    description: one\n  - name: shop\n    description: two\n';
    const b = 'version: 1\nprojects:\n  - name: shop\n    variables: [{key: K, value: v}]\n';
    const { manifest, diagnostics } = merge({ 'a.yaml': a, 'b.yaml': b });
    expect(diagnostics).toEqual([]);
    expect(manifest.projects).toEqual([
      { name: 'shop', description: 'one', variables: [{ key: 'K', value: 'v' }] },
      { name: 'shop', description: 'two' },
    ]);
    expect(['0', '1'].map((i) => at(fieldSourceOf(manifest.projects, i)))).toEqual(['a.yaml:3:5', 'a.yaml:5:5']);
  });

  it('a second declaration in a later file that already took part stays a duplicate of its own', () => {
    const a = 'version: 1\nprojects:\n  - name: shop\n    description: one\n';
    const b = 'version: 1\nprojects:\n  - name: shop\n    variables: [{key: K, value: v}]\n  - name: shop\n    variables: [{key: L, value: w}]\n';
    const c = 'version: 1\nprojects:\n  - name: shop\n    variables: [{key: M, value: x}]\n';
    const { manifest, diagnostics } = merge({ 'a.yaml': a, 'b.yaml': b, 'c.yaml': c });
    expect(diagnostics).toEqual([]);
    expect(manifest.projects).toEqual([
      { name: 'shop', description: 'one', variables: [{ key: 'K', value: 'v' }, { key: 'M', value: 'x' }] },
      { name: 'shop', variables: [{ key: 'L', value: 'w' }] },
    ]);
    expect(at(fieldSourceOf(manifest.projects, '1'))).toBe('b.yaml:5:5');
  });

  it('no organization, prune or scope key when no file writes one', () => {
    const { manifest } = merge({ 'a.yaml': A, 'b.yaml': B });
    expect(Object.keys(manifest).sort()).toEqual(['clusters', 'projects', 'version']);
  });

  it('nothing to merge is an empty manifest', () => {
    const r = mergeManifestFiles([]);
    expect(r).toEqual({ manifest: { version: 1 }, diagnostics: [] });
    expect(sourceOf(r.manifest)).toEqual({ file: '', start: { line: 1, col: 1 } });
  });
});

describe('what two files may not both write', () => {
  it('a top-level `prune` (or organization, or scope): the second is an error at it that names the first', () => {
    const { manifest, diagnostics } = merge({ 'a.yaml': 'version: 1\nprune: {webhooks: true}\n', 'b.yaml': 'version: 1\nprune: {alert_rules: true}\n' });
    expect(diagnostics.map((d) => [d.code, d.summary, d.detail, at(d.range)])).toEqual([
      ['manifest.duplicate', '`prune` is declared in more than one file', 'It was first declared at a.yaml:2:1; keep one of them.', 'b.yaml:2:1'],
    ]);
    expect(manifest.prune).toEqual({ webhooks: true });
  });

  it('the same, from values without source ranges, says "another file"', () => {
    const r = mergeManifestFiles([
      { file: 'a.yaml', value: { scope: 'declared' } },
      { file: 'b.yaml', value: { scope: 'organization' } },
    ]);
    expect(r.diagnostics.map((d) => d.detail)).toEqual(['It was first declared at another file; keep one of them.']);
  });

  it('an attribute written twice, from values without source ranges, says "another file"', () => {
    const r = mergeManifestFiles([
      { file: 'a.yaml', value: { projects: [{ name: 'shop', description: 'one' }] } },
      { file: 'b.yaml', value: { projects: [{ name: 'shop', description: 'two' }] } },
    ]);
    expect(r.diagnostics.map((d) => d.detail)).toEqual(['It is also written at another file. A project may be declared in several files, but each of its attributes in one of them only: keep one.']);
  });

  it("an environment's `prune` (a mapping, one attribute) written in two files", () => {
    const a = 'version: 1\nprojects:\n  - name: shop\n    environments:\n      - name: prod\n        prune: {services: true}\n';
    const b = 'version: 1\nprojects:\n  - name: shop\n    environments:\n      - name: prod\n        prune: {variables: true}\n';
    const { manifest, diagnostics } = merge({ 'a.yaml': a, 'b.yaml': b });
    expect(diagnostics.map((d) => [d.code, d.summary, at(d.range), d.address])).toEqual([
      ['manifest.conflict', '`prune` of environment `prod` of project `shop` is written in more than one file', 'b.yaml:6:9', 'project.shop/environment.prod'],
    ]);
    expect(diagnostics[0]!.detail).toBe('It is also written at a.yaml:6:9. An environment may be declared in several files, but each of its attributes in one of them only: keep one.');
    expect(manifest.projects[0].environments[0].prune).toEqual({ services: true });
  });

  it('an override of one service in two files, in another letter case: the error names the first one written', () => {
    const b = B.replace('worker: {cpu: 100}', 'WEB: {cpu: 100}');
    const { diagnostics } = merge({ 'a.yaml': A, 'b.yaml': b });
    expect(diagnostics.map((d) => [d.code, d.summary, at(d.range), d.address])).toEqual([
      ['manifest.conflict', '`overrides.services.WEB` of environment `prod` of project `shop` is written in more than one file', 'b.yaml:12:13', 'project.shop/environment.prod'],
    ]);
    expect(diagnostics[0]!.detail).toMatch(/^It is also written at a\.yaml:14:13\. /);
  });

  it("a template's attribute: the error is about the project (a template has no address of its own)", () => {
    const t = (d: string) => `version: 1\nprojects:\n  - name: shop\n    templates:\n      - name: stack\n        description: ${d}\n`;
    const { diagnostics } = merge({ 'a.yaml': t('one'), 'b.yaml': t('two') });
    expect(diagnostics.map((d) => [d.summary, d.address])).toEqual([['`description` of template `stack` of project `shop` is written in more than one file', 'project.shop']]);
    expect(diagnostics[0]!.detail).toBe('It is also written at a.yaml:6:9. A template may be declared in several files, but each of its attributes in one of them only: keep one.');
  });
});
