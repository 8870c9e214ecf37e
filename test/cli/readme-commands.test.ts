/**
 * The README's command table lists every flag of every command, and no flag a command does not
 * have. The flags are read from the commands' own yargs builders (commandOptions), so a new flag
 * fails this test until its one README edit: the command's row, or the `[API options]` paragraph
 * for an option every API command shares.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { commandName, commandOptions, declaredOptions } from '../../src/cli/command-options.js';
import { globalOptions } from '../../src/cli/command-line.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('\n## Commands\n'), readme.indexOf('\n## ', readme.indexOf('\n## Commands\n') + 1));

const flagsIn = (text: string): Set<string> => new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!));

/** The paragraph defining `[API options]`. */
const apiOptionsParagraph = section.split(/\n\s*\n/).find((p) => p.startsWith('`[API options]`')) ?? '';

/** command name -> flags its row names (the first cell only: the synopsis), API options expanded. */
function tableRows(): Map<string, Set<string>> {
  const rows = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const m = /^\| `driftless ([a-z-]+)([^`]*)` \|/.exec(line);
    if (!m) continue;
    const synopsis = m[2]!;
    const flags = flagsIn(synopsis);
    if (synopsis.includes('[API options]')) for (const f of flagsIn(apiOptionsParagraph)) flags.add(f);
    rows.set(m[1]!, flags);
  }
  return rows;
}

/** A flag the README names covers the option (a boolean `x` may be written `--no-x`). */
const covers = (readmeFlag: string, option: string) => readmeFlag === option || readmeFlag === `no-${option}`;

describe('README command table', () => {
  const rows = tableRows();

  it('is found, with the [API options] paragraph', () => {
    expect(rows.size).toBeGreaterThanOrEqual(commands.length);
    expect(flagsIn(apiOptionsParagraph).size).toBeGreaterThan(0);
  });

  it('has a row for every command, help and completion, and none for a command that does not exist', () => {
    const names = [...commands.map(commandName), 'help', 'completion'];
    expect([...rows.keys()].sort()).toEqual([...names].sort());
  });

  for (const cmd of commands) {
    const name = commandName(cmd);
    it(`lists every flag of ${name}, and only those`, () => {
      const declared = commandOptions(cmd).filter((o) => !o.hidden).map((o) => o.name);
      const listed = [...(rows.get(name) ?? [])];
      expect(declared.filter((o) => !listed.some((f) => covers(f, o))), `flags of ${name} missing from its README row`).toEqual([]);
      expect(listed.filter((f) => !declared.some((o) => covers(f, o))), `flags in the README row of ${name} that ${name} does not have`).toEqual([]);
    });
  }

  it('names the options every command takes: help, version and the global ones', () => {
    const globals = declaredOptions(globalOptions).map((o) => o.name);
    expect(globals.length).toBeGreaterThan(0);
    const named = [...flagsIn(section)];
    for (const g of [...globals, 'help', 'version']) expect(named.some((f) => covers(f, g)), `--${g}`).toBe(true);
    expect(section).toContain('`-h`/`--help`');
    expect(section).toContain('`-v`/`--version`');
  });
});
