/**
 * The step of the driftless GitHub Action (../action.yml) that runs driftless.
 *
 * The action passes its inputs in `ACTION_INPUT_*` environment variables (never interpolated into
 * a shell script), and the installed CLI's entry point in `ACTION_DRIFTLESS_ENTRY`. This script
 * builds the argument list (no shell: a manifest path or an extra argument is one argv word, never
 * code), runs driftless, and then:
 * - writes the step outputs (exit code, summary line, paths of what it wrote) to `$GITHUB_OUTPUT`;
 * - fills `$GITHUB_STEP_SUMMARY` with the full human-readable plan (`driftless show PLANFILE`),
 *   drift report or command output, and prints the human plan to the log;
 * - for a plan in markdown, leaves `part-1.md` ... `part-N.md` in the split directory for the
 *   comment step, and when the plan failed, ONE part that says so (so the pull request's comment is
 *   replaced by the failure, never left stale).
 * It never fails the step itself: the action's last step fails the job on exit code 1, after the
 * comment is posted.
 *
 * Node built-ins only: the action runs this file from its own checkout, where nothing is installed.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const COMMANDS = ['plan', 'apply', 'drift', 'validate', 'show', 'preview'];

/** The formats each command accepts (first: the action's default); apply has no --format. */
export const FORMATS = {
  plan: ['markdown', 'human', 'json', 'github'],
  drift: ['markdown', 'human', 'json'],
  validate: ['github', 'human', 'json'],
  show: ['human', 'markdown', 'json'],
  apply: [],
  // The comment step reads preview's JSON result: the format is not an input.
  preview: [],
};

/** The pull request event's actions: `closed` takes the preview down, the others bring it up. */
export const PREVIEW_DOWN_ACTIONS = ['closed'];

/** GitHub's limit for one comment body. */
export const COMMENT_LIMIT = 65_536;
/** GitHub's limit for one step's job summary is 1 MiB; stay below it. */
export const STEP_SUMMARY_LIMIT = 1_000_000;

const EXTENSION = { markdown: 'md', json: 'json', human: 'txt', github: 'txt' };

export class InputError extends Error {}

/** The action's inputs, from the environment the composite step sets. */
export function readInputs(env) {
  const get = (name) => (env[`ACTION_INPUT_${name}`] ?? '').trim();
  return {
    command: get('COMMAND'),
    // One path, or several (one per line), as the CLI's PATH... arguments.
    manifests: get('MANIFEST').split('\n').map((s) => s.trim()).filter(Boolean),
    format: get('FORMAT'),
    planFile: get('PLAN_FILE'),
    splitDir: get('SPLIT_DIR'),
    driftFile: get('DRIFT_FILE'),
    noSecretValues: get('NO_SECRET_VALUES'),
    maxWait: get('MAX_WAIT'),
    // Split on white space, never evaluated by a shell: `--target app.web --refresh full`.
    extraArgs: get('EXTRA_ARGS').split(/\s+/).filter(Boolean),
    project: get('PROJECT'),
    // One SERVICE.FIELD=VALUE per line (a value may hold spaces).
    set: get('SET').split('\n').map((s) => s.trim()).filter(Boolean),
    number: get('NUMBER'),
    prune: get('PRUNE'),
    keep: get('KEEP'),
    event: pullRequestEvent(env),
  };
}

/** The action and number of the pull request event that started the workflow, when it is one. */
export function pullRequestEvent(env) {
  if (!env.GITHUB_EVENT_PATH || !existsSync(env.GITHUB_EVENT_PATH)) return undefined;
  let payload;
  try {
    payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
  } catch {
    return undefined;
  }
  const number = payload?.pull_request?.number ?? payload?.number;
  return { action: typeof payload?.action === 'string' ? payload.action : '', number: Number.isInteger(number) ? String(number) : '' };
}

/**
 * What to run and where it writes, from the inputs. Pure; throws InputError on a bad input, naming
 * the input and what is allowed.
 */
