/**
 * The GitHub Actions examples (examples/github-actions). GitHub's own workflow parser accepts each
 * one; their pins, permissions and concurrency groups are what the README promises; and their
 * conditions and expressions, evaluated with GitHub's expression library as a runner would, run
 * the right steps with the right values (a plan after a failed validation, an apply only when the
 * plan has changes, the drift report kept).
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NoOperationTraceWriter, convertWorkflowTemplate, parseWorkflow } from '@actions/workflow-parser';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRun, readInputs } from '../../action/run.mjs';
import { startEmu, tempDir, type Emu } from '../export/helpers.js';
import { root, runStep, type StepResult } from './action-step.js';
import { condition, interpolate } from './expressions.js';

const dir = path.join(root, 'examples/github-actions');
const names = ['plan.yml', 'apply.yml', 'drift.yml', 'preview.yml'] as const;
const texts = Object.fromEntries(names.map((n) => [n, readFileSync(path.join(dir, n), 'utf8')])) as Record<(typeof names)[number], string>;
const workflows = { plan: parse(texts['plan.yml']), apply: parse(texts['apply.yml']), drift: parse(texts['drift.yml']) } as Record<string, Record<string, any>>;
const action = parse(readFileSync(path.join(root, 'action.yml'), 'utf8')) as Record<string, any>;

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
const jobOf = (wf: Record<string, any>) => Object.values<any>(wf.jobs)[0] as Record<string, any> & { steps: Step[] };
const actionSteps = (wf: Record<string, any>) => jobOf(wf).steps.filter((s) => s.uses === './');

async function parseErrors(name: string, content: string): Promise<string[]> {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (errors.length || !parsed.value) return errors;
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return [...errors, ...(template.errors ?? []).map((e: { Message: string }) => e.Message)];
}

describe("the example workflows, checked with GitHub's workflow parser", () => {
  it.each(names)('%s parses and converts without an error', async (name) => {
    expect(await parseErrors(name, texts[name])).toEqual([]);
  });

  it('the parser does report a misspelt key and an unknown context (so the check above can fail)', async () => {
    const broken = texts['plan.yml'].replace('timeout-minutes:', 'timeout-minute:').replace('${{ vars.DRIFTLESS_API_URL }}', '${{ var.DRIFTLESS_API_URL }}');
    const errors = (await parseErrors('plan.yml', broken)).join('\n');
    expect(errors).toContain("Unexpected value 'timeout-minute'");
    expect(errors).toContain("Unrecognized named-value: 'var'");
  });

  it('every action is pinned by full commit SHA with its tag in a comment, except the local action', () => {
    for (const name of names) {
      const uses = [...texts[name].matchAll(/^\s+(?:- )?uses: (\S+)(.*)$/gm)];
      expect(uses.length).toBeGreaterThan(2);
      for (const [, ref, comment] of uses) {
        if (ref === './') {
          expect(comment, `${name}: how to pin the released action`).toMatch(/# in your repository: <owner>\/driftless@<commit SHA of the release> # v0\.1\.0$/);
          continue;
        }
        expect(ref, name).toMatch(/^actions\/[\w-]+@[0-9a-f]{40}$/);
        expect(comment, name).toMatch(/^ # v\d+\.\d+\.\d+$/);
      }
    }
  });

  it("the local action's comment names the version of this repository (the release the action's commit builds)", () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    for (const name of names) for (const m of texts[name].matchAll(/<commit SHA of the release> # v(\S+)$/gm)) expect(m[1]).toBe(pkg.version);
  });

  it('least privilege: nothing at the workflow level, each job only what it uses, no persisted git credentials', () => {
    for (const wf of Object.values(workflows)) expect(wf.permissions).toEqual({});
    expect(jobOf(workflows.plan).permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(jobOf(workflows.apply).permissions).toEqual({ contents: 'read' });
    expect(jobOf(workflows.drift).permissions).toEqual({ contents: 'read', issues: 'write' });
    for (const wf of Object.values(workflows)) {
      const job = jobOf(wf);
      expect(job.steps[0]!.uses).toMatch(/^actions\/checkout@/);
      expect(job.steps[0]!.with).toEqual({ 'persist-credentials': false });
    }
  });

  it('apply and drift have separate concurrency groups: a queued drift never cancels a pending apply', () => {
    expect(workflows.apply.concurrency).toEqual({ group: 'driftless-apply', 'cancel-in-progress': false });
    expect(workflows.drift.concurrency).toEqual({ group: 'driftless-drift', 'cancel-in-progress': true });
    expect(workflows.plan.concurrency).toEqual({ group: 'driftless-plan-${{ github.event.pull_request.number }}', 'cancel-in-progress': true });
    const groups = Object.values(workflows).map((wf) => wf.concurrency.group);
    expect(new Set(groups).size).toBe(groups.length);
  });

  it('the pull-request job plans without secret values and receives no secret but the read-only API token', () => {
    const plan = actionSteps(workflows.plan).find((s) => s.with?.command === 'plan')!;
    expect(plan.with!['no-secret-values']).toBe(true);
    expect([...texts['plan.yml'].matchAll(/\$\{\{\s*secrets\.(\w+)/g)].map((m) => m[1])).toEqual(['DRIFTLESS_API_TOKEN_READ']);
    // The apply on merge plans again, with the secrets, and applies that plan.
    const [replan, apply] = actionSteps(workflows.apply);
    expect(replan!.with).toMatchObject({ command: 'plan' });
    expect(replan!.with).not.toHaveProperty('no-secret-values');
    expect(replan!.env).toHaveProperty('DRIFTLESS_FINGERPRINT_KEY');
    expect(apply!.with).toMatchObject({ command: 'apply', 'plan-file': '${{ steps.plan.outputs.plan-file }}' });
    expect(jobOf(workflows.apply).environment).toBe('production');
    // The nightly drift too: it holds the fingerprint key and the secrets there (secrets-layout.test.ts).
    expect(jobOf(workflows.drift).environment).toBe('production');
  });

  it('every rate-limit wait is capped below the job timeout (all the action steps of a job together)', () => {
    for (const wf of Object.values(workflows)) {
      const job = jobOf(wf);
      const waits = actionSteps(wf).filter((s) => s.with?.command !== 'validate').map((s) => Number(s.with?.['max-wait']));
      for (const w of waits) expect(w).toBeGreaterThan(0);
      expect(waits.reduce((a, b) => a + b, 0)).toBeLessThan(job['timeout-minutes'] * 60);
    }
  });

  it("every input given to the action is one of action.yml's, and every output read from it is one of its outputs", () => {
    const inputs = Object.keys(action.inputs);
    const outputs = Object.keys(action.outputs);
    for (const [name, wf] of Object.entries(workflows)) {
      const ids = new Set(actionSteps(wf).map((s) => s.id).filter(Boolean));
      for (const s of actionSteps(wf)) {
        for (const k of Object.keys(s.with ?? {})) expect(inputs, `${name}: input ${k}`).toContain(k);
        expect(s.with, name).toHaveProperty('command');
      }
      for (const m of JSON.stringify(wf).matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
        expect(ids, name).toContain(m[1]);
        expect(outputs, `${name}: output ${m[2]}`).toContain(m[2]);
      }
    }
  });

  it('the drift report is uploaded as an artifact, and the issue step reads it through env', () => {
    const steps = jobOf(workflows.drift).steps;
    const upload = steps.find((s) => String(s.uses).startsWith('actions/upload-artifact@'))!;
    expect(String(upload.with!.path)).toContain('${{ steps.drift.outputs.drift-file }}');
    const script = steps.find((s) => String(s.uses).startsWith('actions/github-script@'))!;
    expect(String(upload.with!.path)).toContain('${{ steps.drift.outputs.markdown-dir }}');
    expect(script.env).toEqual({ DRIFT_FILE: '${{ steps.drift.outputs.drift-file }}', REPORT_FILE: '${{ steps.drift.outputs.output-file }}', PARTS_DIR: '${{ steps.drift.outputs.markdown-dir }}' });
    // The issue body is the first well-formed part, never a cut of the whole report.
    expect(String(script.with!.script)).toContain('part-1.md');
    expect(String(script.with!.script)).not.toMatch(/\.slice\(0, 6\d{4}\)/);
    expect(String(script.with!.script)).not.toContain('${{');
    expect(String(script.with!.script)).toContain('fingerprint=${report.fingerprint}');
  });
});

// ---------------------------------------------------------------------------------------------
// Running the workflows as a runner would.

describe("the example workflows' conditions and expressions, evaluated with GitHub's expression library", () => {
  const step = (wf: Record<string, any>, name: string) => jobOf(wf).steps.find((s) => s.name === name || s.id === name)!;

  it('pull request: the plan runs even after a failed validation (its failure then replaces the comment); its artifact only when a plan file was written', () => {
    const plan = step(workflows.plan, 'plan');
    expect(condition(plan.if, { steps: {} }, false)).toBe(true);
    expect(condition(plan.if, { steps: {} }, true)).toBe(true);
    const upload = step(workflows.plan, 'Keep the plan with the run');
    expect(condition(upload.if, { steps: { plan: { outputs: { 'plan-file': 'driftless.plan.json' } } } }, false)).toBe(true);
    expect(condition(upload.if, { steps: { plan: { outputs: { 'plan-file': '' } } } }, true)).toBe(false);
    expect(interpolate(upload.with!.path, { steps: { plan: { outputs: { 'plan-file': 'driftless.plan.json', 'markdown-dir': 'driftless-plan-md' } } } }).trim()).toBe('driftless.plan.json\ndriftless-plan-md');
  });

  it('merge: the apply runs only when the plan has changes (exit code 2), and applies that plan file', () => {
    const apply = step(workflows.apply, 'Apply exactly that plan');
    const after = (code: string) => ({ steps: { plan: { outputs: { 'exit-code': code, 'plan-file': 'driftless.plan.json' } } } });
    expect(condition(apply.if, after('2'), false)).toBe(true);
    expect(condition(apply.if, after('0'), false)).toBe(false);
    expect(condition(apply.if, after('1'), true)).toBe(false);
    expect(interpolate(apply.with!['plan-file'], after('2'))).toBe('driftless.plan.json');
  });

  it('nightly: the report is kept even when the job failed after writing it; the issue step runs only when drift succeeded', () => {
    const upload = step(workflows.drift, 'Keep the drift report');
    const done = { steps: { drift: { outputs: { 'drift-file': 'drift.json', 'output-file': 'driftless-drift.md' } } } };
    expect(condition(upload.if, done, true)).toBe(true);
    expect(interpolate(upload.with!.path, done).trim()).toBe('drift.json\ndriftless-drift.md');
    const issue = step(workflows.drift, 'Open, update or close the drift issue');
    expect(condition(issue.if, done, false)).toBe(true);
    expect(condition(issue.if, done, true)).toBe(false);
  });

  it('every input the workflows give the action maps, through action.yml\'s own env expressions, to what action/run.mjs reads', () => {
    const runStepDef = (action.runs.steps as Array<Record<string, any>>).find((s) => s.id === 'run')!;
    const plan = step(workflows.plan, 'plan');
    const inputs: Record<string, string> = {};
    for (const [name, def] of Object.entries<any>(action.inputs)) inputs[name] = plan.with?.[name] !== undefined ? String(plan.with[name]) : interpolate(def.default ?? '', { github: { token: 't' } });
    const env = Object.fromEntries(Object.entries<string>(runStepDef.env).map(([k, v]) => [k, interpolate(v, { inputs, steps: { install: { outputs: { entry: 'e' } } } })]));
    expect(env).toMatchObject({ ACTION_INPUT_COMMAND: 'plan', ACTION_INPUT_MANIFEST: 'infra', ACTION_INPUT_NO_SECRET_VALUES: 'true', ACTION_INPUT_MAX_WAIT: '600', ACTION_INPUT_FORMAT: '' });
    expect(planRun(readInputs(env)).args).toEqual(['plan', 'infra', '--out', 'driftless.plan.json', '--detailed-exitcode', '--format', 'markdown', '--split-dir', 'driftless-plan-md', '--no-secret-values', '--max-wait', '600']);
  });
});

// ---------------------------------------------------------------------------------------------
// The workflows run step by step on the emulator (needs the CLI of issue 12: --split-dir,
// --no-secret-values, --max-wait).

/**
 * One step of the local action: its inputs (the step's `with:`, action.yml's defaults), evaluated
 * through action.yml's own run-step env, so that a wrong mapping there fails here.
 */
