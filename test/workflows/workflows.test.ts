/**
 * The GitHub Actions examples. The runner is not available here, so: each file is checked for
 * what it needs (events, minimal permissions, concurrency, steps), and every driftless command line
 * of every `run:` step is extracted and executed, with the same arguments, in-process against the
 * emulator, in the order the workflows run in practice: plan on the pull request, apply on merge
 * (of the reviewed plan file, as the artifact hands it over), then the nightly drift.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startEmu, tempDir, type Emu, type RunResult } from '../export/helpers.js';

const dir = path.resolve(__dirname, '../../examples/github-actions');
const load = (name: string) => parse(readFileSync(path.join(dir, name), 'utf8')) as Record<string, any>;
const workflows = { plan: load('plan.yml'), apply: load('apply.yml'), drift: load('drift.yml') };

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}
const stepsOf = (wf: Record<string, any>): Step[] => Object.values<any>(wf.jobs).flatMap((j) => j.steps as Step[]);

/** The driftless command lines of a workflow's `run:` steps, with the step they come from. */
function driftlessLines(wf: Record<string, any>): Array<{ step: string; line: string }> {
  return stepsOf(wf).flatMap((s) =>
    (s.run ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('driftless '))
      .map((line) => ({ step: s.name ?? '', line })),
  );
}

/** A shell line -> argv (quotes, $VAR expansion) and its stdout redirection. Enough for these files. */
export function parseLine(line: string, vars: Record<string, string>): { argv: string[]; stdout?: string } {
  const words: string[] = [];
  let stdout: string | undefined;
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  const expand = (s: string) => s.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_m, n: string) => {
    if (!(n in vars)) throw new Error(`unknown variable $${n} in: ${line}`);
    return vars[n]!;
  });
  const tokens = [...line.matchAll(re)].map((m) => (m[1] !== undefined ? expand(m[1]) : m[2] !== undefined ? m[2] : expand(m[3]!)));
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i] === '>') stdout = tokens[++i];
    else words.push(tokens[i]!);
  }
  expect(words[0]).toBe('driftless');
  return { argv: words.slice(1), ...(stdout ? { stdout } : {}) };
}

