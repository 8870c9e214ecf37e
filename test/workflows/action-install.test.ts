/**
 * The Action runs from its own checkout (issue 19): its steps are run as GitHub runs a composite
 * action's steps, from a copy of the repository's files placed where GitHub downloads an action
 * (`_actions/OWNER/driftless/SHA`: no node_modules, no dist/), with the npm registry unreachable.
 * action.yml is parsed with GitHub's parser; each step's `if:` and `${{ }}` values are evaluated
 * with GitHub's expression library (inputs, steps, github.action_path, runner); each `run:` step
 * runs with bash as the runner does (`bash --noprofile --norc -eo pipefail`) with the GITHUB_*
 * files and variables; the `uses:` steps are the runner's: the cache step restores nothing (a first
 * run), setup-node and the pull-request comment must be skipped here.
 *
 * The registry: npm runs offline (npm_config_offline, so nothing not already in this machine's
 * npm cache can be fetched: driftless-cli, which is not published, never is) behind a proxy that
 * refuses every connection. The proof that this blocks a registry install: the same environment
 * makes `npm install driftless-cli@VERSION` fail. The Action still ends with `driftless` on the
 * job's PATH, runnable, and its run step validating a manifest with it.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { NoOperationTraceWriter } from '@actions/workflow-parser';
import { parseAction } from '@actions/workflow-parser/actions/index';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { condition, interpolate } from './expressions.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const actionText = readFileSync(path.join(ROOT, 'action.yml'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

interface ActionStep {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

interface Ran {
  id: string;
  outcome: 'success' | 'failure' | 'skipped';
  outputs: Record<string, string>;
  log: string;
  with?: Record<string, string>;
}

/** The runner's file command format: `name=value` lines and `name<<DELIMITER` blocks. */
function readFileCommands(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  for (let i = 0; i < lines.length; i++) {
    const block = /^([\w-]+)<<(\S+)$/.exec(lines[i]!);
    if (block) {
      const end = lines.indexOf(block[2]!, i + 1);
      out[block[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const kv = /^([\w-]+)=(.*)$/.exec(lines[i]!);
    if (kv) out[kv[1]!] = kv[2]!;
  }
  return out;
}

function bash(script: string, env: NodeJS.ProcessEnv, cwd: string, dir: string): Promise<{ code: number; log: string }> {
  const file = path.join(dir, `step-${Math.random().toString(16).slice(2)}.sh`);
  writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, log }));
  });
}

