/**
 * `driftless preview up PATH --project P --number N [--set SERVICE.FIELD=VALUE ...]`: the plan and
 * apply pipeline scoped to the preview environment of pull request N (runPlan's `preview` option
 * writes it into the manifest and targets it, so only it, its project and what it refers to are
 * read), applied without asking (a preview is made for a pull request, in CI), deployed in stage
 * order and waited for as apply does; then its URLs (`GET /environment/{id}/link`).
 *
 * A second `up` with a new commit changes that service's `git_commit_id` only: the plan deploys
 * that service alone. `--out FILE` saves the plan instead (its seal keeps the preview), for
 * `driftless apply FILE`.
 *
 * `--format json`: stdout is one document, `{environment, created, urls: [{service, url}]}`; the
 * plan and the progress go to stderr.
 */
import { ownWritesInCache } from '../live-cache.js';
import type { CliIO } from '../io.js';
import { EXIT } from '../io.js';
import { hasErrors, type Diagnostic } from '../../diag/diagnostic.js';
import { writeDiagnostics } from '../diagnostics-out.js';
import { palettesOf } from '../config.js';
import { runPlan } from '../run-plan.js';
import { reportUsage } from '../api-usage.js';
import { isCI } from '../ci.js';
import { apiEventReporter, connectionOf } from '../shared-options.js';
import { renderApplyOutcome } from '../apply-view.js';
import { planExecution } from '../plan-execution.js';
import { onInterrupt } from '../interrupt.js';
import { renderPlanHuman } from '../../render/human.js';
import { planHasWrites } from '../../plan/types.js';
import { savePlan } from '../save-plan.js';
import { previewEnvironmentAddress } from '../../manifest/previews.js';
import { previewUrls, type PreviewUrl } from '../../preview/live.js';
import { apiDiagnostic } from '../../pipeline/api-diagnostic.js';
import type { PreviewArgs } from './preview-args.js';

interface PreviewUpResult {
  environment: string;
  created: boolean;
  urls: PreviewUrl[];
}

export async function runPreviewUp(args: PreviewArgs, io: CliIO): Promise<number> {
  const json = args.format === 'json';
  const { out: palette, err: errPalette } = palettesOf(io, args);
  // With --format json, stdout holds the result document alone: the plan and progress go to stderr.
  const progress = json ? io.stderr : io.stdout;
  const progressPalette = json ? errPalette : palette;
  const printDiags = (d: Diagnostic[]) => writeDiagnostics(io, d, errPalette);
  const request = { project: args.project!, number: args.number!, ...(args.set?.length ? { set: args.set } : {}) };

  // As apply does: rate-limit waits through the progress view, a first write beyond --max-wait refused.
  const execution = planExecution(io, { json: false, palette: progressPalette, live: false, write: (s) => progress.write(s) }, 'preview up');
  const abort = new AbortController();
  const stopListening = onInterrupt(io, () => abort.abort());
  // As apply's flags, for this one environment (the declaration's allow_data_loss also allows data loss).
  const flags = { ...(args.allowReplace ? { allowReplace: true } : {}), ...(args.allowDataLoss ? { allowDataLoss: true } : {}) };
  const r = await runPlan(args.paths ?? [], { ...connectionOf(args), ...flags, preview: request }, { env: io.env, cwd: io.cwd, onApiEvent: apiEventReporter(io, execution.onRateLimit), signal: abort.signal });
  try {
    printDiags(r.diagnostics);
    if (!r.plan || !r.live || !r.graph || !r.manifest || hasErrors(r.diagnostics)) return EXIT.error;
    const plan = r.plan;
    const address = previewEnvironmentAddress(r.manifest, request);
    const environment = r.graph.resources.get(address)?.name ?? address;
    const created = plan.changes.some((c) => c.address === address && (c.actions as readonly string[]).includes('create'));

    if (args.out) {
      progress.write(renderPlanHuman(plan, { palette: progressPalette }));
      const saved = await savePlan(io, plan, { file: args.out, key: { key: r.fingerprintKey!, source: r.fingerprintKeySource! }, createdAt: new Date().toISOString(), manifestPaths: r.files, what: `the plan of preview ${environment}` });
      if (!saved) return EXIT.error;
      return plan.applyable ? EXIT.ok : EXIT.error;
    }

    let createdId: string | undefined;
    if (planHasWrites(plan)) {
      progress.write(renderPlanHuman(plan, { palette: progressPalette }));
      const capped = execution.refusal(r);
      if (capped) {
        printDiags([capped]);
        return EXIT.error;
      }
      const result = await execution.execute(r, {
        // A preview's databases may go with it only under its declaration's allow_data_loss or --allow-data-loss (in the plan's options).
        authority: { allowDataLoss: plan.options.allow_data_loss === true, allowReplace: args.allowReplace === true },
        parallelism: args.parallelism,
        timeoutMs: args.timeout,
        pollInterval: args.pollInterval,
        signal: abort.signal,
        // The id of the environment this run creates (or replaces: a new id): its URLs are read with it, no list read again.
        onEvent: (e) => {
          if (e.type === 'apply_complete' && (e.action === 'create' || e.action === 'replace') && e.address === address && e.id !== undefined) createdId = e.id;
        },
      });
      if (result.status === 'refused') {
        printDiags(result.diagnostics);
        return EXIT.error;
      }
      // As apply: what this run wrote is read again by the next run that uses the cache.
      printDiags(ownWritesInCache(connectionOf(args), io, plan, r.live));
      progress.write(renderApplyOutcome(result, progressPalette, { hints: !isCI(io.env) }));
      if (result.status === 'interrupted') return EXIT.interrupted;
      if (result.status !== 'applied') return EXIT.error;
    } else {
      progress.write(`Preview ${environment} is up to date: nothing to change or deploy.\n`);
    }

    let urls: PreviewUrl[];
    try {
      const id = createdId ?? r.live.resources.get(address)?.id;
      urls = id ? await previewUrls(r.session!.port, id) : [];
    } catch (e) {
      printDiags([apiDiagnostic(e, `Reading the URLs of preview ${environment}`)]);
      return EXIT.error;
    }
    const result: PreviewUpResult = { environment, created, urls };
    if (json) io.stdout.write(`${JSON.stringify(result)}\n`);
    else io.stdout.write(renderUrls(result, palette.bold));
    return EXIT.ok;
  } finally {
    stopListening();
    await r.session?.close();
    reportUsage(io, r.session);
  }
}

function renderUrls(r: PreviewUpResult, bold: (s: string) => string = (s) => s): string {
  const lines = [bold(`Preview ${r.environment} ${r.created ? 'created' : 'updated'}.`)];
  if (r.urls.length === 0) lines.push('No public URL: no service of the preview has a public port.');
  const width = Math.max(0, ...r.urls.map((u) => u.service.length));
  for (const u of r.urls) lines.push(`  ${u.service.padEnd(width)}  ${u.url}`);
  return `${lines.join('\n')}\n`;
}