async function runLocalAction(cwd: string, step: Step, contexts: Record<string, unknown>): Promise<StepResult> {
  const inputs: Record<string, string> = {};
  for (const [name, def] of Object.entries<any>(action.inputs)) {
    const given = step.with?.[name];
    inputs[name] = given !== undefined ? interpolate(given, contexts) : interpolate(def.default ?? '', { github: { token: 'gh-token' } });
  }
  const runStepDef = (action.runs.steps as Array<Record<string, any>>).find((s) => s.id === 'run')!;
  const actionContexts = { inputs, steps: { install: { outputs: { entry: 'set by runStep' } } } };
  const stepEnv = Object.fromEntries(Object.entries<string>(runStepDef.env).filter(([k]) => k.startsWith('ACTION_INPUT_')).map(([k, v]) => [k, interpolate(v, actionContexts)]));
  const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(v, contexts)]));
  return runStep(cwd, stepEnv, env);
}

/** Runs a workflow's job; returns each step's result by id (or name), the skipped steps, and whether it failed. */
async function runJob(cwd: string, wf: Record<string, any>, base: Record<string, unknown>) {
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const results: Record<string, StepResult> = {};
  const skipped: string[] = [];
  const envs: Record<string, Record<string, string>> = {};
  let failed = false;
  for (const step of jobOf(wf).steps) {
    const contexts = { ...base, steps };
    if (!condition(step.if, contexts, failed)) {
      skipped.push(step.name ?? step.uses!);
      continue;
    }
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(v, contexts)]));
    if (step.id) envs[step.id] = env;
    if (step.uses === './') {
      const r = await runLocalAction(cwd, step, contexts);
      results[step.id ?? step.name!] = r;
      if (step.id) steps[step.id] = { outputs: r.outputs };
      // The action's last step fails the job on a driftless error (exit code other than 0 and 2).
      if (!['0', '2'].includes(r.outputs['exit-code']!)) failed = true;
    } else if (String(step.uses).startsWith('actions/upload-artifact@')) {
      // What it uploads exists.
      for (const p of interpolate(step.with!.path, contexts).split('\n').map((s) => s.trim()).filter(Boolean)) expect(existsSync(path.join(cwd, p)), `${step.name}: ${p}`).toBe(true);
    } else if (String(step.uses).startsWith('actions/github-script@')) {
      for (const f of Object.values(env)) expect(existsSync(path.join(cwd, f)), `${step.name}: ${f}`).toBe(true);
    }
  }
  return { results, skipped, envs, failed };
}

