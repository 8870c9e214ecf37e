/**
 * A pull request's life with the Action's preview steps, run for real on the emulator: the run step
 * (action/run.mjs, the built CLI) with the pull_request event's payload, then the comment step
 * (action/comments.cjs) on an in-memory pull request.
 *
 *   opened      -> pr-17 created from the template and deployed; ONE comment with its URLs
 *   synchronize -> (twice) only the service whose commit changed is redeployed; the comment updated in place
 *   closed      -> pr-17 and its database gone; the comment struck through
 *
 * and nothing else in the organization changed: every record outside the preview is compared
 * before and after.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncPreviewComment, type Comment } from '../../action/comments.cjs';
import { run, startEmu, tempDir, type Emu } from '../export/helpers.js';
import { root, runStep } from './action-step.js';
import { previewManifest } from '../support/preview-manifest.js';

const BOT = 'github-actions[bot]';
const PR = 17;
const SHAS = ['1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', '3333333ccccccccccccccccccccccccccccccccc'];

/** shop's previews (pg, api, web) next to staging, and another project, billing, that no preview may touch. */
const MANIFEST = previewManifest({
  previews: { ttl: '72h', allowDataLoss: true },
  moreProjects: `  - name: billing
    variables:
      - { key: CURRENCY, value: EUR }
    environments:
      - name: production
        mode: PRODUCTION
        cluster: production-cluster
        services:
          - type: application
            name: invoices
            git_repository: { url: "https://github.com/acme/invoices.git", branch: main }
            dockerfile_path: Dockerfile
            ports: [{ name: http, internal_port: 8080, publicly_accessible: true }]
`,
});

/** A pull request's comments, as GitHub's REST API keeps them (see comments.test.ts). */
function fakePullRequest() {
  let nextId = 500;
  const comments: Comment[] = [{ id: 1, body: 'Looks good to me', user: { login: 'reviewer' } }];
  const github = {
    paginate: async (fn: (p: any) => Promise<{ data: Comment[] }>, params: any) => (await fn(params)).data,
    rest: {
      issues: {
        listComments: async ({ issue_number }: any) => {
          expect(issue_number).toBe(PR);
          return { data: comments.map((c) => ({ ...c })) };
        },
        createComment: async ({ body }: any) => {
          const c = { id: nextId++, body, user: { login: BOT }, html_url: `https://github.com/acme/infra/pull/${PR}#issuecomment-${nextId}` };
          comments.push(c);
          return { data: c };
        },
        updateComment: async ({ comment_id, body }: any) => {
          const c = comments.find((x) => x.id === comment_id)!;
          expect(c.user?.login).toBe(BOT);
          c.body = body;
          return { data: c };
        },
        deleteComment: async ({ comment_id }: any) => {
          comments.splice(comments.findIndex((x) => x.id === comment_id), 1);
          return { data: {} };
        },
      },
    },
  };
  const core = { info: () => {}, warning: (m: string) => expect.fail(m), setOutput: () => {} };
  return { github, core, comments };
}

let emu: Emu;
const tmp = tempDir('driftless-preview-action-');
const pr = fakePullRequest();

/** The records of the organization outside environment `excluded` (by id), for the before/after comparison. */
function records(excludedEnvironment?: string): string {
  const s = emu.em.state;
  const inExcluded = (r: any) => excludedEnvironment !== undefined && (r.id === excludedEnvironment || r.environment?.id === excludedEnvironment || r.parent_id === excludedEnvironment || r.environment_id === excludedEnvironment);
  const out: Record<string, unknown> = {};
  for (const coll of ['organization', 'projects', 'environments', 'services', 'variables', 'deploymentStages', 'serviceStatuses', 'annotationsGroups', 'labelsGroups', 'alertReceivers', 'alertRules', 'webhooks', 'clusters', 'containerRegistries', 'helmRepositories'] as const) {
    const v = (s as any)[coll];
    out[coll] = coll === 'organization' ? v : Object.values(v).filter((r: any) => !inExcluded(r) && !(coll === 'serviceStatuses' && inExcluded(s.services[r.id] ?? {}))).sort((a: any, b: any) => String(a.id).localeCompare(String(b.id)));
  }
  return JSON.stringify(out);
}

/** The Action's preview steps for one pull_request event: the run step, then the comment step. */
async function pullRequestEvent(action: 'opened' | 'synchronize' | 'closed', sha: string) {
  const eventPath = path.join(tmp.dir, `event-${action}-${sha.slice(0, 7)}.json`);
  writeFileSync(eventPath, JSON.stringify({ action, number: PR, pull_request: { number: PR, head: { sha, repo: { full_name: 'acme/infra' } } } }));
  const step = await runStep(
    tmp.dir,
    { ACTION_INPUT_COMMAND: 'preview', ACTION_INPUT_MANIFEST: 'infra', ACTION_INPUT_PROJECT: 'shop', ACTION_INPUT_SET: `api.git_commit_id=${sha}\napi.git_repository.branch=feature-checkout` },
    // As action.yml runs the step after restoring the refresh cache (tested in action.test.ts).
    emu.env({ GITHUB_EVENT_PATH: eventPath, GITHUB_EVENT_NAME: 'pull_request', RUNNER_TEMP: runnerTemp, ACTION_CACHE_RESTORED: 'success' }),
  );
  expect(step.outputs['exit-code'], step.log).toBe('0');
  // The command is echoed with each --set value hidden (a value may come from a secret).
  if (action !== 'closed') expect(step.log).toContain('--set api.git_commit_id=*** --set api.git_repository.branch=***');
  const context = { repo: { owner: 'acme', repo: 'infra' }, payload: { pull_request: { number: PR } }, issue: { number: PR } };
  await syncPreviewComment({ github: pr.github, context, core: pr.core, file: path.join(tmp.dir, step.outputs['output-file']!), action: step.outputs['preview-action'] as 'up' | 'down', exitCode: step.outputs['exit-code']!, key: 'shop', author: BOT, sha });
  return step;
}

