/**
 * What `preview down`, `list` and `prune` share: the `previews:` declarations of the manifest
 * (loaded without reading any secret: only the declarations are needed) and an API session.
 */
import type { CliIO } from '../io.js';
import { error, type Diagnostic } from '../../diag/diagnostic.js';
import { loadManifestSync } from '../../manifest/load.js';
import type { PreviewSpec } from '../../manifest/types.js';
import { knownList } from '../../manifest/suggest.js';
import { resolveApiConfig } from '../config.js';
import { openSession, type ApiSession } from '../run-plan.js';
import { apiEventReporter } from '../shared-options.js';
import type { PreviewArgs } from './preview-args.js';

export interface Declared {
  project: string;
  previews: PreviewSpec;
}

/**
 * The declarations of the manifest at `args.paths`, of `--project` only when given (then it must
 * declare previews). Errors of the manifest are errors here; warnings about unset `${env:}` are not
 * (a preview's values are not needed to find or delete it).
 */
export function previewDeclarations(args: PreviewArgs, io: CliIO): { declarations: Declared[]; diagnostics: Diagnostic[] } {
  const loaded = loadManifestForPreviews(args, io);
  if (!loaded.manifest) return { declarations: [], diagnostics: loaded.diagnostics };
  const all = (loaded.manifest.projects ?? []).filter((p) => p.previews !== undefined).map((p) => ({ project: p.name, previews: p.previews! }));
  if (args.project === undefined) {
    if (all.length === 0) return { declarations: [], diagnostics: [error('preview.none-declared', 'no project of the manifest declares `previews:`', { detail: 'Declare `previews: {template, name: "pr-{number}", cluster}` under a project (docs/previews.md).' })] };
    return { declarations: all, diagnostics: [] };
  }
  const one = all.find((d) => d.project.toLowerCase() === args.project!.toLowerCase());
  if (!one) {
    const exists = (loaded.manifest.projects ?? []).some((p) => p.name.toLowerCase() === args.project!.toLowerCase());
    return {
      declarations: [],
      diagnostics: [
        error('preview.none-declared', exists ? `project \`${args.project}\` declares no \`previews:\`` : `--project ${args.project}: the manifest declares no such project`, {
          detail: `Projects with previews: ${knownList(all.map((d) => d.project), { none: 'none' })}.`,
        }),
      ],
    };
  }
  return { declarations: [one], diagnostics: [] };
}

/** Only the declarations are needed: no secret is read, and an unset `${env:}` is not an error. */
function loadManifestForPreviews(args: PreviewArgs, io: CliIO) {
  const r = loadManifestSync(args.paths ?? [], { env: io.env, cwd: io.cwd, secretValues: 'unread', missingEnv: 'warning' });
  return { manifest: r.manifest, diagnostics: r.diagnostics.filter((d) => d.severity === 'error') };
}

/** An API session from the connection options, or the diagnostics of a missing URL or token. */
export function openPreviewSession(args: PreviewArgs, io: CliIO): ApiSession | { diagnostics: Diagnostic[] } {
  const cfg = resolveApiConfig({ apiUrl: args.apiUrl, authScheme: args.authScheme, maxWait: args.maxWait }, io.env);
  if (!cfg.config) return { diagnostics: cfg.diagnostics };
  return openSession(cfg.config, { parallelism: args.parallelism, onApiEvent: apiEventReporter(io), timeZone: io.env.TZ });
}