describe('the example workflows, run step by step on the emulator', () => {
  let emu: Emu;
  const tmp = tempDir('driftless-workflows-');

  beforeAll(async () => {
    expect(existsSync(path.join(root, 'dist/cli/main.js')), 'run `npm run build` first: the action runs the built CLI').toBe(true);
    emu = await startEmu();
    cpSync(path.join(root, 'examples/minimal'), path.join(tmp.dir, 'infra'), { recursive: true });
  });
  afterAll(async () => {
    await emu.close();
    tmp.cleanup();
  });

  it('pull request: validate, plan with the read token only, markdown parts for the comment; merge: re-plan and apply; nightly: in sync, then drift after a console edit', async () => {
    const vars = { DRIFTLESS_API_URL: emu.em.url };
    const secrets = {
      DRIFTLESS_API_TOKEN_READ: emu.em.tokens.READ,
      DRIFTLESS_API_TOKEN_WRITE: emu.em.tokens.ADMIN,
      DRIFTLESS_FINGERPRINT_KEY: 'workflow-fingerprint-key-0123456789',
    };
    const github = { event: { pull_request: { number: 7 } }, token: 'gh-token' };

    const pr = await runJob(tmp.dir, workflows.plan, { vars, secrets, github });
    expect(pr.results.Validate!.outputs['exit-code']).toBe('0');
    expect(pr.results.plan!.outputs['exit-code']).toBe('2');
    expect(pr.envs.plan).toEqual({ DRIFTLESS_API_URL: emu.em.url, DRIFTLESS_API_TOKEN: emu.em.tokens.READ });
    expect(Number(pr.results.plan!.outputs['markdown-parts'])).toBeGreaterThanOrEqual(1);
    expect(pr.results.plan!.summary).toContain('Plan: 3 to add');
    expect(pr.skipped).toEqual([]);

    const merge = await runJob(tmp.dir, workflows.apply, { vars, secrets, github: {} });
    expect(merge.results.plan!.outputs['exit-code']).toBe('2');
    expect(merge.results['Apply exactly that plan']!.outputs).toMatchObject({ 'exit-code': '0', 'plan-file': 'driftless.plan.json' });
    expect(merge.results['Apply exactly that plan']!.outputs.summary).toMatch(/^Apply complete!/);
    // A second push with nothing to change: the plan says so and the apply step is skipped.
    const again = await runJob(tmp.dir, workflows.apply, { vars, secrets, github: {} });
    expect(again.results.plan!.outputs).toMatchObject({ 'exit-code': '0', summary: 'No changes.' });
    expect(again.skipped).toEqual(['Apply exactly that plan']);

    const nightly = await runJob(tmp.dir, workflows.drift, { vars, secrets, github: {} });
    expect(nightly.results.drift!.outputs).toMatchObject({ 'exit-code': '0', 'drift-file': 'drift.json' });
    expect(JSON.parse(readFileSync(path.join(tmp.dir, 'drift.json'), 'utf8'))).toMatchObject({ in_sync: true });

    // Someone changes the application's memory in the console: the next night finds it.
    const project = ((await emu.api('GET', `/organization/${emu.em.organizationId}/project`)).results as any[]).find((p) => p.name === 'hello');
    const environment = ((await emu.api('GET', `/project/${project.id}/environment`)).results as any[]).find((e) => e.name === 'staging');
    const app = ((await emu.api('GET', `/environment/${environment.id}/application`)).results as any[]).find((a) => a.name === 'web');
    await emu.api('PUT', `/application/${app.id}`, { name: app.name, git_repository: { url: app.git_repository.url }, memory: 512, healthchecks: app.healthchecks ?? {} });
    const found = await runJob(tmp.dir, workflows.drift, { vars, secrets, github: {} });
    expect(found.results.drift!.outputs['exit-code']).toBe('2');
    expect(found.results.drift!.outputs.summary).toBe('Drift detected: 1 resource differs from Git.');
    const report = JSON.parse(readFileSync(path.join(tmp.dir, 'drift.json'), 'utf8'));
    expect(readFileSync(path.join(tmp.dir, found.results.drift!.outputs['output-file']!), 'utf8')).toContain(`fingerprint=${report.fingerprint}`);
    expect(found.failed).toBe(false);

    // A pull request that breaks the manifest: validation fails, the plan still runs, fails, and
    // leaves ONE part that says so for the comment; the job fails.
    writeFileSync(path.join(tmp.dir, 'infra/broken.yaml'), 'projects:\n  - name: other\n    environments:\n      - name: dev\n        clustr: x\n');
    const broken = await runJob(tmp.dir, workflows.plan, { vars, secrets, github });
    expect(broken.failed).toBe(true);
    expect(broken.results.Validate!.outputs['exit-code']).toBe('1');
    expect(broken.results.plan!.outputs).toMatchObject({ 'exit-code': '1', 'markdown-parts': '1', 'plan-file': '' });
    expect(readFileSync(path.join(tmp.dir, 'driftless-plan-md/part-1.md'), 'utf8')).toContain('### ❌ driftless plan failed');
    expect(broken.skipped).toEqual(['Keep the plan with the run']);
  }, 120_000);
});
