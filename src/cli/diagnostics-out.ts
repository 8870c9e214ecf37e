/**
 * Where a command's diagnostics go: human text on stderr, and, in a GitHub Actions job
 * (`GITHUB_ACTIONS=true` in the injected environment), also one workflow command per diagnostic
 * (`::error file=...,line=...,col=...::...`) so that the runner shows them as annotations on the
 * pull request, on the manifest lines they point at. The runner reads workflow commands on stderr
 * as on stdout; stdout stays the command's document (JSON, markdown).
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { renderDiagnosticsGithub, renderDiagnosticsHuman, type Palette } from '../diag/render.js';
import type { CliIO } from './io.js';

/** True in a GitHub Actions job (the runner sets GITHUB_ACTIONS=true). */
export function inGithubActions(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/**
 * Writes the diagnostics on stderr (nothing when there are none). `annotations: false` when the
 * command already printed them as workflow commands (e.g. `--format github`), so none is doubled.
 */
export function writeDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], palette: Palette, opts: { annotations?: boolean } = {}): void {
  const text = renderDiagnosticsHuman(diagnostics, palette);
  if (text) io.stderr.write(text + '\n');
  if (opts.annotations !== false && inGithubActions(io.env)) io.stderr.write(renderDiagnosticsGithub(diagnostics));
}
