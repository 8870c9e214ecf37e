/**
 * The command table (README.md or a page of docs/: docs/commands.md today) lists every flag of every
 * command, and no flag a command does not have, and each command has exactly one row in all the
 * documentation. The flags are read from the commands' own yargs builders (commandOptions), so a new
 * flag fails this test until its one documentation edit: the command's row, or the `[API options]`
 * paragraph for an option every API command shares.
 */
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { commandName, commandOptions, declaredOptions } from '../../src/cli/command-options.js';
import { globalOptions } from '../../src/cli/command-line.js';
import { docPages } from '../support/docs.js';

const pages = docPages();

const flagsIn = (text: string): Set<string> => new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!));

const ROW = /^\| `driftless ([a-z-]+)([^`]*)` \|/;

/** Every page's command-table rows: [page, command, synopsis]. */
const allRows = pages.flatMap((p) =>
  p.text.split('\n').flatMap((line) => {
    const m = ROW.exec(line);
    return m ? [{ file: p.file, command: m[1]!, synopsis: m[2]! }] : [];
  }),
);

/** The paragraphs defining `[API options]`, wherever they are (there must be one). */
const apiOptionsParagraphs = pages.flatMap((p) => p.text.split(/\n\s*\n/).filter((para) => para.startsWith('`[API options]`')));
const apiOptionsParagraph = apiOptionsParagraphs[0] ?? '';

/** The page that holds the command table. */
const tablePages = [...new Set(allRows.map((r) => r.file))];
const tablePage = pages.find((p) => p.file === tablePages[0])?.text ?? '';

/** command name -> flags its row names (the synopsis only), API options expanded. */
function tableRows(): Map<string, Set<string>> {
  const rows = new Map<string, Set<string>>();
  for (const { command, synopsis } of allRows) {
    const flags = flagsIn(synopsis);
    if (synopsis.includes('[API options]')) for (const f of flagsIn(apiOptionsParagraph)) flags.add(f);
    rows.set(command, flags);
  }
  return rows;
}

/** A flag the documentation names covers the option (a boolean `x` may be written `--no-x`). */
const covers = (docFlag: string, option: string) => docFlag === option || docFlag === `no-${option}`;

describe('the command table (README.md and docs/)', () => {
  const rows = tableRows();

  it('is found, on one page, with one [API options] paragraph', () => {
    expect(rows.size).toBeGreaterThanOrEqual(commands.length);
    expect(tablePages, 'pages holding command-table rows').toHaveLength(1);
    expect(apiOptionsParagraphs, 'paragraphs defining [API options]').toHaveLength(1);
    expect(flagsIn(apiOptionsParagraph).size).toBeGreaterThan(0);
  });

  it('has exactly one row for every command, help and completion, and none for a command that does not exist', () => {
    const names = [...commands.map(commandName), 'help', 'completion'];
    expect([...rows.keys()].sort()).toEqual([...names].sort());
    const twice = allRows.map((r) => r.command).filter((c, i, all) => all.indexOf(c) !== i);
    expect(twice, 'commands with more than one row').toEqual([]);
  });

  for (const cmd of commands) {
    const name = commandName(cmd);
    it(`lists every flag of ${name}, and only those`, () => {
      const declared = commandOptions(cmd).filter((o) => !o.hidden).map((o) => o.name);
      const listed = [...(rows.get(name) ?? [])];
      expect(declared.filter((o) => !listed.some((f) => covers(f, o))), `flags of ${name} missing from its row`).toEqual([]);
      expect(listed.filter((f) => !declared.some((o) => covers(f, o))), `flags in the row of ${name} that ${name} does not have`).toEqual([]);
    });
  }

  it('names the options every command takes: help, version and the global ones', () => {
    const globals = declaredOptions(globalOptions).map((o) => o.name);
    expect(globals.length).toBeGreaterThan(0);
    const named = [...flagsIn(tablePage)];
    for (const g of [...globals, 'help', 'version']) expect(named.some((f) => covers(f, g)), `--${g}`).toBe(true);
    expect(tablePage).toContain('`-h`/`--help`');
    expect(tablePage).toContain('`-v`/`--version`');
  });
});
