/**
 * Numbers as the platform takes them. YAML reads `1e308`, `.inf` and `9007199254740993` as
 * JavaScript numbers without a word: the first passes an `integer` schema (it has no fraction), the
 * last is silently rounded to 9007199254740992. The API's numbers are JSON numbers that must
 * round-trip exactly, so every number of a manifest must be finite and within ±(2^53 - 1), the
 * range where every integer is exact (Number.isSafeInteger); the schema adds each field's own
 * documented minimum and maximum (ports 1-65535, storage at least 4 GB, ...).
 *
 * Runs on each parsed file that passed the schema. Pure: values in, diagnostics out.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { error } from './codes.js';
import { fieldSourceOf } from './source-map.js';

const LIMIT = Number.MAX_SAFE_INTEGER;

/** Why `n` cannot be sent as written, or undefined when it can. */
export function numberProblem(n: number): string | undefined {
  if (Number.isNaN(n)) return 'is not a number (.nan)';
  if (!Number.isFinite(n)) return 'is infinite';
  if (Math.abs(n) > LIMIT) return `is too large: read as ${n}, beyond ±${LIMIT} (2^53 - 1), the largest number the API takes exactly`;
  return undefined;
}

export function checkNumbers(root: unknown, file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_NUMBER_DEPTH || node === null || typeof node !== 'object') return;
    const rec = node as Record<string, unknown>;
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      if (typeof v === 'number') {
        const problem = numberProblem(v);
        if (problem) out.push(numberDiagnostic(node, k, problem, file));
      } else if (typeof v === 'object') visit(v, depth + 1);
    }
  };
  visit(root, 0);
  return out;
}

/** How deep checkNumbers looks (the root is at depth 0). */
export const MAX_NUMBER_DEPTH = 200;

/** The error of `node[key]`, a number with `problem`, in `file`. */
export function numberDiagnostic(node: object, key: string, problem: string, file: string): Diagnostic {
  return numberError(Array.isArray(node) ? undefined : key, problem, fieldSourceOf(node, key) ?? { file, start: { line: 1, col: 1 } });
}

function numberError(key: string | undefined, problem: string, range: SourceRange): Diagnostic {
  return error('schema.bad-number', `${key ? `\`${key}\`` : 'this number'} ${problem}`, {
    detail: `Numbers must be finite and between -${LIMIT} and ${LIMIT}, so that the API receives exactly what is written (a larger integer is silently rounded). If it is text (a label or an annotation value), quote it.`,
    range,
  });
}
