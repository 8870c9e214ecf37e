/**
 * runPlan(paths, options, deps): the plan pipeline shared by `plan`, `apply`, `drift` and `graph`:
 * load the manifest, build the desired graph, read the live state with the fewest requests, compute
 * the plan. Never prints: problems come back as diagnostics. (`export` and `validate` use only its
 * openSession and apiDiagnostic.)
 *
 * The API client it opens is returned (in `session`) so that apply reuses its connection pool and
 * request counter; the caller closes it.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error, hasErrors } from '../diag/diagnostic.js';
import type { DesiredGraph, LiveState } from '../model/resource.js';
import type { Plan } from '../plan/types.js';
import { loadManifest } from '../manifest/load.js';
import { manifestLoadCacheOf } from './manifest-load-cache.js';
import { instantiatedAt, relateDiagnostics } from '../manifest/templates.js';
import type { Manifest } from '../manifest/types.js';
import { previewDeclarationOf, previewEnvironmentAddress, type PreviewRequest } from '../manifest/previews.js';
import { buildGraph } from '../graph/build.js';
import { computePlan } from '../plan/compute.js';
import { fingerprintKeyProblem, resolveFingerprintKey } from '../plan/fingerprint.js';
import { liveStateFromRecords } from '../live/fetch.js';
import { readLiveRecords } from '../live/read.js';
import type { AuditEvent } from '../live/audit-log.js';
import { portFromClient, type ApiPort } from '../live/api-port.js';
import { createApiClient, isApiError, isRateLimitWaitError, type ApiClient, type ApiEvent, type RateLimitWaitError } from '../api/index.js';
import type { ApiUsage, RefreshReport } from './api-usage.js';
import { cacheSettingsOf, readThroughCache } from './live-cache.js';
import type { RefreshMode } from './shared-options.js';
import { resolveApiConfig, type ApiConfig } from './config.js';
import { runOrganizationChecks } from '../checks/index.js';
import { referenceContextOfLive } from '../manifest/remote-names.js';
import { inTargetScope, narrowLive, narrowManifest, readGraphOf, targetGraph, type TargetScope } from '../graph/target.js';

export interface RunPlanOptions {
  apiUrl?: string;
  authScheme?: string;
  parallelism?: number;
  /** Seconds (--max-wait); DRIFTLESS_MAX_WAIT when unset. */
  maxWait?: number;
  allowDataLoss?: boolean;
  allowReplace?: boolean;
  maxDestroy?: number;
  /**
   * `--target ADDRESS...`: plan (and read) only these subtrees and what they depend on
   * (src/graph/target.ts). An address the manifest does not declare is an error before any request.
   */
  targets?: readonly string[];
  /** `--no-secret-values`: secret fields are not read (no `${env:}` nor `${file:}` of theirs), never compared, and the plan is not applyable. */
  noSecretValues?: boolean;
  /** `--cache DIR` (DRIFTLESS_CACHE_DIR when unset) and `--refresh`. */
  cache?: string;
  refresh?: RefreshMode;
  /** `--verify-requests N` and `--max-cache-age` (milliseconds), with the cache. */
  verifyRequests?: number;
  maxCacheAge?: number;
  /** `driftless preview up`: the manifest gets the preview environment of this pull request (src/manifest/previews.ts). */
  preview?: PreviewRequest;
}

export interface RunPlanDeps {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Progress of the HTTP client (retries, rate-limit waits), for the CLI to show. */
  onApiEvent?: (e: ApiEvent) => void;
  /** Test seam: an already-open API session instead of one built from the configuration. */
  session?: ApiSession;
  signal?: AbortSignal;
}

export interface ApiSession {
  port: ApiPort;
  close(): Promise<void>;
  /** Requests sent so far and the budget the server last reported (for the closing usage line). */
  usage?(): ApiUsage;
  /** The error the next request would fail with now, its rate-limit wait exceeding --max-wait. */
  waitBeyondCap?(): RateLimitWaitError | undefined;
  /** Set when the live state was read through a refresh cache; usage() reports it. */
  refresh?: RefreshReport;
}

export interface RunPlanResult {
  plan?: Plan;
  manifest?: Manifest;
  graph?: DesiredGraph;
  live?: LiveState;
  fingerprintKey?: string;
  /** Where the fingerprint key came from (the plan file records it, never the key). */
  fingerprintKeySource?: 'env' | 'fallback';
  diagnostics: Diagnostic[];
  /** Requests the live read made. */
  requestCount: number;
  /** Manifest files read (as shown in diagnostics). */
  files: string[];
  session?: ApiSession;
  /**
   * The audit-log events the refresh read in this run (every event since the cache's cursor), for
   * drift's attribution; unset after a full read.
   */
  auditEvents?: AuditEvent[];
  /**
   * Request keys of the live read answered from the refresh cache, not read in this run: apply
   * confirms a delete target found only there with a live read (src/apply/confirm-deletes.ts).
   */
  cachedKeys?: string[];
}

