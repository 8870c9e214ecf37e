/**
 * Support of the usage-error tests (findings 2 and 10): a count of every HTTP request the emulator
 * receives, read from its own server (not from the CLI), and a project whose apply destroys three
 * variables.
 */
import { existsSync, readdirSync } from 'node:fs';
import { expect } from 'vitest';
import type { Harness, RunResult } from '../e2e/helpers.js';

/** Counts every request reaching the emulator's HTTP server from now on, whatever its route or answer. */
export function countRequests(h: Harness): () => number {
  let n = 0;
  h.emu.app.server.on('request', () => n++);
  return () => n;
}

export const THREE_VARIABLES = `version: 1
projects:
  - name: safety
    variables:
      - key: ONE
        value: "1"
      - key: TWO
        value: "2"
      - key: THREE
        value: "3"
`;

/** The same project without its variables, pruning them: its apply destroys 3 variables. */
export const PRUNED = `version: 1
projects:
  - name: safety
    prune:
      variables: true
    variables: []
`;

export function liveVariableKeys(h: Harness): string[] {
  return Object.values(h.emu.state.variables)
    .map((v) => String(v.key))
    .sort();
}

/**
 * What every usage error must be: exit 1, the message on stderr with the pointer to the help,
 * nothing on stdout, no request to the API (when given the count), no new file in the working directory.
 */
export function expectRefusedBeforeRunning(r: RunResult, opts: { message: string; command?: string; requests?: number; dir: string; filesBefore: string[] }): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toContain(opts.message);
  expect(r.stderr).toContain(`Run 'driftless${opts.command ? ` ${opts.command}` : ''} --help'`);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).toBe('');
  if (opts.requests !== undefined) expect(opts.requests).toBe(0);
  expect(readdirSync(opts.dir).sort()).toEqual(opts.filesBefore);
}

export const filesIn = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);
