/**
 * Entry point of the driftless CLI: reads the whole command line (src/cli/command-line.ts), then
 * either prints help/version/completion, reports a usage error, or runs one command. A usage error
 * is reported before anything runs: no request, no file, no emulator. Returns the exit code; never
 * calls process.exit itself.
 */
import type { CliCommand } from './command.js';
import { processIO, type CliIO } from './io.js';
import { runCommandLine } from './dispatch.js';

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
  preview: async () => (await import('./commands/preview.js')).previewCommand,
};

async function commandsFor(argv: string[]): Promise<CliCommand<any>[]> {
  const load = argv[0] !== undefined && Object.hasOwn(COMMAND_MODULES, argv[0]) ? COMMAND_MODULES[argv[0]] : undefined;
  return load ? [await load()] : (await import('./commands/index.js')).commands;
}

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  return runCommandLine(argv, io, commandsFor);
}
