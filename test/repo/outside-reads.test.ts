/**
 * Nothing the tests or the product run reads outside the repository (issue 19): no file under
 * src/, test/, scripts/, action/ or .ci/ names a path into ../shared (the design documents and the
 * API reference the project was written from, beside the repository here, absent from a user's
 * clone). What the tests need of the reference is vendored under test/fixtures/ by a script under
 * scripts/ that writes there: that script alone may read ../shared, and no test may run it.
 *
 * Only code is checked, not comments: the string literals of each file (read with the TypeScript
 * parser), and the lines of shell scripts that are not comments. A path is caught however it is
 * spelt: '../shared/...', '../../../shared/reference/x.yaml', or join(root, '..', 'shared', ...).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CODE = /\.(?:[mc]?ts|[mc]?js)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'fixtures' ? [] : filesUnder(p);
    return [p];
  });
}

/** The string literals of a JavaScript or TypeScript file, in order (template literal parts included). */
function stringLiterals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) out.push(node.text);
    node.forEachChild(visit);
  };
  visit(source);
  return out;
}

/** A path segment sequence `..` then `shared`, in one string or over consecutive path arguments. */
const PARENT_SHARED = /(?:^|[\\/])\.\.[\\/](?:\.\.[\\/])*shared(?:[\\/]|$)/;

/** Why `file` reads ../shared (the offending string), or undefined. */
export function sharedRead(file: string, text: string): string | undefined {
  if (CODE.test(file)) {
    const literals = stringLiterals(file, text);
    for (let i = 0; i < literals.length; i++) {
      const s = literals[i]!;
      if (PARENT_SHARED.test(s)) return s;
      if (/^shared(?:[\\/]|$)/.test(s) && literals[i - 1] === '..') return `'..', '${s}'`;
    }
    return undefined;
  }
  // A shell script: its commands, not its comments.
  const line = text.split('\n').find((l) => !/^\s*#/.test(l) && /\.\.\/(?:\.\.\/)*shared\b/.test(l.replace(/\s#.*$/, '')));
  return line?.trim();
}

/** A script under scripts/ that writes the vendored fixtures (it reads ../shared on purpose, when run by hand). */
const isVendoringScript = (rel: string, text: string) => rel.startsWith('scripts/') && text.includes('test/fixtures');

describe('no test and no product file reads ../shared', () => {
  const files = [...['src', 'test', 'scripts', 'action', '.ci'].flatMap((d) => filesUnder(path.join(ROOT, d))), ...['vitest.config.ts', 'vitest.chaos.config.ts', 'package.json', 'action.yml'].map((f) => path.join(ROOT, f))]
    .filter((f) => statSync(f).isFile() && (CODE.test(f) || f.endsWith('.sh') || f.startsWith(path.join(ROOT, '.ci')) || f.endsWith('.json') || f.endsWith('.yml')));

  it('none of src/, test/, scripts/, action/, .ci/ and the configs names a path into ../shared', () => {
    expect(files.length).toBeGreaterThan(300);
    const found: string[] = [];
    for (const f of files) {
      const rel = path.relative(ROOT, f);
      const text = readFileSync(f, 'utf8');
      // The vendoring script reads it on purpose; this file quotes reads as examples of what it catches.
      if (isVendoringScript(rel, text) || rel === path.relative(ROOT, import.meta.filename)) continue;
      const why = CODE.test(f) || f.endsWith('.sh') || rel.startsWith('.ci/') ? sharedRead(f, text) : PARENT_SHARED.exec(text)?.[0];
      if (why) found.push(`${rel}: ${why}`);
    }
    expect(found).toEqual([]);
  });

  it('the script that vendors the fixtures is run by no test (neither imported nor started)', () => {
    const vendoring = files.map((f) => path.relative(ROOT, f)).filter((rel) => isVendoringScript(rel, readFileSync(path.join(ROOT, rel), 'utf8')));
    expect(vendoring).toContain('scripts/vendor-reference.mjs');
    for (const script of vendoring) {
      const name = path.basename(script).replace(/[.]/g, '\\.');
      // An import of it (static or dynamic), or a child process started with it on the same line.
      const runs = new RegExp(`(from\\s*|import\\(\\s*)['"][^'"]*${name}['"]|\\b(spawn|spawnSync|exec|execSync|execFile|execFileSync|fork)\\([^\\n]*${name}`);
      for (const f of files.filter((x) => x.startsWith(path.join(ROOT, 'test'))))
        expect(runs.test(readFileSync(f, 'utf8')), `${path.relative(ROOT, f)} runs ${script}`).toBe(false);
    }
  });

  it('catches every spelling of a read of ../shared, and none in a comment (so the check above can fail)', () => {
    const reads = [
      "const REFERENCE = fileURLToPath(new URL('../../../shared/reference/qovery-openapi.yaml', import.meta.url));",
      "readFileSync(path.join(ROOT, '..', 'shared', 'seed', 'infrastructure-api.md'));",
      'const p = `${root}/../shared/docs/DESIGN.md`;',
      "import spec from '../../shared/reference/api.json';",
    ];
    for (const r of reads) expect(sharedRead('t.ts', r), r).toBeDefined();
    expect(sharedRead('run', 'cd x\ncat ../shared/seed/a.md\n')).toBe('cat ../shared/seed/a.md');
    const fine = [
      '// Conformance against the seed (../shared/seed/infrastructure-api.md), row by row',
      "/** what ../shared/reference/qovery-openapi.yaml says */\nconst x = join(dir, 'shared');",
      "import { pathsAndTargets } from '../shared-options.js';",
    ];
    for (const f of fine) expect(sharedRead('t.ts', f), f).toBeUndefined();
    expect(sharedRead('run', '# a clean clone with ../shared beside it\nnpm test\n')).toBeUndefined();
  });
});
