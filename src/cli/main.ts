/**
 * Entry point of the driftless CLI: builds the yargs parser from the command table and runs one
 * command. Returns the exit code; never calls process.exit itself.
 */
import yargs from 'yargs';
import { commands } from './commands/index.js';
import { processIO, type CliIO, EXIT } from './io.js';

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
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

  for (const cmd of commands) {
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
