/**
 * What a CI job sees of `plan` and `drift` (issue 12, "a failing plan is shown where the user
 * looks"): on failure, --format json and markdown still print a document on stdout, with the
 * diagnostics; `plan --format github` and GITHUB_ACTIONS=true turn diagnostics into annotations.
 * Against the real emulator, over HTTP.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The manifest with a misspelt key, and where it is (1-based line, column of the key). */
function typoManifest(): { yaml: string; line: number; col: number } {
  const yaml = appManifest().replace('dockerfile_path: Dockerfile', 'dockerfile_pth: Dockerfile');
  const lines = yaml.split('\n');
  const i = lines.findIndex((l) => l.includes('dockerfile_pth'));
  return { yaml, line: i + 1, col: lines[i]!.indexOf('dockerfile_pth') + 1 };
}

const BAD_TOKEN = { ...SECRET_ENV, DRIFTLESS_API_TOKEN: 'not-a-valid-token-XYZ' };

/** Every fence and <details> of a markdown body closed, as a CommonMark parser reads it. */
function expectWellFormedMarkdown(md: string): string {
  const tokens = new MarkdownIt({ html: true }).parse(md, {});
  for (const t of tokens) if (t.type === 'fence') expect(t.markup.length).toBeGreaterThanOrEqual(3);
  // An unclosed fence swallows the rest of the document: the last token would be a fence.
  expect(tokens.at(-1)?.type).not.toBe('fence');
  expect((md.match(/<details>/g) ?? []).length).toBe((md.match(/<\/details>/g) ?? []).length);
  return new MarkdownIt().render(md);
}

describe('a failing plan still prints a document', () => {
  it('plan --format json: the plan shape with errored: true and the located diagnostics (manifest error), or the API error', async () => {
    h = await startHarness();
    const { yaml, line, col } = typoManifest();
    h.write({ 'm/main.yaml': yaml });
    const r = await h.run(['plan', 'm', '--format', 'json'], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ format_version: '1.0', errored: true, applyable: false, resource_changes: [] });
    expect(doc.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    const d = doc.diagnostics.find((x: any) => x.summary.includes('dockerfile_pth'));
    expect(d).toMatchObject({ severity: 'error', range: { file: 'm/main.yaml', start: { line, col } } });
    // The human diagnostics are still on stderr.
    expect(r.stderr).toContain(`m/main.yaml:${line}:${col}`);

    h.write({ 'm/main.yaml': appManifest() });
    const api = await h.run(['plan', 'm', '--json'], { env: BAD_TOKEN });
    expect(api.code).toBe(1);
    const apiDoc = JSON.parse(api.stdout);
    expect(apiDoc.errored).toBe(true);
    expect(apiDoc.diagnostics.map((x: any) => x.code)).toContain('api.unauthorized');
    expect(api.stdout + api.stderr).not.toContain('not-a-valid-token-XYZ');
  });

  it('plan --format markdown: a well-formed comment body saying the plan failed, with each diagnostic', async () => {
    h = await startHarness();
    const { yaml, line, col } = typoManifest();
    h.write({ 'm/main.yaml': yaml });
    const r = await h.run(['plan', 'm', '--format', 'markdown'], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    const html = expectWellFormedMarkdown(r.stdout);
    expect(html).toMatch(/<h3>.*driftless plan failed<\/h3>/);
    expect(html).toContain(`<code>m/main.yaml:${line}:${col}</code>`);
    expect(html).toContain('dockerfile_pth');

    h.write({ 'm/main.yaml': appManifest() });
    const api = await h.run(['plan', 'm', '--format', 'markdown'], { env: BAD_TOKEN });
    expect(api.code).toBe(1);
    expect(expectWellFormedMarkdown(api.stdout)).toContain('<code>api.unauthorized</code>');
    expect(api.stdout).not.toContain('not-a-valid-token-XYZ');
  });

  it('drift --format json and markdown: a document with errored: true / the failure, exit 1', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const json = await h.run(['drift', 'm', '--format', 'json'], { env: BAD_TOKEN });
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ errored: true, in_sync: false, fingerprint: null, items: [] });
    expect(doc.diagnostics.map((x: any) => x.code)).toContain('api.unauthorized');
    // --json-file gets the failure too, never a previous run's report.
    h.write({ 'drift.json': '{"in_sync": true, "errored": false}\n' });
    const withFile = await h.run(['drift', 'm', '--json-file', 'drift.json'], { env: BAD_TOKEN });
    expect(withFile.code).toBe(1);
    expect(JSON.parse(readFileSync(join(h.dir, 'drift.json'), 'utf8'))).toMatchObject({ errored: true, in_sync: false });
    const md = await h.run(['drift', 'm', '--format', 'markdown'], { env: BAD_TOKEN });
    expect(md.code).toBe(1);
    expect(expectWellFormedMarkdown(md.stdout)).toMatch(/<h3>.*driftless drift failed<\/h3>/);
    // A drift that worked says errored: false, so a workflow can always read the one field.
    const ok = await h.run(['drift', 'm', '--format', 'json'], { env: SECRET_ENV });
    expect(ok.code).toBe(2);
    expect(JSON.parse(ok.stdout).errored).toBe(false);
  });
});

