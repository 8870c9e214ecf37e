/**
 * How one resolution reads environment variables: `env[name]`, or, when `env` is the process's own
 * environment and many names are read, one copy of the whole environment taken in one pass.
 *
 * Why: each read of `process.env` is a getenv(), a scan of the whole environment. An exported
 * organization of 5,000 services reads 10,000 `${env:}` variables in an environment of 10,000:
 * 10^8 comparisons, 0.27 s of a warm plan. Copying `process.env` (`{...process.env}`, or its keys
 * and then each value) is a getenv() per name again (0.58 s), but Node's diagnostic report lists
 * every variable from one pass over `environ` (uv_os_environ): 15-20 ms for 10,000 variables, about
 * 10 ms for 2,000 (the report also describes the heap, the stack, libuv...). So the copy is taken
 * only once direct reads have cost about as much as it would (then at most about twice the cheaper
 * of the two is paid, whatever the size of the environment and the number of names): 2,000 reads
 * of 2,000 variables (an export of 1,000 services) cost 10-15 ms and stay reads; 10,000 of 10,000
 * (5,000 services) cost 0.27 s read one by one, 20 ms + the copy here.
 *
 * The copy gives exactly what the reads give, or is not used:
 * - only for the real `process.env` of the main thread on Linux (a worker's `process.env` is its
 *   own copy, a replaced `process.env` is a plain object, and Windows names are case-insensitive);
 * - not when a name appears twice in the environment (possible only when the process was started
 *   with it twice: setenv() replaces the first and unsetenv() removes all): getenv() gives the
 *   first, the report the last. /proc/self/environ, the environment the process was started with,
 *   shows whether it did; unreadable: no copy;
 * - names inherited from Object.prototype (`constructor`, `__proto__`) are no variable either way:
 *   a read of a name the environment lacks gives what is not a string, the copy (a Map) nothing.
 * The copy lives for one resolution: a value changed between two loads is read again.
 */
import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** The variable `name`, as `env[name]` gives it (what is not a string is no variable). */
export type EnvRead = (name: string) => string | undefined;

/** What a reader needs of the process: injected so that tests can drive both paths. */
export interface ProcessEnvironment {
  /** The object whose reads may be replaced by the copy (the process's own environment). */
  env: object;
  /** Every variable, from one pass; undefined when one pass cannot give what reads give. */
  copy(): Map<string, string> | undefined;
  /** A clock in milliseconds. */
  now(): number;
}

/**
 * Direct reads may cost this much (ms) before the copy is taken: about what the copy costs at
 * 10,000 variables. At 2,000 (1,000 services) all the reads cost 10-15 ms: they stay reads.
 */
const COPY_BUDGET_MS = 20;
const SAMPLE = 8;

/** process.env as the process started with it (parse-yaml.ts swaps it only during a synchronous parse). */
const NATIVE_ENV: object = process.env;

export const processEnvironment: ProcessEnvironment = {
  env: NATIVE_ENV,
  copy: copyOfProcessEnvironment,
  now: () => performance.now(),
};

/**
 * A reader of `env` for one resolution. `budgetMs`: how long direct reads may take before the copy
 * is taken (tests pass 0 to take it at the first read).
 */
export function envReader(env: Readonly<Record<string, string | undefined>>, proc: ProcessEnvironment = processEnvironment, budgetMs = COPY_BUDGET_MS): EnvRead & { copied(): boolean } {
  const direct = (name: string): string | undefined => {
    const v: unknown = env[name];
    return typeof v === 'string' ? v : undefined;
  };
  if (env !== proc.env) return Object.assign(direct, { copied: () => false });
  let spent = 0;
  let reads = 0;
  let copy: Map<string, string> | undefined;
  let gaveUp = false;
  const read = (name: string): string | undefined => {
    if (copy !== undefined) return copy.get(name);
    if (gaveUp) return direct(name);
    if (spent < budgetMs) {
      // One read in SAMPLE is timed (reading the clock costs about what a read of a small
      // environment does); reads of one environment cost about the same.
      if (reads++ % SAMPLE !== 0) return direct(name);
      const t0 = proc.now();
      const v = direct(name);
      spent += (proc.now() - t0) * SAMPLE;
      return v;
    }
    copy = proc.copy();
    if (copy === undefined) {
      gaveUp = true;
      return direct(name);
    }
    return copy.get(name);
  };
  return Object.assign(read, { copied: () => copy !== undefined });
}

/** Names that appear more than once in `environ` text (NAME=VALUE entries separated by NUL). */
export function hasRepeatedName(environ: string): boolean {
  const names = new Set<string>();
  for (const entry of environ.split('\0')) {
    const eq = entry.indexOf('=');
    // getenv() and uv_os_environ() both skip an entry without `=`.
    if (eq < 0) continue;
    const name = entry.slice(0, eq);
    if (names.has(name)) return true;
    names.add(name);
  }
  return false;
}

function copyOfProcessEnvironment(): Map<string, string> | undefined {
  if (process.platform !== 'linux' || !isMainThread || process.env !== NATIVE_ENV) return undefined;
  const report = process.report as (NodeJS.ProcessReport & { excludeNetwork?: boolean }) | undefined;
  if (typeof report?.getReport !== 'function') return undefined;
  let started: string;
  try {
    started = readFileSync('/proc/self/environ', 'latin1');
  } catch {
    return undefined;
  }
  if (hasRepeatedName(started)) return undefined;
  let vars: unknown;
  // The report would otherwise look up the names of open sockets' peers (Node >= 20.13 can skip it).
  const hadExclude = 'excludeNetwork' in report;
  const excluded = report.excludeNetwork;
  try {
    if (hadExclude) report.excludeNetwork = true;
    vars = (report.getReport() as { environmentVariables?: unknown }).environmentVariables;
  } catch {
    return undefined;
  } finally {
    if (hadExclude) report.excludeNetwork = excluded;
  }
  if (vars === null || typeof vars !== 'object') return undefined;
  const out = new Map<string, string>();
  for (const name of Object.keys(vars)) {
    const v: unknown = (vars as Record<string, unknown>)[name];
    if (typeof v === 'string') out.set(name, v);
  }
  return out;
}
