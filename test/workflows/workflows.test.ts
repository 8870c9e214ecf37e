/**
 * The GitHub Actions examples (examples/github-actions). GitHub's own workflow parser accepts each
 * one; their pins, permissions and concurrency groups are what the README promises; and their
 * conditions and expressions, evaluated with GitHub's expression library as a runner would, run
 * the right steps with the right values (a plan after a failed validation, an apply only when the
 * plan has changes, the drift report kept).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import { truthy } from '@actions/expressions/result';
import { NoOperationTraceWriter, convertWorkflowTemplate, parseWorkflow } from '@actions/workflow-parser';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { planRun, readInputs } from '../../action/run.mjs';
import { root } from './action-step.js';

const dir = path.join(root, 'examples/github-actions');
const names = ['plan.yml', 'apply.yml', 'drift.yml'] as const;
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

  it("the local action's comment names the version action.yml installs", () => {
    const install = (action.runs.steps as Array<Record<string, any>>).find((s) => s.id === 'install')!;
    for (const name of names) for (const m of texts[name].matchAll(/<commit SHA of the release> # v(\S+)$/gm)) expect(m[1]).toBe(install.env.DRIFTLESS_VERSION);
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
    expect(script.env).toEqual({ DRIFT_FILE: '${{ steps.drift.outputs.drift-file }}', REPORT_FILE: '${{ steps.drift.outputs.output-file }}' });
    expect(String(script.with!.script)).not.toContain('${{');
    expect(String(script.with!.script)).toContain('fingerprint=${report.fingerprint}');
  });
});

// ---------------------------------------------------------------------------------------------
// Running the workflows as a runner would.

/** A JavaScript value as expression data. */
function toData(v: unknown): data.ExpressionData {
  if (v === null || v === undefined) return new data.Null();
  if (typeof v === 'string') return new data.StringData(v);
  if (typeof v === 'number') return new data.NumberData(v);
  if (typeof v === 'boolean') return new data.BooleanData(v);
  const dict = new data.Dictionary();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) dict.add(k, toData(x));
  return dict;
}

/** The status functions, for a job in which a step failed or not (nothing is cancelled here). */
function statusFunctions(failed: boolean) {
  const f = (name: string, value: boolean) => ({ name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(value) });
  return [f('success', !failed), f('always', true), f('cancelled', false), f('failure', failed)];
}

function evaluate(expression: string, contexts: Record<string, unknown>, failed = false): data.ExpressionData {
  const { tokens } = new Lexer(expression).lex();
  const functions = statusFunctions(failed);
  const ast = new Parser(tokens, Object.keys(contexts), functions).parse();
  return new Evaluator(ast, toData(contexts) as data.Dictionary, new Map(functions.map((f) => [f.name, f]))).evaluate();
}

/** A value with `${{ }}` expressions in it, as the runner hands it to a step. */
function interpolate(value: unknown, contexts: Record<string, unknown>): string {
  return String(value).replace(/\$\{\{\s*([\s\S]*?)\s*\}\}/g, (_m, e: string) => evaluate(e, contexts).coerceString());
}

/** An `if:` condition (with or without `${{ }}`); without a status function, `success() && ` is implied. */
function condition(value: string | undefined, contexts: Record<string, unknown>, failed: boolean): boolean {
  if (value === undefined) return !failed;
  const e = /^\$\{\{([\s\S]*)\}\}$/.exec(value.trim())?.[1] ?? value;
  const explicit = /\b(success|failure|always|cancelled)\(\)/.test(e);
  return (explicit || !failed) && truthy(evaluate(e, contexts, failed));
}

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
