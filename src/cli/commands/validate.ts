/**
 * `driftless validate [paths..]`: schema, field-combination and reference checks of a manifest,
 * offline. Exit 0 when valid (warnings allowed), 1 when not.
 *
 * Human output: diagnostics on stderr, the verdict on stdout. `--format github`: one GitHub
 * Actions annotation per diagnostic on stdout (the runner reads workflow commands there), the
 * verdict on stderr. `--format json`: `{format_version, valid, files, diagnostics}` on stdout.
 * `--remote` also checks cluster, registry and helm repository names against the API (the only API calls made).
 *
 * It makes every offline check plan makes, with the same code: the manifest loader's (schema,
 * numbers, cron schedules, time zones, references, look-alike names) and buildGraph's (description
 * room for the secret fingerprint marker, aliases, stages, dependency cycles). Without --remote it
 * runs where secrets are not available: an unset ${env:NAME} is a warning, not an error.
 */
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { hasErrors, type Diagnostic } from '../../diag/diagnostic.js';
import { renderDiagnosticsGithub, renderDiagnosticsHuman, summarizeDiagnostics } from '../../diag/render.js';
import { loadManifest } from '../../manifest/load.js';
import { buildGraph } from '../../graph/build.js';
import type { Manifest } from '../../manifest/types.js';
import type { ReferenceContext } from '../../manifest/references.js';
import { fetchReferenceNames } from '../../manifest/remote-names.js';
import { palettesOf, resolveApiConfig } from '../config.js';
import { apiDiagnostic, openSession } from '../run-plan.js';
import { escapeJsonText } from '../../render/escape.js';
import { choiceOption } from '../option-values.js';
import { AUTH_SCHEMES } from '../shared-options.js';

export interface ValidateArgs {
  paths?: string[];
  format?: 'human' | 'github' | 'json';
  color?: boolean;
  'no-color'?: boolean;
  remote?: boolean;
  apiUrl?: string;
  authScheme?: string;
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

/** "2 files: 1 project, 2 environments, 5 services" */
export function describeManifest(m: Manifest, files: readonly string[]): string {
  const envs = (m.projects ?? []).flatMap((p) => p.environments ?? []);
  const services = envs.flatMap((e) => e.services ?? []);
  return `${plural(files.length, 'file')}: ${plural(m.projects?.length ?? 0, 'project')}, ${plural(envs.length, 'environment')}, ${plural(services.length, 'service')}`;
}

export const validateCommand: CliCommand<ValidateArgs> = {
  command: 'validate [paths..]',
  describe: 'Check a manifest: schema, field combinations and references (no API call unless --remote)',
  builder: (y: Argv) =>
    y
      .positional('paths', { type: 'string', array: true, describe: 'Manifest files or directories of *.yaml/*.yml files (default: the current directory)' })
      .option('format', { choices: ['human', 'github', 'json'] as const, default: 'human' as const, describe: 'human text, GitHub Actions annotations, or one JSON document' })
      .option('remote', { type: 'boolean', default: false, describe: 'Also check cluster, container registry and helm repository names against the API (4 read requests)' })
      .option('api-url', { type: 'string', describe: 'API base URL for --remote (default: DRIFTLESS_API_URL; the token is read from DRIFTLESS_API_TOKEN only)' })
      .option('auth-scheme', choiceOption('auth-scheme', { allowed: AUTH_SCHEMES, describe: 'Authorization scheme for --remote' })),
  run: async (args: ValidateArgs, io: CliIO): Promise<number> => {
    const remote = args.remote ? await remoteReferences(args, io) : { diagnostics: [] as Diagnostic[] };
    // Offline, validate runs where secrets are not available (a fork's pull request, an editor, a
    // pre-commit hook): an unset ${env:} is a warning (an empty one is still an error: a bad
    // value). --remote checks as plan does.
    const loaded = await loadManifest(args.paths ?? [], { env: io.env, cwd: io.cwd, missingEnv: args.remote ? 'error' : 'warning', ...(remote.references ? { references: remote.references } : {}) });
    // The checks plan makes while building the desired graph (description room for the secret
    // fingerprint marker, stage and alias resolution, cycles) are offline too: validate makes them.
    const graphDiagnostics = loaded.manifest ? buildGraph(loaded.manifest).diagnostics : [];
    const result = { ...loaded, diagnostics: [...remote.diagnostics, ...loaded.diagnostics, ...graphDiagnostics] };
    const invalid = hasErrors(result.diagnostics) || !result.manifest;
    const counts = summarizeDiagnostics(result.diagnostics);
    if (args.format === 'json') {
      // For editors and scripts: ranges are 1-based line/col, like everywhere else.
      // escapeJsonText: bidi overrides and line separators from the manifest as \u escapes (same value, inert text).
      io.stdout.write(escapeJsonText(JSON.stringify({ format_version: '1', valid: !invalid, files: result.files, diagnostics: result.diagnostics }, null, 2)) + '\n');
      return invalid ? EXIT.error : EXIT.ok;
    }
    if (args.format === 'github') {
      io.stdout.write(renderDiagnosticsGithub(result.diagnostics));
      // The verdict goes to the log (stderr); stdout holds only workflow commands.
      io.stderr.write(invalid ? `Invalid manifest${counts ? `: ${counts}` : ''}.\n` : `Valid manifest (${describeManifest(result.manifest!, result.files)})${counts ? `, ${counts}` : ''}.\n`);
      return invalid ? EXIT.error : EXIT.ok;
    }
    const { out: palette, err: errPalette } = palettesOf(io, { color: args.color, noColor: args['no-color'] === true });
    const text = renderDiagnosticsHuman(result.diagnostics, errPalette);
    if (text) io.stderr.write(text + '\n');
    if (invalid) {
      io.stdout.write(`${palette.red('✗')} Invalid manifest${counts ? `: ${counts}` : ''}.\n`);
      return EXIT.error;
    }
    io.stdout.write(`${palette.green('✓')} Valid manifest (${describeManifest(result.manifest!, result.files)})${counts ? `, ${counts}` : ''}.\n`);
    return EXIT.ok;
  },
};

/** Cluster, registry and helm repository names from the API, or the diagnostic saying why they could not be read. */
async function remoteReferences(args: ValidateArgs, io: CliIO): Promise<{ references?: ReferenceContext; diagnostics: Diagnostic[] }> {
  const cfg = resolveApiConfig({ apiUrl: args.apiUrl, authScheme: args.authScheme }, io.env);
  if (!cfg.config) return { diagnostics: cfg.diagnostics };
  const session = openSession(cfg.config, { parallelism: 2 });
  try {
    return { references: await fetchReferenceNames(session.port), diagnostics: cfg.diagnostics };
  } catch (e) {
    return { diagnostics: [...cfg.diagnostics, apiDiagnostic(e, 'Reading cluster, registry and helm repository names')] };
  } finally {
    await session.close();
  }
}
