/**
 * The options a command declares, read from its own yargs builder on a fresh parser: the single
 * source for "did you mean --x?" hints and for the test that checks the command table (docs/commands.md).
 */
import yargs, { type Argv } from 'yargs';
import type { CliCommand } from './command.js';

export interface DeclaredOption {
  /** As typed after `--` (kebab case), e.g. `max-destroy`. */
  name: string;
  /** Short and other names, e.g. `h` for `help`. */
  aliases: string[];
  hidden: boolean;
}

/** Positional names of a command string: 'plan [paths..]' -> ['paths']. */
export function positionalNames(command: string): string[] {
  return [...command.matchAll(/[<[]([^\]>.|]+)(?:\.\.)?[\]>]/g)].map((m) => m[1]!);
}

/** The options a builder adds, in declaration order (positionals and yargs' own help/version left out). */
export function declaredOptions(build: (y: Argv) => Argv<any>, positionals: readonly string[] = []): DeclaredOption[] {
  // getOptions() is public in yargs 18, missing from @types/yargs 17.
  const o = (build(yargs([])) as unknown as { getOptions(): unknown }).getOptions() as { key: Record<string, unknown>; alias: Record<string, string[]>; hiddenOptions: string[] };
  const aliasTargets = new Set(Object.values(o.alias).flat());
  return Object.keys(o.key)
    .filter((k) => !positionals.includes(k) && !aliasTargets.has(k) && k !== 'help' && k !== 'version')
    .map((name) => ({ name, aliases: o.alias[name] ?? [], hidden: o.hiddenOptions.includes(name) }));
}

/** The options of one command (without the global ones). */
export function commandOptions(cmd: CliCommand<any>): DeclaredOption[] {
  return declaredOptions(cmd.builder, positionalNames(cmd.command));
}

/** A command's name: the first word of its yargs command string. */
export function commandName(cmd: CliCommand<any>): string {
  return cmd.command.split(' ')[0]!;
}
