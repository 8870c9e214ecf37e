/**
 * The stages of the plan pipeline (src/pipeline/plan.ts) that make a plan, in one module loaded
 * when a plan is made: loading the manifest's graph, reading and normalising the live state, the
 * organization checks, the plan itself. A plan reused from an earlier run (src/cli/plan-memo.ts)
 * loads none of them.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { hasErrors } from '../diag/diagnostic.js';
import type { DesiredGraph } from '../model/resource.js';
import type { LoadResult } from '../manifest/load.js';
import { buildGraph } from '../graph/build.js';
import { targetGraph, type TargetScope } from '../graph/target.js';

export { relateDiagnostics } from '../manifest/templates.js';
export { inTargetScope, narrowLive, narrowManifest, readGraphOf } from '../graph/target.js';
export { computePlan } from '../plan/compute.js';
export { fetchLiveState, liveStateFromRecords } from '../live/fetch.js';
export { readLiveRecords } from '../live/read.js';
export { runOrganizationChecks } from '../checks/index.js';
export { referenceContextOfLive } from '../manifest/remote-names.js';
export { previewDeclarationOf, previewEnvironmentAddress } from '../manifest/previews.js';

/**
 * The desired graph of a loaded manifest, narrowed to `--target` when given: the rest of the
 * pipeline sees only the targeted part (reads, checks, plan). `full` is the whole graph.
 */
export function desiredGraphOf(loaded: LoadResult, targets: readonly string[] | undefined): { graph?: DesiredGraph; full: DesiredGraph; targetScope?: TargetScope; diagnostics: Diagnostic[] } {
  // Objects instantiated from a template, and the diagnostics about them, also point at the
  // template and the override (drift shows both).
  const built = buildGraph(loaded.manifest!, { templates: loaded.templates });
  if (targets === undefined || hasErrors(built.diagnostics)) return { graph: built.graph, full: built.graph, diagnostics: built.diagnostics };
  const narrowed = targetGraph(built.graph, targets);
  const diagnostics = [...built.diagnostics, ...narrowed.diagnostics];
  if (!narrowed.graph) return { full: built.graph, diagnostics };
  return { graph: narrowed.graph, full: built.graph, targetScope: narrowed.scope, diagnostics };
}
