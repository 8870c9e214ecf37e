/**
 * End-to-end helpers: a real emulator on 127.0.0.1 (port 0), and the CLI run in-process through
 * `main(argv, io)` with captured streams and an explicit environment.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { startEmulator, type RunningEmulator, type StartOptions } from '../../src/emulator/server.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Resolving it is the user's Ctrl-C. */
  interrupted?: Promise<void>;
  /** Sees each chunk written to stdout as it is written. */
  onStdout?: (chunk: string) => void;
  /** Run as on a terminal, with this typed on stdin. */
  terminalInput?: string;
}

export interface Harness {
  emu: RunningEmulator;
  dir: string;
  env: Record<string, string>;
  /** Writes files (path relative to the temp dir -> content). */
  write(files: Record<string, string>): void;
  run(argv: string[], opts?: RunOptions): Promise<RunResult>;
  close(): Promise<void>;
}

/**
 * `DRIFTLESS_E2E_WARM_CACHE=1` (`npm run test:warm`): every CLI run of a harness shares one refresh
 * cache (DRIFTLESS_CACHE_DIR), so that each scenario also runs with a warm cache: after its first
 * run, every plan, apply and drift refreshes from the audit log instead of reading everything.
 */
export const WARM_CACHE = process.env.DRIFTLESS_E2E_WARM_CACHE === '1';

/** Fast deployments and polls: the suite stays in seconds. */
export async function startHarness(opts: StartOptions = {}): Promise<Harness> {
  const emu = await startEmulator({ deployDurationMs: 150, ...opts });
  const dir = mkdtempSync(join(tmpdir(), 'driftless-e2e-'));
  // Outside `dir`: a scenario that lists its directory sees only its own files.
  const cacheDir = WARM_CACHE ? mkdtempSync(join(tmpdir(), 'driftless-e2e-cache-')) : undefined;
  const env: Record<string, string> = {
    DRIFTLESS_API_URL: emu.url,
    DRIFTLESS_API_TOKEN: emu.tokens.ADMIN,
    DRIFTLESS_FINGERPRINT_KEY: 'e2e-fingerprint-key-0123456789abcdef',
    ...(cacheDir ? { DRIFTLESS_CACHE_DIR: cacheDir } : {}),
  };
  return {
    emu,
    dir,
    env,
    write(files) {
      for (const [p, content] of Object.entries(files)) {
        const abs = join(dir, p);
        mkdirSync(dirname(abs), { recursive: true });
        writeFileSync(abs, content);
      }
    },
    async run(argv, o = {}) {
      let stdout = '';
      let stderr = '';
      const io: CliIO = {
        stdout: { write: (s: string) => ((stdout += s), o.onStdout?.(s), true), isTTY: o.terminalInput !== undefined },
        stderr: { write: (s: string) => ((stderr += s), true), isTTY: false },
        ...(o.terminalInput !== undefined ? { stdin: Object.assign(Readable.from([o.terminalInput]), { isTTY: true }) } : {}),
        env: { ...env, ...(o.env ?? {}) },
        cwd: dir,
        ...(o.interrupted ? { interrupted: o.interrupted } : {}),
      };
      const code = await main(argv, io);
      return { code, stdout, stderr };
    },
    async close() {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
      if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

/** Fast deploy polling for apply. */
export const FAST = ['--poll-interval', '40'];

/**
 * The whole stderr of a clean run of a command that called the API: its closing usage line and
 * nothing else (no warning, no retry, no error). With a warm cache (WARM_CACHE), the usage line
 * also gives the refresh's share, and a full read (the scenario's first run) says why on one line.
 */
export const ONLY_USAGE_LINE = WARM_CACHE
  ? /^(?:Full read of the live state: [^\n]*\.\n)?\d+ API requests? \(\d+ of them the refresh\); \d+ of \d+ left in this window\n$/
  : /^\d+ API requests?; \d+ of \d+ left in this window\n$/;
