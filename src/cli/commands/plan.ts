/**
 * `driftless plan [paths..]`: read-only. Loads the manifest, reads the live state with list
 * endpoints, prints what apply would do. `--out FILE` saves the plan for `apply FILE`.
 * Exit 0 (with --detailed-exitcode: 0 no changes, 2 changes), 1 on any error, and with
 * --detailed-exitcode also 1 when a change is blocked by a guard (apply would refuse the plan).
 *
 * stdout holds the document asked for and nothing else, also on failure: `--format json` an
 * errored plan document, `--format markdown` a failure body (src/render/markdown-failure.ts).
 */
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { hasErrors } from '../../diag/diagnostic.js';
import { renderDiagnosticsGithub } from '../../diag/render.js';
import { renderPlanHuman } from '../../render/human.js';
import { renderPlanFailureJson } from '../../render/json.js';
import { renderFailureMarkdown } from '../../render/markdown-failure.js';
import { renderPlanOutput } from '../../render/plan-output.js';
import { renderPlanMarkdownParts } from '../../render/markdown.js';
import { planHasChanges } from '../../plan/types.js';
import { refusedWithout } from '../../plan/guards.js';
import { plural } from '../../render/describe.js';
import { savePlan } from '../save-plan.js';
import { palettesOf } from '../config.js';
import { integerOption } from '../option-values.js';
import { runPlan } from '../run-plan.js';
import { SPLIT_DIR_OPTION, checkSplitDir, splitMarkdown, writeMarkdownParts, failureParts } from '../markdown-split.js';
import { writeDiagnostics } from '../diagnostics-out.js';
import { packageVersion } from '../package-version.js';
import { reportUsage } from '../api-usage.js';
import { apiEventReporter, connectionOf, connectionOptions, pathsAndTargets, pathsPositional, targetOption, type ConnectionArgs } from '../shared-options.js';

export interface PlanArgs extends ConnectionArgs {
  paths?: string[];
  target?: string[];
  out?: string;
  json?: boolean;
  format?: 'human' | 'json' | 'markdown' | 'github';
  detailedExitcode?: boolean;
  allowDataLoss?: boolean;
  allowReplace?: boolean;
  maxDestroy?: number;
  splitDir?: string;
  color?: boolean;
  /** false with `--no-secret-values`. */
  secretValues?: boolean;
}

export const planCommand: CliCommand<PlanArgs> = {
  command: 'plan [paths..]',
  describe: 'Show what apply would change, create, delete and deploy (read-only)',
  builder: (y: Argv) =>
    targetOption(pathsPositional(connectionOptions(y)))
      .option('out', { type: 'string', describe: 'Save the plan to FILE for `driftless apply FILE` (holds no secret value)' })
      .option('json', { type: 'boolean', describe: 'Print the plan as JSON (same as --format json)' })
      .option('format', { choices: ['human', 'json', 'markdown', 'github'] as const, describe: 'Output format: github prints the diagnostics as GitHub Actions annotations on stdout and the plan on stderr' })
      .option('detailed-exitcode', { type: 'boolean', describe: 'Exit 0 when there are no changes, 2 when there are, 1 on error' })
      .option('allow-data-loss', { type: 'boolean', describe: 'Plan database deletions and replacements instead of marking them blocked' })
      .option('allow-replace', { type: 'boolean', describe: 'Plan replacements of environments and deployed services instead of marking them blocked' })
      .option('max-destroy', integerOption('max-destroy', { min: 0, describe: 'Mark the plan as an error when it deletes more than N resources' }))
      .option('split-dir', SPLIT_DIR_OPTION)
      // Declared as `secret-values` so that yargs reads `--no-secret-values` as secretValues=false.
      .option('secret-values', { type: 'boolean', describe: '--no-secret-values: plan without reading any secret value (secrets show as not compared; the plan file cannot be applied)' })
      .check(checkSplitDir),
  run: async (args: PlanArgs, io: CliIO): Promise<number> => {
    const format = args.json ? 'json' : (args.format ?? 'human');
    const { out: palette, err: errPalette } = palettesOf(io, args);
    // One instant for the document's timestamp and the plan file's created_at, so that
    // `show FILE --format json` prints the very document this run printed.
    const createdAt = new Date().toISOString();
    const meta = { driftless_version: packageVersion(), timestamp: createdAt };
    const { paths, targets } = pathsAndTargets(args, io.cwd);
    const r = await runPlan(paths, { ...connectionOf(args), ...(targets ? { targets } : {}), allowDataLoss: args.allowDataLoss, allowReplace: args.allowReplace, maxDestroy: args.maxDestroy, noSecretValues: args.secretValues === false, reusePlan: true }, { env: io.env, cwd: io.cwd, onApiEvent: apiEventReporter(io) });
    try {
      // --format github: stdout holds only workflow commands (as with validate); the human
      // diagnostics and the plan go to the job log on stderr.
      if (format === 'github') io.stdout.write(renderDiagnosticsGithub(r.diagnostics));
      writeDiagnostics(io, r.diagnostics, errPalette, { annotations: format !== 'github' });
      if (!r.plan || hasErrors(r.diagnostics)) {
        // A workflow posts what stdout holds: the failure, in the format it asked for, replaces
        // the previous comment instead of leaving it up, stale.
        if (format === 'json') io.stdout.write(renderPlanFailureJson(r.diagnostics, meta, r.plan));
        else if (format === 'markdown') io.stdout.write(renderFailureMarkdown(r.diagnostics, { command: 'driftless plan' }));
        // The split directory holds the failure as its only part: no part of an earlier plan may
        // pass for this one's.
        if (args.splitDir !== undefined) writeMarkdownParts(args.splitDir, failureParts(renderFailureMarkdown(r.diagnostics, { command: 'driftless plan' })), io);
        return EXIT.error;
      }
      const plan = r.plan;
      if (format === 'github') io.stderr.write(renderPlanHuman(plan, { palette: errPalette }));
      else io.stdout.write(renderPlanOutput(plan, format, meta, palette));
      if (args.splitDir !== undefined && !splitMarkdown(args.splitDir, () => renderPlanMarkdownParts(plan), 'plan', io)) return EXIT.error;
      if (args.out && !(await savePlan(io, plan, { file: args.out, key: { key: r.fingerprintKey!, source: r.fingerprintKeySource! }, createdAt, manifestPaths: paths }))) return EXIT.error;
      if (args.detailedExitcode && plan.summary.blocked > 0) {
        // The apply of this change would be refused: a pull-request check must not go green on it.
        io.stderr.write(`driftless: exit 1: ${plural(plan.summary.blocked, 'change')} of this plan ${plan.summary.blocked === 1 ? 'is' : 'are'} blocked; apply refuses it ${refusedWithout(plan.changes, plan.options)}.\n`);
        return EXIT.error;
      }
      if (args.detailedExitcode && planHasChanges(plan)) return EXIT.changes;
      return EXIT.ok;
    } finally {
      // After close: the answers still in flight have then updated the budget.
      await r.session?.close();
      reportUsage(io, r.session);
    }
  },
};