export function openSession(config: ApiConfig, opts: { parallelism?: number; onApiEvent?: (e: ApiEvent) => void; signal?: AbortSignal; timeZone?: string }): ApiSession {
  const client: ApiClient = createApiClient({
    baseUrl: config.baseUrl,
    token: config.token,
    authScheme: config.authScheme,
    ...(config.requestTimeoutMs !== undefined ? { timeoutMs: config.requestTimeoutMs } : {}),
    ...(config.maxWaitMs !== undefined ? { maxWaitMs: config.maxWaitMs } : {}),
    ...(opts.timeZone ? { timeZone: opts.timeZone } : {}),
    ...(opts.parallelism !== undefined ? { parallelism: opts.parallelism } : {}),
    ...(opts.onApiEvent ? { onEvent: opts.onApiEvent } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const session: ApiSession = {
    port: portFromClient(client),
    close: () => client.close(),
    usage: () => {
      const { limit, remaining } = client.rateLimit();
      return { requests: client.stats().total, ...(limit !== undefined ? { limit } : {}), ...(remaining !== undefined ? { remaining } : {}), ...(session.refresh ? { refresh: session.refresh } : {}) };
    },
    waitBeyondCap: () => client.waitBeyondCap(),
  };
  return session;
}

/** An API failure as a diagnostic: what failed and what to do (never a header or a token). */
export function apiDiagnostic(e: unknown, doing: string): Diagnostic {
  if (isRateLimitWaitError(e)) {
    // Not a failure of the API: the run chose not to wait. Say when to come back, and how to wait.
    return error('api.rate-limit-wait', `${doing} stopped: ${e.message}`, {
      detail: 'Run again after the reset, or allow a longer wait with a larger --max-wait (or DRIFTLESS_MAX_WAIT); without either, driftless waits for the reset.',
    });
  }
  if (isApiError(e)) {
    const detail: Record<string, string> = {
      unauthorized: 'Check DRIFTLESS_API_TOKEN: it is missing, invalid or expired.',
      forbidden: 'The token lacks the permission for this call; use a token with the Read scope (plan) or Write and Deploy scopes (apply).',
      network: 'Check DRIFTLESS_API_URL and that the API is reachable.',
      timeout: 'The API did not answer in time; try again, or lower --parallelism.',
      'rate-limited': 'The API rate limit was exhausted; wait for the window to reset and try again.',
    };
    return error(`api.${e.kind}`, `${doing} failed: ${e.message}`, detail[e.kind] ? { detail: detail[e.kind] } : {});
  }
  return error('api.error', `${doing} failed: ${e instanceof Error ? e.message : String(e)}`);
}

export async function runPlan(paths: readonly string[], options: RunPlanOptions, deps: RunPlanDeps): Promise<RunPlanResult> {
  const diagnostics: Diagnostic[] = [];
  // With a cache directory, files unchanged since the last run are not parsed again; a targeted
  // run leaves the cache directory alone, as it does the refresh cache (docs/cache.md).
  const manifestCache = options.targets === undefined && options.preview === undefined ? manifestLoadCacheOf(options.cache, deps.env, deps.cwd) : undefined;
  const loaded = await loadManifest(paths, { env: deps.env, cwd: deps.cwd, ...(options.noSecretValues ? { secretValues: 'unread' as const } : {}), ...(manifestCache ? { cache: manifestCache } : {}), ...(options.preview ? { preview: options.preview } : {}) });
  diagnostics.push(...loaded.diagnostics);
  const result: RunPlanResult = { diagnostics, requestCount: 0, files: loaded.files };
  if (!loaded.manifest || hasErrors(diagnostics)) return result;
  result.manifest = loaded.manifest;

  // A preview run plans (and reads) its one environment, as `--target` of it would.
  const targets = options.preview ? [previewEnvironmentAddress(loaded.manifest, options.preview)] : options.targets;
  const built = buildGraph(loaded.manifest);
  // Diagnostics about objects instantiated from a template also point at the template and the override.
  diagnostics.push(...relateDiagnostics(loaded.manifest, built.diagnostics));
  if (hasErrors(diagnostics)) return result;
  // --target: the rest of the pipeline sees only the targeted part (graph, reads, checks, plan).
  let graph = built.graph;
  let targetScope: TargetScope | undefined;
  if (targets !== undefined) {
    const narrowed = targetGraph(built.graph, targets);
    diagnostics.push(...narrowed.diagnostics);
    if (!narrowed.graph || hasErrors(diagnostics)) return result;
    graph = narrowed.graph;
    targetScope = narrowed.scope;
  }
  // Objects instantiated from a template carry where the template defines them and where the
  // environment overrides them (drift shows both).
  for (const r of graph.resources.values()) {
    const at = instantiatedAt(loaded.manifest, r.address);
    if (at) r.related = at;
  }
  result.graph = graph;

  // A set-but-empty fingerprint key stops the run before its first request.
  const keyProblem = fingerprintKeyProblem(deps.env);
  if (keyProblem) {
    diagnostics.push(keyProblem);
    return result;
  }

  let session = deps.session;
  let apiUrl: string | undefined;
  if (!session) {
    const cfg = resolveApiConfig({ apiUrl: options.apiUrl, authScheme: options.authScheme, maxWait: options.maxWait }, deps.env);
    diagnostics.push(...cfg.diagnostics);
    if (!cfg.config) return result;
    apiUrl = cfg.config.baseUrl;
    session = openSession(cfg.config, { parallelism: options.parallelism, onApiEvent: deps.onApiEvent, signal: deps.signal, timeZone: deps.env.TZ });
  }
  result.session = session;

  try {
    const before = session.port.requestCount;
    // A targeted run also reads what tells whether a targeted secret was edited in the console
    // (src/graph/target.ts readGraphOf); narrowLive drops it before the plan.
    const readGraph = targetScope ? readGraphOf(built.graph, graph) : graph;
    const read = (port: ApiPort) => readLiveRecords(port, readGraph, { parallelism: options.parallelism ?? 8 });
    // The full read, or the refresh from the audit log when a cache is asked for: src/plan never
    // learns which one ran. A targeted run reads its part through the cache too; what it leaves is
    // what it read plus what the cache held and is still current (src/live/cache-union.ts), so a
    // cache of a part never passes for the whole: the next full run finds the lists it lacks.
    const cache = cacheSettingsOf(options, deps.env, deps.cwd, apiUrl ?? options.apiUrl ?? deps.env.DRIFTLESS_API_URL ?? '');
    let records;
    if (cache) {
      const cached = await readThroughCache(session.port, read, cache);
      records = cached.records;
      session.refresh = cached.report;
      if (cached.events) result.auditEvents = cached.events;
      result.cachedKeys = cached.cachedKeys;
      // Without secret values the plan cannot be applied and no key is asked for (as for the
      // fingerprints below): the cache's fallback-key warning would be noise.
      diagnostics.push(...(options.noSecretValues ? cached.diagnostics.filter((d) => d.code !== 'cache.fallback-key') : cached.diagnostics));
    } else records = await read(session.port);
    const live = liveStateFromRecords(records, readGraph);
    live.requestCount = session.port.requestCount - before;
    result.live = targetScope ? narrowLive(live, targetScope) : live;
  } catch (e) {
    diagnostics.push(apiDiagnostic(e, 'Reading the live state'));
    return result;
  }
  result.requestCount = result.live.requestCount;
  // Plan-time checks against the organization, after the live read and before any write: names of
  // what driftless cannot create and the clusters' maxima (the same check as `validate --remote`,
  // from the lists just read), then the API's listings (instance types, terraform variables; their
  // requests count in the plan's). They become the plan's diagnostics: an error makes it not applyable.
  const checksBefore = session.port.requestCount;
  let checks: Awaited<ReturnType<typeof runOrganizationChecks>>;
  try {
    const manifest = targetScope ? narrowManifest(loaded.manifest, targetScope) : loaded.manifest;
    checks = await runOrganizationChecks(manifest, referenceContextOfLive(result.live), result.live, session.port);
    // What the checks say about objects outside the targets is not this plan's business.
    if (targetScope) checks = checks.filter((d) => d.address === undefined || inTargetScope(targetScope!, d.address));
  } catch (e) {
    // Each listing's own failure is a warning of the checks; what reaches here stops the run
    // (a rate-limit wait beyond --max-wait).
    diagnostics.push(apiDiagnostic(e, 'Checking the manifest against the organization'));
    return result;
  }
  result.requestCount += session.port.requestCount - checksBefore;
  const fk = resolveFingerprintKey(deps.env, result.live.organizationId);
  // Without secret values no fingerprint is computed: the fallback key only seals a plan file that
  // apply refuses anyway, so its warning (guessable fingerprints) does not apply. A set-but-empty
  // key is still an error (checked above).
  diagnostics.push(...(options.noSecretValues ? fk.diagnostics.filter((d) => d.code !== 'secret.fingerprint-key-fallback') : fk.diagnostics));
  if (fk.key === undefined) return result;
  result.fingerprintKey = fk.key;
  result.fingerprintKeySource = fk.source;
  const plan = computePlan(graph, result.live, {
    // A preview's databases may go with it when its declaration says so (`allow_data_loss: true`).
    allowDataLoss: options.allowDataLoss === true || (options.preview !== undefined && previewDeclarationOf(loaded.manifest, options.preview.project)?.previews.allow_data_loss === true),
    allowReplace: options.allowReplace === true,
    checks,
    ...(options.maxDestroy !== undefined ? { maxDestroy: options.maxDestroy } : {}),
    fingerprintKey: fk.key,
    ...(options.noSecretValues ? { noSecretValues: true } : {}),
    ...(apiUrl ? { apiUrl } : {}),
  });
  plan.request_count = result.requestCount;
  plan.diagnostics = relateDiagnostics(loaded.manifest, plan.diagnostics);
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
