/**
 * runPlan(paths, options, deps): the plan pipeline of `plan`, `apply`, `drift` and `graph`
 * (src/pipeline/plan.ts) with what it needs from the command line and the machine: the manifest
 * load cache, the API client built from the configuration, and the refresh cache. (`export` and
 * `validate` use only openSession.)
 *
 * The API client it opens is returned (in `session`) so that apply reuses its connection pool and
 * request counter; the caller closes it.
 */
import { prepareManifest, preparedManifestKey, type ResolutionInputs } from '../manifest/prepare.js';
import { findReusablePlan, keepPlan } from './plan-memo.js';
import { packageVersion } from './package-version.js';
import { manifestLoadCacheOf } from './manifest-load-cache.js';
import { portFromClient, type ApiPort } from '../live/api-port.js';
import { createApiClient, type ApiClient, type ApiEvent, type RateLimitWaitError } from '../api/index.js';
import type { ApiUsage, RefreshReport } from './api-usage.js';
import { cacheSettingsOf, readThroughCache, type CachedRecords, type CacheSettings } from './live-cache.js';
import type { RefreshMode } from './shared-options.js';
import { resolveApiConfig, type ApiConfig } from './config.js';
import { runPlanPipeline, type PlanPipelineOptions, type PlanPipelineResult } from '../pipeline/plan.js';

