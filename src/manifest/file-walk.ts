/**
 * One walk of a parsed manifest file for the two checks that look at every value of it: where the
 * file shows a secret (secret-ranges.ts, before resolution rewrites the values) and the numbers the
 * API would not get as written (numbers.ts). Each used to walk the whole file on its own; on a
 * 2 MB manifest each walk was a few percent of `validate`.
 *
 * The results are exactly those of findSecretRanges and checkNumbers: the same depth limits, the
 * same order. A number's problem becomes a diagnostic (and asks for its position) only when the
 * caller asks, after the schema: checkNumbers runs on a file that passed the schema only.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { MAX_NUMBER_DEPTH, numberDiagnostic, numberProblem } from './numbers.js';
import { MAX_SECRET_DEPTH, secretRangesOfMapping } from './secret-ranges.js';

export interface FileWalk {
  /** findSecretRanges(root). */
  secretRanges: SourceRange[];
  /** checkNumbers(root, file). */
  numberDiagnostics(): Diagnostic[];
}

export function walkParsedFile(root: unknown, file: string): FileWalk {
  const secretRanges: SourceRange[] = [];
  const badNumbers: Array<{ node: object; key: string; problem: string }> = [];
  const visit = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object') return;
    const rec = node as Record<string, unknown>;
    // Both walks enter the root; the secret walk stops below MAX_SECRET_DEPTH, the number walk below MAX_NUMBER_DEPTH.
    const secrets = depth <= MAX_SECRET_DEPTH;
    const numbers = depth <= MAX_NUMBER_DEPTH;
    if (!secrets && !numbers) return;
    if (secrets && !Array.isArray(node)) secretRangesOfMapping(rec, secretRanges);
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      if (typeof v === 'number') {
        if (!numbers) continue;
        const problem = numberProblem(v);
        if (problem) badNumbers.push({ node, key: k, problem });
      } else if (typeof v === 'object') visit(v, depth + 1);
    }
  };
  visit(root, 0);
  return { secretRanges, numberDiagnostics: () => badNumbers.map((b) => numberDiagnostic(b.node, b.key, b.problem, file)) };
}
