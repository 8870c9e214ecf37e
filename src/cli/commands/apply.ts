/**
 * `driftless apply [paths..|PLANFILE]`: plan, show, confirm (on a terminal; `--auto-approve`
 * otherwise), execute, deploy, wait, and report. With a saved plan file, executes exactly that
 * plan, refusing before any write when anything changed since it was made.
 *
 * Exit 0 applied (or nothing to do), 1 refused or failed, 130 interrupted (SIGINT).
 */
import { readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isAbsolute, resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { hasErrors, type Diagnostic } from '../../diag/diagnostic.js';
import { renderDiagnosticsGithub } from '../../diag/render.js';
import { inGithubActions, writeDiagnostics } from '../diagnostics-out.js';
import type { Palette } from '../../render/palette.js';
import { renderPlanHuman } from '../../render/human.js';
import { summaryLine as planSummaryLine } from '../../render/describe.js';
import { planHasChanges, type Plan } from '../../plan/types.js';
import { readPlanFile, PLAN_FILE_KIND } from '../../plan/planfile.js';
import { applyPlan, DEFAULT_TIMEOUT_MS, stepActionOf, type ApplyResult } from '../../apply/apply.js';
import { savedPlanRefusals } from '../../apply/saved-plan.js';
import { noSecretValuesRefusal } from '../../apply/refusals.js';
import { authorityOf, savedPlanExceeds } from '../../apply/authority.js';
import { fingerprintKeyProblem } from '../../plan/fingerprint.js';
import { sealKeyFromEnv } from '../seal-key.js';
import { palettesOf, resolveApiConfig } from '../config.js';
import { runPlan, type RunPlanResult } from '../run-plan.js';
import { reportUsage } from '../api-usage.js';
import { isCI } from '../ci.js';
import { apiEventReporter, connectionOf, connectionOptions, pathsAndTargets, targetOption, type ConnectionArgs } from '../shared-options.js';
import { createApplyView, renderApplyEventJson, renderApplyOutcome } from '../apply-view.js';
import { escapeJsonText } from '../../render/escape.js';
import { onInterrupt } from '../interrupt.js';
import { durationOption, integerOption } from '../option-values.js';

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

/** A saved plan is a JSON file of kind driftless-plan; manifests are YAML files or directories. */
export function looksLikePlanFile(path: string, cwd: string): boolean {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  if (/\.ya?ml$/i.test(path)) return false;
  try {
    if (!statSync(abs).isFile()) return false;
    const head = readFileSync(abs, 'utf8').slice(0, 200);
    return head.trimStart().startsWith('{') && head.includes(PLAN_FILE_KIND);
  } catch {
    return false;
  }
}

/** One line of the machine-readable stream (same envelope as the progress events). */
function jsonLine(message: string, fields: Record<string, unknown>, level: 'info' | 'warn' | 'error' = 'info'): string {
  return escapeJsonText(JSON.stringify({ '@level': level, '@message': message, '@timestamp': new Date().toISOString(), ...fields })) + '\n';
}

async function askYes(io: CliIO, question: string): Promise<boolean> {
  if (!io.stdin) return false;
  const rl = createInterface({ input: io.stdin, terminal: false });
  io.stdout.write(question);
  try {
    const answer = await new Promise<string>((res) => {
      rl.once('line', res);
      rl.once('close', () => res(''));
    });
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

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
      for (const d of diags) io.stdout.write(jsonLine(d.summary, { type: 'diagnostic', diagnostic: d }, d.severity === 'error' ? 'error' : 'warn'));
      // The events are on stdout; in a GitHub Actions job the annotations still go to stderr.
      if (inGithubActions(io.env)) io.stderr.write(renderDiagnosticsGithub(diags));
      return;
    }
    writeDiagnostics(io, diags, errPalette);
  };

  // Rate-limit waits: through the progress view once it exists, else as a line of their own.
  let view: ReturnType<typeof createApplyView> | undefined;
  const onRateLimit = (seconds: number) => {
    const e = { type: 'rate_limited' as const, wait_seconds: seconds };
    if (view) view.onEvent(e);
    else if (json) io.stdout.write(renderApplyEventJson(e, new Date()));
    else io.stderr.write(`API rate limit: waiting ${seconds}s to stay within the limit\n`);
  };

  const abort = new AbortController();
  const stopListening = onInterrupt(io, () => abort.abort());
  try {
    return await applyWithSignal(args, io, { json, palette, printDiags, onRateLimit, setView: (v) => (view = v), abort });
  } finally {
    stopListening();
  }
}

interface RunContext {
  json: boolean;
  palette: Palette;
  printDiags: (diags: Diagnostic[]) => void;
  onRateLimit: (seconds: number) => void;
  setView: (v: ReturnType<typeof createApplyView> | undefined) => void;
  abort: AbortController;
}

