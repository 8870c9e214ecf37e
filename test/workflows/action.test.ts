/**
 * The GitHub Action (action.yml): GitHub's own parser accepts it, its structure is what the
 * example workflows rely on, it installs exactly this version, and its run step (action/run.mjs)
 * does what a job relies on, run for real against the emulator with the built CLI: the exit code,
 * the summary line and the paths as step outputs, the job summary, the markdown parts for the
 * pull-request comments, and a failure that replaces them.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NoOperationTraceWriter } from '@actions/workflow-parser';
import { convertActionTemplate, parseAction } from '@actions/workflow-parser/actions/index';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, STEP_SUMMARY_LIMIT, cacheDirOf, capBytes, fenced, jobSummary, planRun, readInputs, summaryLine } from '../../action/run.mjs';
import { startEmu, tempDir, type Emu } from '../export/helpers.js';
import { runStep as runRunStep } from './action-step.js';

const root = path.resolve(__dirname, '../..');
const actionText = readFileSync(path.join(root, 'action.yml'), 'utf8');
const action = parse(actionText) as Record<string, any>;
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };

describe('action.yml', () => {
  it("parses with GitHub's action parser without an error, as a composite action", () => {
    const parsed = parseAction({ name: 'action.yml', content: actionText }, new NoOperationTraceWriter());
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    const template = convertActionTemplate(parsed.context, parsed.value!);
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    expect(template.runs.using).toBe('composite');
    expect(template.inputs!.map((i) => i.id)).toEqual(
      expect.arrayContaining(['command', 'manifest', 'format', 'plan-file', 'split-dir', 'drift-file', 'no-secret-values', 'max-wait', 'extra-args', 'comment', 'github-token']),
    );
    expect(template.outputs!.map((o) => o.id)).toEqual(expect.arrayContaining(['exit-code', 'summary', 'plan-file', 'markdown-dir', 'markdown-parts', 'drift-file']));
  });

  it("the parser does report a composite step without a shell (so the check above can fail)", () => {
    const broken = actionText.replace(/\n {6}shell: bash\n/, '\n');
    const parsed = parseAction({ name: 'action.yml', content: broken }, new NoOperationTraceWriter());
    expect(parsed.context.errors.getErrors().map((e) => e.message).join('\n')).toMatch(/shell/);
  });

  it('every run step names its shell and interpolates no ${{ }} expression into its script (inputs go through env)', () => {
    const steps = action.runs.steps as Array<Record<string, any>>;
    for (const step of steps.filter((s) => s.run)) {
      expect(step.shell, step.name).toBe('bash');
      expect(step.run, step.name).not.toContain('${{');
    }
    // Every input reaches the run step through env.
    const run = steps.find((s) => s.id === 'run')!;
    for (const input of ['command', 'manifest', 'format', 'plan-file', 'split-dir', 'drift-file', 'no-secret-values', 'max-wait', 'extra-args'])
      expect(Object.values(run.env)).toContain(`\${{ inputs.${input} }}`);
  });

  it('every output is a value of the run (or comment) step', () => {
    for (const [name, o] of Object.entries<any>(action.outputs)) expect(o.value, name).toMatch(/^\$\{\{ steps\.(run|comment)\.outputs\.[a-z-]+ \}\}$/);
  });

  it("installs driftless from the action's own checkout with its lockfile (cached on it), or a published version only when the version input names one", () => {
    const steps = action.runs.steps as Array<Record<string, any>>;
    const install = steps.find((s) => s.id === 'install')!;
    expect(pkg.name).toBe('driftless-cli');
    expect(action.inputs.version.default).toBe('');
    expect(install.env).toMatchObject({ ACTION_DIR: '${{ github.action_path }}', DRIFTLESS_VERSION: '${{ inputs.version }}', DEPS_RESTORED: '${{ steps.deps-cache.outputs.cache-hit }}' });
    // The registry only for a named version; npm ci (the lockfile, exactly) otherwise; no install script either way.
    expect(install.run).toMatch(/if \[ -n "\$DRIFTLESS_VERSION" \]; then[\s\S]*"driftless-cli@\$DRIFTLESS_VERSION"[\s\S]*else[\s\S]*npm ci --no-audit --no-fund --ignore-scripts[\s\S]*npm run --silent build/);
    const npmCommands = (install.run as string).split('\n').filter((l) => /^\s*npm (ci|install)\b/.test(l));
    expect(npmCommands).toHaveLength(2);
    for (const c of npmCommands) expect(c).toContain('--ignore-scripts');
    // The dependencies are cached on the action's lockfile, only when building from the checkout.
    const key = steps.find((s) => s.id === 'deps')!;
    const cache = steps.find((s) => s.id === 'deps-cache')!;
    expect(String(cache.uses)).toMatch(/^actions\/cache@/);
    expect(cache.with).toEqual({ path: '${{ github.action_path }}/node_modules', key: '${{ steps.deps.outputs.key }}' });
    expect(key.run).toContain('sha256sum "$ACTION_DIR/package-lock.json"');
    expect(key.if).toBe("inputs.version == ''");
    expect(cache.if).toBe("inputs.version == ''");
    expect(steps.indexOf(key)).toBeLessThan(steps.indexOf(cache));
    expect(steps.indexOf(cache)).toBeLessThan(steps.indexOf(install));
  });

  it('pins every action it uses by full commit SHA, with the tag in a comment', () => {
    const uses = [...actionText.matchAll(/^\s+uses: (\S+)(.*)$/gm)];
    expect(uses.length).toBeGreaterThan(0);
    for (const [, ref, comment] of uses) {
      // owner/repo, or owner/repo/sub-action (actions/cache/restore), at a full commit SHA.
      expect(ref).toMatch(/^[\w.-]+\/[\w.-]+(?:\/[\w.-]+)?@[0-9a-f]{40}$/);
      expect(comment).toMatch(/^ # v\d+\.\d+\.\d+$/);
    }
  });

  it('sets up Node 20 only when the runner has no Node >= 20.19, and posts comments only for a plan on a pull request', () => {
    const steps = action.runs.steps as Array<Record<string, any>>;
    const setup = steps.find((s) => String(s.uses).startsWith('actions/setup-node@'))!;
    expect(setup.if).toBe("steps.node.outputs.setup == 'true'");
    expect(setup.with['node-version']).toBe(20);
    const comment = steps.find((s) => s.id === 'comment')!;
    expect(comment.if).toContain("inputs.command == 'plan'");
    expect(comment.if).toContain('github.event.pull_request');
    expect(comment.if).toContain('!cancelled()');
    // The job fails on a driftless error only after the comment step.
    const last = steps.at(-1)!;
    expect(steps.indexOf(comment)).toBeLessThan(steps.indexOf(last));
    expect(last.env.EXIT_CODE).toBe('${{ steps.run.outputs.exit-code }}');
  });
});

describe('action.yml: the refresh cache', () => {
  const steps = action.runs.steps as Array<Record<string, any>>;
  const restore = steps.find((s) => s.id === 'cache-restore')!;
  const save = steps.find((s) => String(s.uses).startsWith('actions/cache/save@'))!;
  const run = steps.find((s) => s.id === 'run')!;

  it('restores before the run and saves after it, the same directory, for plan, apply, drift and preview only, unless cache is false', () => {
    expect(String(restore.uses)).toMatch(/^actions\/cache\/restore@/);
    expect(steps.indexOf(restore)).toBeLessThan(steps.indexOf(run));
    expect(steps.indexOf(save)).toBeGreaterThan(steps.indexOf(run));
    expect(restore.with.path).toBe(save.with.path);
    expect(restore.if).toContain("inputs.cache == 'true'");
    // The commands that read the live state through the cache: validate and show do not.
    const commands = (condition: string) => JSON.parse(/contains\(fromJSON\('(\[[^\]]*\])'\), inputs\.command\)/.exec(condition)![1]!);
    expect(commands(restore.if)).toEqual(['plan', 'apply', 'drift', 'preview']);
    // Saved whatever the exit code (the cache is written right after the read), under the key the restore computed.
    expect(save.if).toContain("steps.cache-restore.outcome == 'success'");
    expect(save.with.key).toBe('${{ steps.cache-restore.outputs.cache-primary-key }}');
    expect(run.env.ACTION_CACHE_RESTORED).toBe('${{ steps.cache-restore.outcome }}');
    expect(action.inputs.cache.default).toBe('true');
  });

  it('keys a new entry per run by organization, manifest path and branch, restored from the branch, else the default branch', () => {
    const org = '${{ inputs.organization || env.DRIFTLESS_API_URL }}-${{ steps.cache-name.outputs.manifest }}';
    expect(restore.with.key).toBe(`driftless-cache-${org}-\${{ github.head_ref || github.ref_name }}-\${{ github.run_id }}-\${{ github.run_attempt }}`);
    expect(String(restore.with['restore-keys']).trim().split('\n')).toEqual([
      `driftless-cache-${org}-\${{ github.head_ref || github.ref_name }}-`,
      `driftless-cache-${org}-\${{ github.event.repository.default_branch }}-`,
    ]);
  });

  it('names the manifest path(s) in the key as a short hash, different for two manifests of one repository', () => {
    const name = steps.find((s) => s.id === 'cache-name')!;
    expect(steps.indexOf(name)).toBeLessThan(steps.indexOf(restore));
    expect(name.if).toBe(restore.if);
    expect(name.env.ACTION_INPUT_MANIFEST).toBe('${{ inputs.manifest }}');
    const idOf = (manifest: string): string => {
      const dir = mkdtempSync(path.join(tmpdir(), 'action-cache-name-'));
      try {
        const out = path.join(dir, 'output');
        writeFileSync(out, '');
        execFileSync('bash', ['-c', String(name.run)], { env: { ...process.env, ACTION_INPUT_MANIFEST: manifest, GITHUB_OUTPUT: out } });
        const m = /^manifest=([0-9a-f]{16})$/.exec(readFileSync(out, 'utf8').trim());
        expect(m).not.toBeNull();
        return m![1]!;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    expect(idOf('infra/team-a')).toBe(idOf('infra/team-a'));
    expect(idOf('infra/team-a')).not.toBe(idOf('infra/team-b'));
    expect(idOf('a.yaml\nb.yaml')).not.toBe(idOf('a.yaml'));
  });

  it('run.mjs gives driftless the very directory the cache steps restore and save', () => {
    expect(cacheDirOf({ RUNNER_TEMP: '/tmp/runner' })).toBe(path.join('/tmp/runner', 'driftless-cache'));
    expect(restore.with.path).toBe('${{ runner.temp }}/driftless-cache');
  });
});

describe('action/run.mjs: the driftless command line of each input combination', () => {
  const inputs = (env: Record<string, string>) => readInputs(Object.fromEntries(Object.entries(env).map(([k, v]) => [`ACTION_INPUT_${k}`, v])));

  it('plan: a saved plan, detailed exit code, markdown split into parts, without secret values on request', () => {
    expect(planRun(inputs({ COMMAND: 'plan', MANIFEST: 'infra', NO_SECRET_VALUES: 'true', MAX_WAIT: '600' })).args).toEqual([
      'plan', 'infra', '--out', 'driftless.plan.json', '--detailed-exitcode', '--format', 'markdown', '--split-dir', 'driftless-plan-md', '--no-secret-values', '--max-wait', '600',
    ]);
    expect(planRun(inputs({ COMMAND: 'plan', FORMAT: 'json', PLAN_FILE: 'p.json' })).args).toEqual(['plan', '.', '--out', 'p.json', '--detailed-exitcode', '--format', 'json']);
  });

  it('apply, drift, validate, show', () => {
    expect(planRun(inputs({ COMMAND: 'apply', MANIFEST: 'infra', PLAN_FILE: 'reviewed/p.json' })).args).toEqual(['apply', 'reviewed/p.json', 'infra', '--auto-approve']);
    expect(planRun(inputs({ COMMAND: 'apply', MANIFEST: 'infra' })).args).toEqual(['apply', 'infra', '--auto-approve']);
    expect(planRun(inputs({ COMMAND: 'drift', MANIFEST: 'a.yaml\nb.yaml', MAX_WAIT: '300' })).args).toEqual(['drift', 'a.yaml', 'b.yaml', '--format', 'markdown', '--json-file', 'drift.json', '--split-dir', 'driftless-drift-md', '--max-wait', '300']);
    expect(planRun(inputs({ COMMAND: 'validate', MANIFEST: 'infra', EXTRA_ARGS: '--remote' })).args).toEqual(['validate', 'infra', '--format', 'github', '--remote']);
    expect(planRun(inputs({ COMMAND: 'show', PLAN_FILE: 'p.json', FORMAT: 'markdown' })).args).toEqual(['show', 'p.json', '--format', 'markdown']);
  });

  it('a manifest path or an extra argument stays one argument: nothing is evaluated by a shell', () => {
    const r = planRun(inputs({ COMMAND: 'validate', MANIFEST: 'infra; touch pwned', EXTRA_ARGS: '$(id) `id`' }));
    expect(r.args).toEqual(['validate', 'infra; touch pwned', '--format', 'github', '$(id)', '`id`']);
  });

  it('refuses a bad input naming the input and what is allowed', () => {
    expect(() => planRun(inputs({ COMMAND: 'destroy' }))).toThrow("input 'command' is 'destroy': expected one of plan, apply, drift, validate, show");
    expect(() => planRun(inputs({ COMMAND: 'drift', FORMAT: 'github' }))).toThrow("input 'format' is 'github': drift accepts markdown, human, json");
    expect(() => planRun(inputs({ COMMAND: 'apply', FORMAT: 'json' }))).toThrow('apply has no output format');
    expect(() => planRun(inputs({ COMMAND: 'plan', MAX_WAIT: '10m' }))).toThrow("input 'max-wait' is '10m': expected a whole number of seconds");
    expect(() => planRun(inputs({ COMMAND: 'apply', NO_SECRET_VALUES: 'true' }))).toThrow('cannot be applied');
    expect(() => planRun(inputs({ COMMAND: 'show' }))).toThrow("input 'plan-file' is empty");
  });

  it('the summary line of a plan, a drift report, and a failure', () => {
    const plan = planRun(inputs({ COMMAND: 'plan' }));
    expect(summaryLine(plan, { exitCode: 2, text: '**Plan: 1 to add, 2 to change, 0 to destroy, 3 to deploy.** Live state read' })).toBe('Plan: 1 to add, 2 to change, 0 to destroy, 3 to deploy.');
    expect(summaryLine(plan, { exitCode: 1, text: '' })).toBe('driftless plan failed (exit code 1).');
    expect(summaryLine(plan, { exitCode: 2, text: JSON.stringify({ format_version: '1.0', summary: { add: 0, change: 1, destroy: 2, deploy: 1 } }) })).toBe('Plan: 0 to add, 1 to change, 2 to destroy, 1 to deploy.');
    expect(summaryLine(plan, { exitCode: 0, text: JSON.stringify({ summary: { add: 0, change: 0, destroy: 0, deploy: 0 } }) })).toBe('No changes.');
    const drift = planRun(inputs({ COMMAND: 'drift' }));
    expect(summaryLine(drift, { exitCode: 2, text: '', drift: { in_sync: false, summary: { drifted: 1 } } })).toBe('Drift detected: 1 resource differs from Git.');
  });
});

describe('action/run.mjs: the job summary', () => {
  it('fences the human plan with a fence longer than any run of backticks in it, so a value cannot close it', () => {
    const text = 'value = "```\n# not a heading"\nother = "````"\n';
    const block = fenced(text);
    expect(block.startsWith('`````text\n')).toBe(true);
    expect(block.endsWith('\n`````\n')).toBe(true);
    expect(block.split('\n').filter((l) => /^`{5}/.test(l))).toHaveLength(2);
  });

  it('cuts what is over the 1 MiB summary limit at a line boundary, with the note saying where the rest is', () => {
    const line = 'é'.repeat(99) + '\n'; // 199 bytes: the limit counts bytes, not characters
    const big = line.repeat(Math.ceil((STEP_SUMMARY_LIMIT * 1.5) / Buffer.byteLength(line)));
    const note = '\n*Cut here: see driftless show.*\n';
    const cut = capBytes(big, STEP_SUMMARY_LIMIT, note);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(cut.endsWith(`${line}${note}`)).toBe(true);
    expect(capBytes('small\n', STEP_SUMMARY_LIMIT, note)).toBe('small\n');
  });

  it('a human plan over the limit is cut inside its fence: the fence is still closed, and the note says how to see the rest', () => {
    const run = planRun(readInputs({ ACTION_INPUT_COMMAND: 'plan', ACTION_INPUT_PLAN_FILE: 'action.yml' })); // a file that exists
    const human = Array.from({ length: 30_000 }, (_, i) => `  + application.web-${i} (create)`).join('\n') + '\n\nPlan: 30000 to add, 0 to change, 0 to destroy, 0 to deploy.\n';
    const out = jobSummary({ run, summary: 'Plan: 30000 to add, 0 to change, 0 to destroy, 0 to deploy.', failed: false, human, parts: [], result: { code: 2, stdout: '', stderr: '' }, runUrl: '' });
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT + 1);
    expect(out.match(/^```+/gm)).toHaveLength(2); // opened and closed
    expect(out).toContain('*Cut here: the job summary holds at most 1 MiB. The whole plan: `driftless show action.yml` on the saved plan file.*');
    expect(out).toContain('application.web-0 (create)');
  });
});

/** The run step with the inputs named as action/run.mjs reads them (COMMAND, PLAN_FILE, ...). */
const runStep = (cwd: string, inputs: Record<string, string>, env: NodeJS.ProcessEnv) =>
  runRunStep(cwd, Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`ACTION_INPUT_${k}`, v])), env);

