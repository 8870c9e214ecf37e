/**
 * Runs the action's run step (action/run.mjs) as the composite step does: a child process with
 * the step's environment, the built CLI as the installed entry point, and the runner's files for
 * step outputs and the job summary, which it reads back.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export const root = path.resolve(__dirname, '../..');

export interface StepResult {
  /** The step outputs, parsed from $GITHUB_OUTPUT as the runner does. */
  outputs: Record<string, string>;
  /** What the step appended to $GITHUB_STEP_SUMMARY. */
  summary: string;
  /** The step's stdout (the job log). */
  log: string;
}

/** `stepEnv`: the ACTION_INPUT_* variables of action.yml's run step; `env`: the caller's step env. */
export async function runStep(cwd: string, stepEnv: Record<string, string>, env: NodeJS.ProcessEnv): Promise<StepResult> {
  const id = Math.random().toString(16).slice(2);
  const outputFile = path.join(cwd, `.github-output-${id}`);
  const summaryFile = path.join(cwd, `.step-summary-${id}`);
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const r = await promisify(execFile)(process.execPath, [path.join(root, 'action/run.mjs')], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: process.env.PATH,
      ...env,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/infra',
      GITHUB_RUN_ID: '42',
      ACTION_DRIFTLESS_ENTRY: path.join(root, 'bin/driftless.js'),
      ...stepEnv,
    },
  });
  // The runner's format: name<<DELIMITER, the value's lines, DELIMITER.
  const outputs: Record<string, string> = {};
  const lines = readFileSync(outputFile, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([a-z-]+)<<(\S+)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(m[2]!, i + 1);
    outputs[m[1]!] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return { outputs, summary: readFileSync(summaryFile, 'utf8'), log: r.stdout };
}
