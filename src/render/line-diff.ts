/**
 * The line diff of a multi-line value (the `diff` package's diffLines), with the package loaded on
 * the first diff rendered: a plan with no multi-line change, a no-op plan first of all, does not
 * load its nineteen modules (issue 21: every command's start-up counts). Loaded synchronously
 * (its CommonJS build, the same code as the ES module one) so that rendering stays a pure,
 * synchronous function of the plan.
 */
import { createRequire } from 'node:module';

type DiffLines = typeof import('diff').diffLines;

let loaded: DiffLines | undefined;

export function diffLines(before: string, after: string): ReturnType<DiffLines> {
  loaded ??= (createRequire(import.meta.url)('diff') as typeof import('diff')).diffLines;
  return loaded(before, after);
}
