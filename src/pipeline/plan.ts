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
import type { TargetScope } from '../graph/target.js';
import { fingerprintKeyProblem, resolveFingerprintKey } from '../plan/fingerprint.js';
import type { RecordsVia } from '../live/fetch.js';
import type { LiveRecords } from '../live/read.js';
import type { RecordsReader } from '../live/refresh.js';
import type { ApiPort } from '../live/api-port.js';
import type { AuditEvent } from '../live/audit-log.js';
import { apiDiagnostic } from './api-diagnostic.js';
import type { PreviewRequest } from '../manifest/previews.js';

/**
 * The modules of the stages that make a plan, loaded when one is made: a plan reused from an
 * earlier run (deps.reuse) needs none of them, and a warm run's start-up is mostly loading modules.
 */
const stagesModule = () => import('./plan-stages.js');

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
  /**
   * A plan made earlier that may stand for this one (src/cli/plan-memo.ts): the manifest is then
   * loaded only if the live read, through `readReused`, does not prove the live state unchanged.
   */
  reuse?: PlanReuse;
}

/** A plan kept from an earlier run, and the live read that says whether it stands. */
export interface PlanReuse {
  plan(): Plan;
  files: string[];
  /** Reads as readVia does; `reused` when the earlier plan stands (the reader did not run). */
  readReused(port: ApiPort, read: RecordsReader): Promise<{ records: LiveRecords; reused?: true } & LiveReadNotes>;
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
  /** The plan is the one kept from an earlier run (deps.reuse): no manifest, graph or live state. */
  reused?: true;
  /**
   * The plan rests on the manifest and the live read alone: loaded and built without a diagnostic,
   * for the whole manifest, and the checks sent no request. (A plan memo may keep it.)
   */
  selfContained?: true;
}

