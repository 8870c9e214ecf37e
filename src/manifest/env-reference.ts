/**
 * The argument of an `${env:...}` reference, with the shell's (and docker compose's) default syntax:
 *
 *   ${env:NAME}            the value of NAME; unset or empty is an error (an empty value is the
 *                          usual sign of a CI secret that was never configured)
 *   ${env:NAME:-default}   the value of NAME, or `default` when NAME is unset or empty
 *   ${env:NAME:-}          the value of NAME, or an intentionally empty value
 *
 * Pure: the argument text in, its parts out (or undefined when it is not a valid reference).
 */
const ENV_ARGUMENT = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

export interface EnvArgument {
  name: string;
  /** Present when the reference gives a default (possibly empty: an intentionally empty value). */
  fallback?: string;
}

export function parseEnvArgument(arg: string): EnvArgument | undefined {
  const m = ENV_ARGUMENT.exec(arg);
  if (!m) return undefined;
  return m[2] === undefined ? { name: m[1]! } : { name: m[1]!, fallback: m[2] };
}

export type EnvLookup =
  | { kind: 'value'; value: string }
  /** NAME is not set (no default given). */
  | { kind: 'unset' }
  /** NAME is set to the empty string (no default given). */
  | { kind: 'empty' };

/**
 * The value an `${env:...}` argument stands for in `env`. Strings only: what an object inherits
 * (`constructor`, `toString`, `__proto__`) is never a string, so it is no variable. One read, not
 * an own-property check and a read: each read of `process.env` is a getenv() scan of the whole
 * environment, and an exported organization of 5,000 services has 10,000 secret variables and as
 * many references (two reads each were 0.4 s of a warm plan; one resolution reads them through
 * env-reader.ts, which copies a large environment in one pass).
 */
export function lookUpEnv(ref: EnvArgument, env: Readonly<Record<string, string | undefined>> | ((name: string) => string | undefined)): EnvLookup {
  const v: unknown = typeof env === 'function' ? env(ref.name) : env[ref.name];
  const value = typeof v === 'string' ? v : undefined;
  if (value !== undefined && value !== '') return { kind: 'value', value };
  if (ref.fallback !== undefined) return { kind: 'value', value: ref.fallback };
  return value === undefined ? { kind: 'unset' } : { kind: 'empty' };
}