export function planRun(inputs) {
  const { command } = inputs;
  if (!COMMANDS.includes(command)) throw new InputError(`input 'command' is '${command}': expected one of ${COMMANDS.join(', ')}`);
  const allowed = FORMATS[command];
  if (inputs.format && !allowed.includes(inputs.format)) {
    throw new InputError(allowed.length ? `input 'format' is '${inputs.format}': ${command} accepts ${allowed.join(', ')}` : `input 'format' is '${inputs.format}': apply has no output format (leave 'format' empty)`);
  }
  if (!['', 'true', 'false'].includes(inputs.noSecretValues)) throw new InputError(`input 'no-secret-values' is '${inputs.noSecretValues}': expected true or false`);
  if (inputs.noSecretValues === 'true' && command !== 'plan') throw new InputError(`input 'no-secret-values' is for the plan command only (a plan made without secret values cannot be applied)`);
  if (inputs.maxWait && !/^\d+$/.test(inputs.maxWait)) throw new InputError(`input 'max-wait' is '${inputs.maxWait}': expected a whole number of seconds`);
  const format = inputs.format || allowed[0];
  const manifests = inputs.manifests.length ? inputs.manifests : ['.'];
  const maxWait = inputs.maxWait && command !== 'validate' && command !== 'show' ? ['--max-wait', inputs.maxWait] : [];
  const run = { command, format, args: [], stdoutFile: `driftless-${command}.${EXTENSION[format] ?? 'txt'}`, planFile: '', splitDir: '', driftFile: '' };

  if (command === 'plan') {
    run.planFile = inputs.planFile || 'driftless.plan.json';
    run.args = ['plan', ...manifests, '--out', run.planFile, '--detailed-exitcode', '--format', format];
    if (format === 'markdown') {
      run.splitDir = inputs.splitDir || 'driftless-plan-md';
      run.args.push('--split-dir', run.splitDir);
    }
    if (inputs.noSecretValues === 'true') run.args.push('--no-secret-values');
  } else if (command === 'apply') {
    run.planFile = inputs.planFile;
    run.args = ['apply', ...(run.planFile ? [run.planFile] : []), ...manifests, '--auto-approve'];
  } else if (command === 'drift') {
    run.driftFile = inputs.driftFile || 'drift.json';
    run.args = ['drift', ...manifests, '--format', format, '--json-file', run.driftFile];
    // An issue body has the same limit as a comment: the report in well-formed parts, never cut.
    if (format === 'markdown') {
      run.splitDir = inputs.splitDir || 'driftless-drift-md';
      run.args.push('--split-dir', run.splitDir);
    }
  } else if (command === 'preview' && inputs.prune === 'true') {
    // The nightly clean-up: every preview but those of the open pull requests (`none`: no pull
    // request is open), else those older than their ttl.
    const keep = inputs.keep === 'none' ? '' : inputs.keep;
    if (keep && !/^\d+(\s*,\s*\d+)*$/.test(keep)) throw new InputError(`input 'keep' is '${inputs.keep}': expected pull request numbers separated by commas, or none`);
    run.previewAction = 'prune';
    run.stdoutFile = 'driftless-preview.json';
    run.args = ['preview', 'prune', ...manifests, ...(inputs.project ? ['--project', inputs.project] : []), ...(inputs.keep ? ['--keep', keep.replace(/\s+/g, '')] : []), '--format', 'json'];
  } else if (command === 'preview') {
    if (!['', 'false'].includes(inputs.prune ?? '')) throw new InputError(`input 'prune' is '${inputs.prune}': expected true or false`);
    if (!inputs.project) throw new InputError(`input 'project' is empty: preview needs the project whose previews: declaration to use`);
    const number = inputs.number || inputs.event?.number || '';
    if (!/^[1-9]\d{0,8}$/.test(number)) {
      throw new InputError(number ? `input 'number' is '${number}': expected a pull request number` : `preview needs a pull request number: run it on a pull_request event, or set input 'number'`);
    }
    // `closed` takes the preview down; opened, reopened, synchronize (and a run without an event) bring it up.
    run.previewAction = PREVIEW_DOWN_ACTIONS.includes(inputs.event?.action ?? '') ? 'down' : 'up';
    run.previewNumber = number;
    run.stdoutFile = 'driftless-preview.json';
    run.args = ['preview', run.previewAction, ...manifests, '--project', inputs.project, '--number', number, '--format', 'json'];
    if (run.previewAction === 'up') for (const s of inputs.set) run.args.push('--set', s);
  } else if (command === 'validate') {
    run.args = ['validate', ...manifests, '--format', format];
  } else {
    if (!inputs.planFile) throw new InputError(`input 'plan-file' is empty: show renders a saved plan file`);
    run.planFile = inputs.planFile;
    run.args = ['show', run.planFile, '--format', format];
  }
  run.args.push(...maxWait, ...inputs.extraArgs);
  return run;
}

