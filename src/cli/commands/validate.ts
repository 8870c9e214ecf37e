/**
 * `driftless validate [paths..]`: schema, field-combination and reference checks of a manifest,
 * offline. Exit 0 when valid (warnings allowed), 1 when not.
 *
 * Human output: diagnostics on stderr, the verdict on stdout. `--format github`: one GitHub
 * Actions annotation per diagnostic on stdout (the runner reads workflow commands there), the
 * verdict on stderr. `--format json`: `{format_version, valid, files, diagnostics}` on stdout.
 *
 * It makes every offline check plan makes, with the same code: the manifest loader's (schema,
 * numbers, cron schedules, time zones, references, look-alike names) and buildGraph's (description
 * room for the secret fingerprint marker, aliases, stages, dependency cycles). Without --remote it
 * runs where secrets are not available: an unset ${env:NAME} is a warning, not an error.
 *
 * `--remote` also checks the manifest against the organization with plan's own checks: cluster,
 * registry and helm repository names and the clusters' maxima (src/manifest/references.ts
 * checkOrganizationReferences), then the listings plan reads (src/checks: managed-database instance
 * types, terraform variables). Those are the only API calls made. One difference remains: a
 * managed database's instance type that is no longer offered is a warning in plan when the live
 * database already runs it; validate reads no services, so it reports it as an error.
 */
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { hasErrors } from '../../diag/diagnostic.js';
import { renderDiagnosticsGithub, summarizeDiagnostics } from '../../diag/render.js';
import { inGithubActions, writeDiagnostics } from '../diagnostics-out.js';
import { loadManifest } from '../../manifest/load.js';
import { relateDiagnostics } from '../../manifest/templates.js';
import { buildGraph } from '../../graph/build.js';
import type { Manifest } from '../../manifest/types.js';
import { palettesOf } from '../config.js';
import { escapeJsonText } from '../../render/escape.js';
import { choiceOption } from '../option-values.js';
import { AUTH_SCHEMES, maxWaitOption, pathsAndTargets, targetOption } from '../shared-options.js';
import { resolveTargets } from '../../graph/target.js';
import { reportUsage, type ApiUsage } from '../api-usage.js';

export interface ValidateArgs {
  paths?: string[];
  target?: string[];
  format?: 'human' | 'github' | 'json';
  color?: boolean;
  remote?: boolean;
  apiUrl?: string;
  authScheme?: string;
  /** Seconds (--max-wait, for --remote). */
  maxWait?: number;
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
    targetOption(y.positional('paths', { type: 'string', array: true, describe: 'Manifest files or directories of *.yaml/*.yml files (default: the current directory)' }))
      .option('format', { choices: ['human', 'github', 'json'] as const, default: 'human' as const, describe: 'human text, GitHub Actions annotations, or one JSON document' })
      .option('remote', { type: 'boolean', default: false, describe: 'Also make the checks plan makes against the organization: names of clusters, container registries and helm repositories, cluster cpu/memory maxima, managed-database instance types, terraform variables (read requests only)' })
      .option('api-url', { type: 'string', describe: 'API base URL for --remote (default: DRIFTLESS_API_URL; the token is read from DRIFTLESS_API_TOKEN only)' })
      .option('auth-scheme', choiceOption('auth-scheme', { allowed: AUTH_SCHEMES, describe: 'Authorization scheme for --remote' }))
      .option('max-wait', maxWaitOption()),
  run: async (args: ValidateArgs, io: CliIO): Promise<number> => {
    // Offline, validate runs where secrets are not available (a fork's pull request, an editor, a
    // pre-commit hook): an unset ${env:} is a warning (an empty one is still an error: a bad
    // value). --remote checks as plan does.
    let usage: ApiUsage | undefined;
    const { paths, targets } = pathsAndTargets(args, io.cwd);
    // The API client, the organization checks and plan's session are loaded only for --remote:
    // an offline validate does not pay for their modules (test/cli/startup-imports.test.ts).
    const loaded = args.remote
      ? await (await import('../validate-remote.js')).loadCheckedRemotely({ ...args, paths }, io, (u) => (usage = u))
      : await loadManifest(paths, { env: io.env, cwd: io.cwd, missingEnv: 'warning' });
    try {
      return report(loaded, args, io, targets);
    } finally {
      // After the verdict: the last line of a remote validate is what it cost.
      reportUsage(io, usage && { usage: () => usage! });
    }
  },
};

/** The verdict of validate in the chosen format; the exit code. */
function report(loaded: Awaited<ReturnType<typeof loadManifest>>, args: ValidateArgs, io: CliIO, targets?: string[]): number {
  // The checks plan makes while building the desired graph (description room for the secret
  // fingerprint marker, stage and alias resolution, cycles) are offline too: validate makes them,
  // and so the check of `--target` addresses (plan's own code and message).
  const built = loaded.manifest ? buildGraph(loaded.manifest, { templates: loaded.templates }) : undefined;
  const graphDiagnostics = built ? [...built.diagnostics, ...(targets ? resolveTargets(built.graph, targets).diagnostics : [])] : [];
  // Those about objects instantiated from a template also point at the template and the override.
  const result = { ...loaded, diagnostics: relateDiagnostics(loaded.templates, [...loaded.diagnostics, ...graphDiagnostics]) };
  const invalid = hasErrors(result.diagnostics) || !result.manifest;
  const counts = summarizeDiagnostics(result.diagnostics);
  if (args.format === 'json') {
    // For editors and scripts: ranges are 1-based line/col, like everywhere else.
    // escapeJsonText: bidi overrides and line separators from the manifest as \u escapes (same value, inert text).
    io.stdout.write(escapeJsonText(JSON.stringify({ format_version: '1', valid: !invalid, files: result.files, diagnostics: result.diagnostics }, null, 2)) + '\n');
    if (inGithubActions(io.env)) io.stderr.write(renderDiagnosticsGithub(result.diagnostics));
    return invalid ? EXIT.error : EXIT.ok;
  }
  if (args.format === 'github') {
    io.stdout.write(renderDiagnosticsGithub(result.diagnostics));
    // The verdict goes to the log (stderr); stdout holds only workflow commands.
    io.stderr.write(invalid ? `Invalid manifest${counts ? `: ${counts}` : ''}.\n` : `Valid manifest (${describeManifest(result.manifest!, result.files)})${counts ? `, ${counts}` : ''}.\n`);
    return invalid ? EXIT.error : EXIT.ok;
  }
  const { out: palette, err: errPalette } = palettesOf(io, { color: args.color });
  writeDiagnostics(io, result.diagnostics, errPalette);
  if (invalid) {
    io.stdout.write(`${palette.red('✗')} Invalid manifest${counts ? `: ${counts}` : ''}.\n`);
    return EXIT.error;
  }
  io.stdout.write(`${palette.green('✓')} Valid manifest (${describeManifest(result.manifest!, result.files)})${counts ? `, ${counts}` : ''}.\n`);
  return EXIT.ok;
}
