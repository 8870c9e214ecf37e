/**
 * The GitLab CI example (examples/gitlab-ci): its jobs, rules, image and pinned package; and the
 * script that keeps the plan as merge-request notes, run for real over HTTP against a stand-in for
 * GitLab's notes API (GitLab itself cannot be reached here).
 */
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmu, tempDir, type Emu } from '../export/helpers.js';
import { root } from './action-step.js';

const exampleDir = path.join(root, 'examples/gitlab-ci');
const ci = parse(readFileSync(path.join(exampleDir, '.gitlab-ci.yml'), 'utf8')) as Record<string, any>;
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const jobs = { plan: ci['driftless-plan'], apply: ci['driftless-apply'], drift: ci['driftless-drift'] } as Record<string, Record<string, any>>;
const timeoutSeconds = (t: string) => Number(/^(\d+) minutes$/.exec(t)![1]) * 60;
const maxWaits = (job: Record<string, any>) => (job.script as string[]).flatMap((l) => [...l.matchAll(/--max-wait (\d+)/g)].map((m) => Number(m[1])));

describe('examples/gitlab-ci/.gitlab-ci.yml', () => {
  it('has the three jobs on the official node:20 image, building driftless from a pinned commit as the action does (a registry version only when set)', () => {
    expect(ci.default.image).toBe('node:20');
    for (const job of Object.values(jobs)) expect(job.image ?? ci.default.image).toBe('node:20');
    // Not published yet: by default nothing is asked of the registry for driftless-cli.
    expect(ci.variables.DRIFTLESS_VERSION).toBe('');
    expect(ci.variables.DRIFTLESS_COMMIT).toMatch(/commit SHA/);
    expect(ci.default.before_script).toHaveLength(1);
    const install = ci.default.before_script[0] as string;
    expect(install).toMatch(/if \[ -n "\$DRIFTLESS_VERSION" \]; then\s+npm install --global [^\n]*"driftless-cli@\$\{DRIFTLESS_VERSION\}"\s+else/);
    expect(install).toMatch(/git clone [^\n]*"\$DRIFTLESS_REPOSITORY"/);
    expect(install).toMatch(/checkout --quiet "\$DRIFTLESS_COMMIT"/);
    expect(install).toMatch(/npm ci --no-audit --no-fund --ignore-scripts && npm run --silent build && npm install --global/);
    expect(ci.stages).toEqual(['plan', 'apply', 'drift']);
    expect(Object.values(jobs).map((j) => j.stage)).toEqual(['plan', 'apply', 'drift']);
  });

  it('plans on merge requests, applies on the default branch, detects drift on a schedule', () => {
    expect(jobs.plan!.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"', changes: ['infra/**/*', '.gitlab-ci.yml'] }]);
    expect(jobs.apply!.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH', changes: ['infra/**/*'] }]);
    expect(jobs.drift!.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule"' }]);
    // The pipeline itself runs for exactly those three sources.
    expect(ci.workflow.rules.map((r: { if: string }) => r.if)).toEqual(['$CI_PIPELINE_SOURCE == "merge_request_event"', '$CI_PIPELINE_SOURCE == "schedule"', '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH']);
  });

  it('the merge-request job plans without secret values and with the read token; apply re-plans with the write token', () => {
    expect(jobs.plan!.variables).toEqual({ DRIFTLESS_API_TOKEN: '$DRIFTLESS_API_TOKEN_READ' });
    expect(jobs.plan!.script.join('\n')).toContain('--no-secret-values');
    expect(jobs.apply!.variables).toEqual({ DRIFTLESS_API_TOKEN: '$DRIFTLESS_API_TOKEN_WRITE' });
    expect(jobs.apply!.script.join('\n')).not.toContain('--no-secret-values');
    expect(jobs.drift!.variables).toEqual({ DRIFTLESS_API_TOKEN: '$DRIFTLESS_API_TOKEN_READ' });
  });

  it('apply and drift are in separate resource groups; apply is never interrupted; drift is a warning, an error a failure', () => {
    expect(jobs.apply!.resource_group).toBe('driftless-apply');
    expect(jobs.drift!.resource_group).toBe('driftless-drift');
    expect(jobs.apply!.interruptible).toBe(false);
    expect(jobs.drift!.allow_failure).toEqual({ exit_codes: [2] });
    expect(jobs.drift!.artifacts.paths).toContain('drift.json');
  });

  it('every rate-limit wait of a job, together, stays below its timeout', () => {
    for (const job of Object.values(jobs)) {
      expect(maxWaits(job).length).toBeGreaterThan(0);
      expect(maxWaits(job).reduce((a, b) => a + b, 0)).toBeLessThan(timeoutSeconds(job.timeout));
    }
  });
});

/** A stand-in for GitLab's REST API: the current user and one merge request's notes. */
interface Note {
  id: number;
  body: string;
  author: { id: number };
}
function fakeGitLab(token: string) {
  const notes: Note[] = [{ id: 1, body: '<!-- driftless-plan:infra part 1 -->\nforged by a developer', author: { id: 7 } }];
  const calls: string[] = [];
  let nextId = 10;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body === undefined ? '' : JSON.stringify(body));
      };
      if (req.headers['private-token'] !== token) return send(401, { message: '401 Unauthorized' });
      if (req.method === 'GET' && url.pathname === '/api/v4/user') return send(200, { id: 99, username: 'project_5_bot' });
      const m = /^\/api\/v4\/projects\/5\/merge_requests\/12\/notes(?:\/(\d+))?$/.exec(url.pathname);
      if (!m) return send(404, { message: '404 Not Found' });
      const id = m[1] ? Number(m[1]) : undefined;
      if (req.method !== 'GET') calls.push(`${req.method}${id ? ` ${id}` : ''}`);
      if (req.method === 'GET' && id === undefined) {
        // Two per page, so that the script must follow x-next-page.
        const page = Number(url.searchParams.get('page') ?? '1');
        const slice = notes.slice((page - 1) * 2, page * 2);
        return send(200, slice, { 'x-next-page': page * 2 < notes.length ? String(page + 1) : '' });
      }
      if (req.method === 'POST' && id === undefined) {
        const note = { id: nextId++, body: JSON.parse(raw).body as string, author: { id: 99 } };
        notes.push(note);
        return send(201, note);
      }
      const note = notes.find((n) => n.id === id);
      if (!note) return send(404, { message: '404 Note Not Found' });
      if (note.author.id !== 99) return send(403, { message: '403 Forbidden' });
      if (req.method === 'PUT') return (note.body = JSON.parse(raw).body), send(200, note);
      if (req.method === 'DELETE') return notes.splice(notes.indexOf(note), 1), send(204);
      send(405, {});
    });
  });
  return { server, notes, calls };
}

