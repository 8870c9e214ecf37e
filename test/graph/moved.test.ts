/**
 * The offline checks of `moved:` entries (validate and plan make them through buildGraph): each
 * problem is one error at the entry's file:line:col, saying what is wrong and what is allowed.
 */
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/diag/diagnostic.js';
import { buildGraph } from '../../src/graph/build.js';
import { loadManifestFromSources } from '../../src/manifest/load.js';

const BASE = `version: 1
label_groups:
  - name: cost
    labels: [{ key: team, value: shop }]
projects:
  - name: shop
    environments:
      - name: staging
        cluster: staging-cluster
        services:
          - type: application
            name: backend
            git_repository: { url: https://github.com/acme/api.git }
            dockerfile_path: Dockerfile
`;

/** Diagnostics of loading and building `files` (name -> text). */
function check(files: Record<string, string>): { diagnostics: Diagnostic[]; moved: unknown } {
  const sources = Object.entries(files).map(([name, text]) => ({ file: { path: `/m/${name}`, root: '/m', display: name }, text }));
  const loaded = loadManifestFromSources(sources, { env: {}, readFile: () => ({ ok: false, reason: 'none' }) });
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const built = buildGraph(loaded.manifest!);
  return { diagnostics: built.diagnostics, moved: built.graph.moved };
}

const where = (d: Diagnostic) => `${d.range?.file}:${d.range?.start.line}:${d.range?.start.col}`;