describe('workflow files', () => {
  it('plan.yml runs on pull requests with read access and a PR comment, validates with annotations, plans to markdown and a saved plan', () => {
    const wf = workflows.plan;
    expect(Object.keys(wf.on)).toEqual(['pull_request']);
    expect(wf.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(wf.concurrency.group).toContain('github.event.pull_request.number');
    const uses = stepsOf(wf).map((s) => s.uses).filter(Boolean);
    expect(uses).toEqual(expect.arrayContaining(['actions/checkout@v4', 'actions/upload-artifact@v4', 'actions/github-script@v7']));
    const lines = driftlessLines(wf).map((l) => l.line);
    expect(lines[0]).toBe('driftless validate "$MANIFEST_DIR" --format github');
    expect(lines[1]).toContain('--format markdown');
    expect(lines[1]).toContain('--out driftless.plan.json');
    // One sticky comment: found by its marker and updated.
    const script = String(stepsOf(wf).find((s) => s.uses === 'actions/github-script@v7')!.with!.script);
    expect(script).toContain('updateComment');
    expect(script).toContain('<!-- driftless-plan -->');
  });

  it('apply.yml runs on push to main, never two at once, and applies the reviewed plan artifact or re-plans', () => {
    const wf = workflows.apply;
    expect(wf.on.push.branches).toEqual(['main']);
    expect(wf.on).toHaveProperty('workflow_dispatch');
    expect(wf.permissions).toEqual({ contents: 'read', actions: 'read', 'pull-requests': 'read' });
    expect(wf.concurrency).toEqual({ group: 'driftless-apply', 'cancel-in-progress': false });
    const download = stepsOf(wf).find((s) => s.uses === 'actions/download-artifact@v4')!;
    expect(download.with).toMatchObject({ name: 'driftless-plan', path: 'reviewed' });
    expect(driftlessLines(wf).map((l) => l.line)).toEqual(['driftless apply reviewed/driftless.plan.json "$MANIFEST_DIR" --auto-approve', 'driftless apply "$MANIFEST_DIR" --auto-approve']);
  });

  it('drift.yml runs nightly with issue access only, shares the apply group, and keys one issue on the fingerprint', () => {
    const wf = workflows.drift;
    expect(wf.on.schedule[0].cron).toMatch(/^\S+ \S+ \* \* \*$/);
    expect(wf.permissions).toEqual({ contents: 'read', issues: 'write' });
    expect(wf.concurrency.group).toBe(workflows.apply.concurrency.group);
    const script = String(stepsOf(wf).find((s) => s.uses === 'actions/github-script@v7')!.with!.script);
    expect(script).toContain('fingerprint=${report.fingerprint}');
    expect(script).toContain("state: 'closed'");
    expect(driftlessLines(wf).map((l) => l.line)).toEqual(['driftless drift "$MANIFEST_DIR" --format markdown --json-file drift.json > drift.md']);
  });

  it('every job checks out the repository, installs driftless, and has a timeout', () => {
    for (const wf of Object.values(workflows))
      for (const job of Object.values<any>(wf.jobs)) {
        expect(job['timeout-minutes']).toBeGreaterThan(0);
        expect(job.steps[0].uses).toBe('actions/checkout@v4');
        expect(job.steps.some((s: Step) => /npm install --global driftless-cli@/.test(s.run ?? ''))).toBe(true);
      }
  });
});

describe('the workflows\' driftless commands, end to end on the emulator', () => {
  let emu: Emu;
  const tmp = tempDir('driftless-workflows-');
  const secrets = { SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/wf', WEBHOOK_SIGNING_SECRET: 'wf-sig', STRIPE_API_KEY: 'sk_test_wf', SESSION_SECRET: 'wf-session' };
  const vars = { MANIFEST_DIR: 'infra' };

  async function runLine(line: string): Promise<RunResult> {
    const { argv, stdout } = parseLine(line, vars);
    const r = await run(argv, emu.env(secrets), tmp.dir);
    if (stdout) writeFileSync(path.join(tmp.dir, stdout), r.stdout);
    return r;
  }
  const lines = (wf: Record<string, any>) => driftlessLines(wf).map((l) => l.line);

  beforeAll(async () => {
    emu = await startEmu();
    cpSync(path.resolve(__dirname, '../../examples/realistic'), path.join(tmp.dir, 'infra'), { recursive: true });
  });
  afterAll(async () => {
    await emu.close();
    tmp.cleanup();
  });

  it('pull request, merge, nightly: plan, apply the reviewed plan, drift in sync, then drift found after a console edit', async () => {
    // plan.yml: validate (0), plan (2: changes) to plan.md and the saved plan.
    const [validate, plan] = lines(workflows.plan);
    expect((await runLine(validate!)).code).toBe(0);
    const planned = await runLine(plan!);
    expect(planned.code, planned.stderr).toBe(2);
    const planMd = readFileSync(path.join(tmp.dir, 'plan.md'), 'utf8');
    expect(planMd).toMatch(/to add/);
    expect(planMd).toContain('```mermaid'); // the deploy order, which GitHub renders in the comment
    expect(existsSync(path.join(tmp.dir, 'driftless.plan.json'))).toBe(true);
    // The artifact hands the reviewed plan to the apply workflow.
    mkdirSync(path.join(tmp.dir, 'reviewed'));
    cpSync(path.join(tmp.dir, 'driftless.plan.json'), path.join(tmp.dir, 'reviewed', 'driftless.plan.json'));

    // apply.yml: the reviewed plan applies (0); the re-plan path then has nothing to do (0).
    const [applyReviewed, applyReplan] = lines(workflows.apply);
    const applied = await runLine(applyReviewed!);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    const again = await runLine(applyReplan!);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes');
    // Applying the same reviewed plan twice is refused: it is stale now.
    const stale = await runLine(applyReviewed!);
    expect(stale.code).toBe(1);

    // drift.yml: in sync (0), the JSON for the issue script and the markdown body.
    const [drift] = lines(workflows.drift);
    expect((await runLine(drift!)).code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(tmp.dir, 'drift.json'), 'utf8'))).toMatchObject({ in_sync: true });

    // Someone edits a variable in the console: the nightly job finds it (2) and reports a fingerprint.
    const project = ((await emu.api('GET', `/organization/${emu.em.organizationId}/project`)).results as any[]).find((p) => p.name === 'shop');
    const v = ((await emu.api('GET', `/variable?parent_id=${project.id}&scope=PROJECT`)).results as any[]).find((x) => x.key === 'LOG_LEVEL' && x.scope === 'PROJECT');
    await emu.api('PUT', `/variable/${v.id}`, { key: 'LOG_LEVEL', value: 'trace' });
    const found = await runLine(drift!);
    expect(found.code).toBe(2);
    const report = JSON.parse(readFileSync(path.join(tmp.dir, 'drift.json'), 'utf8'));
    expect(report).toMatchObject({ in_sync: false, summary: { drifted: 1, outside_git: 1 } });
    expect(readFileSync(path.join(tmp.dir, 'drift.md'), 'utf8')).toContain(`fingerprint=${report.fingerprint}`);
    // The next pull request's plan shows it too.
    expect((await runLine(plan!)).code).toBe(2);
    // Nothing the workflows write holds a secret value.
    for (const f of ['plan.md', 'driftless.plan.json', 'drift.md', 'drift.json']) {
      const text = readFileSync(path.join(tmp.dir, f), 'utf8');
      for (const s of Object.values(secrets)) expect(text).not.toContain(s);
    }
  }, 90_000);
});
