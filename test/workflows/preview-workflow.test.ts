/**
 * The preview workflow (examples/github-actions/preview.yml), the nightly preview prune
 * (drift.yml's `previews` job) and the Action's preview inputs (action/run.mjs): which pull request
 * events bring a preview up or down, forks skipped, what driftless command each one runs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { planRun, readInputs } from '../../action/run.mjs';
import { root } from './action-step.js';
import { condition, interpolate } from './expressions.js';

const preview = parse(readFileSync(path.join(root, 'examples/github-actions/preview.yml'), 'utf8')) as Record<string, any>;
const drift = parse(readFileSync(path.join(root, 'examples/github-actions/drift.yml'), 'utf8')) as Record<string, any>;

const eventFile = (payload: unknown) => {
  const f = path.join(mkdtempSync(path.join(tmpdir(), 'driftless-event-')), 'event.json');
  writeFileSync(f, JSON.stringify(payload));
  return f;
};
const inputs = (i: Record<string, string>, event?: unknown) =>
  readInputs({ ...Object.fromEntries(Object.entries(i).map(([k, v]) => [`ACTION_INPUT_${k}`, v])), ...(event ? { GITHUB_EVENT_PATH: eventFile(event) } : {}) });

describe('examples/github-actions/preview.yml', () => {
  it('runs on opened, synchronize, reopened and closed pull requests, one run per pull request at a time', () => {
    expect(preview.on).toEqual({ pull_request: { types: ['opened', 'synchronize', 'reopened', 'closed'] } });
    expect(preview.concurrency).toEqual({ group: 'driftless-preview-${{ github.event.pull_request.number }}', 'cancel-in-progress': false });
  });

  it('skips pull requests from forks (they get no secrets) and runs for the repository\'s own', () => {
    const job = preview.jobs.preview;
    const ctx = (fullName: string) => ({ github: { repository: 'acme/infra', event: { pull_request: { head: { repo: { full_name: fullName } } } } } });
    expect(condition(job.if, ctx('acme/infra'), false)).toBe(true);
    expect(condition(job.if, ctx('someone/infra'), false)).toBe(false);
  });

  it('gives the Action the project and the head commit as --set, which become the preview up command line', () => {
    const step = preview.jobs.preview.steps.find((s: any) => s.uses === './');
    expect(step.with).toMatchObject({ command: 'preview', manifest: 'infra', project: 'shop' });
    const github = { event: { pull_request: { number: 12, head: { sha: 'abcdef1234567', ref: 'feature-x' } } } };
    const set = interpolate(step.with.set, { github });
    const event = { action: 'synchronize', number: 12, pull_request: { number: 12 } };
    expect(planRun(inputs({ COMMAND: 'preview', MANIFEST: 'infra', PROJECT: 'shop', SET: set }, event)).args).toEqual([
      'preview', 'up', 'infra', '--project', 'shop', '--number', '12', '--format', 'json', '--set', 'api.git_commit_id=abcdef1234567', '--set', 'api.git_repository.branch=feature-x',
    ]);
    expect(planRun(inputs({ COMMAND: 'preview', MANIFEST: 'infra', PROJECT: 'shop', SET: set }, { ...event, action: 'closed' })).args).toEqual(['preview', 'down', 'infra', '--project', 'shop', '--number', '12', '--format', 'json']);
    for (const action of ['opened', 'reopened']) expect(planRun(inputs({ COMMAND: 'preview', PROJECT: 'shop' }, { ...event, action })).previewAction).toBe('up');
  });

  it('refuses a preview without a project or a pull request number, naming the input', () => {
    expect(() => planRun(inputs({ COMMAND: 'preview', PROJECT: 'shop' }))).toThrow(/preview needs a pull request number: run it on a pull_request event, or set input 'number'/);
    expect(() => planRun(inputs({ COMMAND: 'preview' }, { action: 'opened', number: 3 }))).toThrow(/input 'project' is empty/);
    expect(planRun(inputs({ COMMAND: 'preview', PROJECT: 'shop', NUMBER: '5' })).args).toContain('5');
    expect(() => planRun(inputs({ COMMAND: 'preview', PROJECT: 'shop', NUMBER: '5x' }))).toThrow(/input 'number' is '5x'/);
  });
});

describe('the nightly preview prune (drift.yml)', () => {
  it('keeps the previews of the open pull requests: preview prune --keep their numbers, or every preview deleted when none is open', () => {
    const job = drift.jobs.previews;
    const step = job.steps.find((s: any) => s.uses === './');
    expect(step.with).toMatchObject({ command: 'preview', prune: true, manifest: 'infra' });
    const keep = interpolate(step.with.keep, { env: { OPEN_PULL_REQUESTS: '12,15' } });
    expect(planRun(inputs({ COMMAND: 'preview', PRUNE: 'true', MANIFEST: 'infra', KEEP: keep })).args).toEqual(['preview', 'prune', 'infra', '--keep', '12,15', '--format', 'json']);
    expect(planRun(inputs({ COMMAND: 'preview', PRUNE: 'true', MANIFEST: 'infra', KEEP: 'none' })).args).toEqual(['preview', 'prune', 'infra', '--keep', '', '--format', 'json']);
    expect(() => planRun(inputs({ COMMAND: 'preview', PRUNE: 'true', KEEP: '12;rm' }))).toThrow(/input 'keep' is '12;rm'/);
    expect(job.permissions).toEqual({ contents: 'read', 'pull-requests': 'read' });
  });
});

describe('examples/gitlab-ci: review apps', () => {
  const ci = parse(readFileSync(path.join(root, 'examples/gitlab-ci/.gitlab-ci.yml'), 'utf8')) as Record<string, any>;

  it('a review app per merge request: preview up on every push, its environment review/IID stopped by preview down', () => {
    const up = ci['driftless-preview'];
    const stop = ci['driftless-preview-stop'];
    expect(up.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]);
    expect(up.environment).toMatchObject({ name: 'review/$CI_MERGE_REQUEST_IID', on_stop: 'driftless-preview-stop', url: '$PREVIEW_URL' });
    expect(up.script.join('\n')).toMatch(/driftless preview up "\$MANIFEST_DIR" --project shop --number "\$CI_MERGE_REQUEST_IID" --set "api\.git_commit_id=\$CI_COMMIT_SHA" --format json/);
    expect(up.artifacts.reports.dotenv).toBe('preview.env');
    expect(stop.environment).toEqual({ name: 'review/$CI_MERGE_REQUEST_IID', action: 'stop' });
    expect(stop.script.join('\n')).toMatch(/driftless preview down "\$MANIFEST_DIR" --project shop --number "\$CI_MERGE_REQUEST_IID"/);
    // Both jobs of one merge request run one at a time: a stop never races an up.
    expect(stop.resource_group).toBe(up.resource_group);
  });

  it("the dotenv line gives GitLab the preview's first URL", async () => {
    const { execFileSync } = await import('node:child_process');
    const dir = mkdtempSync(path.join(tmpdir(), 'driftless-review-'));
    writeFileSync(path.join(dir, 'preview.json'), JSON.stringify({ environment: 'pr-3', created: true, urls: [{ service: 'api', url: 'https://a.example' }] }));
    const line = ci['driftless-preview'].script[1] as string;
    const code = /node -e '([^']*)'/.exec(line)![1]!;
    expect(execFileSync(process.execPath, ['-e', code], { cwd: dir, encoding: 'utf8' })).toBe('PREVIEW_URL=https://a.example\n');
  });
});
