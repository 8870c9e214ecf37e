/**
 * What `apply` applies, decided before any request: the manifest paths and targets of the command
 * line, or a saved plan file and the policy that guards it (one plan file at most, no --target with
 * it, never one planned without secret values, never beyond this run's own --allow-* / --max-destroy,
 * and its manifest paths taken only when its seal is trusted). Then, once the plan is made again,
 * whether it is still the saved one.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Diagnostic } from '../diag/diagnostic.js';
import type { LiveState } from '../model/resource.js';
import type { Plan } from '../plan/types.js';
import { readPlanFile, PLAN_FILE_KIND } from '../plan/planfile.js';
import { fingerprintKeyProblem } from '../plan/fingerprint.js';
import { savedPlanRefusals } from '../apply/saved-plan.js';
import { noSecretValuesRefusal } from '../apply/refusals.js';
import { savedPlanExceeds, type ApplyAuthority } from '../apply/authority.js';
import { sealKeyFromEnv } from './seal-key.js';
import { resolveApiConfig } from './config.js';

/** A saved plan is a JSON file of kind driftless-plan; manifests are YAML files or directories. */
export function looksLikePlanFile(path: string, cwd: string): boolean {
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  if (/\.ya?ml$/i.test(path)) return false;
  try {
    if (!statSync(abs).isFile()) return false;
    const head = readFileSync(abs, 'utf8').slice(0, 200);
    return head.trimStart().startsWith('{') && head.includes(PLAN_FILE_KIND);
  } catch {
    return false;
  }
}

export interface ApplyInput {
  manifestPaths: string[];
  targets?: string[];
  /** The saved plan file and its plan, when apply was given one. */
  saved?: { file: string; plan: Plan };
}

/**
 * The input of an apply, or the diagnostics that refuse it before any request.
 * `paths` and `targets` are the command line's (shared-options.ts pathsAndTargets).
 */
export async function applyInputOf(
  paths: string[],
  targets: string[] | undefined,
  authority: ApplyAuthority,
  ctx: { cwd: string; env: NodeJS.ProcessEnv; apiUrl?: string; authScheme?: string },
): Promise<ApplyInput | { refused: Diagnostic[] }> {
  const planFiles = paths.filter((p) => looksLikePlanFile(p, ctx.cwd));
  if (planFiles.length > 1) {
    return { refused: [{ severity: 'error', code: 'apply.several-plans', summary: `apply takes one saved plan file, got ${planFiles.length}: ${planFiles.join(', ')}`, detail: 'Apply them one after the other, each after a fresh `driftless plan --out FILE`.' }] };
  }
  const planFile = planFiles[0];
  const manifestPaths = paths.filter((p) => p !== planFile);
  if (!planFile) return { manifestPaths, ...(targets ? { targets } : {}) };

  const keyProblem = fingerprintKeyProblem(ctx.env);
  if (keyProblem) return { refused: [keyProblem] };
  const apiUrl = resolveApiConfig({ apiUrl: ctx.apiUrl, authScheme: ctx.authScheme }, ctx.env).config?.baseUrl;
  const read = await readPlanFile(isAbsolute(planFile) ? planFile : resolve(ctx.cwd, planFile), sealKeyFromEnv(ctx.env), apiUrl !== undefined ? { apiUrl } : {});
  if (!read.plan) return { refused: read.diagnostics };
  const saved = read.plan.plan;
  // A saved plan is applied exactly: its part of the organization is the one it was planned for
  // (its targets are under its seal); another --target would be another plan.
  if (targets !== undefined) {
    return {
      refused: [
        {
          severity: 'error',
          code: 'apply.target-with-plan',
          summary: `--target cannot be given with the saved plan ${planFile}: a saved plan is applied exactly as it was planned${saved.targets ? ` (its targets: ${saved.targets.join(', ')})` : ' (it covers the whole manifest)'}`,
          detail: 'Run `driftless apply PLANFILE` without --target, or make a new plan with the targets you want: `driftless plan --target ADDRESS... --out FILE`.',
        },
      ],
    };
  }
  // Sealed with the rest of the plan, so the flag cannot be edited away; refused before any request.
  if (saved.options?.no_secret_values === true) return { refused: [noSecretValuesRefusal(planFile)] };
  const exceeds = savedPlanExceeds(saved, authority, planFile);
  if (exceeds.length > 0) return { refused: exceeds };
  let fromPlan = manifestPaths;
  // Without explicit paths, re-read the manifest the plan was made from (CI applies the plan
  // file from the same checkout), not whatever happens to be in the current directory.
  if (manifestPaths.length === 0 && read.plan.manifest_paths) {
    // Re-planning catches an edited plan, but not an edited list of manifests to re-plan from:
    // with the fallback key, anyone who can edit the file can re-seal it, so the paths must come
    // from the command line.
    if (read.verifiedWith !== 'env') return { refused: [manifestPathsUntrusted(planFile, read.plan.manifest_paths)] };
    fromPlan = read.plan.manifest_paths;
  }
  return { manifestPaths: fromPlan, ...(saved.targets ? { targets: saved.targets } : {}), saved: { file: planFile, plan: saved } };
}

/** Why the plan made now is not the saved one (nothing when it is, and then it is applied). */
export function savedPlanMismatch(saved: { file: string; plan: Plan }, plan: Plan, live: LiveState): Diagnostic[] {
  const refusals = savedPlanRefusals(saved.plan, plan, live, saved.file);
  if (saved.plan.organization_id !== plan.organization_id) {
    refusals.unshift({ severity: 'error', code: 'planfile.wrong-target', summary: `${saved.file} was planned for organization ${saved.plan.organization_id}, not ${plan.organization_id}`, detail: 'Use a token of the organization the plan was made for.' });
  }
  return refusals;
}

/**
 * A plan file sealed with the key derived from the organization id (which the file itself names)
 * could have been re-sealed by whoever edited it: its manifest paths are not taken.
 */
function manifestPathsUntrusted(planFile: string, paths: string[]): Diagnostic {
  return {
    severity: 'error',
    code: 'planfile.manifest-paths-untrusted',
    summary: `${planFile} was sealed without DRIFTLESS_FINGERPRINT_KEY: apply does not take the manifest paths it names (${paths.join(', ')})`,
    detail:
      `Without DRIFTLESS_FINGERPRINT_KEY the seal's key is derived from the organization id written in the file, so anyone who can edit the file can re-seal it and point apply at another manifest. ` +
      `Give the manifest paths on the command line (\`driftless apply ${planFile} PATH...\`), or set DRIFTLESS_FINGERPRINT_KEY (a long random string kept in your CI secrets) for both plan and apply. Nothing was changed.`,
  };
}
