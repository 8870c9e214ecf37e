/**
 * Hostile and broken input (issue 7): whatever the bytes, the loader answers with diagnostics that
 * carry a location, never an exception, a hang or a crash.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseYamlFile } from '../../src/manifest/parse-yaml.js';
import { loadManifestFromSources } from '../../src/manifest/load.js';
import { load, manifestWith, tempTree } from './helpers.js';

function codes(r: { diagnostics: Array<{ code: string }> }) {
  return r.diagnostics.map((d) => d.code);
}

describe('hostile input', () => {
  it('refuses an alias bomb without expanding it', async () => {
    const bomb = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
      'h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]',
      'i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]',
    ].join('\n');
    const dir = tempTree({ 'bomb.yaml': bomb });
    const r = await load(dir);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toMatchObject([{ code: 'yaml.too-many-aliases', range: { file: 'bomb.yaml' } }]);
  });

  it('accepts ordinary anchors and aliases', async () => {
    const yaml = `version: 1
projects:
  - name: shop
    environments:
      - name: a
        cluster: c
        services:
          - &api
            type: application
            name: api
            git_repository: {url: "https://github.com/acme/api.git"}
            dockerfile_path: Dockerfile
      - name: b
        cluster: c
        services: [*api]
`;
    const r = await load(tempTree({ 'm.yaml': yaml }));
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.projects![0]!.environments![1]!.services![0]!.name).toBe('api');
  });

  it('supports merge keys (<<) to share settings, explicit keys winning', async () => {
    const yaml = `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: c
        services:
          - &web
            type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            cpu: 250
          - <<: *web
            name: web-canary
            tag: "1.28"
`;
    const r = await load(tempTree({ 'm.yaml': yaml }));
    expect(r.diagnostics).toEqual([]);
    const canary = r.manifest!.projects![0]!.environments![0]!.services![1]!;
    expect(canary).toEqual({ name: 'web-canary', tag: '1.28', type: 'container', registry: 'docker-hub', image_name: 'library/nginx', cpu: 250 });
    // A bad value inherited through the merge is reported where it is written: at the anchor.
    const broken = await load(tempTree({ 'm.yaml': yaml.replace('cpu: 250', 'cpu: lots') }));
    expect(broken.diagnostics.map((d) => [d.summary, d.range!.start.line])).toEqual([
      ['`cpu` of container `web` must be an integer, not a string', 14],
      ['`cpu` of container `web-canary` must be an integer, not a string', 14],
    ]);
  });

  it('merges mappings and reports a merge of something else', async () => {
    const { parseYamlFile } = await import('../../src/manifest/parse-yaml.js');
    const merged = parseYamlFile('base: &b {a: 1, b: 2}\nother: &o {c: 3}\nx:\n  <<: [*b, *o]\n  a: 9\n', 'f.yaml');
    expect(merged.diagnostics).toEqual([]);
    expect((merged.value as Record<string, unknown>).x).toEqual({ a: 9, b: 2, c: 3 });
    const bad = parseYamlFile('s: &s hello\nx:\n  <<: *s\n', 'f.yaml');
    expect(bad.diagnostics).toMatchObject([{ code: 'yaml.bad-merge', range: { start: { line: 3, col: 7 } } }]);
  });

  it('answers a 10 MB manifest with a clean size diagnostic', async () => {
    const big = manifestWith() + '#' + 'x'.repeat(10 * 1024 * 1024) + '\n';
    const r = await load(tempTree({ 'big.yaml': big }));
    expect(r.diagnostics).toMatchObject([{ code: 'manifest.too-large', range: { file: 'big.yaml', start: { line: 1, col: 1 } } }]);
    expect(r.diagnostics[0]!.summary).toBe('the file is 10.0 MiB, larger than the 2.0 MiB a manifest file may be');
  });

  it('refuses a binary file and a file that is not UTF-8', async () => {
    const dir = tempTree({ 'a.yaml': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0xff]), 'b.yaml': Buffer.from('name: caf\xe9\n', 'latin1') });
    const r = await load(dir);
    expect(codes(r)).toEqual(['manifest.binary', 'manifest.encoding']);
  });

  it('reports duplicate keys at the second key', async () => {
    const r = await load(tempTree({ 'm.yaml': 'version: 1\nprojects: []\nprojects: []\n' }));
    expect(r.diagnostics).toMatchObject([{ code: 'yaml.duplicate-key', range: { start: { line: 3, col: 1 } } }]);
  });

  it('refuses flow nesting thousands deep before the YAML parser sees it', async () => {
    const deep = 'version: 1\nprojects: ' + '['.repeat(50_000) + ']'.repeat(50_000) + '\n';
    const r = await load(tempTree({ 'deep.yaml': deep }));
    expect(r.diagnostics).toMatchObject([{ code: 'yaml.too-deep', range: { file: 'deep.yaml', start: { line: 2, col: 75 } } }]);
  });

  it('refuses block nesting deeper than the limit', async () => {
    let deep = 'version: 1\n';
    for (let i = 0; i < 200; i++) deep += ' '.repeat(i) + `k${i}:\n`;
    const r = await load(tempTree({ 'deep.yaml': deep }));
    expect(codes(r)).toEqual(['yaml.too-deep']);
  });

  it('keeps a `__proto__` key an ordinary (unknown) key', async () => {
    const r = await load(tempTree({ 'm.yaml': 'version: 1\n__proto__: {polluted: true}\n' }));
    expect(codes(r)).toEqual(['schema.unknown-key']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports several documents in one file, a scalar top level and an empty file', async () => {
    const r = await load(tempTree({ 'a.yaml': 'version: 1\n---\nversion: 1\n', 'b.yaml': '"just a string"\n', 'c.yaml': '# only a comment\n' }));
    expect(codes(r)).toEqual(['yaml.multiple-docs', 'schema.wrong-type', 'manifest.empty-file']);
    expect(r.diagnostics.map((d) => d.severity)).toEqual(['error', 'error', 'warning']);
  });

  it('warns about an unknown tag, whose value would silently become a string', async () => {
    const r = await load(tempTree({ 'm.yaml': 'version: 1\nprojects:\n  - name: !Ref ProjectName\n' }));
    expect(r.diagnostics).toMatchObject([{ severity: 'warning', code: 'yaml.tag-resolve-failed', range: { start: { line: 3, col: 11 } } }]);
    expect(r.manifest!.projects![0]!.name).toBe('ProjectName');
  });

  it('rejects !!binary values and complex keys with a location', async () => {
    const r = await load(tempTree({ 'm.yaml': 'version: 1\n? [a, b]\n: x\nprojects:\n  - name: !!binary aGVsbG8=\n' }));
    expect(codes(r)).toEqual(['yaml.complex-key', 'yaml.binary-value']);
    expect(r.diagnostics.every((d) => d.range && d.range.start.line > 0)).toBe(true);
  });

  it('never throws on arbitrary text and always locates its diagnostics', () => {
    const fragments = fc.constantFrom(
      'version: 1\n', 'projects:\n', '  - name: shop\n', '    environments:\n', '      - name: prod\n', '        cluster: c\n',
      '        services:\n', '          - type: container\n', '            name: web\n', '&a ', '*a ', '[', ']', '{', '}', ': ', '- ',
      '"', "'", '\t', '\u0000', '\u202e', '${env:X}', '{{', '#', '\n', '!!binary ', '? ', '|\n', '>-\n', '---\n', '__proto__: 1\n',
    );
    const text = fc.oneof(fc.array(fragments, { maxLength: 60 }).map((a) => a.join('')), fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 200 }));
    fc.assert(
      fc.property(text, (t) => {
        const r = parseYamlFile(t, 'fuzz.yaml');
        for (const d of r.diagnostics) {
          expect(d.range?.file).toBe('fuzz.yaml');
          expect(d.range!.start.line).toBeGreaterThan(0);
        }
      }),
      { numRuns: 120, seed: 7 },
    );
  });

  it('never throws on mutated manifests: every diagnostic is located, or the manifest loads', () => {
    const base = readFileSync(path.resolve(import.meta.dirname, '../../examples/realistic/shop.yaml'), 'utf8');
    const file = { path: '/virtual/shop.yaml', root: '/virtual', display: 'shop.yaml' };
    const insert = fc.constantFrom('x', ': ', '- ', '  ', '\n', '[', '{', '"', '&a ', '*a', '${env:', '${file:../../etc/passwd}', '123', 'true', '~', '\u0000', '\u202e', 'é');
    const mutation = fc.record({ at: fc.nat(), len: fc.nat({ max: 40 }), text: insert });
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (muts) => {
        let text = base;
        for (const m of muts) {
          const at = m.at % (text.length + 1);
          text = text.slice(0, at) + m.text + text.slice(at + (m.len % 3 === 0 ? m.len : 0));
        }
        const r = loadManifestFromSources([{ file, text }], {
          env: { STRIPE_API_KEY: 'k', SESSION_SECRET: 's' },
          readFile: () => ({ ok: true, text: 'content' }),
        });
        if (r.manifest === undefined) expect(r.diagnostics.some((d) => d.severity === 'error')).toBe(true);
        for (const d of r.diagnostics) {
          if (d.code === 'manifest.empty') continue;
          expect(d.range?.file).toBe('shop.yaml');
        }
      }),
      { numRuns: 60, seed: 11 },
    );
  });
});

describe('odd files in a manifest directory', () => {
  it('refuses a symlink to a device and a broken symlink instead of blocking on them', async () => {
    const { symlinkSync } = await import('node:fs');
    const dir = tempTree({ 'ok.yaml': 'version: 1\n' });
    symlinkSync('/dev/zero', path.join(dir, 'zero.yaml'));
    symlinkSync(path.join(dir, 'missing-target'), path.join(dir, 'broken.yaml'));
    const r = await load(dir);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.range?.file])).toEqual([
      // /dev/zero is outside the manifest directory: refused by discovery, before its type is looked at.
      ['manifest.outside-directory', 'zero.yaml'],
      ['manifest.unreadable', 'broken.yaml'],
    ]);
  });
});