/** $RUNNER_TEMP: action.yml restores and saves the refresh cache under it (driftless-cache/). */
const runnerTemp = path.join(tmp.dir, 'runner');
const cacheFile = path.join(runnerTemp, 'driftless-cache', 'driftless-live-state.json');

const preview = () => Object.values(emu.em.state.environments).find((e) => e.name === `pr-${PR}`);
const servicesOf = (envId: string) => Object.values(emu.em.state.services).filter((s) => s.environment.id === envId);
const deployCounts = (envId: string) => Object.fromEntries(servicesOf(envId).map((x) => [x.name, (emu.em.state.serviceHistory[x.id] ?? []).length]));
const botComments = () => pr.comments.filter((c) => c.user?.login === BOT);

let before: string;

beforeAll(async () => {
  expect(existsSync(path.join(root, 'dist/cli/main.js')), 'run `npm run build` first: the action runs the built CLI').toBe(true);
  emu = await startEmu();
  mkdirSync(path.join(tmp.dir, 'infra'));
  writeFileSync(path.join(tmp.dir, 'infra', 'platform.yaml'), MANIFEST);
  const applied = await run(['apply', path.join(tmp.dir, 'infra'), '--auto-approve', '--poll-interval', '20'], emu.env());
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  before = records();
}, 60_000);

afterAll(async () => {
  await emu?.close();
  tmp.cleanup();
});

describe("a pull request's preview, through the Action's steps", () => {
  let urls: Array<{ service: string; url: string }>;
  let commentId: number;

  it('opened: the preview is created and deployed, and ONE comment gives its URLs', async () => {
    const step = await pullRequestEvent('opened', SHAS[0]!);
    expect(step.outputs['preview-action']).toBe('up');
    expect(step.outputs.summary).toBe(`Preview pr-${PR} created: 2 URLs.`);
    const result = JSON.parse(readFileSync(path.join(tmp.dir, step.outputs['output-file']!), 'utf8'));
    expect(result).toMatchObject({ environment: `pr-${PR}`, created: true });
    urls = result.urls;
    expect(urls.map((u) => u.service)).toEqual(['api', 'web']);
    const env = preview()!;
    expect(servicesOf(env.id).map((s) => s.name).sort()).toEqual(['api', 'pg', 'web']);
    for (const s of servicesOf(env.id)) expect(emu.em.state.serviceStatuses[s.id]!.state, s.name).toBe('DEPLOYED');
    expect(servicesOf(env.id).find((s) => s.name === 'api')!.git_repository).toMatchObject({ branch: 'feature-checkout', deployed_commit_id: SHAS[0] });
    expect(botComments()).toHaveLength(1);
    commentId = botComments()[0]!.id;
    const body = botComments()[0]!.body!;
    expect(body).toContain(`### Preview \`pr-${PR}\``);
    for (const u of urls) expect(body).toContain(`| ${u.service} | ${u.url} |`);
    expect(body).toContain(`Created for ${SHAS[0]!.slice(0, 12)}`);
    // The refresh cache the save step keeps for the next push (its condition: this file exists).
    expect(existsSync(cacheFile)).toBe(true);
  });

  it('two pushes: only the service whose commit changed is redeployed, and the comment is updated in place', async () => {
    const env = preview()!;
    expect(deployCounts(env.id)).toEqual({ api: 1, pg: 1, web: 1 });
    for (const [i, sha] of SHAS.slice(1).entries()) {
      const step = await pullRequestEvent('synchronize', sha);
      expect(step.outputs.summary).toBe(`Preview pr-${PR} updated: 2 URLs.`);
      expect(deployCounts(env.id)).toEqual({ api: 2 + i, pg: 1, web: 1 });
      expect(servicesOf(env.id).find((s) => s.name === 'api')!.git_repository.deployed_commit_id).toBe(sha);
      expect(botComments().map((c) => c.id)).toEqual([commentId]);
      expect(botComments()[0]!.body).toContain(`Updated for ${sha.slice(0, 12)}`);
      for (const u of urls) expect(botComments()[0]!.body).toContain(`| ${u.service} | ${u.url} |`);
    }
    expect(pr.comments[0]).toEqual({ id: 1, body: 'Looks good to me', user: { login: 'reviewer' } });
  });

  it('closed: the environment and its database are gone, the comment is struck through, nothing else in the organization changed', async () => {
    const env = preview()!;
    const db = servicesOf(env.id).find((s) => s.service_type === 'DATABASE')!;
    const step = await pullRequestEvent('closed', SHAS[2]!);
    expect(step.outputs['preview-action']).toBe('down');
    expect(step.outputs.summary).toBe(`Preview pr-${PR} deleted.`);
    expect(preview()).toBeUndefined();
    expect(emu.em.state.services[db.id]).toBeUndefined();
    expect(servicesOf(env.id)).toEqual([]);
    expect(botComments().map((c) => c.id)).toEqual([commentId]);
    const body = botComments()[0]!.body!;
    expect(body).toContain(`### ~~Preview \`pr-${PR}\`~~`);
    for (const u of urls) expect(body).toContain(`| ~~${u.service}~~ | ~~${u.url}~~ |`);
    expect(records()).toBe(before);
  });
});
