/**
 * docs/adding-a-kind.md stays true: every file it names exists, the counts it states are what
 * scripts/count-kind-files.mjs measures, and a kind added to the names alone (step 1 of the
 * walk-through) does not compile, with errors only in the files the walk-through lists: every
 * other per-kind table of the reconciler is derived from the descriptors.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { filesSpelling } from '../../scripts/count-kind-files.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/adding-a-kind.md'), 'utf8');

describe('docs/adding-a-kind.md', () => {
  it('names files that exist', () => {
    const named = [...DOC.matchAll(/`((?:src|test|schemas|scripts|docs)\/[A-Za-z0-9_./-]+\.(?:ts|mjs|json|md))`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(10);
    // The walk-through's own new file does not exist until someone adds the kind.
    for (const f of named.filter((f) => f !== 'src/model/kinds/cronjob.ts')) expect(existsSync(join(ROOT, f)), f).toBe(true);
  });

  it('states the counts scripts/count-kind-files.mjs measures', () => {
    // Every service kind, the database included: its own rules (data loss, clones, built-ins,
    // instance types) are descriptor properties the stages ask, not comparisons with its name.
    for (const kind of ['application', 'container', 'database', 'job', 'helm', 'terraform']) {
      const files = filesSpelling(kind, ROOT) as string[];
      expect(files, kind).toEqual(['src/manifest/types.ts', `src/model/kinds/${kind}.ts`, 'src/model/kinds/names.ts'].sort());
    }
    expect(DOC).toContain('| application, container, database, job, helm, terraform | 3 each |');
  });

  it('a kind added to the names alone fails to compile only in the files the walk-through lists', () => {
    const copy = mkdtempSync(join(tmpdir(), 'driftless-new-kind-'));
    try {
      for (const d of ['src', 'test', 'bench', 'scripts', 'action']) if (existsSync(join(ROOT, d))) cpSync(join(ROOT, d), join(copy, d), { recursive: true });
      for (const f of ['tsconfig.json', 'package.json', 'vitest.config.ts']) if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(copy, f));
      symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
      const names = join(copy, 'src/model/kinds/names.ts');
      const text = readFileSync(names, 'utf8');
      const added = text.replace("export const SERVICE_KINDS = ['application', 'container', 'database', 'job', 'helm', 'terraform'] as const;", "export const SERVICE_KINDS = ['application', 'container', 'database', 'job', 'helm', 'terraform', 'cronjob'] as const;");
      expect(added).not.toBe(text);
      writeFileSync(names, added);
      let out = '';
      try {
        execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], { cwd: copy, encoding: 'utf8' });
      } catch (e) {
        out = String((e as { stdout?: string }).stdout ?? '');
      }
      const files = [...new Set([...out.matchAll(/^([^(\s]+\.ts)\(\d+,\d+\): error/gm)].map((m) => m[1]!))].sort();
      expect(files.length, out).toBeGreaterThan(0);
      // The registry's table and the samples' table are typed by kind; the manifest's service types
      // must list it. No other file of src or test needs to change to compile.
      expect(files).toEqual(['src/manifest/types.ts', 'src/model/kinds/index.ts', 'test/fixtures/kind-samples.ts']);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 240_000);
});
