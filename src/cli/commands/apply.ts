/**
 * `driftless apply [paths..|PLANFILE]`: plan, show, confirm (on a terminal; `--auto-approve`
 * otherwise), execute, deploy, wait, and report. With a saved plan file, executes exactly that
 * plan, refusing before any write when anything changed since it was made.
 *
 * Exit 0 applied (or nothing to do), 1 refused or failed, 130 interrupted (SIGINT).
 */
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { hasErrors, type Diagnostic } from '../../diag/diagnostic.js';
import { renderDiagnosticsGithub } from '../../diag/render.js';
import { inGithubActions, writeDiagnostics } from '../diagnostics-out.js';
import type { Palette } from '../../render/palette.js';
import { renderPlanHuman } from '../../render/human.js';
import { summaryLine as planSummaryLine } from '../../render/describe.js';
import { planHasWrites, type Plan } from '../../plan/types.js';
import { authorityOf } from '../../apply/authority.js';
import { palettesOf } from '../config.js';
import { runPlan, type RunPlanResult } from '../run-plan.js';
import { ownWritesInCache } from '../live-cache.js';
import { reportUsage } from '../api-usage.js';
import { isCI } from '../ci.js';
import { apiEventReporter, connectionOf, connectionOptions, pathsAndTargets, targetOption, type ConnectionArgs } from '../shared-options.js';
import { renderApplyOutcome } from '../apply-view.js';
import { onInterrupt } from '../interrupt.js';
import { durationOption, integerOption } from '../option-values.js';
import { applyInputOf, savedPlanMismatch } from '../apply-input.js';
import { approval } from '../apply-gates.js';
import { planExecution, type PlanExecution } from '../plan-execution.js';
import { diagnosticLine, noChangesLine, plannedChangeLines } from '../apply-json.js';
import { readableAddress } from '../../model/resource.js';

export interface ApplyArgs extends ConnectionArgs {
  paths?: string[];
  target?: string[];
  autoApprove?: boolean;
  /** Milliseconds (read from `30m`, `90s`... by the option's reader). */
  timeout?: number;
  allowDataLoss?: boolean;
  allowReplace?: boolean;
  maxDestroy?: number;
  json?: boolean;
  pollInterval?: number;
  color?: boolean;
  /** false with `--no-deploy`. */
  deploy?: boolean;
}

/** Kept here for its callers; the definition is the shared one of option-values.ts. */
export { parseDuration } from '../option-values.js';

/** Kept here for its callers; the definition is in apply-input.ts. */
export { looksLikePlanFile } from '../apply-input.js';

export const applyCommand: CliCommand<ApplyArgs> = {
  command: 'apply [paths..]',
  describe: 'Apply the manifest (or exactly a saved plan file): create, update, delete, deploy and wait',
  builder: (y: Argv) =>
    targetOption(connectionOptions(y).positional('paths', { type: 'string', array: true, describe: 'Manifest files or directories, or one saved plan file (default: the current directory)' }))
      .option('auto-approve', { type: 'boolean', describe: 'Apply without asking for confirmation (required without a terminal)' })
      .option('timeout', durationOption('timeout', { default: '30m', minMs: 1000, maxMs: 24 * 3_600_000, bounds: 'from 1s to 24h', describe: 'How long to wait for deployments, e.g. 30m, 90s, 1h' }))
      .option('allow-data-loss', { type: 'boolean', describe: 'Allow deleting or replacing databases (a backup is taken first)' })
      .option('allow-replace', { type: 'boolean', describe: 'Allow replacing (delete, then create) an environment or a deployed service' })
      .option('max-destroy', integerOption('max-destroy', { min: 0, describe: 'Refuse a plan that deletes more than N resources' }))
      .option('json', { type: 'boolean', describe: 'Print one JSON event per line' })
      // Declared as `deploy` so that yargs reads `--no-deploy` as deploy=false.
      .option('deploy', { type: 'boolean', describe: '--no-deploy: write the configuration and deploy nothing; the deploys it lists stay pending (the next plan shows them)' })
      .option('poll-interval', integerOption('poll-interval', { min: 1, max: 600_000, hidden: true, describe: 'First deployment poll interval in ms (tests)' })),
  run: (args, io) => runApply(args, io),
};

export async function runApply(args: ApplyArgs, io: CliIO): Promise<number> {
  const { out: palette, err: errPalette } = palettesOf(io, args);
  const json = args.json === true;
  const printDiags = (diags: Diagnostic[]) => {
    if (json) {
      for (const d of diags) io.stdout.write(diagnosticLine(d));
      // The events are on stdout; in a GitHub Actions job the annotations still go to stderr.
      if (inGithubActions(io.env)) io.stderr.write(renderDiagnosticsGithub(diags));
      return;
    }
    writeDiagnostics(io, diags, errPalette);
  };

  // Rate-limit waits: through the progress view once it exists, else as a line of their own.
  const execution = planExecution(io, { json, palette, live: !json && io.stdout.isTTY === true, write: (s) => io.stdout.write(s) });

  const abort = new AbortController();
  const stopListening = onInterrupt(io, () => abort.abort());
  try {
    return await applyWithSignal(args, io, { json, palette, printDiags, execution, abort });
  } finally {
    stopListening();
  }
}

