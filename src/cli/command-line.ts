/**
 * Reads a driftless command line completely -- command, options, values -- before anything runs.
 * The outcome is one of: a command to run with its arguments, text to print (help, version,
 * completion), or a usage error. yargs never runs a command itself here: its handlers only record
 * which command was chosen, and any failure (unknown option, bad choice, bad or missing value)
 * throws (`.fail(false)`), so a command with a usage error is never started.
 */
import yargs, { type Argv } from 'yargs';
import type { CliCommand } from './command.js';
import { commandName, commandOptions, declaredOptions, positionalNames } from './command-options.js';
import { camel, optionValueProblems, quoted, shown, type DeclaredOptions } from './option-values.js';
import { nearest } from '../manifest/suggest.js';

export type CommandLine =
  | { kind: 'run'; command: CliCommand<any>; args: Record<string, unknown> }
  /** Help, version or completion text for stdout; exit 0. */
  | { kind: 'print'; text: string }
  /** What is wrong and where to read what is allowed; stderr, exit 1. */
  | { kind: 'usage-error'; message: string };

export interface ParseContext {
  version: string;
  /** Help is wrapped to this width. */
  width: number;
}

/** The options every command takes. */
export function globalOptions(y: Argv): Argv<any> {
  // Declared as `color` so that yargs reads `--no-color` as color=false (strict mode knows it).
  return y.option('color', { type: 'boolean', describe: 'Colour output on a terminal; --no-color (or NO_COLOR) turns it off' });
}

class UsageError extends Error {}

/**
 * Every option of a command that takes a value requires one: `--max-wait` at the end of the line, or
 * followed by another option, is "needs a value", never undefined (a default used silently), however
 * the command declared it.
 */
function requireValues(build: (y: Argv) => Argv<any>, positionals: readonly string[]): (y: Argv) => Argv<any> {
  return (y) => {
    const built = build(y);
    const o = (built as unknown as { getOptions(): { key: Record<string, unknown>; boolean: string[]; array: string[]; count: string[] } }).getOptions();
    for (const key of Object.keys(o.key)) {
      if (!o.boolean.includes(key) && !o.array.includes(key) && !o.count.includes(key) && !positionals.includes(key)) built.requiresArg(key);
    }
    return built;
  };
}

/** `driftless help [COMMAND]` is `driftless [COMMAND] --help` (`help` may follow global options). */
function helpAsFlag(argv: string[], names: readonly string[]): string[] {
  const at = argv.findIndex((a) => !a.startsWith('-'));
  if (at < 0 || argv[at] !== 'help') return argv;
  const before = argv.slice(0, at);
  const rest = argv.slice(at + 1);
  if (rest.length === 0 || (rest.length === 1 && rest[0] === 'help')) return [...before, '--help'];
  if (rest.length === 1 && names.includes(rest[0]!)) return [rest[0]!, ...before, '--help'];
  const hint = nearest(rest[0]!, names);
  throw new UsageError(`help takes one command name (${names.join(', ')}), got ${rest.map(quoted).join(' ')}${rest.length === 1 && hint ? `; did you mean ${hint}?` : ''}`);
}

export async function parseCommandLine(argvIn: readonly string[], commands: readonly CliCommand<any>[], ctx: ParseContext): Promise<CommandLine> {
  const names = commands.map(commandName);
  // The command the line is about (for messages): the first word that names one.
  const current = commands.find((c) => commandName(c) === argvIn.find((a) => names.includes(a)));
  try {
    const argv = helpAsFlag([...argvIn], [...names, 'completion']);
    // `completion` takes nothing; yargs' strict mode would call the word itself unknown.
    const completion = argv[0] === 'completion';
    if (completion && argv.length > 1 && !argv.slice(1).some((a) => a === '--help' || a === '-h')) {
      throw new UsageError(`completion takes no argument, got ${argv.slice(1).map(shown).join(' ')}`);
    }
    let chosen: { command: CliCommand<any>; args: Record<string, unknown> } | undefined;
    let output = '';
    const parser = globalOptions(yargs())
      .scriptName('driftless')
      .usage('$0 <command> [options]')
      .parserConfiguration({ 'parse-numbers': false })
      .demandCommand(1, `Give a command: ${names.join(', ')}.`)
      .help()
      .alias('h', 'help')
      .version('version', 'Show the version', `driftless ${ctx.version}`)
      .alias('version', ['v', 'V'])
      .completion('completion', 'Print a bash/zsh completion script: driftless completion >> ~/.bashrc')
      .wrap(ctx.width)
      .exitProcess(false)
      .fail(false)
      // After the options are read and their readers ran: every bad value at once.
      .check((args, options) => {
        const problems = optionValueProblems(args, options as unknown as DeclaredOptions);
        if (problems.length) throw new UsageError(problems.join('\n'));
        return true;
      }, true);
    if (!completion) parser.strict();
    // yargs lays out the chosen command's whole help text (cliui, string-width) after its handler
    // ran, in case the handler asks for it: ours only records the choice and never does. That was
    // a tenth of the start-up of every command (issue 21); `--help` itself is not built there.
    skipHelpCache(parser);
    for (const cmd of commands) {
      parser.command(cmd.command, cmd.describe, requireValues(cmd.builder, positionalNames(cmd.command)), (args) => {
        chosen = { command: cmd, args };
      });
    }
    parser.command('help [command]', "Show a command's help (same as driftless COMMAND --help)");
    await parser.parseAsync(argv, {}, (_err, _args, out) => {
      if (out) output = out;
    });
    if (chosen) return { kind: 'run', ...chosen };
    // Help, version or completion; a line that chose nothing and printed nothing is not a success.
    if (!output) throw new UsageError(`nothing to run in ${argvIn.map(quoted).join(' ')}`);
    return { kind: 'print', text: output.endsWith('\n') ? output : `${output}\n` };
  } catch (e) {
    const message = e instanceof UsageError ? e.message : describeYargsFailure(e instanceof Error ? e.message : String(e), argvIn, commands, current);
    const prefix = current ? `driftless ${commandName(current)}` : 'driftless';
    const lines = message.split('\n').map((l) => `${prefix}: ${l}`);
    return { kind: 'usage-error', message: `${lines.join('\n')}\nRun '${prefix} --help' for ${current ? 'the options it takes' : 'the commands and options'}.\n` };
  }
}