/** Runs driftless-mr-notes.mjs as the plan job does, against the stand-in GitLab. */
function runNotes(cwd: string, env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(exampleDir, 'driftless-mr-notes.mjs'), ...args], { cwd, env: { PATH: process.env.PATH, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('driftless-mr-notes.mjs: the plan as merge-request notes, over HTTP', () => {
  let gitlab: ReturnType<typeof fakeGitLab>;
  const tmp = tempDir('driftless-gitlab-');
  let env: Record<string, string>;

  beforeAll(async () => {
    gitlab = fakeGitLab('glpat-notes-token');
    await new Promise<void>((r) => gitlab.server.listen(0, '127.0.0.1', r));
    env = {
      CI_API_V4_URL: `http://127.0.0.1:${(gitlab.server.address() as AddressInfo).port}/api/v4`,
      CI_PROJECT_ID: '5',
      CI_MERGE_REQUEST_IID: '12',
      CI_JOB_URL: 'https://gitlab.example.com/acme/infra/-/jobs/77',
      DRIFTLESS_NOTES_TOKEN: 'glpat-notes-token',
      MANIFEST_DIR: 'infra',
    };
  });
  afterAll(async () => {
    await new Promise((r) => gitlab.server.close(r));
    tmp.cleanup();
  });

  function parts(name: string, texts: string[]): string {
    const dir = path.join(tmp.dir, name);
    mkdirSync(dir, { recursive: true });
    texts.forEach((t, i) => writeFileSync(path.join(dir, `part-${i + 1}.md`), t));
    writeFileSync(path.join(tmp.dir, `${name}.md`), texts.join('\n'));
    return name;
  }
  const mine = () => gitlab.notes.filter((n) => n.author.id === 99);

  it('one note per part (following pages), untouched when unchanged, left-over parts deleted, a failure replaces them, the developer\'s look-alike left alone', async () => {
    // Five parts: the stand-in serves two notes a page, so finding them again needs x-next-page.
    const five = parts('five', ['p1', 'p2', 'p3', 'p4', 'p5']);
    expect((await runNotes(tmp.dir, env, [five, 'five.md', '2'])).code).toBe(0);
    expect(mine().map((n) => n.body)).toEqual([1, 2, 3, 4, 5].map((i) => `<!-- driftless-plan:infra part ${i} -->\np${i}`));

    gitlab.calls.length = 0;
    const again = await runNotes(tmp.dir, env, [five, 'five.md', '2']);
    expect(again.stdout).toContain('5 note(s) on !12: 0 created, 0 updated, 0 deleted');
    expect(gitlab.calls).toEqual([]);

    const two = parts('two', ['p1', 'p2 changed']);
    expect((await runNotes(tmp.dir, env, [two, 'two.md', '2'])).code).toBe(0);
    expect(mine().map((n) => n.body.split('\n')[1])).toEqual(['p1', 'p2 changed']);
    expect(gitlab.calls.filter((c) => c.startsWith('PUT'))).toHaveLength(1);
    expect(gitlab.calls.filter((c) => c.startsWith('DELETE'))).toHaveLength(3);

    writeFileSync(path.join(tmp.dir, 'failed.md'), '**error** `clustr` is not a key of an environment\n');
    expect((await runNotes(tmp.dir, env, [two, 'failed.md', '1'])).code).toBe(0);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain('### ❌ driftless plan failed');
    expect(mine()[0]!.body).toContain('`clustr` is not a key');
    expect(mine()[0]!.body).toContain('https://gitlab.example.com/acme/infra/-/jobs/77');
    expect(gitlab.notes[0]!.body).toContain('forged by a developer');
  });

  it('a wrong token fails with one line that names the request, never the token', async () => {
    const r = await runNotes(tmp.dir, { ...env, DRIFTLESS_NOTES_TOKEN: 'glpat-wrong' }, [parts('x', ['p']), 'x.md', '2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('driftless-mr-notes: GET /api/v4/user answered 401 Unauthorized\n');
  });

  it('outside a merge-request pipeline it says what is missing', async () => {
    const { CI_MERGE_REQUEST_IID: _, ...noMr } = env;
    const r = await runNotes(tmp.dir, noMr, [parts('y', ['p']), 'y.md', '2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^driftless-mr-notes: CI_MERGE_REQUEST_IID is not set/);
  });
});

/** Runs a job's script as a GitLab runner does: bash, `set -eo pipefail`, the job's variables. */
async function runJob(cwd: string, job: Record<string, any>, cicd: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const expand = (v: string) => v.replace(/\$(\w+)/g, (_m, n: string) => cicd[n] ?? '');
  const variables = Object.fromEntries(Object.entries<string>({ ...ci.variables, ...job.variables }).map(([k, v]) => [k, expand(String(v))]));
  const script = ['set -eo pipefail', ...(job.script as string[])].join('\n');
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd, env: { PATH: `${path.join(cwd, '.bin')}:${process.env.PATH}`, HOME: cwd, ...cicd, ...variables } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the GitLab jobs, run with bash on the emulator', () => {
  let emu: Emu;
  let gitlab: ReturnType<typeof fakeGitLab>;
  const tmp = tempDir('driftless-gitlab-');
  let cicd: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmu();
    gitlab = fakeGitLab('glpat-notes-token');
    await new Promise<void>((r) => gitlab.server.listen(0, '127.0.0.1', r));
    const port = (gitlab.server.address() as AddressInfo).port;
    cpSync(path.join(root, 'examples/minimal'), path.join(tmp.dir, 'infra'), { recursive: true });
    copyFileSync(path.join(exampleDir, 'driftless-mr-notes.mjs'), path.join(tmp.dir, 'driftless-mr-notes.mjs'));
    // `driftless` on the PATH: the built CLI of this repository, in place of the npm install.
    mkdirSync(path.join(tmp.dir, '.bin'));
    writeFileSync(path.join(tmp.dir, '.bin/driftless'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, 'bin/driftless.js')}" "$@"\n`);
    chmodSync(path.join(tmp.dir, '.bin/driftless'), 0o755);
    cicd = {
      CI: 'true',
      GITLAB_CI: 'true',
      CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`,
      CI_PROJECT_ID: '5',
      CI_MERGE_REQUEST_IID: '12',
      CI_JOB_URL: 'https://gitlab.example.com/acme/infra/-/jobs/77',
      DRIFTLESS_API_URL: emu.em.url,
      DRIFTLESS_API_TOKEN_READ: emu.em.tokens.READ,
      DRIFTLESS_API_TOKEN_WRITE: emu.em.tokens.ADMIN,
      DRIFTLESS_FINGERPRINT_KEY: 'gitlab-fingerprint-key-0123456789',
      DRIFTLESS_NOTES_TOKEN: 'glpat-notes-token',
    };
  });
  afterAll(async () => {
    await new Promise((r) => gitlab.server.close(r));
    await emu.close();
    tmp.cleanup();
  });

  it('merge request: the plan as notes (updated, then replaced by a failure); default branch: apply; schedule: drift', async () => {
    const plan = await runJob(tmp.dir, jobs.plan!, cicd);
    expect(plan.code, plan.stderr).toBe(0);
    const mine = () => gitlab.notes.filter((n) => n.author.id === 99);
    expect(mine().length).toBeGreaterThanOrEqual(1);
    expect(mine()[0]!.body).toMatch(/^<!-- driftless-plan:infra part 1 -->\n/);
    expect(mine().map((n) => n.body).join('\n')).toContain('Plan: 3 to add, 0 to change, 0 to destroy, 1 to deploy.');
    // The developer's note with a look-alike marker is left alone.
    expect(gitlab.notes[0]!.body).toContain('forged by a developer');

    // The same plan again: nothing is written.
    gitlab.calls.length = 0;
    expect((await runJob(tmp.dir, jobs.plan!, cicd)).code).toBe(0);
    expect(gitlab.calls).toEqual([]);

    // A second manifest file with an error: the plan fails, its notes become ONE note with the failure.
    writeFileSync(path.join(tmp.dir, 'infra/broken.yaml'), 'projects:\n  - name: other\n    environments:\n      - name: dev\n        clustr: x\n');
    const failed = await runJob(tmp.dir, jobs.plan!, cicd);
    expect(failed.code).not.toBe(0);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain('### ❌ driftless plan failed');
    expect(mine()[0]!.body).toContain('https://gitlab.example.com/acme/infra/-/jobs/77');
    expect(gitlab.notes[0]!.body).toContain('forged by a developer');
    // Fixed: the failure note becomes the plan again.
    writeFileSync(path.join(tmp.dir, 'infra/broken.yaml'), '');
    expect((await runJob(tmp.dir, jobs.plan!, cicd)).code).toBe(0);
    expect(mine()[0]!.body).toContain('Plan: 3 to add');
    expect(JSON.stringify(gitlab.notes)).not.toContain(emu.em.tokens.READ);

    const apply = await runJob(tmp.dir, jobs.apply!, cicd);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Apply complete!');

    const drift = await runJob(tmp.dir, jobs.drift!, cicd);
    expect(drift.code, drift.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(tmp.dir, 'drift.json'), 'utf8'))).toMatchObject({ in_sync: true });
  }, 120_000);
});
