import type { Argv } from 'yargs';
import type { CliIO } from './io.js';

/**
 * A driftless sub-command. Commands are thin: parse options, call the core, pick a renderer,
 * return an exit code. They never call process.exit and never print secrets.
 */
export interface CliCommand<A = Record<string, unknown>> {
  /** yargs command string, e.g. 'plan [paths..]'. */
  command: string;
  describe: string;
  builder: (y: Argv) => Argv;
  run: (args: A, io: CliIO) => Promise<number>;
}
