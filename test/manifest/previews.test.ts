/**
 * `previews:` of a project (src/manifest/previews.ts): the checks of the declaration, the
 * environment of one pull request added to the manifest (with `--set` assignments), and the name
 * pattern.
 */
import { describe, expect, it } from 'vitest';
import { load, tempTree } from './helpers.js';
import { previewManifest, previewsYaml } from '../support/preview-manifest.js';
import type { Diagnostic } from '../../src/diag/diagnostic.js';
import { parseDuration } from '../../src/model/duration.js';
import { parseAssignment, previewNameOf, previewNumberOf, type PreviewAssignment } from '../../src/manifest/previews.js';

/** Project shop: template web-stack (api, pg), the previews block given, staging and `environments` after it. */
const shop = (previews: string, environments = '') => previewManifest({ services: ['pg'], previews, moreEnvironments: environments });

const GOOD = previewsYaml({ ttl: '72h', allowDataLoss: true, serviceOverrides: ['api: { cpu: 100 }'] });
/** The 1-based line of the first line of `text` containing `part`. */
const lineOf = (text: string, part: string) => text.split('\n').findIndex((l) => l.includes(part)) + 1;

const set = (...texts: string[]) => texts.map((t) => parseAssignment(t) as PreviewAssignment);
const errorsOf = (r: { diagnostics: Diagnostic[] }) => r.diagnostics.filter((d) => d.severity === 'error');

describe('a previews declaration', () => {
  it('loads: the environments it makes are not in the manifest, the template used only by previews is not "unused"', async () => {
    const r = await load(tempTree({ 'm.yaml': shop(GOOD) }));
    expect(r.diagnostics).toEqual([]);
    const p = r.manifest!.projects![0];
    expect(p.environments!.map((e) => e.name)).toEqual(['staging']);
    expect(p.previews).toMatchObject({ template: 'web-stack', name: 'pr-{number}', cluster: 'staging-cluster', ttl: '72h', allow_data_loss: true });
  });

  it('refuses a name without {number}, an unknown template, a bad ttl, with the line of each', async () => {
    const unnumbered = shop(GOOD.replace('"pr-{number}"', 'preview'));
    const r = await load(tempTree({ 'm.yaml': unnumbered }));
    expect(errorsOf(r).map((d) => [d.summary, d.range!.start.line])).toEqual([['`previews.name` of project `shop` must contain `{number}`, got `preview`', lineOf(unnumbered, 'name: preview')]]);
    const misnamed = shop(GOOD.replace('template: web-stack', 'template: web-stak').replace('ttl: 72h', 'ttl: 72hours'));
    const bad = await load(tempTree({ 'm.yaml': misnamed }));
    const summaries = errorsOf(bad).map((d) => d.summary).join('\n');
    expect(summaries).toMatch(/uses template `web-stak`, which the project does not declare/);
    expect(summaries).toMatch(/ttl/);
    expect(errorsOf(bad).find((d) => /web-stak/.test(d.summary))!.range!.start.line).toBe(lineOf(misnamed, 'template: web-stak'));
    expect(JSON.stringify(bad.diagnostics)).toContain('Did you mean `web-stack`?');
  });

  it('refuses a declared environment whose name matches the pattern, naming both places', async () => {
    const text = shop(GOOD, '      - name: PR-7\n        cluster: staging-cluster\n        template: web-stack\n');
    const r = await load(tempTree({ 'm.yaml': text }));
    const e = errorsOf(r).find((d) => d.summary.includes('matches the preview name'));
    expect(e, JSON.stringify(r.diagnostics)).toBeDefined();
    expect(e!.summary).toBe('environment `PR-7` of project `shop` matches the preview name `pr-{number}`');
    expect(e!.range!.start.line).toBe(text.split('\n').findIndex((l) => l.includes('PR-7')) + 1);
    expect(e!.related![0].range.start.line).toBe(lineOf(text, 'name: "pr-{number}"'));
  });

  it('refuses overrides of a service the template lacks', async () => {
    const r = await load(tempTree({ 'm.yaml': shop(GOOD.replace('api: { cpu: 100 }', 'apii: { cpu: 100 }')) }));
    expect(errorsOf(r).map((d) => d.summary).join('\n')).toMatch(/overrides service `apii`, which template `web-stack` does not declare/);
  });
});