const PLAN_LINE = /(Plan: \d+ to add, \d+ to change, \d+ to destroy, \d+ to deploy\.|No changes\.)/;

/** The summary line of a JSON plan (`--format json`): the same words as the human plan's. */
function planJsonLine(text) {
  let s;
  try {
    s = JSON.parse(text).summary;
  } catch {
    return '';
  }
  if (!s || typeof s.add !== 'number') return '';
  return s.add + s.change + s.destroy + s.deploy === 0 ? 'No changes.' : `Plan: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy, ${s.deploy} to deploy.`;
}

/** The one line the `summary` output holds. */
export function summaryLine(run, { exitCode, text, drift }) {
  const failed = exitCode !== 0 && exitCode !== 2;
  if (failed) return `driftless ${run.command} failed (exit code ${exitCode}).`;
  if (run.command === 'plan' || run.command === 'show') return PLAN_LINE.exec(text)?.[1] ?? planJsonLine(text);
  if (run.command === 'drift' && drift) {
    const n = drift.summary?.drifted ?? 0;
    return drift.in_sync ? 'No drift: the live platform matches Git.' : `Drift detected: ${n} resource${n === 1 ? '' : 's'} differ${n === 1 ? 's' : ''} from Git.`;
  }
  if (run.command === 'apply') return /Apply complete!.*/.exec(text)?.[0] ?? 'Apply complete!';
  if (run.command === 'preview') return previewLine(text);
  return 'The manifest is valid.';
}

/** The summary line of preview's JSON result. */
function previewLine(text) {
  let r;
  try {
    r = JSON.parse(text);
  } catch {
    return '';
  }
  if (Array.isArray(r.deleted)) return `Pruned ${r.deleted.length} preview${r.deleted.length === 1 ? '' : 's'}${r.blocked?.length ? `; ${r.blocked.length} blocked` : ''}.`;
  if (Array.isArray(r.urls)) return `Preview ${r.environment} ${r.created ? 'created' : 'updated'}: ${r.urls.length} URL${r.urls.length === 1 ? '' : 's'}.`;
  return r.deleted ? `Preview ${r.environment} deleted.` : `Preview ${r.environment} was already gone.`;
}

/** A code fence longer than any run of backticks in `text`, so that nothing in it closes the fence. */
export function fenced(text, info = 'text') {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text.replace(/\n$/, '')}\n${fence}\n`;
}

/** Cuts `markdown` to `limit` bytes at a line boundary, with a note saying where the rest is. */
export function capBytes(markdown, limit, note) {
  if (Buffer.byteLength(markdown) <= limit) return markdown;
  const room = limit - Buffer.byteLength(note) - 16;
  let cut = Buffer.from(markdown).subarray(0, room).toString('utf8');
  cut = cut.slice(0, cut.lastIndexOf('\n') + 1);
  return cut + note;
}

/** The part-N.md files of `dir`, in order (part-2 before part-10). */
export function listParts(dir) {
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => ({ name, n: /^part-(\d+)\.md$/.exec(name)?.[1] }))
    .filter((p) => p.n !== undefined)
    .sort((a, b) => Number(a.n) - Number(b.n))
    .map((p) => path.join(dir, p.name));
}

function removeParts(dir) {
  for (const file of listParts(dir)) rmSync(file);
}

/** The comment that replaces the plan's when the plan failed: what failed, and its diagnostics. */
export function failureMarkdown({ command, exitCode, stdout, stderr, runUrl }) {
  const lines = [`### ❌ driftless ${command} failed`, '', `There is no plan to review: driftless exited with code ${exitCode}.${runUrl ? ` The [run's log](${runUrl}) has every line.` : ''}`, ''];
  // plan --format markdown prints its diagnostics as a markdown document when it fails.
  if (stdout.trim() && stdout.length < COMMENT_LIMIT / 2) lines.push(stdout.trim(), '');
  else if (stderr.trim()) lines.push(fenced(stderr.split('\n').slice(-80).join('\n').slice(-20_000)));
  return lines.join('\n');
}

