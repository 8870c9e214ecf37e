/**
 * The CLI as a real process (`node bin/driftless.js`, built by `npm run build`), for the tests that
 * send it signals. Never leaves a process behind: `killAll()` in afterEach.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const BIN = resolve(import.meta.dirname, '../../bin/driftless.js');

export interface Child {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once `text` appeared on stdout or stderr. */
  waitFor(text: string | RegExp): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();

export function runChild(args: string[], opts: { cwd: string; env: Record<string, string> }): Child {
  const proc = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  let err = '';
  const waiters: Array<{ test: (s: string) => boolean; resolve: () => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (w.test(out + err)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  proc.stdout!.on('data', (c: Buffer) => ((out += c.toString('utf8')), check()));
  proc.stderr!.on('data', (c: Buffer) => ((err += c.toString('utf8')), check()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    proc.on('close', (code, signal) => {
      running.delete(proc);
      res({ code, signal });
    }),
  );
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(text) {
      const test = (s: string) => (typeof text === 'string' ? s.includes(text) : text.test(s));
      if (test(out + err)) return Promise.resolve();
      return new Promise<void>((res, rej) => {
        waiters.push({ test, resolve: res });
        void exited.then(() => rej(new Error(`the process exited before printing ${String(text)}:\n${out}\n${err}`)));
      });
    },
  };
}

/** Kills (SIGKILL) every child still running: for afterEach. */
export function killAll(): void {
  for (const p of running) p.kill('SIGKILL');
}

/** A small deterministic random source (mulberry32), so that chaos points are reproducible. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
