/**
 * Runs one command line: prints help/version/completion, reports a usage error, or runs one
 * command, with the commands `commandsFor` loads for that line. Separate from main.ts (which
 * knows the command table) so that a command that runs other commands, `driftless demo`, can
 * use it with the commands it needs without importing main.ts, which imports it (an import cycle).
 */
import type { CliCommand } from './command.js';
import { EXIT, type CliIO } from './io.js';
import { packageVersion } from './package-version.js';

const VERSION_FLAGS = ['-v', '-V', '--version'];

/** `driftless -v`: answered without loading any command, nor the command-line parser. */
export function isVersionRequest(argv: readonly string[]): boolean {
  return argv.length === 1 && VERSION_FLAGS.includes(argv[0]!);
}

export async function runCommandLine(argv: string[], io: CliIO, commandsFor: (argv: string[]) => Promise<CliCommand<any>[]>): Promise<number> {
  // `driftless -v` (bug reports, CI logs), without loading the commands.
  if (isVersionRequest(argv)) {
    io.stdout.write(`driftless ${packageVersion()}\n`);
    return EXIT.ok;
  }
  // yargs and its help layout (cliui, string-width) are loaded after the version check: `-v` is
  // answered without them.
  const { parseCommandLine } = await import('./command-line.js');
  const line = await parseCommandLine(argv, await commandsFor(argv), { version: packageVersion(), width: Math.min(110, io.stdout.columns ?? 100) });
  if (line.kind === 'usage-error') {
    io.stderr.write(line.message);
    return EXIT.error;
  }
  if (line.kind === 'print') {
    io.stdout.write(line.text);
    return EXIT.ok;
  }
  try {
    return await line.command.run(line.args as never, io);
  } catch (e) {
    // A command reports its problems as diagnostics; anything else is a bug. One line, never a
    // stack trace or the message (which could quote a value), as the launcher does.
    io.stderr.write(`driftless: internal error: ${e instanceof Error ? e.name : 'Error'}\n`);
    return EXIT.error;
  }
}