describe('GitHub annotations', () => {
  it('plan --format github: annotations with file, line and col on stdout (nothing else), the human plan on stderr', async () => {
    h = await startHarness();
    const { yaml, line, col } = typoManifest();
    h.write({ 'm/main.yaml': yaml });
    const bad = await h.run(['plan', 'm', '--format', 'github'], { env: SECRET_ENV });
    expect(bad.code).toBe(1);
    const lines = bad.stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/^::(error|warning|notice) /);
    expect(lines.some((l) => l.startsWith(`::error file=m/main.yaml,line=${line},col=${col},`) && l.includes('dockerfile_pth'))).toBe(true);
    // Not doubled on stderr, even in a GitHub job.
    const inJob = await h.run(['plan', 'm', '--format', 'github'], { env: { ...SECRET_ENV, GITHUB_ACTIONS: 'true' } });
    expect(inJob.stderr).not.toContain('::error');

    h.write({ 'm/main.yaml': appManifest() });
    const good = await h.run(['plan', 'm', '--format', 'github'], { env: SECRET_ENV });
    expect(good.code).toBe(0);
    expect(good.stdout).toBe('');
    expect(good.stderr).toContain('Plan: 7 to add, 0 to change, 0 to destroy, 2 to deploy.');
    expect(good.stdout + good.stderr).not.toContain(SECRET);
  });

  it('GITHUB_ACTIONS=true: diagnostics written on stderr also go out as escaped annotations (plan, drift, validate); not outside GitHub', async () => {
    h = await startHarness();
    const { yaml, line, col } = typoManifest();
    // A directory name with a comma and a colon: both must be escaped in the file property.
    h.write({ 'a,b:c/main.yaml': yaml });
    const file = 'a%2Cb%3Ac/main.yaml';
    for (const argv of [['plan', 'a,b:c'], ['plan', 'a,b:c', '--format', 'json'], ['drift', 'a,b:c'], ['validate', 'a,b:c']]) {
      const r = await h.run(argv, { env: { ...SECRET_ENV, GITHUB_ACTIONS: 'true' } });
      expect(r.code, argv.join(' ')).toBe(1);
      const annotation = r.stderr.split('\n').find((l) => l.startsWith(`::error file=${file},line=${line},col=${col},`));
      expect(annotation, `${argv.join(' ')}: ${r.stderr}`).toBeDefined();
      // The message is one line: a newline in the detail is %0A.
      expect(annotation).toContain('dockerfile_pth');
      expect(r.stdout).not.toContain('::error');
    }
    const outside = await h.run(['plan', 'a,b:c'], { env: SECRET_ENV });
    expect(outside.code).toBe(1);
    expect(outside.stderr).not.toContain('::error');
    // An unlocated diagnostic (the API refused the token) is an annotation too, without a file.
    h.write({ 'm/main.yaml': appManifest() });
    const api = await h.run(['plan', 'm'], { env: { ...BAD_TOKEN, GITHUB_ACTIONS: 'true' } });
    expect(api.stderr).toMatch(/^::error title=api\.unauthorized::/m);
    expect(api.stderr).not.toContain('not-a-valid-token-XYZ');
  });
});