/**
 * The job summary of one run: a heading, the summary line, and the full human-readable result
 * (the human plan from `driftless show`, the markdown parts or report, or the output fenced), or
 * the failure. At most STEP_SUMMARY_LIMIT bytes, with a note where it is cut.
 */
export function jobSummary({ run, summary, failed, human, parts, result, runUrl }) {
  const read = (file) => readFileSync(file, 'utf8');
  const where = run.planFile && existsSync(run.planFile) ? ` The whole plan: \`driftless show ${run.planFile}\` on the saved plan file.` : '';
  const note = `\n\n*Cut here: the job summary holds at most 1 MiB.${where}*\n`;
  const heading = `## driftless ${run.command}\n\n${summary ? `**${summary}**\n\n` : ''}`;
  let body;
  if (failed) body = `${parts.length ? read(parts[0]) : failureMarkdown({ command: run.command, exitCode: result.code, stdout: result.stdout, stderr: result.stderr, runUrl })}\n`;
  else if (human) {
    // Cutting the fenced block would cut off its closing fence: cut the plan, then fence it.
    const room = STEP_SUMMARY_LIMIT - Buffer.byteLength(heading) - Buffer.byteLength(note) - 200;
    body = Buffer.byteLength(human) > room ? fenced(capBytes(human, room, '')) + note : fenced(human);
  } else if (run.format === 'markdown') body = parts.length ? parts.map(read).join('\n\n') : result.stdout;
  else body = fenced(result.stdout || result.stderr || '(no output)', run.format === 'json' ? 'json' : 'text');
  return `${capBytes(heading + body, STEP_SUMMARY_LIMIT, note)}\n`;
}

/** Appends `name<<DELIM` blocks to $GITHUB_OUTPUT (multi-line safe: the delimiter is random). */
function setOutputs(file, outputs) {
  if (!file) return;
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `driftless_${randomBytes(12).toString('hex')}`;
    appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
  }
}

/**
 * Prints text from the plan (user-controlled names and values) to the log with workflow commands
 * stopped, so that a line like `::add-mask::` or `::error::` in a manifest cannot act on the runner.
 */
function logUntrusted(out, text) {
  const token = randomBytes(16).toString('hex');
  out.write(`::stop-commands::${token}\n${text.replace(/\n?$/, '\n')}::${token}::\n`);
}

/**
 * Runs the CLI with `args`: its stdout kept (and, with `echo`, streamed to the log: 'raw' for
 * annotations, 'guarded' with workflow commands stopped), stderr to the log (its tail kept).
 */