async function applyWithSignal(args: ApplyArgs, io: CliIO, rc: RunContext): Promise<number> {
  const { json, palette, printDiags, onRateLimit, abort } = rc;

  const split = pathsAndTargets(args, io.cwd);
  const paths = split.paths;
  let targets = split.targets;
  const planFiles = paths.filter((p) => looksLikePlanFile(p, io.cwd));
  if (planFiles.length > 1) {
    printDiags([{ severity: 'error', code: 'apply.several-plans', summary: `apply takes one saved plan file, got ${planFiles.length}: ${planFiles.join(', ')}`, detail: 'Apply them one after the other, each after a fresh `driftless plan --out FILE`.' }]);
    return EXIT.error;
  }
  const planFile = planFiles[0];
  let manifestPaths = paths.filter((p) => p !== planFile);

  // What this apply may destroy comes from its own flags, never from a plan file.
  const authority = authorityOf(args);
  let saved: Plan | undefined;
  if (planFile) {
    const keyProblem = fingerprintKeyProblem(io.env);
    if (keyProblem) {
      printDiags([keyProblem]);
      return EXIT.error;
    }
    const apiUrl = resolveApiConfig({ apiUrl: args.apiUrl, authScheme: args.authScheme }, io.env).config?.baseUrl;
    const read = await readPlanFile(isAbsolute(planFile) ? planFile : resolve(io.cwd, planFile), sealKeyFromEnv(io.env), apiUrl !== undefined ? { apiUrl } : {});
    if (!read.plan) {
      printDiags(read.diagnostics);
      return EXIT.error;
    }
    saved = read.plan.plan;
    // A saved plan is applied exactly: its part of the organization is the one it was planned for
    // (its targets are under its seal); another --target would be another plan.
    if (targets !== undefined) {
      printDiags([
        {
          severity: 'error',
          code: 'apply.target-with-plan',
          summary: `--target cannot be given with the saved plan ${planFile}: a saved plan is applied exactly as it was planned${saved.targets ? ` (its targets: ${saved.targets.join(', ')})` : ' (it covers the whole manifest)'}`,
          detail: 'Run `driftless apply PLANFILE` without --target, or make a new plan with the targets you want: `driftless plan --target ADDRESS... --out FILE`.',
        },
      ]);
      return EXIT.error;
    }
    targets = saved.targets;
    // Sealed with the rest of the plan, so the flag cannot be edited away; refused before any request.
    if (saved.options?.no_secret_values === true) {
      printDiags([noSecretValuesRefusal(planFile)]);
      return EXIT.error;
    }
    const exceeds = savedPlanExceeds(saved, authority, planFile);
    if (exceeds.length > 0) {
      printDiags(exceeds);
      return EXIT.error;
    }
    // Without explicit paths, re-read the manifest the plan was made from (CI applies the plan
    // file from the same checkout), not whatever happens to be in the current directory.
    if (manifestPaths.length === 0 && read.plan.manifest_paths) {
      // Re-planning catches an edited plan, but not an edited list of manifests to re-plan from:
      // with the fallback key, anyone who can edit the file can re-seal it, so the paths must come
      // from the command line.
      if (read.verifiedWith !== 'env') {
        printDiags([manifestPathsUntrusted(planFile, read.plan.manifest_paths)]);
        return EXIT.error;
      }
      manifestPaths = read.plan.manifest_paths;
    }
  }

  const r: RunPlanResult = await runPlan(
    manifestPaths,
    {
      ...connectionOf(args),
      ...authority,
      ...(targets ? { targets } : {}),
      // A saved `preview up` plan: the same preview environment is made again to re-plan it.
      ...(saved?.options.preview ? { preview: saved.options.preview } : {}),
    },
    { env: io.env, cwd: io.cwd, onApiEvent: apiEventReporter(io, onRateLimit), signal: abort.signal },
  );
  try {
    printDiags(r.diagnostics);
    if (!r.plan || !r.live || !r.graph || hasErrors(r.diagnostics)) return EXIT.error;
    const plan = r.plan;

    if (saved) {
      const refusals = savedPlanRefusals(saved, plan, r.live, planFile!);
      if (saved.organization_id !== plan.organization_id) {
        refusals.unshift({ severity: 'error', code: 'planfile.wrong-target', summary: `${planFile} was planned for organization ${saved.organization_id}, not ${plan.organization_id}`, detail: 'Use a token of the organization the plan was made for.' });
      }
      if (refusals.length > 0) {
        printDiags(refusals);
        return EXIT.error;
      }
      // From here `plan` is identical to the saved one, and computed against the live records
      // apply builds its request bodies from.
      if (!json) io.stdout.write(`Applying the saved plan ${planFile}, unchanged since it was made. ${planSummaryLine(plan)}${saved.targets ? ` Partial plan: --target ${saved.targets.join(' ')}.` : ''}\n`);
    } else if (!json) {
      io.stdout.write(renderPlanHuman(plan, { palette }));
    }
    if (!json && args.deploy === false && plan.summary.deploy > 0) {
      io.stdout.write(`${palette.yellow(`--no-deploy: the ${plan.summary.deploy} deploy(s) above are not made; they stay pending (the next plan shows them).`)}\n`);
    }

    if (!planHasChanges(plan)) {
      if (json) io.stdout.write(jsonLine('No changes.', { type: 'change_summary', operation: 'plan', ...plan.summary }));
      else io.stdout.write(`\n${palette.green(palette.bold('Apply complete! Resources: 0 added, 0 changed, 0 destroyed; 0 deployed.'))}\n`);
      return EXIT.ok;
    }
    if (json) {
      for (const c of plan.changes) {
        const action = stepActionOf(c) ?? (c.deploy ? 'deploy' : undefined);
        if (!action) continue;
        const renamed = c.previous_address !== undefined ? ` (renamed from ${c.previous_address})` : '';
        io.stdout.write(
          jsonLine(`${c.address}: plan to ${action}${renamed}`, {
            type: 'planned_change',
            address: c.address,
            ...(c.previous_address !== undefined ? { previous_address: c.previous_address } : {}),
            action,
            deploy: c.deploy !== undefined,
          }),
        );
      }
      io.stdout.write(jsonLine('Plan summary', { type: 'change_summary', operation: 'plan', ...plan.summary }));
    }

    // The plan's reads may have spent the rate-limit budget: when the first write would already
    // wait longer than --max-wait, refuse now, before asking and before any write, rather than fail
    // in the middle. (A wait met later stops the apply between steps: see applyPlan.)
    const capped = r.session?.waitBeyondCap?.();
    if (capped) {
      printDiags([
        {
          severity: 'error',
          code: 'apply.rate-limit-wait',
          summary: `apply refused before its first write: ${capped.message}`,
          detail: 'Nothing was changed. Run apply again after the reset, or allow a longer wait with --max-wait (or DRIFTLESS_MAX_WAIT).',
        },
      ]);
      return EXIT.error;
    }

    if (!saved && !args.autoApprove) {
      const tty = io.stdin?.isTTY === true && io.stdout.isTTY === true;
      if (!tty || json) {
        printDiags([
          {
            severity: 'error',
            code: 'apply.needs-approval',
            summary: 'apply needs confirmation, and there is no terminal to ask on.',
            detail: 'Run it with --auto-approve (in CI), or save a plan with `driftless plan --out FILE`, review it, and run `driftless apply FILE`.',
          },
        ]);
        return EXIT.error;
      }
      const ok = await askYes(io, `\n${palette.bold('Do you want to perform these actions?')}\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: `);
      if (!ok) {
        io.stdout.write('\nApply cancelled. Nothing was changed.\n');
        return EXIT.error;
      }
    }

    const v = createApplyView({ json, palette, live: !json && io.stdout.isTTY === true, write: (s) => io.stdout.write(s) });
    rc.setView(v);
    let result: ApplyResult;
    try {
      io.stdout.write(json ? '' : '\n');
      result = await applyPlan(
        plan,
        { api: r.session!.port, live: r.live, desired: r.graph, fingerprintKey: r.fingerprintKey!, onEvent: (e) => v.onEvent(e), signal: abort.signal, confirmDeletes: (r.cachedKeys?.length ?? 0) > 0 },
        {
          parallelism: args.parallelism,
          timeoutMs: args.timeout ?? DEFAULT_TIMEOUT_MS,
          ...authority,
          ...(args.deploy === false ? { noDeploy: true } : {}),
          ...(args.pollInterval !== undefined ? { pollIntervalMs: args.pollInterval, maxPollIntervalMs: Math.max(args.pollInterval, args.pollInterval * 4) } : {}),
        },
      );
    } finally {
      v.close();
      rc.setView(undefined);
    }
    if (result.status === 'refused') {
      printDiags(result.diagnostics);
      return EXIT.error;
    }
    if (!json) io.stdout.write(renderApplyOutcome(result, palette, { hints: !isCI(io.env) }));
    if (result.status === 'interrupted') return EXIT.interrupted;
    return result.status === 'applied' ? EXIT.ok : EXIT.error;
  } finally {
    await r.session?.close();
    reportUsage(io, r.session);
  }
}

/**
 * A plan file sealed with the key derived from the organization id (which the file itself names)
 * could have been re-sealed by whoever edited it: its manifest paths are not taken.
 */
function manifestPathsUntrusted(planFile: string, paths: string[]): Diagnostic {
  return {
    severity: 'error',
    code: 'planfile.manifest-paths-untrusted',
    summary: `${planFile} was sealed without DRIFTLESS_FINGERPRINT_KEY: apply does not take the manifest paths it names (${paths.join(', ')})`,
    detail:
      `Without DRIFTLESS_FINGERPRINT_KEY the seal's key is derived from the organization id written in the file, so anyone who can edit the file can re-seal it and point apply at another manifest. ` +
      `Give the manifest paths on the command line (\`driftless apply ${planFile} PATH...\`), or set DRIFTLESS_FINGERPRINT_KEY (a long random string kept in your CI secrets) for both plan and apply. Nothing was changed.`,
  };
}