/** Runs action.yml's steps in order, as the runner does for `uses: OWNER/driftless@SHA` with `with:` inputs. */
async function runAction(o: { actionDir: string; workspace: string; runnerTemp: string; inputs: Record<string, string>; env: NodeJS.ProcessEnv }) {
  const action = parse(readFileSync(path.join(o.actionDir, 'action.yml'), 'utf8')) as { inputs: Record<string, { default?: string }>; runs: { steps: ActionStep[] } };
  const github = { action_path: o.actionDir, token: 'gh-token', ref_name: 'main', head_ref: '', run_id: '42', run_attempt: '1', event: { repository: { default_branch: 'main' } } };
  const inputs: Record<string, string> = {};
  for (const [name, def] of Object.entries(action.inputs)) inputs[name] = o.inputs[name] ?? interpolate(def.default ?? '', { github });
  const runner = { temp: o.runnerTemp, os: 'Linux', arch: 'X64' };
  const files = { GITHUB_OUTPUT: '', GITHUB_PATH: path.join(o.runnerTemp, '_path'), GITHUB_ENV: path.join(o.runnerTemp, '_env'), GITHUB_STEP_SUMMARY: path.join(o.runnerTemp, '_summary') };
  for (const f of [files.GITHUB_PATH, files.GITHUB_ENV, files.GITHUB_STEP_SUMMARY]) writeFileSync(f, '');
  const steps: Record<string, { outcome: string; outputs: Record<string, string> }> = {};
  const ran: Ran[] = [];
  let failed = false;
  for (const [i, step] of action.runs.steps.entries()) {
    const id = step.id ?? `__${i}`;
    const contexts = { inputs, steps, github, runner, env: o.env };
    if (!condition(step.if, contexts, failed, o.workspace)) {
      steps[id] = { outcome: 'skipped', outputs: {} };
      ran.push({ id, outcome: 'skipped', outputs: {}, log: '' });
      continue;
    }
    if (step.run !== undefined) {
      expect(step.shell, id).toBe('bash');
      const output = path.join(o.runnerTemp, `_output-${id}`);
      writeFileSync(output, '');
      const extraPath = readFileSync(files.GITHUB_PATH, 'utf8').split('\n').filter(Boolean).reverse();
      const env: NodeJS.ProcessEnv = {
        ...o.env,
        PATH: [...extraPath, o.env.PATH].join(':'),
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: o.workspace,
        GITHUB_ACTION_PATH: o.actionDir,
        GITHUB_OUTPUT: output,
        GITHUB_PATH: files.GITHUB_PATH,
        GITHUB_ENV: files.GITHUB_ENV,
        GITHUB_STEP_SUMMARY: files.GITHUB_STEP_SUMMARY,
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'acme/infra',
        GITHUB_RUN_ID: '42',
        RUNNER_TEMP: o.runnerTemp,
        RUNNER_OS: runner.os,
        RUNNER_ARCH: runner.arch,
        ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(v, contexts)])),
      };
      const r = await bash(step.run, env, o.workspace, o.runnerTemp);
      const outcome = r.code === 0 ? 'success' : 'failure';
      if (r.code !== 0) failed = true;
      const outputs = readFileCommands(output);
      steps[id] = { outcome, outputs };
      ran.push({ id, outcome, outputs, log: r.log });
      continue;
    }
    // A `uses:` step: what the runner's action would do in this first run of a job.
    const uses = String(step.uses);
    const withs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(v, contexts)]));
    if (/^actions\/cache@/.test(uses) || /^actions\/cache\/restore@/.test(uses)) {
      // Nothing cached yet: restores nothing; cache-hit is not 'true'.
      steps[id] = { outcome: 'success', outputs: { 'cache-hit': '', 'cache-primary-key': withs.key ?? '' } };
    } else if (/^actions\/cache\/save@/.test(uses)) {
      steps[id] = { outcome: 'success', outputs: {} };
    } else {
      throw new Error(`step ${id} (${uses}) was expected to be skipped here`);
    }
    ran.push({ id, outcome: 'success', outputs: steps[id]!.outputs, log: '', with: withs });
  }
  const pathDirs = readFileSync(files.GITHUB_PATH, 'utf8').split('\n').filter(Boolean);
  return { ran, byId: (id: string) => ran.find((r) => r.id === id)!, pathDirs, failed };
}

