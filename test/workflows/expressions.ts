/**
 * GitHub's expression language, evaluated with GitHub's own library (@actions/expressions) as a
 * runner does: `${{ }}` interpolation in values, and `if:` conditions with the status functions.
 * Shared by the tests that run the example workflows and the action's steps.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import { truthy } from '@actions/expressions/result';

/** A JavaScript value as expression data. */
export function toData(v: unknown): data.ExpressionData {
  if (v === null || v === undefined) return new data.Null();
  if (typeof v === 'string') return new data.StringData(v);
  if (typeof v === 'number') return new data.NumberData(v);
  if (typeof v === 'boolean') return new data.BooleanData(v);
  const dict = new data.Dictionary();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) dict.add(k, toData(x));
  return dict;
}

/** The status functions, for a job in which a step failed or not (nothing is cancelled here), and hashFiles. */
function functions(failed: boolean, workspace: string | undefined) {
  const f = (name: string, value: boolean) => ({ name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(value) });
  // hashFiles() as the runner has it: files under the workspace only ('' when none matches).
  const hashFiles = {
    name: 'hashFiles',
    minArgs: 1,
    maxArgs: 1,
    call: (...args: data.ExpressionData[]) => {
      const p = args[0]!.coerceString();
      const file = workspace ? path.resolve(workspace, p) : '';
      const inside = workspace !== undefined && !path.relative(workspace, file).startsWith('..');
      return new data.StringData(inside && existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : '');
    },
  };
  return [f('success', !failed), f('always', true), f('cancelled', false), f('failure', failed), hashFiles];
}

export function evaluate(expression: string, contexts: Record<string, unknown>, failed = false, workspace?: string): data.ExpressionData {
  const { tokens } = new Lexer(expression).lex();
  const fns = functions(failed, workspace);
  const ast = new Parser(tokens, Object.keys(contexts), fns as any).parse();
  return new Evaluator(ast, toData(contexts) as data.Dictionary, new Map(fns.map((f) => [f.name.toLowerCase(), f])) as any).evaluate();
}

/** A value with `${{ }}` expressions in it, as the runner hands it to a step. */
export function interpolate(value: unknown, contexts: Record<string, unknown>): string {
  return String(value).replace(/\$\{\{\s*([\s\S]*?)\s*\}\}/g, (_m, e: string) => evaluate(e, contexts).coerceString());
}

/** An `if:` condition (with or without `${{ }}`); without a status function, `success() && ` is implied. */
export function condition(value: string | undefined, contexts: Record<string, unknown>, failed: boolean, workspace?: string): boolean {
  if (value === undefined) return !failed;
  const e = /^\$\{\{([\s\S]*)\}\}$/.exec(value.trim())?.[1] ?? value;
  const explicit = /\b(success|failure|always|cancelled)\(\)/.test(e);
  return (explicit || !failed) && truthy(evaluate(e, contexts, failed, workspace));
}