describe('the environment of one pull request', () => {
  it('is the template with the declaration\'s overrides and the --set assignments, typed as the template\'s values', async () => {
    const dir = tempTree({ 'm.yaml': shop(GOOD) });
    const r = await load(dir, ['.'], { preview: { project: 'shop', number: 42, set: set('api.git_commit_id=4f2a9c1', 'api.git_repository.branch=feature-x', 'api.cpu=300') } });
    expect(r.diagnostics).toEqual([]);
    const envs = r.manifest!.projects![0].environments!;
    expect(envs.map((e) => e.name)).toEqual(['staging', 'pr-42']);
    const pr = envs[1];
    expect(pr.cluster).toBe('staging-cluster');
    const api = pr.services!.find((s) => s.name === 'api') as any;
    expect(api.git_commit_id).toBe('4f2a9c1');
    expect(api.git_repository).toEqual({ url: 'https://github.com/acme/api.git', branch: 'feature-x' });
    expect(api.cpu).toBe(300);
    // staging is untouched by the preview's overrides.
    expect((envs[0].services!.find((s) => s.name === 'api') as any).cpu).toBe(250);
  });

  it('names a missing project, a project without previews and an unknown --set service', async () => {
    const dir = tempTree({ 'm.yaml': shop(GOOD) });
    expect(errorsOf(await load(dir, ['.'], { preview: { project: 'shopp', number: 1 } }))[0].summary).toBe('--project shopp: the manifest declares no such project');
    const noSvc = errorsOf(await load(dir, ['.'], { preview: { project: 'shop', number: 1, set: set('ap.cpu=1') } }));
    expect(noSvc[0].summary).toBe('--set ap.cpu=1: template `web-stack` has no service `ap`');
    const plain = tempTree({ 'm.yaml': 'version: 1\nprojects:\n  - name: shop\n' });
    expect(errorsOf(await load(plain, ['.'], { preview: { project: 'shop', number: 1 } }))[0].summary).toBe('project `shop` declares no `previews:`');
  });

  it('a --set value that breaks the service schema is an error (a commit that is not hexadecimal)', async () => {
    const r = await load(tempTree({ 'm.yaml': shop(GOOD) }), ['.'], { preview: { project: 'shop', number: 3, set: set('api.git_commit_id=not-a-sha') } });
    expect(errorsOf(r).length).toBeGreaterThan(0);
  });

  it('a problem with a --set value names the assignment, not a line of the file it is not written in', async () => {
    // api's cpu is 100 in the previews' overrides (GOOD): a wrong --set of it is not that line's fault.
    const r = await load(tempTree({ 'm.yaml': shop(GOOD) }), ['.'], { preview: { project: 'shop', number: 3, set: set('api.git_commit_id=not-a-sha', 'api.cpu=lots', 'api.git_repository.url=nowhere', 'api.colour=red') } });
    const errors = errorsOf(r);
    expect(errors.map((d) => d.summary).sort()).toEqual([
      '`cpu` of application `api` must be an integer, not a string',
      '`git_commit_id` of application `api` has the wrong format',
      '`url` of `git_repository` of application `api` must be a valid uri',
      'unknown key `colour` in application `api`',
    ]);
    const about = (part: string) => errors.find((d) => d.summary.includes(part))!;
    expect(about('`cpu`').detail).toContain('From the command line: `--set api.cpu=lots`.');
    expect(about('`git_commit_id`').detail).toContain('From the command line: `--set api.git_commit_id=not-a-sha`.');
    expect(about('`url`').detail).toContain('From the command line: `--set api.git_repository.url=nowhere`.');
    expect(about('`colour`').detail).toContain('From the command line: `--set api.colour=red`.');
    for (const d of errors) expect(d.range, d.summary).toBeUndefined();
  });
});

describe('names and durations', () => {
  it('maps numbers to names and back, only for the pattern', () => {
    expect(previewNameOf('pr-{number}', 12)).toBe('pr-12');
    expect(previewNumberOf('pr-{number}', 'pr-12')).toBe(12);
    expect(previewNumberOf('pr-{number}', 'PR-12')).toBe(12);
    expect(previewNumberOf('pr-{number}', 'pr-12a')).toBeUndefined();
    expect(previewNumberOf('pr-{number}', 'staging')).toBeUndefined();
    expect(previewNumberOf('review.{number}', 'reviewx12')).toBeUndefined();
    // Only the names previewNameOf makes: no leading zero, no zero, the same number at every place.
    expect(previewNumberOf('pr-{number}', 'pr-007')).toBeUndefined();
    expect(previewNumberOf('pr-{number}', 'pr-0')).toBeUndefined();
    expect(previewNumberOf('pr-{number}', 'pr-70')).toBe(70);
    expect(previewNumberOf('pr-{number}-of-{number}', previewNameOf('pr-{number}-of-{number}', 5))).toBe(5);
    expect(previewNumberOf('pr-{number}-of-{number}', 'pr-5-of-6')).toBeUndefined();
  });
  it('reads ttl durations', () => {
    // The parser of every duration, with the unit required (a bare 72 is not 72 seconds of ttl).
    const ttl = (t: string) => parseDuration(t, { unit: 'required' });
    expect(ttl('72h')).toBe(72 * 3_600_000);
    expect(ttl('1d12h')).toBe(36 * 3_600_000);
    expect(ttl('90m')).toBe(90 * 60_000);
    expect(ttl('3 days')).toBeUndefined();
    expect(ttl('')).toBeUndefined();
    expect(ttl('72')).toBeUndefined();
  });
  it('parses --set', () => {
    expect(parseAssignment('api.git_repository.branch=a=b')).toMatchObject({ path: 'api.git_repository.branch', value: 'a=b' });
    expect(parseAssignment('api=1')).toMatch(/SERVICE\.FIELD=VALUE/);
    expect(parseAssignment('nofield')).toMatch(/SERVICE\.FIELD=VALUE/);
  });
});