export async function runPlanPipeline<S extends PipelineSession>(paths: readonly string[], options: PlanPipelineOptions, deps: PlanPipelineDeps<S>): Promise<PlanPipelineResult<S>> {
  const diagnostics: Diagnostic[] = [];
  const result: PlanPipelineResult<S> = { diagnostics, requestCount: 0, files: [] };
  const reuse = options.targets === undefined && options.preview === undefined ? deps.reuse : undefined;

  /** Loads the manifest and builds its graph; undefined when either said an error (in `diagnostics`). */
  const prepare = async (): Promise<Prepared | undefined> => {
    const { desiredGraphOf, previewEnvironmentAddress, readGraphOf } = await stagesModule();
    const loaded = await deps.loadManifest(paths);
    diagnostics.push(...loaded.diagnostics);
    result.files = loaded.files;
    if (!loaded.manifest || hasErrors(diagnostics)) return undefined;
    result.manifest = loaded.manifest;
    // A preview run plans (and reads) its one environment, as `--target` of it would.
    const targets = options.preview ? [previewEnvironmentAddress(loaded.manifest, options.preview)] : options.targets;
    const desired = desiredGraphOf(loaded, targets);
    diagnostics.push(...desired.diagnostics);
    if (!desired.graph || hasErrors(diagnostics)) return undefined;
    result.graph = desired.graph;
    // A targeted run also reads what tells whether a targeted secret was edited in the console
    // (src/graph/target.ts readGraphOf); narrowLive drops it before the plan.
    const readGraph = desired.targetScope ? readGraphOf(desired.full, desired.graph) : desired.graph;
    return { loaded, manifest: loaded.manifest, graph: desired.graph, readGraph, ...(desired.targetScope ? { targetScope: desired.targetScope } : {}), clean: loaded.diagnostics.length === 0 && desired.diagnostics.length === 0 };
  };

  // With a plan that may be reused, the manifest is loaded only if the live read needs it (below).
  let start: { reuse: PlanReuse } | { prepared: Prepared };
  if (reuse) {
    start = { reuse };
    result.files = reuse.files;
  } else {
    const prepared = await prepare();
    if (!prepared) return result;
    start = { prepared };
  }

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

  /** The manifest and the live state read for it. */
  let read: { prepared: Prepared; live: LiveState };
  try {
    let notes: LiveReadNotes;
    if ('reuse' in start) {
      // The reader loads the manifest when it runs (the plan kept did not stand).
      const before = session.port.requestCount;
      let loadedForReader: Prepared | undefined;
      const reader: RecordsReader = async (port) => {
        loadedForReader ??= await prepare();
        if (!loadedForReader) throw new ManifestFailed();
        return (await stagesModule()).readLiveRecords(port, loadedForReader.readGraph, { parallelism: options.parallelism ?? 8 });
      };
      const r = await start.reuse.readReused(session.port, reader);
      if (r.reused) return reusedResult(result, start.reuse, r, session.port.requestCount - before, options, deps.env);
      const prepared = loadedForReader ?? (await prepare());
      if (!prepared) return result;
      notes = r;
      const live = (await stagesModule()).liveStateFromRecords(r.records, prepared.readGraph);
      live.requestCount = session.port.requestCount - before;
      read = { prepared, live };
    } else {
      const fetched = await (await stagesModule()).fetchLiveState(session.port, start.prepared.readGraph, { parallelism: options.parallelism ?? 8, ...(deps.readVia ? { via: deps.readVia } : {}) });
      notes = fetched.read;
      read = { prepared: start.prepared, live: fetched.live };
    }
    takeNotes(result, notes, options);
    if (read.prepared.targetScope) read.live = (await stagesModule()).narrowLive(read.live, read.prepared.targetScope);
  } catch (e) {
    if (e instanceof ManifestFailed) return result;
    diagnostics.push(apiDiagnostic(e, 'Reading the live state'));
    return result;
  }
  const { prepared, live } = read;
  const { loaded, manifest: declared, graph, targetScope } = prepared;
  const { computePlan, inTargetScope, narrowManifest, previewDeclarationOf, referenceContextOfLive, relateDiagnostics, runOrganizationChecks } = await stagesModule();
  result.live = live;
  result.requestCount = live.requestCount;

  // Plan-time checks against the organization, after the live read and before any write: names of
  // what driftless cannot create and the clusters' maxima (the same check as `validate --remote`,
  // from the lists just read), then the API's listings (instance types, terraform variables; their
  // requests count in the plan's). They become the plan's diagnostics: an error makes it not applyable.
  const checksBefore = session.port.requestCount;
  let checks: Diagnostic[];
  try {
    const manifest = targetScope ? narrowManifest(declared, targetScope) : declared;
    checks = await runOrganizationChecks(manifest, referenceContextOfLive(live), live, session.port);
    // What the checks say about objects outside the targets is not this plan's business.
    if (targetScope) checks = checks.filter((d) => d.address === undefined || inTargetScope(targetScope, d.address));
  } catch (e) {
    // Each listing's own failure is a warning of the checks; what reaches here stops the run
    // (a rate-limit wait beyond --max-wait).
    diagnostics.push(apiDiagnostic(e, 'Checking the manifest against the organization'));
    return result;
  }
  const checkRequests = session.port.requestCount - checksBefore;
  result.requestCount += checkRequests;

  const fingerprintKey = takeFingerprintKey(result, deps.env, live.organizationId, options);
  if (fingerprintKey === undefined) return result;

  const plan = computePlan(graph, live, {
    // A preview's databases may go with it when its declaration says so (`allow_data_loss: true`).
    allowDataLoss: options.allowDataLoss === true || (options.preview !== undefined && previewDeclarationOf(declared, options.preview.project)?.previews.allow_data_loss === true),
    allowReplace: options.allowReplace === true,
    checks,
    ...(options.maxDestroy !== undefined ? { maxDestroy: options.maxDestroy } : {}),
    fingerprintKey,
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
  if (prepared.clean && !targetScope && options.preview === undefined && checkRequests === 0) result.selfContained = true;
  return result;
}

/** The manifest, loaded and built. */
interface Prepared {
  loaded: LoadResult;
  /** loaded.manifest, which a prepared manifest has. */
  manifest: Manifest;
  graph: DesiredGraph;
  /** What the live read reads: the graph, or with `--target` the targeted part and what tells of its secrets. */
  readGraph: DesiredGraph;
  targetScope?: TargetScope;
  /** Neither the load nor the graph said anything. */
  clean: boolean;
}

/** The manifest could not be loaded while the live read needed it: its diagnostics are the run's. */
class ManifestFailed extends Error {}

/** What the live read learnt, into the run's result: the events it read, the keys the cache answered, what it said. */
function takeNotes(result: PlanPipelineResult<PipelineSession>, notes: LiveReadNotes, options: PlanPipelineOptions): void {
  if (notes.events) result.auditEvents = notes.events;
  if (notes.cachedKeys) result.cachedKeys = notes.cachedKeys;
  // Without secret values the plan cannot be applied and no key is asked for (as for the
  // fingerprints): the cache's fallback-key warning would be noise.
  result.diagnostics.push(...(notes.diagnostics ?? []).filter((d) => !options.noSecretValues || d.code !== 'cache.fallback-key'));
}

/**
 * The fingerprint key of the organization, into the run's result with what is said about it;
 * undefined when there is none (an error said why).
 */
function takeFingerprintKey(result: PlanPipelineResult<PipelineSession>, env: NodeJS.ProcessEnv, organizationId: string, options: PlanPipelineOptions): string | undefined {
  const fk = resolveFingerprintKey(env, organizationId);
  // Without secret values no fingerprint is computed: the fallback key only seals a plan file that
  // apply refuses anyway, so its warning (guessable fingerprints) does not apply. A set-but-empty
  // key is still an error (checked before the first request).
  result.diagnostics.push(...(options.noSecretValues ? fk.diagnostics.filter((d) => d.code !== 'secret.fingerprint-key-fallback') : fk.diagnostics));
  if (fk.key === undefined) return undefined;
  result.fingerprintKey = fk.key;
  result.fingerprintKeySource = fk.source;
  return fk.key;
}

/**
 * The result of a run whose plan is the one kept: what the live read said (its notes, the
 * requests it sent) and the fingerprint key's diagnostics are this run's, as they would have been.
 */
function reusedResult<S extends PipelineSession>(result: PlanPipelineResult<S>, reuse: PlanReuse, notes: LiveReadNotes & { records: LiveRecords }, requests: number, options: PlanPipelineOptions, env: NodeJS.ProcessEnv): PlanPipelineResult<S> {
  takeNotes(result, notes, options);
  result.requestCount = requests;
  if (takeFingerprintKey(result, env, notes.records.organization.id, options) === undefined) return result;
  const plan = reuse.plan();
  plan.request_count = requests;
  result.diagnostics.push(...plan.diagnostics);
  result.plan = plan;
  result.reused = true;
  return result;
}

