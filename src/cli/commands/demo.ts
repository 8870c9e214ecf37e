/**
 * `driftless demo`: the README's first command. Starts the emulator in-process (short deploy
 * durations), then plans and applies examples/realistic, changes two things "in the console" and
 * shows `drift` finding them. No configuration, no terminal needed. Exit 0 when every step did what
 * it should (drift found), 1 otherwise.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { integerOption } from '../option-values.js';
import { runCommandLine } from '../dispatch.js';
import { runDemo } from '../../demo/run-demo.js';
import { displayPath } from '../../manifest/discover.js';

export interface DemoArgs {
  deployDuration?: number;
}

/** examples/realistic of this installation, found by walking up from this module (src/ and dist/ alike). */
export function exampleDirectory(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'examples', 'realistic');
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}

/** The commands the demo runs, loaded as main.ts loads them (only when they run). */
async function demoCommands(argv: string[]): Promise<CliCommand<any>[]> {
  switch (argv[0]) {
    case 'plan':
      return [(await import('./plan.js')).planCommand];
    case 'apply':
      return [(await import('./apply.js')).applyCommand];
    case 'drift':
      return [(await import('./drift.js')).driftCommand];
    default:
      throw new Error(`the demo does not run '${argv[0]}'`);
  }
}

export const demoCommand: CliCommand<DemoArgs> = {
  command: 'demo',
  describe: 'Plan, apply and detect drift on the realistic example against an in-process emulator',
  builder: (y: Argv) =>
    y.option('deploy-duration', integerOption('deploy-duration', { min: 0, max: 600_000, default: 1500, describe: 'How long each emulated deployment takes, in ms' })),
  run: async (args: DemoArgs, io: CliIO): Promise<number> => {
    const example = exampleDirectory();
    if (!example) {
      io.stderr.write('driftless: examples/realistic is not part of this installation; run the demo from a clone of the repository.\n');
      return EXIT.error;
    }
    const baseEnv: NodeJS.ProcessEnv = {};
    for (const k of ['NO_COLOR', 'FORCE_COLOR', 'TERM']) if (io.env[k] !== undefined) baseEnv[k] = io.env[k];
    try {
      const result = await runDemo({
        examplePath: displayPath(example, io.cwd),
        ciExamplesPath: displayPath(path.join(path.dirname(example), 'github-actions'), io.cwd) + path.sep,
        baseEnv,
        say: (t) => io.stdout.write(t),
        runCommand: (argv, env) => runCommandLine(argv, { ...io, env }, demoCommands),
        startEmulator: async () => {
          // Loaded here, not at the top: other commands should not pay for the emulator's start-up.
          const { startDemoEmulator } = await import('../../demo/emulator.js');
          return startDemoEmulator(args.deployDuration ?? 1500);
        },
      });
      if (result.plan !== 0 || result.apply !== 0 || result.drift !== 2) {
        io.stderr.write(`driftless demo: a step did not go as expected (plan exited ${result.plan}, apply ${result.apply}, drift ${result.drift}; expected 0, 0, 2).\n`);
        return EXIT.error;
      }
      return EXIT.ok;
    } catch (e) {
      io.stderr.write(`driftless demo failed: ${e instanceof Error ? e.message : String(e)}\n`);
      return EXIT.error;
    }
  },
};
