/**
 * The one definition of how an option's value is read and what it may be (whole numbers, fractions,
 * durations), shared by every command, and the check that turns any bad value into a usage error
 * before a command runs.
 *
 * A value is read from the text the user typed (yargs' `parse-numbers` is off), never through
 * `Number()`: `abc` is not NaN, `""` is not 0, `1e9` and `0x10` are not integers, so each can be
 * named in the message as typed. A reader never throws: it returns an InvalidOptionValue, and
 * `optionValueProblems` collects them all, so a command line with three bad values gets three lines.
 */
import type { Options } from 'yargs';
import { parseDuration } from '../model/duration.js';

/** What a reader returns instead of a value; the check reports it and the command never runs. */
export class InvalidOptionValue {
  constructor(readonly message: string) {}
}

/**
 * The text as typed, for messages ("abc", "" shown as ""). A long value is not repeated: it is more
 * likely a pasted token than a number or a scheme, and no token is ever printed.
 */
export function shown(raw: unknown): string {
  if (typeof raw !== 'string') return String(raw);
  if (raw.length > 24) return `a value of ${raw.length} characters`;
  return /^[\w.+-]+$/.test(raw) ? raw : JSON.stringify(raw);
}

/** As shown(), always in quotes: a word typed where a command or a choice was expected. */
export function quoted(raw: string): string {
  return raw.length > 24 ? `a value of ${raw.length} characters` : JSON.stringify(raw);
}

function once(flag: string, raw: unknown): InvalidOptionValue | undefined {
  return Array.isArray(raw) ? new InvalidOptionValue(`${flag} was given ${raw.length} times; give it once`) : undefined;
}

export interface IntegerRange {
  min: number;
  /** Default: Number.MAX_SAFE_INTEGER (no integer beyond 2^53 is ever taken, nor rounded). */
  max?: number;
}

