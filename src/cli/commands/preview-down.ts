/**
 * `driftless preview down PATH --project P --number N` and `driftless preview prune PATH
 * [--older-than DURATION] [--keep N,...]`: delete preview environments with everything in them.
 *
 * Requests in proportion to the previews: the organization and its projects (2, once), each
 * project's environments (1), then per deleted preview its services (the database check), the
 * deletion and the read that confirms it. A preview with a database is deleted only under the declaration's
 * `allow_data_loss: true`, else blocked (exit 1), as apply blocks any database deletion. Deleting a
 * preview that is already gone succeeds: both commands are idempotent. Only environments whose name
 * matches the declaration's pattern are ever deleted.
 */
import type { CliIO } from '../io.js';
import { EXIT } from '../io.js';
import { error, warning, type Diagnostic } from '../../diag/diagnostic.js';
import { DEFAULT_TIMEOUT_MS } from '../../apply/apply.js';
import { previewNameOf, type PreviewDeclaration } from '../../manifest/previews.js';
import { parseDuration } from '../../model/duration.js';
import { deletePreview, livePreviews, projectsNamed, type LivePreview, type ProtectedService } from '../../preview/live.js';
import { previewsToPrune } from '../../preview/select.js';
import { withPreviewSession, type PreviewSession } from './preview-session.js';
import type { PreviewArgs } from './preview-args.js';

const POLL_MS = 2000;

export async function runPreviewDown(args: PreviewArgs, io: CliIO): Promise<number> {
  const environmentOf = (decl: PreviewDeclaration) => previewNameOf(decl.previews.name, args.number!);
  return withPreviewSession(args, io, { doing: (d) => `Deleting preview ${d[0] ? environmentOf(d[0]) : args.number}`, protection: true }, async (session) => {
    const { declarations, api } = session;
    const decl = declarations[0]!;
    const environment = environmentOf(decl);
    const project = (await projectsNamed(api, [decl.project])).get(decl.project);
    const preview = project ? (await livePreviews(api, project.id, decl.previews.name)).find((p) => p.number === args.number) : undefined;
    const outcome = preview ? await deleteOne(session, preview, decl, args) : 'gone';
    if (outcome === 'blocked') return EXIT.error;
    writeResult(io, args, { environment, deleted: outcome === 'deleted', already_gone: outcome === 'gone' }, outcome === 'deleted' ? `Preview ${environment} deleted.` : `Preview ${environment} does not exist: nothing to delete.`);
    return EXIT.ok;
  });
}

export async function runPreviewPrune(args: PreviewArgs, io: CliIO): Promise<number> {
  // Without --older-than nor --keep, the ttl decides: a declaration without one prunes nothing, said once.
  const checks = (declarations: PreviewDeclaration[]): Diagnostic[] =>
    args.olderThan !== undefined || args.keep !== undefined
      ? []
      : declarations
          .filter((x) => x.previews.ttl === undefined)
          .map((d) => warning('preview.no-ttl', `project \`${d.project}\` declares no \`previews.ttl\`: preview prune deletes none of its previews without --older-than or --keep`, { detail: 'Give its previews a `ttl:` (e.g. `72h`), or run prune with --older-than DURATION or --keep N,... (the open pull requests).' }));
  return withPreviewSession(args, io, { doing: () => 'Pruning previews', checks, protection: true }, async (session) => {
    const { declarations, api } = session;
    const deleted: string[] = [];
    const blocked: string[] = [];
    const projects = await projectsNamed(api, declarations.map((d) => d.project));
    for (const decl of declarations) {
      const ttl = decl.previews.ttl !== undefined ? parseDuration(decl.previews.ttl, { unit: 'required' }) : undefined;
      const olderThanMs = args.olderThan ?? ttl;
      const project = projects.get(decl.project);
      if (!project) continue;
      const chosen = previewsToPrune(await livePreviews(api, project.id, decl.previews.name), { ...(olderThanMs !== undefined ? { olderThanMs } : {}), ...(args.keep ? { keep: args.keep } : {}) }, new Date());
      for (const { preview, reason } of chosen) {
        if (args.format !== 'json') io.stdout.write(`Deleting preview ${preview.name} of project ${decl.project}: ${reason}.\n`);
        const outcome = await deleteOne(session, preview, decl, args);
        if (outcome === 'blocked') blocked.push(preview.name);
        else deleted.push(preview.name);
      }
    }
    if (args.format === 'json') io.stdout.write(`${JSON.stringify({ deleted, blocked })}\n`);
    else io.stdout.write(deleted.length === 0 && blocked.length === 0 ? 'No preview to prune.\n' : `Pruned ${deleted.length} preview${deleted.length === 1 ? '' : 's'}${blocked.length > 0 ? `; ${blocked.length} blocked` : ''}.\n`);
    return blocked.length > 0 ? EXIT.error : EXIT.ok;
  });
}

/**
 * Deletes one preview; a protected service (whatever `allow_data_loss` says) or a database without
 * the declaration's `allow_data_loss` blocks it (said, nothing deleted).
 */
async function deleteOne(s: PreviewSession, preview: LivePreview, decl: PreviewDeclaration, args: PreviewArgs): Promise<'deleted' | 'gone' | 'blocked'> {
  const outcome = await deletePreview(s.api, preview.id, { allowDataLoss: decl.previews.allow_data_loss === true, protectedServices: s.protectedServices(decl), timeoutMs: args.timeout ?? DEFAULT_TIMEOUT_MS, pollMs: args.pollInterval ?? POLL_MS });
  if (outcome.status === 'protected') {
    s.printDiags([protectedError(preview, decl, outcome.services)]);
    return 'blocked';
  }
  if (outcome.status !== 'blocked') return outcome.status;
  s.printDiags([
    error('preview.data-loss', `preview ${preview.name} was not deleted: it has ${outcome.databases.length === 1 ? 'a database' : 'databases'} (${outcome.databases.join(', ')}), and the previews of project \`${decl.project}\` do not allow data loss`, {
      detail: "Set `allow_data_loss: true` in the project's `previews:` if a preview's databases may go with it. Nothing was deleted.",
    }),
  ]);
  return 'blocked';
}

/** `protect: true` keeps the environment that holds the service, as apply keeps it: no flag lifts it. */
function protectedError(preview: LivePreview, decl: PreviewDeclaration, services: readonly ProtectedService[]): Diagnostic {
  const named = services.map((x) => `${x.kind} \`${x.name}\``);
  const why = services.map((x) => `${x.kind} \`${x.name}\`: ${x.by === 'declared' ? `template \`${decl.previews.template}\` (or the previews' overrides) declares \`protect: true\`` : 'its live record carries the protect mark an apply of `protect: true` recorded'}`);
  return error('preview.protected', `preview ${preview.name} was not deleted: its ${named.join(', ')} ${services.length === 1 ? 'is' : 'are'} protected (\`protect: true\`)`, {
    detail: `${why.join('\n')}\nA protected service is never deleted, nor the environment that holds it, whatever the flags (allow_data_loss included). To let the preview go: set \`protect: false\` on the service in the template or under the previews' \`overrides.services\`, run \`driftless preview up\` for pull request ${preview.number} (it clears the live mark), then delete it. Nothing was deleted.`,
  });
}

function writeResult(io: CliIO, args: PreviewArgs, doc: Record<string, unknown>, text: string): void {
  io.stdout.write(args.format === 'json' ? `${JSON.stringify(doc)}\n` : `${text}\n`);
}
