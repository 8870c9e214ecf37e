/**
 * `--out FILE` of `plan` and `preview up`: the plan saved for `driftless apply FILE`, sealed with
 * the run's key, and one line on stderr saying so (stdout is the plan alone). In CI the workflow
 * applies the file (or not): no hint to run apply by hand (src/cli/ci.ts). A plan without secret
 * values is for review only: never a hint to apply it, and always said.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Plan } from '../plan/types.js';
import { writePlanFile } from '../plan/planfile.js';
import type { SealKey } from '../plan/plan-seal.js';
import { isCI } from './ci.js';
import type { CliIO } from './io.js';

export interface SavedPlanOptions {
  /** The file as the user wrote it (relative to the working directory). */
  file: string;
  key: SealKey;
  createdAt: string;
  /** The manifest paths `apply FILE` reads when given none. */
  manifestPaths: string[];
  /** What was saved, for the closing line: `the plan` (default), `the plan of preview pr-42`. */
  what?: string;
}

/** Writes the plan file; false (the reason said on stderr) when it cannot be written. */
export async function savePlan(io: CliIO, plan: Plan, o: SavedPlanOptions): Promise<boolean> {
  try {
    await writePlanFile(isAbsolute(o.file) ? o.file : resolve(io.cwd, o.file), plan, o.key, o.createdAt, o.manifestPaths);
  } catch (e) {
    io.stderr.write(`driftless: cannot write the plan to ${o.file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}\n`);
    return false;
  }
  const saved = `Saved ${o.what ?? 'the plan'} to ${o.file}`;
  if (plan.options.no_secret_values) {
    io.stderr.write(isCI(io.env) ? `\n${saved} (planned with --no-secret-values: for review, apply refuses it).\n` : `\n${saved} for review (\`driftless show ${o.file}\`): planned with --no-secret-values, apply refuses it; re-plan with the secrets to apply.\n`);
  } else io.stderr.write(isCI(io.env) ? `\n${saved}.\n` : `\n${saved}. To perform exactly these actions, run:\n  driftless apply ${o.file}\n`);
  return true;
}
