/**
 * Entry point of the driftless CLI: builds the yargs parser from the command table and runs one
 * command. Returns the exit code; never calls process.exit itself.
 */
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import type { CliCommand } from './command.js';
import { processIO, type CliIO, EXIT } from './io.js';

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
};

async function commandsFor(argv: string[]): Promise<CliCommand<any>[]> {
  const load = argv[0] !== undefined && Object.hasOwn(COMMAND_MODULES, argv[0]) ? COMMAND_MODULES[argv[0]] : undefined;
  return load ? [await load()] : (await import('./commands/index.js')).commands;
}

/** The installed package's version (package.json sits two levels above both src/cli and dist/cli). */
function packageVersion(): string {
  try {
    return String(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  } catch {
    return 'unknown';
  }
}

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  // `driftless --version` (bug reports, CI logs); yargs' own would print outside `io`.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.stdout.write(`driftless ${packageVersion()}\n`);
    return EXIT.ok;
  }
  let exitCode: number = EXIT.ok;
  let ran = false;
  const parser = yargs(argv)
    .scriptName('driftless')
    .usage('$0 <command> [options]')
    .option('no-color', { type: 'boolean', describe: 'Disable colour output (also NO_COLOR)' })
    .strict()
    .demandCommand(1, 'Give a command: validate, plan, apply, drift, export, graph, serve or demo.')
    .recommendCommands()
    .help()
    .version(false)
    .wrap(Math.min(110, io.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((msg, err) => {
      // A usage error: say what is wrong, never a stack trace.
      io.stderr.write(`driftless: ${msg ?? err?.message ?? 'invalid arguments'}\nRun 'driftless --help' for usage.\n`);
      exitCode = EXIT.error;
    });

  for (const cmd of await commandsFor(argv)) {
    parser.command(cmd.command, cmd.describe, cmd.builder, async (args) => {
      ran = true;
      exitCode = await cmd.run(args as never, io);
    });
  }

  try {
    await parser.parseAsync();
  } catch {
    // yargs already reported the problem through .fail().
    if (exitCode === EXIT.ok) exitCode = EXIT.error;
  }
  void ran;
  return exitCode;
}
