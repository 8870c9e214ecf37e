/**
 * runPlanPipeline(paths, options, deps): the plan pipeline of `plan`, `apply`, `drift` and `graph`,
 * stage after stage, as the design draws it:
 *
 *   loadManifest -> buildGraph -> (targetGraph) -> fetchLiveState -> organization checks -> computePlan
 *
 * Never prints: problems come back as diagnostics, and the run stops at the first stage with an
 * error. What depends on the machine is injected: how the manifest files are loaded (the load
 * cache), how the API is reached (configuration, client), and how the live records are read (the
 * refresh cache); src/cli/run-plan.ts supplies them from the command line and the environment.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { hasErrors } from '../diag/diagnostic.js';
import type { DesiredGraph, LiveState } from '../model/resource.js';
import type { Plan } from '../plan/types.js';
import type { LoadResult } from '../manifest/load.js';
import type { Manifest } from '../manifest/types.js';
import { relateDiagnostics } from '../manifest/templates.js';
import { buildGraph } from '../graph/build.js';
import { inTargetScope, narrowLive, narrowManifest, readGraphOf, targetGraph, type TargetScope } from '../graph/target.js';
import { computePlan } from '../plan/compute.js';
import { fingerprintKeyProblem, resolveFingerprintKey } from '../plan/fingerprint.js';
import { fetchLiveState, type RecordsVia } from '../live/fetch.js';
import type { ApiPort } from '../live/api-port.js';
import type { AuditEvent } from '../live/audit-log.js';
import { runOrganizationChecks } from '../checks/index.js';
import { referenceContextOfLive } from '../manifest/remote-names.js';
import { apiDiagnostic } from './api-diagnostic.js';
import { previewDeclarationOf, previewEnvironmentAddress, type PreviewRequest } from '../manifest/previews.js';

export interface PlanPipelineOptions {
  parallelism?: number;
  allowDataLoss?: boolean;
  allowReplace?: boolean;
  maxDestroy?: number;
  /** `--target ADDRESS...`: plan (and read) only these subtrees and what they depend on (src/graph/target.ts). */
  targets?: readonly string[];
  /** `--no-secret-values`: secret fields are not read, never compared, and the plan is not applyable. */
  noSecretValues?: boolean;
  /** `driftless preview up`: the manifest gets the preview environment of this pull request (src/manifest/previews.ts). */
  preview?: PreviewRequest;
}

/** What the live read learnt besides its records (from the refresh cache; nothing after a full read). */
export interface LiveReadNotes {
  diagnostics?: Diagnostic[];
  /** The audit-log events the refresh read (every event since the cache's cursor). */
  events?: AuditEvent[];
  /** Request keys answered from the refresh cache, not read in this run. */
  cachedKeys?: string[];
}

/** An open connection to the API: the port the stages read through. */
export interface PipelineSession {
  port: ApiPort;
}

export interface PlanPipelineDeps<S extends PipelineSession> {
  env: NodeJS.ProcessEnv;
  loadManifest(paths: readonly string[]): Promise<LoadResult>;
  /** Opens the API once the manifest is good: the session, or why it cannot be opened. */
  connect(): { session?: S; apiUrl?: string; diagnostics: Diagnostic[] };
  /** How the live records are read (default: the full read). */
  readVia?: RecordsVia<LiveReadNotes>;
}

export interface PlanPipelineResult<S extends PipelineSession> {
  plan?: Plan;
  manifest?: Manifest;
  graph?: DesiredGraph;
  live?: LiveState;
  fingerprintKey?: string;
  /** Where the fingerprint key came from (the plan file records it, never the key). */
  fingerprintKeySource?: 'env' | 'fallback';
  diagnostics: Diagnostic[];
  /** Requests the live read and the checks made. */
  requestCount: number;
  /** Manifest files read (as shown in diagnostics). */
  files: string[];
  session?: S;
  /** The audit-log events the refresh read in this run, for drift's attribution; unset after a full read. */
  auditEvents?: AuditEvent[];
  /**
   * Request keys of the live read answered from the refresh cache, not read in this run: apply
   * confirms a delete target found only there with a live read (src/apply/confirm-deletes.ts).
   */
  cachedKeys?: string[];
}

