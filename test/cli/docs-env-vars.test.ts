/**
 * Every environment variable driftless reads has exactly one row in an environment-variable table
 * of the documentation (README.md or docs/: docs/commands.md today), and the table names none that
 * driftless does not read. The variables are found in the source: every `env.NAME` / `env['NAME']`
 * read and every `'DRIFTLESS_...'` constant, so a new variable fails this test until it is documented.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, repoRoot } from '../support/docs.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** NAME of every environment variable a source text reads. */
export function envVarsRead(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const names = new Set<string>();
  for (const m of code.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]!);
  for (const m of code.matchAll(/\benv\[\s*'([A-Z][A-Z0-9_]*)'\s*\]/g)) names.add(m[1]!);
  for (const m of code.matchAll(/'(DRIFTLESS_[A-Z0-9_]+)'/g)) names.add(m[1]!);
  // a list of names copied from the environment (`for (const k of ['NO_COLOR', ...]) ... env[k]`)
  for (const m of code.matchAll(/for \(const (\w+) of \[([^\]]*)\]\)[^\n]*\benv\[\1\]/g)) for (const n of m[2]!.matchAll(/'([A-Z][A-Z0-9_]*)'/g)) names.add(n[1]!);
  return [...names];
}

/** Rows of the tables headed `| variable |`: the names of each row's first cell, with the page. */
function documentedRows(): { file: string; names: string[] }[] {
  const rows: { file: string; names: string[] }[] = [];
  for (const page of docPages()) {
    let inTable = false;
    for (const line of page.text.split('\n')) {
      if (/^\| variable \|/.test(line)) { inTable = true; continue; }
      if (!line.startsWith('|')) { inTable = false; continue; }
      if (!inTable || /^\|[-| ]+\|$/.test(line)) continue;
      const first = line.split('|')[1] ?? '';
      rows.push({ file: page.file, names: [...first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!) });
    }
  }
  return rows;
}

describe('the environment-variable table', () => {
  const read = [...new Set(sourceFiles(path.join(repoRoot, 'src')).flatMap((f) => envVarsRead(readFileSync(f, 'utf8'))))].sort();
  const rows = documentedRows();
  const documented = rows.flatMap((r) => r.names);

  it('finds the variables in the source and the table in the docs', () => {
    expect(read).toEqual(expect.arrayContaining(['DRIFTLESS_API_URL', 'DRIFTLESS_API_TOKEN', 'DRIFTLESS_FINGERPRINT_KEY', 'CI']));
    expect(rows.length).toBeGreaterThan(5);
  });

  it('has exactly one row for every variable driftless reads', () => {
    expect(read.filter((n) => !documented.includes(n)), 'read by src, no row').toEqual([]);
    expect(documented.filter((n, i) => documented.indexOf(n) !== i), 'more than one row').toEqual([]);
  });

  it('names no variable driftless does not read', () => {
    expect(documented.filter((n) => !read.includes(n))).toEqual([]);
  });

  it('finds each kind of read (so the checks above can fail)', () => {
    expect(envVarsRead("const a = env.DRIFTLESS_NEW_THING?.trim(); const b = opts.env['OTHER_VAR'];\nexport const K = 'DRIFTLESS_KEY_X';\n// env.IN_A_COMMENT\nfor (const k of ['A_B', 'C']) if (io.env[k]) x();").sort())
      .toEqual(['A_B', 'C', 'DRIFTLESS_KEY_X', 'DRIFTLESS_NEW_THING', 'OTHER_VAR']);
  });
});