export interface RunPlanOptions extends PlanPipelineOptions {
  apiUrl?: string;
  authScheme?: string;
  /** Seconds (--max-wait); DRIFTLESS_MAX_WAIT when unset. */
  maxWait?: number;
  /** `--cache DIR` (DRIFTLESS_CACHE_DIR when unset) and `--refresh`. */
  cache?: string;
  refresh?: RefreshMode;
  /** `--verify-requests N` and `--max-cache-age` (milliseconds), with the cache. */
  verifyRequests?: number;
  maxCacheAge?: number;
  /**
   * `plan`: with a cache directory, the plan of the last run stands for this one when nothing it
   * was made from changed (src/cli/plan-memo.ts), and this run's is kept for the next.
   */
  reusePlan?: boolean;
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

export type RunPlanResult = PlanPipelineResult<ApiSession>;

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

export async function runPlan(paths: readonly string[], options: RunPlanOptions, deps: RunPlanDeps): Promise<RunPlanResult> {
  let apiUrl: string | undefined;
  let session = deps.session;
  const settings = runSettingsOf(options, deps);
  const memo = memoOf(paths, options, deps, settings);
  /** What the live read through the cache said (for the memo). */
  let cachedRead: CachedRecords | undefined;
  const result = await runPlanPipeline(paths, options, {
    env: deps.env,
    loadManifest: async (p) => {
      // With a cache directory, files unchanged since the last run are not parsed again; a targeted
      // run leaves the cache directory alone, as it does the refresh cache (docs/cache.md).
      const manifestCache = options.targets === undefined && options.preview === undefined ? manifestLoadCacheOf(options.cache, deps.env, deps.cwd) : undefined;
      // Loaded when a plan is made (a reused plan parses nothing: src/cli/plan-memo.ts).
      const { loadManifest } = await import('../manifest/load.js');
      return loadManifest(p, {
        env: deps.env,
        cwd: deps.cwd,
        ...(options.noSecretValues ? { secretValues: 'unread' as const } : {}),
        ...(manifestCache ? { cache: manifestCache } : {}),
        ...(options.preview ? { preview: options.preview } : {}),
        ...(memo ? { prepared: memo.prepared, recordInputs: memo.inputs } : {}),
      });
    },
    connect: () => {
      if (session) return { session, diagnostics: [] };
      const cfg = settings.apiConfig();
      if (!cfg.config) return { diagnostics: cfg.diagnostics };
      apiUrl = cfg.config.baseUrl;
      session = openSession(cfg.config, { parallelism: options.parallelism, onApiEvent: deps.onApiEvent, signal: deps.signal, timeZone: deps.env.TZ });
      return { session, apiUrl, diagnostics: cfg.diagnostics };
    },
    // The full read, or the refresh from the audit log when a cache is asked for: src/plan never
    // learns which one ran. A targeted run reads its part through the cache too; what it leaves is
    // what it read plus what the cache held and is still current (src/live/cache-union.ts), so a
    // cache of a part never passes for the whole: the next full run finds the lists it lacks.
    readVia: async (port, read) => {
      const cache = settings.cache(apiUrl ?? options.apiUrl ?? deps.env.DRIFTLESS_API_URL ?? '');
      if (!cache) return { records: await read(port) };
      const cached = (cachedRead = await readThroughCache(port, read, cache));
      session!.refresh = cached.report;
      return { records: cached.records, diagnostics: cached.diagnostics, cachedKeys: cached.cachedKeys, ...(cached.events ? { events: cached.events } : {}) };
    },
    ...(memo?.reusable
      ? {
          reuse: {
            plan: memo.reusable.plan,
            files: memo.reusable.files,
            readReused: async (port, read) => {
              const cached = (cachedRead = await readThroughCache(port, read, memo.cache, { reuse: memo.reusable!.probe }));
              session!.refresh = cached.report;
              return { records: cached.records, diagnostics: cached.diagnostics, cachedKeys: cached.cachedKeys, ...(cached.events ? { events: cached.events } : {}), ...(cached.reused ? { reused: cached.reused } : {}) };
            },
          },
        }
      : {}),
  });
  if (memo && cachedRead?.seal !== undefined) {
    if (result.reused) memo.reusable?.renew(cachedRead.seal);
    else if (result.selfContained && result.plan && cachedRead.quiet && result.live) {
      keepPlan(memo.context, { organizationId: result.live.organizationId, manifestKey: memo.manifestKey, inputs: memo.inputs, snapshotSeal: cachedRead.seal, answers: cachedRead.quiet.answers, files: result.files, plan: result.plan });
    }
  }
  return result;
}

/**
 * The API configuration and the cache settings of a run: pure functions of its options and
 * environment, which the memo needs before the manifest is loaded and connect() and the live read
 * need after it; each is computed once.
 */
interface RunSettings {
  apiConfig(): ReturnType<typeof resolveApiConfig>;
  /** The cache settings for the API at `apiUrl` (undefined: no cache directory). */
  cache(apiUrl: string): CacheSettings | undefined;
}

function runSettingsOf(options: RunPlanOptions, deps: RunPlanDeps): RunSettings {
  let config: ReturnType<RunSettings['apiConfig']> | undefined;
  let cache: { apiUrl: string; settings: CacheSettings | undefined } | undefined;
  return {
    apiConfig: () => (config ??= resolveApiConfig({ apiUrl: options.apiUrl, authScheme: options.authScheme, maxWait: options.maxWait }, deps.env)),
    // The memo and the live read ask for the same URL (connect() sets the one the memo used), but
    // for a session given by the caller, whose URL the live read takes as given.
    cache: (apiUrl) => (cache?.apiUrl === apiUrl ? cache : (cache = { apiUrl, settings: cacheSettingsOf(options, deps.env, deps.cwd, apiUrl) })).settings,
  };
}

/** The plan memo of a run (src/cli/plan-memo.ts), when it may have one: `plan` of the whole manifest with a cache directory. */
function memoOf(paths: readonly string[], options: RunPlanOptions, deps: RunPlanDeps, settings: RunSettings) {
  if (!options.reusePlan || options.targets !== undefined || options.preview !== undefined) return undefined;
  const cfg = settings.apiConfig();
  const cache = cfg.config ? settings.cache(cfg.config.baseUrl) : undefined;
  // A memo sealed with the key derived from the organization id could be forged by anyone who can
  // write the directory and knows the id: a plan printed from it could hide any change. Without
  // DRIFTLESS_FINGERPRINT_KEY every plan is made.
  if (!cache || cache.refresh === 'full' || cache.fallbackKey) return undefined;
  const prepared = prepareManifest(paths, { cwd: deps.cwd });
  const manifestKey = preparedManifestKey(prepared, `driftless ${packageVersion()}`);
  if (manifestKey === undefined) return undefined;
  const context = {
    dir: cache.dir,
    env: deps.env,
    apiUrl: cache.apiUrl,
    driftlessVersion: packageVersion(),
    keyOf: cache.keyOf,
    options: { allowDataLoss: options.allowDataLoss === true, allowReplace: options.allowReplace === true, maxDestroy: options.maxDestroy ?? null, noSecretValues: options.noSecretValues === true },
  };
  const inputs: ResolutionInputs = { env: new Map(), files: [] };
  return { cache, prepared, manifestKey, context, inputs, reusable: findReusablePlan(context, { prepared, manifestKey }) };
}
