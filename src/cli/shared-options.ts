/**
 * Options shared by the commands that talk to the API (plan, apply, drift and graph, built on
 * runPlan, and export), and the reporting of the HTTP client's own progress.
 */
import type { Argv } from 'yargs';
import type { ApiEvent } from '../api/index.js';
import type { CliIO } from './io.js';
import { choiceOption, durationOption, integerOption, wordListOption } from './option-values.js';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { looksLikeAddress } from '../graph/target.js';
import { MAX_WAIT_LIMIT_S } from './config.js';
import { DEFAULT_VERIFY_REQUESTS } from '../live/verify-default.js';

export interface ConnectionArgs {
  apiUrl?: string;
  authScheme?: string;
  parallelism?: number;
  /** Seconds. */
  maxWait?: number;
  /** `--cache DIR` (DRIFTLESS_CACHE_DIR when unset). */
  cache?: string;
  /** `--refresh full`: a full read even with a usable cache. */
  refresh?: RefreshMode;
  /** `--verify-requests N`: cached lists a warm run re-reads, in rotation, to check the cache. */
  verifyRequests?: number;
  /** `--max-cache-age DURATION`, in milliseconds: an older last full read means a full read. */
  maxCacheAge?: number;
}

export const REFRESH_MODES = ['full', 'auto'] as const;
export type RefreshMode = (typeof REFRESH_MODES)[number];

export const AUTH_SCHEMES = ['Token', 'Bearer'] as const;

export function connectionOptions(y: Argv): Argv<any> {
  return y
    .option('api-url', { type: 'string', describe: 'API base URL (default: DRIFTLESS_API_URL). The token is read from DRIFTLESS_API_TOKEN only.' })
    .option('auth-scheme', choiceOption('auth-scheme', { allowed: AUTH_SCHEMES, describe: 'Authorization scheme, default: Bearer for a JWT, else Token' }))
    .option('parallelism', integerOption('parallelism', { min: 1, max: 64, default: 8, describe: 'API requests and steps in flight at most' }))
    .option('max-wait', maxWaitOption())
    // Every command that reads the live state takes the cache: they all pay for the same read.
    .option('cache', { type: 'string', requiresArg: true, describe: 'Refresh the live state from the audit log since the run that last used DIR, instead of reading it all (default: DRIFTLESS_CACHE_DIR)' })
    .option('refresh', choiceOption('refresh', { allowed: REFRESH_MODES, describe: 'full: read the whole live state even with a usable --cache (default: auto)' }))
    // The cache is trusted only as far as it is checked (src/live/verify.ts, src/live/cursor.ts).
    .option(
      'verify-requests',
      integerOption('verify-requests', {
        min: 0,
        max: 1000,
        describe: `With --cache: lists a warm run re-reads in rotation and compares with the cache (0: none); a change the audit log did not explain is found within ceil(lists / N) warm runs. A warm no-op plan costs at most 10 requests plus N (default: ${DEFAULT_VERIFY_REQUESTS})`,
      }),
    )
    .option('max-cache-age', durationOption('max-cache-age', { minMs: 0, maxMs: 3650 * 86_400_000, bounds: 'from 0s to 87600h', describe: "With --cache: a full read when the cache's last full read is older than DURATION, e.g. 12h (default: 24h)" }));
}

/**
 * `--max-wait SECONDS`: the longest the command waits for the API rate limit to reset; past it, exit 1
 * with the reset time. Every command that calls the API takes it (validate for --remote too).
 */
export function maxWaitOption(): ReturnType<typeof integerOption> {
  return integerOption('max-wait', { min: 0, max: MAX_WAIT_LIMIT_S, describe: 'Fail (exit 1, with the reset time) instead of waiting longer than SECONDS for the API rate limit (default: DRIFTLESS_MAX_WAIT, else no cap)' });
}

/** The `[paths..]` positional of the commands that read a manifest. */
export function pathsPositional(y: Argv<any>): Argv<any> {
  return y.positional('paths', { type: 'string', array: true, describe: 'Manifest files or directories (default: the current directory)' });
}

/** The connection settings runPlan takes, from the parsed arguments. */
export function connectionOf(args: ConnectionArgs): ConnectionArgs {
  return { apiUrl: args.apiUrl, authScheme: args.authScheme, parallelism: args.parallelism, maxWait: args.maxWait, cache: args.cache, refresh: args.refresh, verifyRequests: args.verifyRequests, maxCacheAge: args.maxCacheAge };
}

/**
 * Tells the user (on stderr) what the client retries and when it waits for the rate limit, so a
 * pause is never a mystery. Paths carry ids only (no query string, no body, no header).
 */
export function apiEventReporter(io: CliIO, onRateLimit?: (seconds: number) => void): (e: ApiEvent) => void {
  const debug = logLevel(io.env) === 'debug';
  return (e) => {
    // The most verbose level: one line per HTTP exchange (method, path without query, status, time).
    // Nothing else of a request is ever logged: not its body, nor any header.
    if (debug && e.type === 'response') io.stderr.write(`debug: API ${e.method} ${e.path} -> ${e.status} in ${Math.round(e.durationMs)}ms (attempt ${e.attempt})\n`);
    if (e.type === 'retry' && !e.reason.startsWith('rate limited')) {
      // 429s are reported by the rate-limit-wait event below.
      io.stderr.write(`API: ${e.method} ${e.path} failed (${e.reason}); retrying (attempt ${e.attempt}) in ${e.delayMs < 10_000 ? `${e.delayMs}ms` : `${Math.round(e.delayMs / 1000)}s`}\n`);
    }
    if (e.type === 'rate-limit-wait') {
      if (onRateLimit) onRateLimit(e.seconds);
      else io.stderr.write(`API rate limit: waiting ${e.seconds}s (until ${e.until}) to stay within the limit\n`);
    }
  };
}

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * DRIFTLESS_LOG_LEVEL: `debug` adds a line per API request and response on stderr; the default
 * `info` reports retries and rate-limit waits only. An unknown value falls back to `info`.
 */
export function logLevel(env: NodeJS.ProcessEnv): LogLevel {
  const v = (env.DRIFTLESS_LOG_LEVEL ?? '').toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(v) ? (v as LogLevel) : 'info';
}

/**
 * `--target ADDRESS...` of plan, apply, drift, graph and validate: only those subtrees of the
 * manifest, and what they depend on (src/graph/target.ts).
 */
export function targetOption(y: Argv<any>): Argv<any> {
  return y.option(
    'target',
    wordListOption('target', {
      metavar: 'ADDRESS',
      describe: 'Only these resources, what is under them and what they depend on: addresses as plan prints them (project.shop/environment.staging); the plan is partial',
    }),
  );
}

export interface TargetArgs {
  paths?: string[];
  target?: string[];
}

/**
 * The manifest paths and the targets of a command line: `--target` takes every word after it, so a
 * word that is not written as an address and names an existing file or directory
 * (`plan --target project.shop infra/`) is a manifest path. Any other word stays a target (a typo
 * is then reported as an unknown address, with a suggestion).
 */
export function pathsAndTargets(args: TargetArgs, cwd: string): { paths: string[]; targets?: string[] } {
  if (args.target === undefined) return { paths: args.paths ?? [] };
  const targets: string[] = [];
  const paths = [...(args.paths ?? [])];
  for (const w of args.target) {
    if (!looksLikeAddress(w) && existsSync(isAbsolute(w) ? w : resolve(cwd, w))) paths.push(w);
    else targets.push(w);
  }
  return { paths, targets };
}
