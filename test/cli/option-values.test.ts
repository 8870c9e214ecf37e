/**
 * The shared reading of option values: what the user typed is taken exactly or refused with the
 * option, what is allowed and the value as typed; and a command line with a bad value never
 * reaches a command, whichever way that command declared the option.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionValue, parseDuration, readChoice, readDecimal, readDuration, readInteger } from '../../src/cli/option-values.js';
import { parseCommandLine } from '../../src/cli/command-line.js';
import type { CliCommand } from '../../src/cli/command.js';

const messageOf = (v: unknown) => (v instanceof InvalidOptionValue ? v.message : undefined);

describe('readInteger', () => {
  const parallelism = readInteger('--parallelism', { min: 1, max: 64 });
  it('takes the digits typed, within the range', () => {
    expect(parallelism('1')).toBe(1);
    expect(parallelism('64')).toBe(64);
    expect(parallelism('08')).toBe(8);
  });
  it.each([
    ['abc', 'abc'],
    ['1e9', '1e9'],
    ['0x10', '0x10'],
    ['1.5', '1.5'],
    ['-1', '-1'],
    ['0', '0'],
    ['65', '65'],
    ['', '""'],
    [' 8', '" 8"'],
    ['Infinity', 'Infinity'],
  ])('refuses %j naming the option, the range and the value as typed', (raw, shown) => {
    expect(messageOf(parallelism(raw))).toBe(`--parallelism must be an integer from 1 to 64, got ${shown}`);
  });
  it('has no upper bound but 2^53: a larger integer would be silently rounded', () => {
    const maxDestroy = readInteger('--max-destroy', { min: 0 });
    expect(maxDestroy('9007199254740991')).toBe(9007199254740991);
    expect(messageOf(maxDestroy('9007199254740993'))).toBe('--max-destroy must be an integer of 0 or more, got 9007199254740993');
  });
  it('refuses a value given twice', () => {
    expect(messageOf(parallelism(['2', '3']))).toBe('--parallelism was given 2 times; give it once');
  });
});

describe('readDecimal', () => {
  const rate = readDecimal('--fault-rate', 0, 1);
  it('takes a decimal within the bounds', () => {
    expect(rate('0.25')).toBe(0.25);
    expect(rate('.5')).toBe(0.5);
    expect(rate('1')).toBe(1);
  });
  it.each(['2', 'NaN', '1e-1', '-0.1', 'abc'])('refuses %j', (raw) => {
    expect(messageOf(rate(raw))).toBe(`--fault-rate must be a number from 0 to 1, got ${raw}`);
  });
});

describe('durations', () => {
  it('parseDuration reads seconds, units and sums', () => {
    expect(parseDuration('90')).toBe(90_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('7d')).toBe(7 * 86_400_000);
    expect(parseDuration('xyz')).toBeUndefined();
  });
  const timeout = readDuration('--timeout', 1000, 86_400_000, 'from 1s to 24h');
  it('readDuration gives milliseconds within the bounds, and refuses the rest', () => {
    expect(timeout('30m')).toBe(1_800_000);
    expect(timeout('1s')).toBe(1000);
    for (const raw of ['xyz', '0', '500ms', '25h', '30x']) expect(messageOf(timeout(raw))).toBe(`--timeout must be a duration such as 30m, 90s or 1h, from 1s to 24h, got ${raw}`);
  });
});

describe('readChoice', () => {
  it('takes a listed value in any letter case and gives it as listed', () => {
    const scheme = readChoice('--auth-scheme', ['Token', 'Bearer']);
    expect(scheme('bearer')).toBe('Bearer');
    expect(messageOf(scheme('Basic'))).toBe('--auth-scheme must be one of Token, Bearer, got Basic');
  });
  it('never repeats a long value: a token pasted in the wrong place stays out of the message', () => {
    const token = 'qov_sk_live_0123456789abcdefghijklmnop';
    const message = messageOf(readChoice('--auth-scheme', ['Token', 'Bearer'])(token));
    expect(message).toBe(`--auth-scheme must be one of Token, Bearer, got a value of ${token.length} characters`);
    expect(messageOf(readInteger('--max-destroy', { min: 0 })(token))).not.toContain(token);
  });
});

describe('the check of the parsing layer, for options declared without a shared reader', () => {
  // As another command might declare its options: plain yargs types.
  let ran = 0;
  const probe: CliCommand<any> = {
    command: 'probe',
    describe: 'test command',
    builder: (y) => y.option('count', { type: 'number' }).option('name', { type: 'string' }).option('flag', { type: 'boolean' }).option('kind', { choices: ['a', 'b'] }),
    run: async () => ++ran,
  };
  const parse = (argv: string[]) => parseCommandLine(argv, [probe], { version: '0', width: 80 });

  it.each([
    [['probe', '--count', 'abc'], '--count must be a number, got NaN'],
    [['probe', '--count', 'Infinity'], '--count must be a number, got Infinity'],
    [['probe', '--name='], '--name needs a value, got an empty one'],
    [['probe', '--name', 'a', '--name', 'b'], '--name was given 2 times; give it once'],
    [['probe', '--count'], '--count needs a value'],
    [['probe', '--name', '--flag'], '--name needs a value'],
    [['probe', '--kind', 'c'], '--kind must be one of "a", "b", got "c"'],
    [['probe', '--kind', 'qov_sk_live_0123456789abcdefghijklmnop'], '--kind must be one of "a", "b", got a value of 38 characters'],
  ])('%j is a usage error', async (argv, message) => {
    const r = await parse(argv);
    expect(r).toEqual({ kind: 'usage-error', message: `driftless probe: ${message}\nRun 'driftless probe --help' for the options it takes.\n` });
  });

  it('a valid line is handed to the command, with its values', async () => {
    const r = await parse(['probe', '--count', '3', '--name', 'x', '--flag']);
    expect(r.kind).toBe('run');
    if (r.kind === 'run') expect([r.args.count, r.args.name, r.args.flag]).toEqual([3, 'x', true]);
    expect(ran).toBe(0);
  });
});

describe('every command reads its numbers through the shared readers', () => {
  it('no command declares a plain `type: number` option (it would take 1e9, 0x10 or 1.5 as typed)', async () => {
    const yargs = (await import('yargs')).default;
    const { commands } = await import('../../src/cli/commands/index.js');
    for (const cmd of commands) {
      const options = (cmd.builder(yargs([])) as unknown as { getOptions(): { number: string[] } }).getOptions();
      expect(options.number, `${cmd.command}: declare numbers with integerOption, decimalOption or durationOption (src/cli/option-values.ts)`).toEqual([]);
    }
  });
});
