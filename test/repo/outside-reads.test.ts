/**
 * Nothing the tests, the scripts or the product run reads outside the repository (issue 19): no
 * file under src/, test/, scripts/, action/ or .ci/ names a path into the `shared` directory beside
 * the repository (the design documents and the API reference the project was written from, absent
 * from a user's clone). What the tests need of the reference is vendored under test/fixtures/ by
 * scripts/vendor-reference.mjs, which takes the reference's path as its argument (it names no
 * default there) and which no test runs.
 *
 * Only code is checked, not comments: the string literals of each file (read with the TypeScript
 * parser), and the lines of shell scripts that are not comments. A path is caught however it is
 * spelt: the directory one or more levels up in one string, or join(root, '..', name, ...). The self-test below exercises the same detector on another
 * directory name, so that this file names no such path either.
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

/** The directory beside the repository that nothing may read. */
const OUTSIDE = 'shared';

const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Why `file` reads the directory `dir` beside the repository (the offending string), or undefined. */
export function outsideRead(file: string, text: string, dir = OUTSIDE): string | undefined {
  // A path segment sequence `..` then `dir` (at the start of a string or of a word of it), in one
  // string or over consecutive path arguments.
  const parentDir = new RegExp(`(?:^|[^\\w.-])\\.\\.[\\\\/](?:\\.\\.[\\\\/])*${escaped(dir)}(?:[\\\\/]|$)`);
  if (CODE.test(file)) {
    const literals = stringLiterals(file, text);
    for (let i = 0; i < literals.length; i++) {
      const s = literals[i]!;
      if (parentDir.test(s)) return s;
      if (new RegExp(`^${escaped(dir)}(?:[\\\\/]|$)`).test(s) && literals[i - 1] === '..') return `'..', '${s}'`;
    }
    return undefined;
  }
  if (!file.endsWith('.sh') && !path.basename(file).match(/^[^.]+$/)) return parentDir.exec(text)?.[0];
  // A shell script: its commands, not its comments.
  const inShell = new RegExp(`\\.\\./(?:\\.\\./)*${escaped(dir)}\\b`);
  const line = text.split('\n').find((l) => !/^\s*#/.test(l) && inShell.test(l.replace(/\s#.*$/, '')));
  return line?.trim();
}

/** A script under scripts/ that writes the vendored fixtures (run by hand, with the reference's path). */
const isVendoringScript = (rel: string, text: string) => rel.startsWith('scripts/') && text.includes('test/fixtures');

describe('no test, script or product file reads the directory beside the repository', () => {
  const files = [...['src', 'test', 'scripts', 'action', '.ci'].flatMap((d) => filesUnder(path.join(ROOT, d))), ...['vitest.config.ts', 'vitest.chaos.config.ts', 'package.json', 'action.yml'].map((f) => path.join(ROOT, f))]
    .filter((f) => statSync(f).isFile() && (CODE.test(f) || f.endsWith('.sh') || f.startsWith(path.join(ROOT, '.ci')) || f.endsWith('.json') || f.endsWith('.yml')));

  it('none of src/, test/, scripts/ (the vendoring script included), action/, .ci/ and the configs names a path into it', () => {
    expect(files.length).toBeGreaterThan(300);
    const found: string[] = [];
    for (const f of files) {
      const why = outsideRead(f, readFileSync(f, 'utf8'));
      if (why) found.push(`${path.relative(ROOT, f)}: ${why}`);
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

  it('catches every spelling of such a read, and none in a comment (so the check above can fail)', () => {
    // The same detector, on another directory name: this file names no path into the real one.
    const dir = 'docs-beside';
    const reads = [
      "const REFERENCE = fileURLToPath(new URL('../../../docs-beside/reference/qovery-openapi.yaml', import.meta.url));",
      "readFileSync(path.join(ROOT, '..', 'docs-beside', 'seed', 'infrastructure-api.md'));",
      'const p = `${root}/../docs-beside/docs/DESIGN.md`;',
      "import spec from '../../docs-beside/reference/api.json';",
    ];
    for (const r of reads) expect(outsideRead('t.ts', r, dir), r).toBeDefined();
    expect(outsideRead('run', 'cd x\ncat ../docs-beside/seed/a.md\n', dir)).toBe('cat ../docs-beside/seed/a.md');
    expect(outsideRead('p.json', '{"refresh": "node x.mjs ../docs-beside/reference/a.yaml"}', dir)).toBe(' ../docs-beside/');
    expect(outsideRead('p.yml', 'path: "../../docs-beside/a.yaml"', dir)).toBe('"../../docs-beside/');
    const fine = [
      '/* Conformance against the seed (../docs-beside/seed/infrastructure-api.md), row by row */',
      "/** what ../docs-beside/reference/qovery-openapi.yaml says */\nconst x = join(dir, 'docs-beside');",
      "import { pathsAndTargets } from '../docs-beside-options.js';",
    ];
    for (const f of fine) expect(outsideRead('t.ts', f, dir), f).toBeUndefined();
    expect(outsideRead('run', '# a clean clone with ../docs-beside beside it\nnpm test\n', dir)).toBeUndefined();
    // The real name is the default.
    expect(outsideRead('t.ts', `readFileSync(path.join(ROOT, '..', '${OUTSIDE}', 'a.md'));`)).toBeDefined();
  });
});
