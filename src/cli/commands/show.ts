/**
 * `driftless show PLANFILE [--format human|json|markdown] [--split-dir DIR]`: prints a saved plan
 * (`plan --out FILE`) exactly as `plan` printed it (and the same markdown parts): the same
 * renderer (src/render/plan-output.ts), the plan file's
 * `created_at` as the JSON document's timestamp, so `show FILE --format X` is byte for byte the
 * stdout of the `plan --out FILE --format X` that wrote it. For CI: the plan artifact of a
 * pull-request job can be read in full later, on any machine. No API call, no manifest read.
 *
 * The file is read by readPlanFile only (the same checks as `apply FILE`, seal included): a file
 * that is not a plan, or is damaged, is one line on stderr and exit 1 (with --format json or
 * markdown, stdout also holds the failure document, like a failed plan). A file sealed with
 * another key than this command's (show run without the plan's DRIFTLESS_FINGERPRINT_KEY) is shown,
 * with one line on stderr saying it is unverified.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { sanitize } from '../../diag/render.js';
import { fingerprintKeyProblem } from '../../plan/fingerprint.js';
import { readPlanFile } from '../../plan/planfile.js';
import { renderPlanFailureJson } from '../../render/json.js';
import { renderFailureMarkdown } from '../../render/markdown-failure.js';
import { renderPlanOutput, type PlanOutputFormat } from '../../render/plan-output.js';
import { palettesOf } from '../config.js';
import { inGithubActions } from '../diagnostics-out.js';
import { renderDiagnosticsGithub } from '../../diag/render.js';
import { packageVersion } from '../package-version.js';
import { sealKeyFromEnv } from '../seal-key.js';
import { renderPlanMarkdownParts } from '../../render/markdown.js';
import { SPLIT_DIR_OPTION, checkSplitDir, failureParts, splitMarkdown, writeMarkdownParts } from '../markdown-split.js';

export interface ShowArgs {
  planfile: string;
  format?: PlanOutputFormat;
  splitDir?: string;
  color?: boolean;
}

export const showCommand: CliCommand<ShowArgs> = {
  command: 'show <planfile>',
  describe: 'Print a saved plan (plan --out FILE) exactly as plan printed it (no API call)',
  builder: (y: Argv) =>
    y
      .positional('planfile', { type: 'string', describe: 'A plan file written by `driftless plan --out FILE`' })
      .option('format', { choices: ['human', 'json', 'markdown'] as const, default: 'human' as const, describe: 'Output format, as for plan' })
      .option('split-dir', SPLIT_DIR_OPTION)
      .check(checkSplitDir),
  run: async (args: ShowArgs, io: CliIO): Promise<number> => {
    const format = args.format ?? 'human';
    const { out: palette } = palettesOf(io, args);
    const path = isAbsolute(args.planfile) ? args.planfile : resolve(io.cwd, args.planfile);
    // An empty key is a misconfiguration to name as such (as apply does), not a damaged file.
    const keyProblem = fingerprintKeyProblem(io.env);
    if (keyProblem) {
      io.stderr.write(`driftless: ${keyProblem.summary}. ${keyProblem.detail}\n`);
      return EXIT.error;
    }
    // Verified with this command's key, as apply does; a file sealed with another key (show run
    // without the plan's DRIFTLESS_FINGERPRINT_KEY) is still shown, and says it is unverified.
    const read = await readPlanFile(path, sealKeyFromEnv(io.env), { allowOtherKey: true });
    if (!read.plan) {
      // One line: what is wrong with the file and what to do.
      const d = read.diagnostics[0]!;
      io.stderr.write(`driftless: ${sanitize(d.summary)}${d.detail ? `. ${sanitize(d.detail)}` : ''}\n`);
      if (inGithubActions(io.env)) io.stderr.write(renderDiagnosticsGithub(read.diagnostics));
      const meta = { driftless_version: packageVersion(), timestamp: new Date().toISOString() };
      if (format === 'json') io.stdout.write(renderPlanFailureJson(read.diagnostics, meta));
      else if (format === 'markdown') io.stdout.write(renderFailureMarkdown(read.diagnostics, { command: 'driftless show' }));
      if (args.splitDir !== undefined) writeMarkdownParts(args.splitDir, failureParts(renderFailureMarkdown(read.diagnostics, { command: 'driftless show' })), io);
      return EXIT.error;
    }
    for (const d of read.diagnostics) io.stderr.write(`driftless: ${d.severity}: ${sanitize(d.summary)}. ${sanitize(d.detail ?? '')}\n`);
    const meta = { driftless_version: packageVersion(), timestamp: read.plan.created_at };
    io.stdout.write(renderPlanOutput(read.plan.plan, format, meta, palette));
    // The same parts as the plan run that wrote the file: a saved plan posted later, in comments.
    const saved = read.plan.plan;
    if (args.splitDir !== undefined && !splitMarkdown(args.splitDir, () => renderPlanMarkdownParts(saved), 'plan', io)) return EXIT.error;
    return EXIT.ok;
  },
};
