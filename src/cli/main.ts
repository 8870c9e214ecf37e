/**
 * Entry point of the driftless CLI: reads the whole command line (src/cli/command-line.ts), then
 * either prints help/version/completion, reports a usage error, or runs one command. A usage error
 * is reported before anything runs: no request, no file, no emulator. Returns the exit code; never
 * calls process.exit itself.
 */
import type { CliCommand } from './command.js';
import { processIO, type CliIO, EXIT } from './io.js';
import { isVersionRequest, parseCommandLine } from './command-line.js';
import { packageVersion } from './package-version.js';

/**
 * The module of each command, loaded only when that command runs: `driftless validate` does not
 * load apply, export or drift. Anything else (`--help`, no or an unknown command, an option before
 * the command) loads the whole table of commands/index.ts, so a command missing here still works.
 */
const COMMAND_MODULES: Record<string, () => Promise<CliCommand<any>>> = {
  validate: async () => (await import('./commands/validate.js')).validateCommand,
  plan: async () => (await import('./commands/plan.js')).planCommand,
  apply: async () => (await import('./commands/apply.js')).applyCommand,
  drift: async () => (await import('./commands/drift.js')).driftCommand,
  export: async () => (await import('./commands/export.js')).exportCommand,
  graph: async () => (await import('./commands/graph.js')).graphCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  show: async () => (await import('./commands/show.js')).showCommand,
};

async function commandsFor(argv: string[]): Promise<CliCommand<any>[]> {
  const load = argv[0] !== undefined && Object.hasOwn(COMMAND_MODULES, argv[0]) ? COMMAND_MODULES[argv[0]] : undefined;
  return load ? [await load()] : (await import('./commands/index.js')).commands;
}

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  // `driftless -v` (bug reports, CI logs), without loading the commands.
  if (isVersionRequest(argv)) {
    io.stdout.write(`driftless ${packageVersion()}\n`);
    return EXIT.ok;
  }
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