describe('action/run.mjs, run for real on the emulator', () => {
  let emu: Emu;
  const tmp = tempDir('driftless-action-');
  const partsOf = (dir: string) => readdirSync(path.join(tmp.dir, dir)).filter((f) => /^part-\d+\.md$/.test(f)).sort();

  beforeAll(async () => {
    expect(existsSync(path.join(root, 'dist/cli/main.js')), 'run `npm run build` first: the action runs the built CLI').toBe(true);
    emu = await startEmu();
    cpSync(path.join(root, 'examples/minimal'), path.join(tmp.dir, 'infra'), { recursive: true });
  });
  afterAll(async () => {
    await emu.close();
    tmp.cleanup();
  });

  it('validate, plan (outputs, job summary, log), apply of the saved plan, then drift in sync', async () => {
    const validate = await runStep(tmp.dir, { COMMAND: 'validate', MANIFEST: 'infra' }, {});
    expect(validate.outputs['exit-code']).toBe('0');
    expect(validate.outputs.summary).toBe('The manifest is valid.');

    const plan = await runStep(tmp.dir, { COMMAND: 'plan', MANIFEST: 'infra', FORMAT: 'json' }, emu.env({}, 'READ'));
    expect(plan.outputs['exit-code']).toBe('2');
    expect(plan.outputs.summary).toBe('Plan: 3 to add, 0 to change, 0 to destroy, 1 to deploy.');
    expect(plan.outputs['plan-file']).toBe('driftless.plan.json');
    expect(existsSync(path.join(tmp.dir, 'driftless.plan.json'))).toBe(true);
    expect(plan.outputs['output-file']).toBe('driftless-plan.json');
    const json = JSON.parse(readFileSync(path.join(tmp.dir, 'driftless-plan.json'), 'utf8'));
    expect(json.summary).toMatchObject({ add: 3, change: 0, destroy: 0, deploy: 1 });
    // The job summary: the heading, the summary line, and every resource of the plan.
    expect(plan.summary).toContain('## driftless plan');
    expect(plan.summary).toContain('**Plan: 3 to add, 0 to change, 0 to destroy, 1 to deploy.**');
    for (const name of ['hello', 'staging', 'web']) expect(plan.summary).toContain(name);
    // The plan is printed to the log with workflow commands stopped around it.
    const stop = /::stop-commands::([0-9a-f]{32})\n/.exec(plan.log);
    expect(stop).not.toBeNull();
    expect(plan.log).toContain(`::${stop![1]}::`);

    const apply = await runStep(tmp.dir, { COMMAND: 'apply', MANIFEST: 'infra', PLAN_FILE: 'driftless.plan.json' }, emu.env());
    expect(apply.outputs['exit-code']).toBe('0');
    expect(apply.outputs.summary).toMatch(/^Apply complete!/);
    expect(apply.summary).toContain('Apply complete!');
    // apply's progress is streamed to the log, with workflow commands stopped around it.
    expect(apply.log).toMatch(/::stop-commands::([0-9a-f]{32})\n[\s\S]*Apply complete![\s\S]*\n::\1::\n/);

    const drift = await runStep(tmp.dir, { COMMAND: 'drift', MANIFEST: 'infra' }, emu.env({}, 'READ'));
    expect(drift.outputs['exit-code']).toBe('0');
    expect(drift.outputs.summary).toBe('No drift: the live platform matches Git.');
    expect(drift.outputs['drift-file']).toBe('drift.json');
    expect(JSON.parse(readFileSync(path.join(tmp.dir, 'drift.json'), 'utf8'))).toMatchObject({ in_sync: true });
    expect(drift.outputs['output-file']).toBe('driftless-drift.md');
    expect(drift.summary).toContain('## driftless drift');
  }, 90_000);

  it('plan in markdown: the parts for the pull-request comments, each under the limit, every resource in them, and the human plan in the job summary', async () => {
    // A project of its own, so that the other tests' apply does not matter.
    mkdirSync(path.join(tmp.dir, 'infra-md'), { recursive: true });
    writeFileSync(path.join(tmp.dir, 'infra-md/driftless.yaml'), readFileSync(path.join(root, 'examples/minimal/driftless.yaml'), 'utf8').replace('- name: hello\n', '- name: hello-md\n'));
    const plan = await runStep(tmp.dir, { COMMAND: 'plan', MANIFEST: 'infra-md', PLAN_FILE: 'md.plan.json' }, emu.env({}, 'READ'));
    expect(plan.outputs['exit-code']).toBe('2');
    expect(plan.outputs.summary).toBe('Plan: 3 to add, 0 to change, 0 to destroy, 1 to deploy.');
    expect(plan.outputs['plan-file']).toBe('md.plan.json');
    expect(existsSync(path.join(tmp.dir, 'md.plan.json'))).toBe(true);
    expect(plan.outputs['markdown-dir']).toBe('driftless-plan-md');
    const parts = partsOf('driftless-plan-md');
    expect(plan.outputs['markdown-parts']).toBe(String(parts.length));
    expect(parts.length).toBeGreaterThanOrEqual(1);
    const markdown = parts.map((p) => readFileSync(path.join(tmp.dir, 'driftless-plan-md', p), 'utf8'));
    for (const m of markdown) expect(m.length).toBeLessThan(COMMENT_LIMIT);
    for (const name of ['hello-md', 'staging', 'web']) expect(markdown.join('\n')).toContain(name);
    // The job summary: the human plan (driftless show of the saved plan), fenced.
    expect(plan.summary).toContain('## driftless plan');
    expect(plan.summary).toContain('**Plan: 3 to add, 0 to change, 0 to destroy, 1 to deploy.**');
    expect(plan.summary).toMatch(/```+text\n[\s\S]*hello-md[\s\S]*Plan: 3 to add, 0 to change, 0 to destroy, 1 to deploy\.[\s\S]*```+\n/);
    // The plan is printed to the log with workflow commands stopped around it.
    const stop = /::stop-commands::([0-9a-f]{32})\n/.exec(plan.log);
    expect(stop).not.toBeNull();
    expect(plan.log).toContain(`::${stop![1]}::`);
  }, 60_000);

  it('a failing plan replaces the parts of the previous plan with ONE part that says so, and leaves no plan file', async () => {
    // A previous, longer plan left three parts and a plan file in the workspace (a self-hosted runner).
    mkdirSync(path.join(tmp.dir, 'stale-md'), { recursive: true });
    for (const n of [1, 2, 3]) writeFileSync(path.join(tmp.dir, 'stale-md', `part-${n}.md`), `old part ${n}`);
    writeFileSync(path.join(tmp.dir, 'stale.plan.json'), '{}');
    writeFileSync(path.join(tmp.dir, 'infra-broken.yaml'), 'projects:\n  - name: hello\n    environments:\n      - name: staging\n        clustr: x\n');
    const r = await runStep(tmp.dir, { COMMAND: 'plan', MANIFEST: 'infra-broken.yaml', SPLIT_DIR: 'stale-md', PLAN_FILE: 'stale.plan.json' }, emu.env({}, 'READ'));
    expect(r.outputs['exit-code']).toBe('1');
    expect(r.outputs.summary).toBe('driftless plan failed (exit code 1).');
    expect(r.outputs['plan-file']).toBe('');
    expect(existsSync(path.join(tmp.dir, 'stale.plan.json'))).toBe(false);
    expect(partsOf('stale-md')).toEqual(['part-1.md']);
    expect(r.outputs['markdown-parts']).toBe('1');
    const failure = readFileSync(path.join(tmp.dir, 'stale-md', 'part-1.md'), 'utf8');
    expect(failure).toContain('### ❌ driftless plan failed');
    expect(failure).toContain('https://github.com/acme/infra/actions/runs/42');
    expect(failure).toContain('clustr'); // the diagnostic itself, from the plan's output
    expect(r.summary).toContain('driftless plan failed');
  }, 60_000);

  it('a bad input fails with one line naming it, and runs nothing', async () => {
    const r = await runStep(tmp.dir, { COMMAND: 'destroy', MANIFEST: 'infra' }, emu.env());
    expect(r.outputs['exit-code']).toBe('1');
    expect(r.log).toContain("::error title=driftless action::input 'command' is 'destroy'");
    expect(r.log).not.toContain('driftless destroy');
  });
});