/** yargs' internals: its usage instance, whose help cache is filled after a command's handler. */
interface WithUsageInstance {
  getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } };
}

/**
 * Turns off the help text yargs caches after running a command's handler (command.js
 * handleValidationAndGetResult). The cache serves only a handler that calls showHelp(); help asked
 * with --help, help text printed on failure and every message are built elsewhere. The usage
 * instance is kept across yargs' resets, so the replacement holds for every command. If a later
 * yargs renames these internals, nothing is turned off: the same help is cached, as before.
 */
function skipHelpCache(parser: Argv<any>): void {
  const usage = (parser as unknown as Partial<WithUsageInstance>).getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

/** yargs' failure messages in the terms of a command line: the option as typed, what is allowed, a hint. */
export function describeYargsFailure(msg: string, argv: readonly string[], commands: readonly CliCommand<any>[], current: CliCommand<any> | undefined): string {
  const unknown = /^Unknown arguments?: (.*)$/s.exec(msg);
  if (unknown) {
    const listed = unknown[1]!.split(', ');
    // yargs lists `--detailed-exitcod` twice, as typed and camel-cased.
    const names = listed.filter((n) => !listed.some((m) => m !== n && camel(m) === n));
    const known = [...(current ? commandOptions(current) : []), ...declaredOptions(globalOptions)]
      .filter((o) => !o.hidden)
      .map((o) => o.name);
    const commandNames = commands.map(commandName);
    return names
      .map((n) => {
        const asOption = n.length === 1 ? argv.some((a) => /^-[^-]/.test(a) && a.slice(1).split('=')[0]!.includes(n)) : argv.some((a) => a === `--${n}` || a.startsWith(`--${n}=`) || a === `--no-${n}`);
        if (asOption) {
          const negated = n.length > 1 && !argv.some((a) => a === `--${n}` || a.startsWith(`--${n}=`));
          const flag = n.length === 1 ? `-${n}` : negated ? `--no-${n}` : `--${n}`;
          const hint = n.length > 1 ? nearest(n, known) : undefined;
          return `unknown option ${flag}${hint ? ` (did you mean --${hint}?)` : ''}`;
        }
        if (!current) {
          const hint = nearest(n, commandNames);
          return `unknown command ${quoted(n)}${hint ? ` (did you mean ${hint}?)` : ''}; commands: ${commandNames.join(', ')}, help, completion`;
        }
        return `unexpected argument ${quoted(n)}: ${commandName(current)} takes ${/[<[]/.test(current.command) ? `only ${current.command.split(' ').slice(1).join(' ')}` : 'no positional argument'} besides its options`;
      })
      .join('\n');
  }
  const missing = /^Not enough arguments following: (.+)$/.exec(msg);
  if (missing) return `${missing[1]!.length === 1 ? '-' : '--'}${missing[1]} needs a value`;
  const invalid = [...msg.matchAll(/Argument: ([^,]+), Given: (.*), Choices: (.*)/g)];
  // A long value is not repeated (option-values.ts shown(): no pasted token in a message).
  // A positional (`preview <action>`) is named as the command line shows it, not as an option.
  const positional = (name: string) => current !== undefined && positionalNames(current.command).includes(name);
  if (invalid.length) return invalid.map((m) => `${positional(m[1]!) ? `${commandName(current!)} <${m[1]}>` : `--${m[1]}`} must be one of ${m[3]}, got ${quoted(String(givenValue(m[2]!)))}`).join('\n');
  return msg;
}

/** yargs quotes the given value as JSON (`"xml"`); the value itself, for shown(). */
function givenValue(given: string): unknown {
  try {
    return JSON.parse(given);
  } catch {
    return given;
  }
}
