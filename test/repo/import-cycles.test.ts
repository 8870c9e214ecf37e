/**
 * No import cycle in src/ (issue 19). Every import counts: a static `import`, an `export ... from`,
 * an `import type` and a dynamic `import()`. Type-only and dynamic cycles do no harm at run time
 * today, but they are how a runtime cycle starts (one value import added to a type import), they
 * make a module impossible to understand or test without the other, and two of the four cycles of
 * issue 19 were of that kind: so the rule is "none at all", the simplest one to keep.
 *
 * The imports are read with the TypeScript compiler's own pre-processor (ts.preProcessFile), which
 * knows every import form, ignores comments and strings, and is what tsc itself uses.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(m|c)?ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The module graph of `files`: each file's relative imports that resolve to another file of the set. */
export function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      // NodeNext: a TypeScript module is imported as the .js file it compiles to.
      const base = path.resolve(path.dirname(file), fileName);
      const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base.replace(/\.cjs$/, '.cts'), base, `${base}.ts`, path.join(base, 'index.ts')];
      const target = candidates.find((c) => files.has(c));
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Every cycle's strongly connected component of more than one module (or a module importing itself), Tarjan's algorithm. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indexOf.has(v)) visit(v);
  return out;
}

describe('import cycles in src/', () => {
  it('there are none (static, type-only, re-export or dynamic imports alike)', () => {
    const files = new Map(sourceFiles(path.join(ROOT, 'src')).map((f) => [f, readFileSync(f, 'utf8')]));
    expect(files.size).toBeGreaterThan(100);
    const graph = importGraph(files);
    // The graph is real: main.ts reaches its commands, build.ts its sibling modules.
    expect(graph.get(path.join(ROOT, 'src/cli/main.ts'))).toContain(path.join(ROOT, 'src/cli/commands/plan.ts'));
    expect(graph.get(path.join(ROOT, 'src/graph/build.ts'))).toContain(path.join(ROOT, 'src/graph/services.ts'));
    const found = cycles(graph).map((c) => c.map((f) => path.relative(ROOT, f)).join(' <-> '));
    expect(found).toEqual([]);
  });

  it('finds a cycle through each kind of import (so the check above can fail)', () => {
    const dir = path.join(ROOT, 'src/x');
    const f = (name: string) => path.join(dir, name);
    const files = new Map([
      [f('a.ts'), "import { b } from './b.js';\n// import { z } from './z.js'\nconst s = \"import './d.js'\";\n"],
      [f('b.ts'), "import type { A } from './a.js';\nexport const b = 1;\n"],
      [f('c.ts'), "export async function c() { return import('./d.js'); }\n"],
      [f('d.ts'), "export { c } from './c.js';\n"],
      [f('e.ts'), "import { b } from './b.js';\n"],
      [f('z.ts'), "import './a.js';\n"],
    ]);
    const found = cycles(importGraph(files)).map((c) => c.map((p) => path.basename(p)));
    // a <-> b through a type-only import; c <-> d through a dynamic import and a re-export; the
    // commented-out import and the import in a string are not imports: z is in no cycle.
    expect(found.sort()).toEqual([
      ['a.ts', 'b.ts'],
      ['c.ts', 'd.ts'],
    ]);
  });
});