interface RunContext {
  json: boolean;
  palette: Palette;
  printDiags: (diags: Diagnostic[]) => void;
  execution: PlanExecution;
  abort: AbortController;
}

async function applyWithSignal(args: ApplyArgs, io: CliIO, rc: RunContext): Promise<number> {
  const { json, palette, printDiags, execution, abort } = rc;
  const split = pathsAndTargets(args, io.cwd);
  // What this apply may destroy comes from its own flags, never from a plan file.
  const authority = authorityOf(args);
  const input = await applyInputOf(split.paths, split.targets, authority, { cwd: io.cwd, env: io.env, apiUrl: args.apiUrl, authScheme: args.authScheme });
  if ('refused' in input) {
    printDiags(input.refused);
    return EXIT.error;
  }
  const { saved } = input;

  const r: RunPlanResult = await runPlan(
    input.manifestPaths,
    {
      ...connectionOf(args),
      ...authority,
      ...(input.targets ? { targets: input.targets } : {}),
      // A saved `preview up` plan: the same preview environment is made again to re-plan it.
      ...(saved?.plan.options.preview ? { preview: saved.plan.options.preview } : {}),
    },
    { env: io.env, cwd: io.cwd, onApiEvent: apiEventReporter(io, execution.onRateLimit), signal: abort.signal },
  );
  try {
    printDiags(r.diagnostics);
    if (!r.plan || !r.live || !r.graph || hasErrors(r.diagnostics)) return EXIT.error;
    const plan = r.plan;
    if (saved) {
      const mismatch = savedPlanMismatch(saved, plan, r.live);
      if (mismatch.length > 0) {
        printDiags(mismatch);
        return EXIT.error;
      }
    }
    showPlan(io, plan, { json, palette, savedFile: saved?.file, noDeploy: args.deploy === false });
    if (!planHasWrites(plan)) return EXIT.ok;

    const capped = execution.refusal(r);
    if (capped) {
      printDiags([capped]);
      return EXIT.error;
    }
    const approved = await approval(io, { json, autoApprove: args.autoApprove === true, savedPlan: saved !== undefined, palette });
    if (!approved.approved) {
      if ('refused' in approved) printDiags([approved.refused]);
      else io.stdout.write('\nApply cancelled. Nothing was changed.\n');
      return EXIT.error;
    }

    const result = await execution.execute(r, {
      authority,
      parallelism: args.parallelism,
      timeoutMs: args.timeout,
      pollInterval: args.pollInterval,
      noDeploy: args.deploy === false,
      signal: abort.signal,
    });
    if (result.status === 'refused') {
      printDiags(result.diagnostics);
      return EXIT.error;
    }
    // The cache this run left is the state before its writes: what they changed is read again
    // by the next run, whether or not the audit log shows them yet.
    printDiags(ownWritesInCache(args, io, plan, r.live));
    if (!json) io.stdout.write(renderApplyOutcome(result, palette, { hints: !isCI(io.env) }));
    if (result.status === 'interrupted') return EXIT.interrupted;
    return result.status === 'applied' ? EXIT.ok : EXIT.error;
  } finally {
    await r.session?.close();
    reportUsage(io, r.session);
  }
}

/**
 * The plan as apply shows it before asking: in full (or one line for a saved plan, unchanged since
 * it was made, whose review came before), the deploys --no-deploy holds back, and `No changes.`
 * when there is nothing to do; with --json, the planned changes as lines of the stream.
 */
function showPlan(io: CliIO, plan: Plan, opts: { json: boolean; palette: Palette; savedFile?: string; noDeploy: boolean }): void {
  const { json, palette } = opts;
  if (!json) {
    // From here a saved plan is identical to the plan made now, computed against the live records
    // apply builds its request bodies from.
    if (opts.savedFile !== undefined) io.stdout.write(`Applying the saved plan ${opts.savedFile}, unchanged since it was made. ${planSummaryLine(plan)}${plan.targets ? ` Partial plan: --target ${plan.targets.map(readableAddress).join(' ')}.` : ''}\n`);
    else io.stdout.write(renderPlanHuman(plan, { palette }));
    if (opts.noDeploy && plan.summary.deploy > 0) {
      io.stdout.write(`${palette.yellow(`--no-deploy: ${plan.summary.deploy === 1 ? 'the deploy above is not made; it stays' : `the ${plan.summary.deploy} deploys above are not made; they stay`} pending (the next plan shows ${plan.summary.deploy === 1 ? 'it' : 'them'}).`)}\n`);
    }
  }
  if (!planHasWrites(plan)) {
    if (json) io.stdout.write(noChangesLine(plan));
    else io.stdout.write(`\n${palette.green(palette.bold('Apply complete! Resources: 0 added, 0 changed, 0 destroyed; 0 deployed.'))}\n`);
    return;
  }
  if (json) io.stdout.write(plannedChangeLines(plan));
}
