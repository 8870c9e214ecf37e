/**
 * `driftless validate [paths..]`: schema, field-combination and reference checks of a manifest,
 * offline. Exit 0 when valid (warnings allowed), 1 when not.
 *
 * Human output: diagnostics on stderr, the verdict on stdout. `--format github`: one GitHub
 * Actions annotation per diagnostic on stdout (the runner reads workflow commands there), the
 * verdict on stderr. `--format json`: `{format_version, valid, files, diagnostics}` on stdout.
 */
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { hasErrors } from '../../diag/diagnostic.js';
import { createPalette, renderDiagnosticsGithub, renderDiagnosticsHuman, shouldUseColor, summarizeDiagnostics } from '../../diag/render.js';
import { loadManifest } from '../../manifest/load.js';
import type { Manifest } from '../../manifest/types.js';

export interface ValidateArgs {
  paths?: string[];
  format?: 'human' | 'github' | 'json';
  color?: boolean;
  'no-color'?: boolean;
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
  describe: 'Check a manifest (schema and references) without calling the API',
  builder: (y: Argv) =>
    y
      .positional('paths', { type: 'string', array: true, describe: 'Manifest files or directories of *.yaml/*.yml files (default: the current directory)' })
      .option('format', { choices: ['human', 'github', 'json'] as const, default: 'human' as const, describe: 'human text, GitHub Actions annotations, or one JSON document' }),
  run: async (args: ValidateArgs, io: CliIO): Promise<number> => {
    const result = await loadManifest(args.paths ?? [], { env: io.env, cwd: io.cwd });
    const invalid = hasErrors(result.diagnostics) || !result.manifest;
    const counts = summarizeDiagnostics(result.diagnostics);
    if (args.format === 'json') {
      // For editors and scripts: ranges are 1-based line/col, like everywhere else.
      io.stdout.write(JSON.stringify({ format_version: '1', valid: !invalid, files: result.files, diagnostics: result.diagnostics }, null, 2) + '\n');
      return invalid ? EXIT.error : EXIT.ok;
    }
    if (args.format === 'github') {
      io.stdout.write(renderDiagnosticsGithub(result.diagnostics));
      // The verdict goes to the log (stderr); stdout holds only workflow commands.
      io.stderr.write(invalid ? `Invalid manifest${counts ? `: ${counts}` : ''}.\n` : `Valid manifest (${describeManifest(result.manifest!, result.files)})${counts ? `, ${counts}` : ''}.\n`);
      return invalid ? EXIT.error : EXIT.ok;
    }
    const noColor = args.color === false || args['no-color'] === true;
    const errPalette = createPalette(shouldUseColor({ isTTY: io.stderr.isTTY, env: io.env, noColor }));
    const palette = createPalette(shouldUseColor({ isTTY: io.stdout.isTTY, env: io.env, noColor }));
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