function runCli(entry, args, { env, echo }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    let err = '';
    const token = randomBytes(16).toString('hex');
    if (echo === 'guarded') process.stdout.write(`::stop-commands::${token}\n`);
    child.on('close', () => echo === 'guarded' && process.stdout.write(`\n::${token}::\n`));
    child.stdout.on('data', (b) => {
      out.push(b);
      if (echo) process.stdout.write(b);
    });
    child.stderr.on('data', (b) => {
      process.stderr.write(b);
      err = (err + b.toString('utf8')).slice(-100_000);
    });
    child.on('error', (e) => resolve({ code: 1, stdout: '', stderr: `cannot start driftless: ${e.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: err }));
  });
}

/** The refresh cache directory action.yml keeps across runs: `$RUNNER_TEMP/driftless-cache`. */
export function cacheDirOf(env) {
  return path.join(env.RUNNER_TEMP, 'driftless-cache');
}

/** The whole step. `env` is the process environment; returns the outputs it set. */
export async function main(env = process.env, out = process.stdout) {
  const childEnv = { ...env, NO_COLOR: '1' };
  delete childEnv.FORCE_COLOR;
  // The directory action.yml restores with actions/cache and saves after the run.
  if (env.ACTION_CACHE_RESTORED === 'success' && env.RUNNER_TEMP) childEnv.DRIFTLESS_CACHE_DIR = cacheDirOf(env);
  const entry = env.ACTION_DRIFTLESS_ENTRY;
  const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : '';

  let run;
  try {
    if (!entry) throw new InputError('ACTION_DRIFTLESS_ENTRY is not set: the install step of action.yml sets it to the installed driftless-cli');
    run = planRun(readInputs(env));
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    out.write(`::error title=driftless action::${e.message}\n`);
    const outputs = { 'exit-code': '1', summary: e.message, 'plan-file': '', 'markdown-dir': '', 'markdown-parts': '0', 'output-file': '', 'drift-file': '', 'preview-action': '' };
    setOutputs(env.GITHUB_OUTPUT, outputs);
    return outputs;
  }

  // Nothing from an earlier run in this workspace (a self-hosted runner keeps it) may pass for
  // this run's result: no stale plan file to upload or apply, no stale part to post.
  if (run.command === 'plan') rmSync(run.planFile, { force: true });
  if (run.driftFile) rmSync(run.driftFile, { force: true });
  if (run.splitDir) {
    mkdirSync(run.splitDir, { recursive: true });
    removeParts(run.splitDir);
  }

  // The command as run, each --set value hidden: a value may come from a secret the runner does not mask.
  out.write(`driftless ${run.args.map((a, i) => (run.args[i - 1] === '--set' ? a.replace(/=.*$/s, '=***') : a)).join(' ')}\n`);
  // Annotations must reach the runner as they are; apply's progress is streamed, guarded.
  const echo = run.format === 'github' ? 'raw' : run.command === 'apply' ? 'guarded' : undefined;
  const result = await runCli(entry, run.args, { env: childEnv, echo });
  writeFileSync(run.stdoutFile, result.stdout);
  const failed = result.code !== 0 && result.code !== 2;

  // The human-readable text for the job summary and the log.
  let human = '';
  if (run.command === 'plan' && !failed) {
    const shown = await runCli(entry, ['show', run.planFile, '--format', 'human'], { env: childEnv });
    if (shown.code === 0) human = shown.stdout;
  }
  if (run.splitDir) {
    if (failed) {
      removeParts(run.splitDir);
      writeFileSync(path.join(run.splitDir, 'part-1.md'), failureMarkdown({ command: run.command, exitCode: result.code, stdout: result.stdout, stderr: result.stderr, runUrl }));
    } else if (listParts(run.splitDir).length === 0 && result.stdout.length < COMMENT_LIMIT - 100) {
      writeFileSync(path.join(run.splitDir, 'part-1.md'), result.stdout);
    }
  }
  const parts = listParts(run.splitDir);

  let drift;
  if (run.driftFile && existsSync(run.driftFile)) drift = JSON.parse(readFileSync(run.driftFile, 'utf8'));

  const text = human || result.stdout;
  const summary = summaryLine(run, { exitCode: result.code, text: run.format === 'json' && !human ? result.stdout : text + '\n' + parts.map((p) => readFileSync(p, 'utf8')).join('\n'), drift });

  if (human) logUntrusted(out, human);
  else if (!failed && run.format !== 'github' && run.command !== 'apply' && result.stdout) logUntrusted(out, result.stdout);

  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, jobSummary({ run, summary, failed, human, parts, result, runUrl }));

  const outputs = {
    'exit-code': String(result.code),
    summary,
    'plan-file': run.planFile && existsSync(run.planFile) ? run.planFile : '',
    'markdown-dir': parts.length ? run.splitDir : '',
    'markdown-parts': String(parts.length),
    'output-file': run.stdoutFile,
    'drift-file': run.driftFile && existsSync(run.driftFile) ? run.driftFile : '',
    // preview: `up` or `down`, for the comment step (which reads output-file).
    'preview-action': run.previewAction ?? '',
  };
  setOutputs(env.GITHUB_OUTPUT, outputs);
  out.write(`${summary}\n`);
  return outputs;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    // One line, never a stack trace; the action's last step fails the job on exit-code 1.
    process.stdout.write(`::error title=driftless action::${String(e?.message ?? e).split('\n')[0]}\n`);
    setOutputs(process.env.GITHUB_OUTPUT, { 'exit-code': '1', summary: 'The driftless action failed.' });
  });
}