describe('moved: offline checks', () => {
  it('accepts renames of the declared objects, a renamed parent spelled either way, and a chain', () => {
    const r = check({
      'main.yaml': `${BASE}moved:
  - from: project.old-shop
    to: project.shop
  - from: project.shop/environment.staging/application.api
    to: project.shop/environment.staging/application.web
  - from: project.shop/environment.staging/application.web
    to: project.shop/environment.staging/application.backend
  - from: project.old-shop/environment.pre
    to: project.shop/environment.staging
  - from: labels_group.cost%2Fold
    to: labels_group.cost
`,
    });
    expect(r.diagnostics).toEqual([]);
    expect(r.moved).toEqual([
      expect.objectContaining({ from: 'project.old-shop', to: 'project.shop' }),
      expect.objectContaining({ from: 'project.shop/environment.staging/application.api', to: 'project.shop/environment.staging/application.web' }),
      expect.objectContaining({ from: 'project.shop/environment.staging/application.web', to: 'project.shop/environment.staging/application.backend' }),
      expect.objectContaining({ from: 'project.old-shop/environment.pre', to: 'project.shop/environment.staging' }),
      // Canonical form: the escaped `/` in a name stays escaped.
      expect.objectContaining({ from: 'labels_group.cost%2Fold', to: 'labels_group.cost' }),
    ]);
  });

  it('reports a malformed address at its field, with the shapes allowed', () => {
    const r = check({
      'main.yaml': `${BASE}moved:
  - from: application.api
    to: project.shop/environment.staging/application.backend
  - from: project.shop/environment.staging/application.api
    to: project.shop/envs.staging/application.backend
`,
    });
    expect(r.diagnostics.map((d) => [d.code, where(d)])).toEqual([
      ['moved.bad-address', 'main.yaml:16:11'],
      ['moved.bad-address', 'main.yaml:19:9'],
    ]);
    expect(r.diagnostics[0]!.summary).toContain('an application cannot be at the top of an address');
    expect(r.diagnostics[0]!.detail).toContain('project.P/environment.E/deployment_stage.S');
    expect(r.diagnostics[1]!.summary).toContain('"envs" is not a kind a rename applies to');
  });

  it('reports a `to` that is not declared, with the nearest declared address', () => {
    const r = check({ 'main.yaml': `${BASE}moved:\n  - from: project.shop/environment.staging/application.api\n    to: project.shop/environment.staging/application.backnd\n` });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'moved.to-not-declared', severity: 'error' });
    // At the `to` it is about, not at the entry's first key.
    expect(where(r.diagnostics[0]!)).toBe('main.yaml:17:9');
    expect(r.diagnostics[0]!.detail).toContain('Did you mean `project.shop/environment.staging/application.backend`?');
  });

  it('refuses offline a rename to a key declared as an override, at its `to` (the API cannot change an override\'s key)', () => {
    const base = BASE.replace('projects:\n  - name: shop\n', 'projects:\n  - name: shop\n    variables: [{ key: BASE_URL, value: a }]\n').replace(
      '        cluster: staging-cluster\n',
      '        cluster: staging-cluster\n        variables: [{ key: BASE_URL, value: b, override: true }]\n',
    );
    const r = check({ 'main.yaml': `${base}moved:\n  - from: project.shop/environment.staging/variable.URL\n    to: project.shop/environment.staging/variable.BASE_URL\n` });
    expect(r.diagnostics.map((d) => [d.code, where(d)])).toEqual([['moved.override-key', 'main.yaml:19:9']]);
    expect(r.diagnostics[0]!.summary).toBe("moved: project.shop/environment.staging/variable.BASE_URL is an override, and the API cannot change an override's key");
    expect(r.moved).toBeUndefined();
  });

  it('an entry whose names differ only in case says so (one name for a kind named case-insensitively), not that both are one address', () => {
    const r = check({ 'main.yaml': `${BASE}moved:\n  - from: project.shop/environment.staging/application.Backend\n    to: project.shop/environment.staging/application.backend\n` });
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.summary, where(d)])).toEqual([
      ['warning', 'moved.same-address', 'moved: project.shop/environment.staging/application.Backend and project.shop/environment.staging/application.backend differ only in case; the entry does nothing', 'main.yaml:16:5'],
    ]);
    expect(r.diagnostics[0]!.detail).toContain('The names of an application are compared case-insensitively: Backend and backend are one name');
    const same = check({ 'main.yaml': `${BASE}moved:\n  - from: project.shop/environment.staging/application.backend\n    to: project.shop/environment.staging/application.backend\n` });
    expect(same.diagnostics.map((d) => d.summary)).toEqual(['moved: from and to are both project.shop/environment.staging/application.backend; the entry does nothing']);
  });

  it('reports the same `from` twice at the second entry, naming where the first is, across files', () => {
    const r = check({
      'a.yaml': `${BASE}moved:\n  - from: project.shop/environment.staging/application.api\n    to: project.shop/environment.staging/application.backend\n`,
      'b.yaml': `version: 1\nmoved:\n  - from: project.shop/environment.staging/application.API\n    to: project.shop/environment.staging/application.backend\n`,
    });
    expect(r.diagnostics.map((d) => [d.code, where(d)])).toEqual([['moved.duplicate-from', 'b.yaml:3:5']]);
    expect(r.diagnostics[0]!.summary).toContain('is renamed twice (a.yaml:16:5)');
  });

  it('reports a cycle once, and a kind mismatch, a `from` still declared and a move to another parent', () => {
    const r = check({
      'main.yaml': `${BASE}moved:
  - from: project.shop/environment.staging/application.a
    to: project.shop/environment.staging/application.b
  - from: project.shop/environment.staging/application.b
    to: project.shop/environment.staging/application.a
  - from: project.shop/environment.staging/container.backend
    to: project.shop/environment.staging/application.backend
  - from: project.shop/environment.staging/application.backend
    to: project.shop/environment.staging/application.backend2
  - from: project.other/environment.staging/application.x
    to: project.shop/environment.staging/application.backend
`,
    });
    const codes = r.diagnostics.map((d) => [d.code, where(d)]);
    expect(codes).toEqual([
      ['moved.kind-mismatch', 'main.yaml:21:9'],
      ['moved.cycle', 'main.yaml:16:5'],
      ['moved.to-not-declared', 'main.yaml:23:9'],
      ['moved.from-declared', 'main.yaml:22:11'],
      ['moved.other-parent', 'main.yaml:24:5'],
    ]);
    expect(r.diagnostics[0]!.summary).toBe('moved: project.shop/environment.staging/container.backend is a container and project.shop/environment.staging/application.backend an application');
    expect(r.diagnostics[1]!.summary).toContain('application.a -> project.shop/environment.staging/application.b -> project.shop/environment.staging/application.a');
    expect(r.diagnostics[3]!.detail).toContain('main.yaml:11:13');
    expect(r.diagnostics[4]!.detail).toContain('the API cannot move an application into another environment');
  });
});
