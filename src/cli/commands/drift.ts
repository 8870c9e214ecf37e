/**
 * `driftless drift [paths..]`: a plan made for a cron job. Exit 0 when the live platform matches
 * Git, 2 when it drifted, 1 on any error. `--format json` carries a stable fingerprint of the drift
 * (a workflow keeps one issue per drift); `--format markdown` is an issue body. On failure both
 * still print a document (errored JSON, a failure body) on stdout.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { hasErrors } from '../../diag/diagnostic.js';
import { writeDiagnostics } from '../diagnostics-out.js';
import { renderFailureMarkdown } from '../../render/markdown-failure.js';
import { palettesOf } from '../config.js';
import { runPlan } from '../run-plan.js';
import { apiDiagnostic } from '../../pipeline/api-diagnostic.js';
import { reportUsage } from '../api-usage.js';
import { isCI } from '../ci.js';
import { apiEventReporter, connectionOf, connectionOptions, pathsAndTargets, pathsPositional, targetOption, type ConnectionArgs } from '../shared-options.js';
import { detectDrift } from '../../drift/detect.js';
import { servicesDeployedBefore } from '../../drift/history.js';
import { attributeDrift } from '../../drift/audit.js';
import { deletedInWindow, ownWriterFromEnv } from '../../drift/changed-by.js';
import type { ResourceKind } from '../../model/resource.js';
import { renderDriftFailureJson, renderDriftHuman, renderDriftJson, renderDriftMarkdown, renderDriftMarkdownParts } from '../../drift/render.js';
import { SPLIT_DIR_OPTION, checkSplitDir, failureParts, splitMarkdown, writeMarkdownParts } from '../markdown-split.js';

export interface DriftArgs extends ConnectionArgs {
  paths?: string[];
  target?: string[];
  format?: 'human' | 'json' | 'markdown';
  jsonFile?: string;
  splitDir?: string;
  color?: boolean;
  /** false with `--no-secret-values`. */
  secretValues?: boolean;
}

export const driftCommand: CliCommand<DriftArgs> = {
  command: 'drift [paths..]',
  describe: 'Compare the live platform with Git: exit 0 in sync, 2 drift, 1 error',
  builder: (y: Argv) =>
    targetOption(pathsPositional(connectionOptions(y)))
      .option('format', { choices: ['human', 'json', 'markdown'] as const, default: 'human' as const, describe: 'human text, JSON (with a stable fingerprint), or a markdown issue body' })
      .option('json-file', { type: 'string', describe: 'Also write the JSON report to FILE (one read gives a workflow both the issue body and the fingerprint)' })
      .option('split-dir', { ...SPLIT_DIR_OPTION, describe: 'With --format markdown: also write the markdown as DIR/part-1.md ... part-N.md, each under GitHub\'s 65,536 characters: the issue body (part 1, with the fingerprint marker) and one comment per further part' })
      // As plan's: `--no-secret-values` reads secretValues=false.
      .option('secret-values', { type: 'boolean', describe: '--no-secret-values: compare everything but the secrets, without reading any secret value (the report lists the secrets not compared)' })
      .check(checkSplitDir),
  run: async (args: DriftArgs, io: CliIO): Promise<number> => {
    const { out: palette, err: errPalette } = palettesOf(io, args);
    const { paths, targets } = pathsAndTargets(args, io.cwd);
    const r = await runPlan(paths, { ...connectionOf(args), ...(targets ? { targets } : {}), noSecretValues: args.secretValues === false }, { env: io.env, cwd: io.cwd, onApiEvent: apiEventReporter(io) });
    try {
      writeDiagnostics(io, r.diagnostics, errPalette);
      // stdout still holds a document, so the workflow's issue shows the failure.
      const failed = (diagnostics: typeof r.diagnostics): number => {
        if (args.format === 'json') io.stdout.write(renderDriftFailureJson(diagnostics));
        else if (args.format === 'markdown') io.stdout.write(renderFailureMarkdown(diagnostics, { command: 'driftless drift' }));
        // The report file too: a previous run's report left in place would be read as this run's.
        if (args.jsonFile !== undefined) writeReport(io, args.jsonFile, renderDriftFailureJson(diagnostics));
        if (args.splitDir !== undefined) writeMarkdownParts(args.splitDir, failureParts(renderFailureMarkdown(diagnostics, { command: 'driftless drift' })), io);
        return EXIT.error;
      };
      if (!r.plan || !r.graph || !r.live || hasErrors(r.diagnostics)) return failed(r.diagnostics);
      let deployedBefore = new Set<string>();
      let report;
      try {
        // A deletion the refresh's events hold is dated by the log: no history read for it.
        const known = r.auditEvents;
        const datedByLog = known ? (c: { address: string; kind: ResourceKind; name: string }) => deletedInWindow(c, r.live!, known) : undefined;
        if (r.session) deployedBefore = await servicesDeployedBefore(r.session.port, r.plan, r.live, datedByLog);
        report = detectDrift(r.plan, r.graph, r.live, { deployedBefore });
        // Who changed what: the audit log's events (those the refresh already read, then the
        // log since the earliest write it did not settle), or the timestamps' inference,
        // labelled, where the log cannot be read.
        if (r.session) report = await attributeDrift(r.session.port, report, r.live, ownWriterFromEnv(io.env), r.auditEvents);
      } catch (e) {
        // Only a wait beyond --max-wait gets here: a failed history or audit-log read just leaves
        // origins inferred.
        const diagnostics = [apiDiagnostic(e, 'Reading the deployment history and the audit log')];
        writeDiagnostics(io, diagnostics, errPalette);
        return failed(diagnostics);
      }
      const ctx = { paths, ...(targets ? { targets: r.plan.targets ?? targets } : {}) };
      if (args.format === 'json') io.stdout.write(renderDriftJson(report, ctx));
      else if (args.format === 'markdown') io.stdout.write(renderDriftMarkdown(report, ctx));
      else io.stdout.write(renderDriftHuman(report, { ...ctx, hints: !isCI(io.env) }, palette));
      if (args.splitDir !== undefined && !splitMarkdown(args.splitDir, () => renderDriftMarkdownParts(report, ctx), 'drift report', io)) return EXIT.error;
      if (args.jsonFile !== undefined && !writeReport(io, args.jsonFile, renderDriftJson(report, ctx))) return EXIT.error;
      return report.in_sync ? EXIT.ok : EXIT.changes;
    } finally {
      // After close: the answers still in flight have then updated the budget.
      await r.session?.close();
      reportUsage(io, r.session);
    }
  },
};

/** Writes the JSON report to --json-file; false (and a line on stderr) when it cannot. */
function writeReport(io: CliIO, file: string, text: string): boolean {
  try {
    writeFileSync(resolve(io.cwd, file), text);
    return true;
  } catch (e) {
    io.stderr.write(`driftless: cannot write the drift report to ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}\n`);
    return false;
  }
}