export async function runPlanPipeline<S extends PipelineSession>(paths: readonly string[], options: PlanPipelineOptions, deps: PlanPipelineDeps<S>): Promise<PlanPipelineResult<S>> {
  const diagnostics: Diagnostic[] = [];
  const loaded = await deps.loadManifest(paths);
  diagnostics.push(...loaded.diagnostics);
  const result: PlanPipelineResult<S> = { diagnostics, requestCount: 0, files: loaded.files };
  if (!loaded.manifest || hasErrors(diagnostics)) return result;
  result.manifest = loaded.manifest;

  // A preview run plans (and reads) its one environment, as `--target` of it would.
  const targets = options.preview ? [previewEnvironmentAddress(loaded.manifest, options.preview)] : options.targets;
  const desired = desiredGraphOf(loaded, targets);
  diagnostics.push(...desired.diagnostics);
  if (!desired.graph || hasErrors(diagnostics)) return result;
  const { graph, targetScope } = desired;
  result.graph = graph;

  // A set-but-empty fingerprint key stops the run before its first request.
  const keyProblem = fingerprintKeyProblem(deps.env);
  if (keyProblem) {
    diagnostics.push(keyProblem);
    return result;
  }

  const connected = deps.connect();
  diagnostics.push(...connected.diagnostics);
  if (!connected.session) return result;
  const session = connected.session;
  result.session = session;

  let live: LiveState;
  try {
    // A targeted run also reads what tells whether a targeted secret was edited in the console
    // (src/graph/target.ts readGraphOf); narrowLive drops it before the plan.
    const readGraph = targetScope ? readGraphOf(desired.full, graph) : graph;
    const fetched = await fetchLiveState(session.port, readGraph, { parallelism: options.parallelism ?? 8, ...(deps.readVia ? { via: deps.readVia } : {}) });
    const notes = fetched.read;
    if (notes.events) result.auditEvents = notes.events;
    if (notes.cachedKeys) result.cachedKeys = notes.cachedKeys;
    // Without secret values the plan cannot be applied and no key is asked for (as for the
    // fingerprints below): the cache's fallback-key warning would be noise.
    diagnostics.push(...(notes.diagnostics ?? []).filter((d) => !options.noSecretValues || d.code !== 'cache.fallback-key'));
    live = targetScope ? narrowLive(fetched.live, targetScope) : fetched.live;
  } catch (e) {
    diagnostics.push(apiDiagnostic(e, 'Reading the live state'));
    return result;
  }
  result.live = live;
  result.requestCount = live.requestCount;

  // Plan-time checks against the organization, after the live read and before any write: names of
  // what driftless cannot create and the clusters' maxima (the same check as `validate --remote`,
  // from the lists just read), then the API's listings (instance types, terraform variables; their
  // requests count in the plan's). They become the plan's diagnostics: an error makes it not applyable.
  const checksBefore = session.port.requestCount;
  let checks: Diagnostic[];
  try {
    const manifest = targetScope ? narrowManifest(loaded.manifest, targetScope) : loaded.manifest;
    checks = await runOrganizationChecks(manifest, referenceContextOfLive(live), live, session.port);
    // What the checks say about objects outside the targets is not this plan's business.
    if (targetScope) checks = checks.filter((d) => d.address === undefined || inTargetScope(targetScope, d.address));
  } catch (e) {
    // Each listing's own failure is a warning of the checks; what reaches here stops the run
    // (a rate-limit wait beyond --max-wait).
    diagnostics.push(apiDiagnostic(e, 'Checking the manifest against the organization'));
    return result;
  }
  result.requestCount += session.port.requestCount - checksBefore;

  const fk = resolveFingerprintKey(deps.env, live.organizationId);
  // Without secret values no fingerprint is computed: the fallback key only seals a plan file that
  // apply refuses anyway, so its warning (guessable fingerprints) does not apply. A set-but-empty
  // key is still an error (checked above).
  diagnostics.push(...(options.noSecretValues ? fk.diagnostics.filter((d) => d.code !== 'secret.fingerprint-key-fallback') : fk.diagnostics));
  if (fk.key === undefined) return result;
  result.fingerprintKey = fk.key;
  result.fingerprintKeySource = fk.source;

  const plan = computePlan(graph, live, {
    // A preview's databases may go with it when its declaration says so (`allow_data_loss: true`).
    allowDataLoss: options.allowDataLoss === true || (options.preview !== undefined && previewDeclarationOf(loaded.manifest, options.preview.project)?.previews.allow_data_loss === true),
    allowReplace: options.allowReplace === true,
    checks,
    ...(options.maxDestroy !== undefined ? { maxDestroy: options.maxDestroy } : {}),
    fingerprintKey: fk.key,
    ...(options.noSecretValues ? { noSecretValues: true } : {}),
    ...(connected.apiUrl ? { apiUrl: connected.apiUrl } : {}),
  });
  plan.request_count = result.requestCount;
  plan.diagnostics = relateDiagnostics(loaded.templates, plan.diagnostics);
  // Sealed with the plan: `apply PLANFILE` makes the same preview environment again to re-plan it.
  if (options.preview) plan.options.preview = { project: options.preview.project, number: options.preview.number, ...(options.preview.set?.length ? { set: options.preview.set.map((a) => ({ ...a })) } : {}) };
  if (targetScope) {
    plan.targets = [...targetScope.targets];
    // The organization-level objects kept for name resolution are not "outside the manifest".
    delete plan.out_of_scope;
  }
  diagnostics.push(...plan.diagnostics);
  result.plan = plan;
  return result;
}

/**
 * The desired graph of a loaded manifest, narrowed to `--target` when given: the rest of the
 * pipeline sees only the targeted part (reads, checks, plan). `full` is the whole graph.
 */
function desiredGraphOf(loaded: LoadResult, targets: readonly string[] | undefined): { graph?: DesiredGraph; full: DesiredGraph; targetScope?: TargetScope; diagnostics: Diagnostic[] } {
  // Objects instantiated from a template, and the diagnostics about them, also point at the
  // template and the override (drift shows both).
  const built = buildGraph(loaded.manifest!, { templates: loaded.templates });
  if (targets === undefined || hasErrors(built.diagnostics)) return { graph: built.graph, full: built.graph, diagnostics: built.diagnostics };
  const narrowed = targetGraph(built.graph, targets);
  const diagnostics = [...built.diagnostics, ...narrowed.diagnostics];
  if (!narrowed.graph) return { full: built.graph, diagnostics };
  return { graph: narrowed.graph, full: built.graph, targetScope: narrowed.scope, diagnostics };
}