function rangeText({ min, max = Number.MAX_SAFE_INTEGER }: IntegerRange): string {
  return max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`;
}

/** Reads a whole number (digits only) within the range. */
export function readInteger(flag: string, range: IntegerRange): (raw: unknown) => number | InvalidOptionValue {
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  return (raw) => {
    const twice = once(flag, raw);
    if (twice) return twice;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (Number.isSafeInteger(n) && n >= range.min && n <= max) return n;
    return new InvalidOptionValue(`${flag} must be an integer ${rangeText(range)}, got ${shown(raw)}`);
  };
}

/** Reads a decimal number (`0.25`, `.5`, `1`) within [min, max]. */
export function readDecimal(flag: string, min: number, max: number): (raw: unknown) => number | InvalidOptionValue {
  return (raw) => {
    const twice = once(flag, raw);
    if (twice) return twice;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^(\d+(\.\d*)?|\.\d+)$/.test(raw) ? Number(raw) : NaN;
    if (Number.isFinite(n) && n >= min && n <= max) return n;
    return new InvalidOptionValue(`${flag} must be a number from ${min} to ${max}, got ${shown(raw)}`);
  };
}

/** `30m`, `90s`, `1h`, `1h30m`, `7d`, `500ms` or a number of seconds -> milliseconds (src/model/duration.ts). */
export { parseDuration };

/** Reads a duration (see parseDuration) between minMs and maxMs; the value is in milliseconds. */
export function readDuration(flag: string, minMs: number, maxMs: number, bounds: string): (raw: unknown) => number | InvalidOptionValue {
  return (raw) => {
    const twice = once(flag, raw);
    if (twice) return twice;
    const ms = typeof raw === 'number' ? raw : typeof raw === 'string' ? parseDuration(raw) : undefined;
    if (ms !== undefined && Number.isFinite(ms) && ms >= minMs && ms <= maxMs) return ms;
    return new InvalidOptionValue(`${flag} must be a duration such as 30m, 90s or 1h, ${bounds}, got ${shown(raw)}`);
  };
}

/** Reads one of `allowed`, in any letter case (`bearer` is Bearer); the value is as listed. */
export function readChoice<T extends string>(flag: string, allowed: readonly T[]): (raw: unknown) => T | InvalidOptionValue {
  return (raw) => {
    const twice = once(flag, raw);
    if (twice) return twice;
    const hit = allowed.find((a) => typeof raw === 'string' && a.toLowerCase() === raw.toLowerCase());
    return hit ?? new InvalidOptionValue(`${flag} must be one of ${allowed.join(', ')}, got ${shown(raw)}`);
  };
}

interface ValueOptionText {
  describe: string;
  hidden?: boolean;
}

/** A yargs option taking a whole number in `range`; its help line says the range. */
export function integerOption(name: string, o: ValueOptionText & IntegerRange & { default?: number }): Options {
  return {
    requiresArg: true,
    coerce: readInteger(`--${name}`, o),
    describe: `${o.describe} (integer ${rangeText(o)})`,
    ...(o.default !== undefined ? { default: o.default } : {}),
    ...(o.hidden ? { hidden: true } : {}),
  };
}

/** A yargs option taking a decimal number in [min, max]. */
export function decimalOption(name: string, o: ValueOptionText & { min: number; max: number; default?: number }): Options {
  return {
    requiresArg: true,
    coerce: readDecimal(`--${name}`, o.min, o.max),
    describe: `${o.describe} (${o.min} to ${o.max})`,
    ...(o.default !== undefined ? { default: o.default } : {}),
  };
}

/** A yargs option taking a duration; the parsed value is in milliseconds. */
export function durationOption(name: string, o: ValueOptionText & { minMs: number; maxMs: number; bounds: string; default?: string }): Options {
  return {
    requiresArg: true,
    coerce: readDuration(`--${name}`, o.minMs, o.maxMs, o.bounds),
    describe: `${o.describe} (${o.bounds})`,
    ...(o.default !== undefined ? { default: o.default } : {}),
  };
}

/** A yargs option taking one of `allowed` (any letter case). */
export function choiceOption(name: string, o: ValueOptionText & { allowed: readonly string[] }): Options {
  return { type: 'string', requiresArg: true, coerce: readChoice(`--${name}`, o.allowed), describe: `${o.describe} (${o.allowed.join(' or ')})` };
}

/**
 * A yargs option taking one or more words (`--target A B`, or `--target A --target B`): each must
 * be non-empty, and the option needs at least one. What the words mean is the command's business.
 */
export function wordListOption(name: string, o: ValueOptionText & { metavar: string }): Options {
  const flag = `--${name}`;
  return {
    type: 'string',
    array: true,
    coerce: (raw: unknown): string[] | InvalidOptionValue => {
      const words = (Array.isArray(raw) ? raw : [raw]).map((w) => (typeof w === 'string' ? w : String(w)));
      if (words.length === 0) return new InvalidOptionValue(`${flag} needs at least one ${o.metavar}`);
      if (words.some((w) => w.trim() === '')) return new InvalidOptionValue(`${flag} needs a value, got an empty one`);
      return words;
    },
    describe: o.describe,
    ...(o.hidden ? { hidden: true } : {}),
  };
}

/** What yargs' getOptions() tells about the options of the command being parsed (the parts read here). */
export interface DeclaredOptions {
  key: Record<string, unknown>;
  array: string[];
  boolean: string[];
  string: string[];
  number: string[];
  alias?: Record<string, string[]>;
}

/** `max-destroy` -> `maxDestroy`: yargs' camel-case alias of an option. */
export const camel = (s: string) => s.replace(/-+([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * Every problem with the values of a parsed command line, one sentence each: a reader's
 * InvalidOptionValue, and -- for options declared without a reader, as any new flag may be -- a
 * `type: 'number'` value that is not a finite number, an empty value, or a value given twice.
 */
export function optionValueProblems(argv: Record<string, unknown>, options: DeclaredOptions): string[] {
  const problems = new Set<string>();
  for (const name of Object.keys(options.key)) {
    const value = argv[name] ?? argv[camel(name)];
    if (value === undefined) continue;
    const flag = name.length === 1 ? `-${name}` : `--${name}`;
    if (value instanceof InvalidOptionValue) problems.add(value.message);
    else if (Array.isArray(value) && !options.array.includes(name)) problems.add(`${flag} was given ${value.length} times; give it once`);
    else if (options.number.includes(name) && !(typeof value === 'number' && Number.isFinite(value))) problems.add(`${flag} must be a number, got ${shown(value)}`);
    else if (value === '' && !options.array.includes(name)) problems.add(`${flag} needs a value, got an empty one`);
  }
  return [...problems];
}
