/**
 * Ctrl-C during a long-running command: the first one asks the command to stop gracefully (no new
 * step starts, running ones finish, a report is printed); a second one gets Node's default
 * behaviour back (the process ends at once). Tests pass `io.interrupted` instead.
 */
import type { CliIO } from './io.js';

export function onInterrupt(io: CliIO, fn: () => void): () => void {
  if (io.interrupted) {
    void io.interrupted.then(fn);
    return () => {};
  }
  const handler = () => {
    // Removing the listener restores the default: a second Ctrl-C stops the process immediately.
    process.off('SIGINT', handler);
    io.stderr.write('\nInterrupt received: no new step will start; waiting for the running ones (Ctrl-C again to stop now).\n');
    fn();
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}
