/**
 * The directory layout of `export`, as a pure function: organization.yaml, a file of each
 * project's own attributes and variables, a file per environment; names that cannot collide; and
 * the files, merged by the loader, are exactly the manifest of the single-file layout.
 */
import { describe, expect, it } from 'vitest';
import { renderExport } from '../../src/export/yaml.js';
import type { ExportResult } from '../../src/export/to-manifest.js';
import { loadManifestFromSources } from '../../src/manifest/index.js';

const env = (name: string, cluster: string, services: unknown[] = []) => ({ name, mode: 'STAGING', cluster, variables: [{ key: `${name.toUpperCase().replace(/\W/g, '_')}_ONLY`, value: '1' }], services });
const web = (tag: string) => ({ type: 'container', name: 'web', registry: 'docker-hub', image_name: 'library/nginx', tag, cpu: 250, memory: 256, variables: [] });

const RESULT: ExportResult = {
  manifest: {
    version: 1,
    scope: 'organization',
    label_groups: [{ name: 'team', labels: [{ key: 'team', value: 'web' }] }],
    projects: [
      {
        name: 'Shop',
        description: 'the shop',
        variables: [{ key: 'REGION', value: 'eu' }],
        environments: [env('staging', 'staging-cluster', [web('1.27')]), env('Prod EU', 'production-cluster', [web('1.26')])],
      },
      // Slugs alike: `shop!` is `shop` as a file name; an environment named like a project file.
      { name: 'shop!', variables: [], environments: [env('yaml', 'staging-cluster')] },
      { name: 'empty', variables: [] },
    ],
  },
  secrets: [],
  warnings: [],
};

function load(files: Array<{ name: string; text: string }>) {
  return loadManifestFromSources(
    files.map((f) => ({ file: { path: `/x/${f.name}`, root: '/x', display: f.name }, text: f.text })),
    { env: {}, readFile: () => ({ ok: false, reason: 'none' }) },
  );
}

describe('export --layout directory', () => {
  const files = renderExport(RESULT, 'directory', 'header', 'https://schema.example/m.json');

  it('writes organization.yaml, a file per project and a file per environment, no two with the same name', () => {
    expect(files.map((f) => f.name)).toEqual([
      'organization.yaml',
      'project-shop.yaml',
      'project-shop.staging.yaml',
      'project-shop.prod-eu.yaml',
      'project-shop-2.yaml',
      'project-shop-2.yaml.yaml',
      'project-empty.yaml',
    ]);
    const own = files.find((f) => f.name === 'project-shop.yaml')!.text;
    expect(own).toContain('description: the shop');
    expect(own).not.toContain('environments:');
    const prod = files.find((f) => f.name === 'project-shop.prod-eu.yaml')!.text;
    expect(prod).toContain('  - name: Shop\n    environments:\n      - name: Prod EU\n');
    expect(prod).not.toContain('REGION');
    expect(prod).not.toContain('staging');
    for (const f of files) expect(f.text.split('\n')[0]).toBe('# yaml-language-server: $schema=https://schema.example/m.json');
  });

  it('loads back, merged in file-name order as a directory is read, into exactly the manifest of the single file', () => {
    const single = load(renderExport(RESULT, 'file', 'header', 'https://schema.example/m.json'));
    const directory = load([...files].sort((a, b) => (a.name < b.name ? -1 : 1)));
    expect(single.diagnostics).toEqual([]);
    expect(directory.diagnostics).toEqual([]);
    // Projects and environments have no order in the API (nor in a plan): only their order differs.
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
    const normal = (m: unknown) => {
      const doc = JSON.parse(JSON.stringify(m));
      doc.projects.sort(byName);
      for (const p of doc.projects) p.environments?.sort(byName);
      return doc;
    };
    expect(normal(directory.manifest)).toEqual(normal(single.manifest));
    expect(normal(single.manifest).projects.map((p: { name: string }) => p.name)).toEqual(['Shop', 'empty', 'shop!']);
  });
});
