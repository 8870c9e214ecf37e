/**
 * Everything a command touches in the outside world, injected so that commands can be run
 * in-process by tests (with captured streams and a fake environment) and by bin/driftless.js.
 */
export interface CliIO {
  stdout: { write(s: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the user asks to stop (SIGINT). Long-running commands race against it. */
  interrupted?: Promise<void>;
}

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Exit codes of the contract (the exit codes column of docs/commands.md). */
export const EXIT = {
  ok: 0,
  error: 1,
  /** plan --detailed-exitcode: changes present; drift: drift found. */
  changes: 2,
  interrupted: 130,
} as const;