/** A TCP port that refuses connections: listened on, then closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('the Action, run as GitHub runs it, from a copy of the repository, with the registry unreachable', () => {
  let work: string;
  let actionDir: string;
  let workspace: string;
  let runnerTemp: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'driftless-action-run-'));
    // Where the runner downloads `uses: acme/driftless@SHA`: the repository's files at that commit.
    actionDir = path.join(work, '_actions', 'acme', 'driftless', '0123456789abcdef0123456789abcdef01234567');
    mkdirSync(actionDir, { recursive: true });
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const f of tracked) if (existsSync(path.join(ROOT, f))) cpSync(path.join(ROOT, f), path.join(actionDir, f));
    workspace = path.join(work, 'workspace');
    cpSync(path.join(ROOT, 'examples/minimal'), path.join(workspace, 'infra'), { recursive: true });
    runnerTemp = path.join(work, 'runner-temp');
    mkdirSync(runnerTemp);
    const proxy = `http://127.0.0.1:${await deadPort()}`;
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // No network for npm: only what this machine's npm cache holds, and every connection refused.
      npm_config_offline: 'true',
      npm_config_proxy: proxy,
      npm_config_https_proxy: proxy,
      npm_config_update_notifier: 'false',
      NO_COLOR: '1',
    };
  }, 120_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('parses with GitHub\'s action parser', () => {
    const parsed = parseAction({ name: 'action.yml', content: actionText }, new NoOperationTraceWriter());
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
  });

  it('this environment refuses a registry install of driftless-cli (so the run below proves no such install happens)', async () => {
    const prefix = path.join(work, 'registry-check');
    const r = await bash(`npm install --prefix "${prefix}" --no-save --no-audit --no-fund --ignore-scripts "driftless-cli@${pkg.version}"`, env, work, work);
    expect(r.code).not.toBe(0);
    expect(existsSync(path.join(prefix, 'node_modules/driftless-cli'))).toBe(false);
  }, 120_000);

  it('installs from its own directory with its lockfile, puts a runnable `driftless` on the PATH, and runs the command', async () => {
    const run = await runAction({ actionDir, workspace, runnerTemp, inputs: { command: 'validate', manifest: 'infra', format: 'human' }, env });
    const install = run.byId('install');
    expect(install.outcome, install.log).toBe('success');
    expect(run.failed, run.ran.map((r) => `${r.id}: ${r.outcome}\n${r.log}`).join('\n')).toBe(false);
    // npm ci in the action's directory, from its lockfile: its node_modules and dist/ are there now.
    expect(install.log).toMatch(/added \d+ packages/);
    expect(install.log).not.toContain('driftless-cli@');
    expect(existsSync(path.join(actionDir, 'node_modules/typescript'))).toBe(true);
    expect(existsSync(path.join(actionDir, 'dist/cli/main.js'))).toBe(true);
    expect(install.outputs.entry).toBe(path.join(actionDir, 'bin/driftless.js'));
    expect(install.log).toContain(`driftless ${pkg.version}`);
    // The dependency cache: the action's node_modules, keyed on its lockfile, OS and Node ABI.
    const cache = run.byId('deps-cache');
    const lockHash = (await import('node:crypto')).createHash('sha256').update(readFileSync(path.join(actionDir, 'package-lock.json'))).digest('hex');
    expect(cache.with).toEqual({ path: path.join(actionDir, 'node_modules'), key: `driftless-action-deps-Linux-X64-node${process.versions.modules}-${lockHash}` });
    // The refresh cache and the comment are not for a validate.
    expect(run.byId('cache-restore').outcome).toBe('skipped');
    expect(run.byId('comment').outcome).toBe('skipped');
    // The run step used it: the manifest is valid.
    expect(run.byId('run').outputs['exit-code']).toBe('0');
    // `driftless` runs from the job's PATH in a later step.
    const later = await bash('driftless --version', { ...env, PATH: [...run.pathDirs, env.PATH].join(':') }, workspace, runnerTemp);
    expect(later.code, later.log).toBe(0);
    expect(later.log.trim()).toBe(`driftless ${pkg.version}`);

    // A second use of the action in the same job builds nothing again.
    const again = await runAction({ actionDir, workspace, runnerTemp, inputs: { command: 'validate', manifest: 'infra' }, env });
    expect(again.byId('install').outcome).toBe('success');
    expect(again.byId('install').log).not.toMatch(/added \d+ packages/);
    expect(again.byId('install').log.trim()).toBe(`driftless ${pkg.version}`);
  }, 600_000);

  it('with the version input, installs that published version from the registry instead (and only then asks the registry)', async () => {
    const run = await runAction({ actionDir, workspace, runnerTemp, inputs: { command: 'validate', manifest: 'infra', version: pkg.version }, env });
    expect(run.byId('deps').outcome).toBe('skipped');
    expect(run.byId('deps-cache').outcome).toBe('skipped');
    // Here the registry is unreachable: the install of that version fails, and so does the job.
    const install = run.byId('install');
    expect(install.outcome).toBe('failure');
    expect(install.log).toContain('driftless-cli');
    expect(run.failed).toBe(true);
  }, 120_000);
});
