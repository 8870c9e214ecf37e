/**
 * What `preview down`, `list` and `prune` share: the `previews:` declarations of the manifest
 * (loaded without reading any secret: only the declarations are needed) and an API session, with
 * their diagnostics printed, an API error reported, and the session closed and its usage reported.
 */
import type { CliIO } from '../io.js';
import { EXIT } from '../io.js';
import { error, hasErrors, type Diagnostic } from '../../diag/diagnostic.js';
import { loadManifestSync, prepareManifest, type PreparedManifest } from '../../manifest/load.js';
import { previewDeclarationOf, previewNameOf, type PreviewDeclaration } from '../../manifest/previews.js';
import { knownList } from '../../manifest/suggest.js';
import type { ApiPort } from '../../live/api-port.js';
import { apiDiagnostic } from '../../pipeline/api-diagnostic.js';
import { palettesOf, resolveApiConfig } from '../config.js';
import { writeDiagnostics } from '../diagnostics-out.js';
import { reportUsage } from '../api-usage.js';
import { openSession, type ApiSession } from '../run-plan.js';
import { apiEventReporter } from '../shared-options.js';
import type { PreviewArgs } from './preview-args.js';

export interface PreviewSession {
  declarations: PreviewDeclaration[];
  api: ApiPort;
  printDiags(d: Diagnostic[]): void;
  /** With `protection`: the services a preview of the declaration's project declares `protect: true` (after its overrides). */
  protectedServices(decl: PreviewDeclaration): readonly string[];
}

export interface PreviewSessionOptions {
  /** What was being done, for the error of a failed request: `Listing the previews`. */
  doing(declarations: PreviewDeclaration[]): string;
  /** Diagnostics of the declarations printed with theirs, before any request (an error stops there). */
  checks?(declarations: PreviewDeclaration[]): Diagnostic[];
  /** The command deletes previews: what each declaration makes protected is found first (down, prune). */
  protection?: boolean;
}

/**
 * Runs `body` with the declarations (of `--project` only, when given) and an API session. A
 * manifest error, a check's error or a missing URL or token is exit 1 before any request.
 */
export async function withPreviewSession(args: PreviewArgs, io: CliIO, o: PreviewSessionOptions, body: (s: PreviewSession) => Promise<number>): Promise<number> {
  const { err } = palettesOf(io, args);
  const printDiags = (d: Diagnostic[]) => writeDiagnostics(io, d, err);
  const prepared = prepareManifest(args.paths ?? [], { cwd: io.cwd });
  const declared = previewDeclarations(args, io, prepared);
  const problems = [...declared.diagnostics, ...(o.checks?.(declared.declarations) ?? [])];
  const guarded = new Map<PreviewDeclaration, string[]>();
  if (o.protection && !hasErrors(problems)) {
    for (const decl of declared.declarations) {
      const p = declaredProtection(args, io, prepared, decl);
      problems.push(...p.diagnostics);
      guarded.set(decl, p.services);
    }
  }
  printDiags(problems);
  if (hasErrors(problems)) return EXIT.error;
  const session = openPreviewSession(args, io);
  if ('diagnostics' in session) {
    printDiags(session.diagnostics);
    return EXIT.error;
  }
  try {
    return await body({ declarations: declared.declarations, api: session.port, printDiags, protectedServices: (d) => guarded.get(d) ?? [] });
  } catch (e) {
    printDiags([apiDiagnostic(e, o.doing(declared.declarations))]);
    return EXIT.error;
  } finally {
    await session.close();
    reportUsage(io, session);
  }
}

/**
 * The declarations of the manifest at `args.paths`, of `--project` only when given (then it must
 * declare previews). Errors of the manifest are errors here; warnings about unset `${env:}` are not
 * (a preview's values are not needed to find or delete it).
 */
function previewDeclarations(args: PreviewArgs, io: CliIO, prepared: PreparedManifest): { declarations: PreviewDeclaration[]; diagnostics: Diagnostic[] } {
  const loaded = loadManifestForPreviews(args, io, prepared);
  if (!loaded.manifest) return { declarations: [], diagnostics: loaded.diagnostics };
  const manifest = loaded.manifest;
  const all = (manifest.projects ?? []).flatMap((p) => previewDeclarationOf(manifest, p.name) ?? []);
  if (args.project === undefined) {
    if (all.length === 0) return { declarations: [], diagnostics: [error('preview.none-declared', 'no project of the manifest declares `previews:`', { detail: 'Declare `previews: {template, name: "pr-{number}", cluster}` under a project (docs/previews.md).' })] };
    return { declarations: all, diagnostics: [] };
  }
  const one = previewDeclarationOf(manifest, args.project);
  if (one) return { declarations: [one], diagnostics: [] };
  const exists = (manifest.projects ?? []).some((p) => p.name.toLowerCase() === args.project!.toLowerCase());
  return {
    declarations: [],
    diagnostics: [
      error('preview.none-declared', exists ? `project \`${args.project}\` declares no \`previews:\`` : `--project ${args.project}: the manifest declares no such project`, {
        detail: `Projects with previews: ${knownList(all.map((d) => d.project), { none: 'none' })}.`,
      }),
    ],
  };
}

/** Only the declarations are needed: no secret is read, and an unset `${env:}` is not an error. */
function loadManifestForPreviews(args: PreviewArgs, io: CliIO, prepared: PreparedManifest, preview?: { project: string; number: number }) {
  const r = loadManifestSync(args.paths ?? [], { env: io.env, cwd: io.cwd, secretValues: 'unread', missingEnv: 'warning', prepared, ...(preview ? { preview } : {}) });
  return { manifest: r.manifest, diagnostics: r.diagnostics.filter((d) => d.severity === 'error') };
}

/**
 * The services a preview of `decl` declares `protect: true`: the manifest loaded as `preview up`
 * loads it (the template, then the previews' overrides), without `--set` (which names no
 * `protect`). The same for every number, so the number of the run, or any, is used.
 */
function declaredProtection(args: PreviewArgs, io: CliIO, prepared: PreparedManifest, decl: PreviewDeclaration): { services: string[]; diagnostics: Diagnostic[] } {
  const number = args.number ?? 1;
  const loaded = loadManifestForPreviews(args, io, prepared, { project: decl.project, number });
  const name = previewNameOf(decl.previews.name, number).toLowerCase();
  const project = loaded.manifest?.projects?.find((p) => p.name === decl.project);
  const environment = project?.environments?.find((e) => e.name.toLowerCase() === name);
  return { services: (environment?.services ?? []).filter((s) => s.protect === true).map((s) => s.name), diagnostics: loaded.diagnostics };
}

/** An API session from the connection options, or the diagnostics of a missing URL or token. */
function openPreviewSession(args: PreviewArgs, io: CliIO): ApiSession | { diagnostics: Diagnostic[] } {
  const cfg = resolveApiConfig({ apiUrl: args.apiUrl, authScheme: args.authScheme, maxWait: args.maxWait }, io.env);
  if (!cfg.config) return { diagnostics: cfg.diagnostics };
  return openSession(cfg.config, { parallelism: args.parallelism, onApiEvent: apiEventReporter(io), timeZone: io.env.TZ });
}
