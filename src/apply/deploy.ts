/**
 * Deploying one deployment stage of one environment and waiting for it.
 *
 * One batch request per stage (`POST /environment/{id}/service/deploy`, with pinned commits and
 * image tags), then one `GET /environment/{id}/statuses` per poll for the whole environment, with
 * backoff, until every service of the batch is terminal. A `*_ERROR` state, a cancel or the
 * deadline is a failure carrying the service's last log lines: never a silent success.
 */
import type { Address, ServiceKind } from '../model/resource.js';
import { routes } from '../api/routes.js';
import { SERVICE_KINDS, serviceMappings } from '../model/kinds/index.js';
import { errorMessage, errorStatus, isAmbiguousFailure, isRateLimitWaitRefusal, type ApiPort } from '../live/api-port.js';
import type { ApplyEventSink } from './events.js';

export interface DeployTarget {
  address: Address;
  id: string;
  kind: ServiceKind;
  git_commit_id?: string;
  image_tag?: string;
  chart_version?: string;
}

export interface StageDeploy {
  environmentId: string;
  /** For messages: the environment's address and the stage's name. */
  environmentAddress: Address;
  stageName: string;
  services: DeployTarget[];
}

export interface Timing {
  /** Milliseconds since an arbitrary origin (injected for tests). */
  now(): number;
  /**
   * Wall-clock milliseconds since the epoch, to compare with the API's `created_at` times
   * (Date.now() when not given).
   */
  wallNow?(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface DeployOptions {
  /** Absolute deadline on the `timing.now()` scale. */
  deadline: number;
  /** Apply start on the `timing.now()` scale, for elapsed times. */
  startedAt: number;
  pollIntervalMs: number;
  maxPollIntervalMs: number;
  /** Lines of log shown for a failed service. */
  logLines: number;
  signal?: AbortSignal;
}

/**
 * NOTE: the wait between two polls of a stage is a tenth of the time the stage has been deploying,
 * between DEFAULT_POLL_INTERVAL_MS and DEFAULT_MAX_POLL_INTERVAL_MS: driftless notices the end of
 * a deployment at most ~10% (or half a second) after it happened (issue 6 measures apply time
 * against deployment time), while a long deployment costs few requests (one per environment per
 * poll, about 50 for three minutes).
 */
export const DEFAULT_POLL_INTERVAL_MS = 500;
export const DEFAULT_MAX_POLL_INTERVAL_MS = 10000;
export const POLL_FRACTION = 0.1;
/** Backoff of the wait for a busy service (another operation's end is not ours to time). */
export const POLL_BACKOFF = 1.25;

/** How long to wait before the next poll of a stage deploying for `elapsedMs`. */
export function nextPollDelay(elapsedMs: number, minMs: number, maxMs: number): number {
  return Math.round(Math.min(maxMs, Math.max(minMs, elapsedMs * POLL_FRACTION)));
}

export interface ServiceDeployFailure {
  address: Address;
  state: string;
  reason: string;
  logs: string[];
}

/**
 * What a stage's deploy tells beyond success or failure, by service address: another deployment
 * (not this apply's) that started on the service after ours ended.
 */
export type DeployNotes = Map<Address, string>;

/** Thrown when a stage did not fully deploy; lists every service that failed. */
export class DeployFailedError extends Error {
  constructor(
    readonly failures: ServiceDeployFailure[],
    readonly hint?: string,
    readonly notes: DeployNotes = new Map(),
  ) {
    super(failures.map((f) => `${f.address}: ${f.reason}`).join('; '));
    this.name = 'DeployFailedError';
  }
}

// READY means "never deployed": still waiting, not a success.
const SUCCESS_STATES = new Set(['DEPLOYED', 'RUNNING']);
const FAILURE_STATES = new Set(['CANCELED', 'ERROR', 'STOPPED', 'DELETED']);

export function deployStateOutcome(state: string): 'success' | 'failure' | 'pending' {
  if (SUCCESS_STATES.has(state)) return 'success';
  if (FAILURE_STATES.has(state) || state.endsWith('_ERROR')) return 'failure';
  return 'pending';
}

/** The body of `POST /environment/{id}/service/deploy` for a batch of services. */
export function deployRequestBody(services: DeployTarget[]): Record<string, unknown[]> {
  // Every kind's list, empty ones too; each service's item as its descriptor writes it (src/model/kinds).
  const body: Record<string, unknown[]> = Object.fromEntries(SERVICE_KINDS.map((k) => [serviceMappings(k).deploy.list, []]));
  for (const s of services) {
    const d = serviceMappings(s.kind).deploy;
    body[d.list]!.push(d.item(s));
  }
  return body;
}

type StatusRecord = { id: string; state?: string; deployment_request_id?: string | null; execution_id?: string | null };
type StatusesResponse = Record<string, unknown>;

function collectStatuses(resp: StatusesResponse): Map<string, StatusRecord> {
  const out = new Map<string, StatusRecord>();
  for (const [key, v] of Object.entries(resp)) {
    if (key === 'environment' || !Array.isArray(v)) continue;
    for (const s of v as StatusRecord[]) if (s && typeof s.id === 'string') out.set(s.id, s);
  }
  return out;
}

/**
 * Billing restriction refusals are recognised by their message, since the API documents no
 * dedicated status code for them.
 */
export function billingHint(e: unknown): string | undefined {
  const msg = errorMessage(e);
  if (errorStatus(e) === 402 || /billing|credit card|NO_CREDIT_CARD/i.test(msg)) {
    return (
      "Deployments are blocked by the organization's billing restriction. Add a payment method (or ask an " +
      'organization admin to lift the restriction) in the console, or deploy to a demo cluster while on a free trial; ' +
      'then run apply again: the configuration changes are already applied and only the deployment will run.'
    );
  }
  return undefined;
}

/**
 * Deploys one stage and waits until every service in it is terminal in the deployment this call
 * requested (never another one: see OwnDeployment). Throws DeployFailedError.
 */
export async function deployStage(
  stage: StageDeploy,
  deps: { api: ApiPort; timing: Timing; onEvent: ApplyEventSink },
  opts: DeployOptions,
): Promise<DeployNotes> {
  const { api, timing, onEvent } = deps;
  const elapsed = () => Math.max(0, Math.round((timing.now() - opts.startedAt) / 1000));
  let response: { deployment_request_id?: string | null } | undefined;
  // When the request was made, on the API's time scale (give or take CLOCK_SKEW_MS): our entry in
  // the deployment history is the one created from then on.
  const sentAt = timing.wallNow?.() ?? Date.now();
  let adoptedRequestId: string | undefined;
  const send = () => api.post<{ deployment_request_id?: string | null }>(routes.environmentDeploy(stage.environmentId), deployRequestBody(stage.services));
  try {
    try {
      response = await send();
    } catch (e) {
      if (isAmbiguousFailure(e)) {
        // 5xx, dropped connection or timeout: the deploy may have been taken before the answer was
        // lost. If every service of the stage is now queued or deploying, follow that deployment;
        // else ask again, a few times (the API refuses a second one with 409 while one runs).
        let last: unknown = e;
        for (let tries = 1; ; tries++) {
          const statuses = collectStatuses(await api.get<StatusesResponse>(routes.environmentList(stage.environmentId, 'statuses')));
          if (stage.services.every((s) => IN_PROGRESS.test(statuses.get(s.id)?.state ?? ''))) {
            // The deployment now running is taken as ours: its request id (one for the whole
            // batch) is the one the lost answer carried. Statuses of different requests mean one
            // of them is not ours: the id stays unknown and the history decides (see OwnDeployment).
            adoptedRequestId = singleRequestId(stage.services.map((s) => statuses.get(s.id)));
            break;
          }
          if (tries > 3) throw last;
          try {
            response = await send();
            break;
          } catch (again) {
            if (!isAmbiguousFailure(again)) throw again;
            last = again;
          }
        }
      } else {
        // 409: a service is busy with another operation (an earlier, interrupted run's deployment,
        // or one started in the console). Wait until it ends, then deploy once more.
        if (errorStatus(e) !== 409) throw e;
        await waitUntilIdle(stage, deps, opts);
        response = await send();
      }
    }
  } catch (e) {
    // Not sent at all (the wait for the rate limit exceeds --max-wait): kept as it is, so that the
    // apply sees why and starts no further step.
    if (isRateLimitWaitRefusal(e)) throw e;
    const hint = billingHint(e);
    throw new DeployFailedError(
      stage.services.map((s) => ({ address: s.address, state: 'NOT_DEPLOYED', reason: `deploy refused: ${errorMessage(e)}`, logs: [] })),
      hint,
    );
  }
  const requestId = response?.deployment_request_id ?? adoptedRequestId;
  const own = new OwnDeployment(requestId, response === undefined && requestId === undefined);
  const lastState = new Map<string, string>();
  const pending = new Map(stage.services.map((s) => [s.id, s]));
  const failures: ServiceDeployFailure[] = [];
  const notes: DeployNotes = new Map();
  const stageStarted = timing.now();

  while (pending.size > 0) {
    if (timing.now() >= opts.deadline) {
      for (const s of pending.values()) {
        const state = lastState.get(s.id) ?? 'UNKNOWN';
        failures.push({
          address: s.address,
          state,
          reason: `timed out waiting for the deployment (last state ${state})`,
          logs: await lastLogLines(api, s, opts.logLines),
        });
      }
      break;
    }
    const delay = nextPollDelay(timing.now() - stageStarted, opts.pollIntervalMs, opts.maxPollIntervalMs);
    await timing.sleep(Math.min(delay, Math.max(0, opts.deadline - timing.now())), opts.signal);
    const statuses = collectStatuses(await api.get<StatusesResponse>(routes.environmentList(stage.environmentId, 'statuses')));
    own.learn(stage.services.map((s) => statuses.get(s.id)));
    // The environment's deployment history, read at most once per poll and only when a service
    // shows another request than ours: it holds the outcome of our request after another one
    // took the service's status over.
    let history: HistoryEntrySummary[] | undefined;
    const ourOutcome = async (serviceId: string, foreign: StatusRecord): Promise<string | undefined> => {
      history ??= await readHistory(api, stage.environmentId);
      // Our request's id was never seen on a status (our deployment ended before the first read):
      // the history tells which entry is ours.
      own.executionId ??= ourHistoryEntry(history, serviceId, sentAt, foreign, own.foreignExecutions)?.executionId;
      if (own.executionId === undefined) return undefined;
      return history.find((e) => e.executionId === own.executionId)?.services.get(serviceId);
    };
    if (own.fromHistoryOnly && own.executionId === undefined) {
      // The deploy's answer was lost and no single running request could be taken for ours: our
      // execution is the first one deploying a service of the stage since our request.
      history ??= await readHistory(api, stage.environmentId);
      const found = history;
      own.executionId = stage.services.map((s) => ourHistoryEntry(found, s.id, sentAt, {})).find((e) => e !== undefined)?.executionId;
    }
    for (const s of [...pending.values()]) {
      const st = statuses.get(s.id);
      if (!st?.state) continue;
      let state: string;
      if (own.owns(st)) {
        state = st.state;
        own.seenOn.add(s.id);
      } else {
        // Another deployment request is on the service: someone else's (a console user, another
        // apply). Its state is never ours. Ours either has not reached the service yet, or has
        // ended and the other one started since: the history says which.
        const foreign = String(st.deployment_request_id ?? st.execution_id);
        if (typeof st.execution_id === 'string' && st.execution_id !== own.executionId) own.foreignExecutions.add(st.execution_id);
        const outcome = await ourOutcome(s.id, st);
        if (outcome !== undefined) {
          state = outcome;
          if (deployStateOutcome(outcome) !== 'pending') {
            notes.set(s.address, `another deployment (request ${foreign}) started on it after this apply's deployment ended; driftless did not wait for it`);
          }
        } else if (own.seenOn.has(s.id)) {
          // Ours ran on this service and was replaced before its end could be read.
          pending.delete(s.id);
          failures.push({
            address: s.address,
            state: lastState.get(s.id) ?? 'UNKNOWN',
            reason: `another deployment (request ${foreign}) replaced this apply's deployment before its outcome could be read; see the service's deployment history`,
            logs: [],
          });
          continue;
        } else {
          state = 'DEPLOYMENT_QUEUED';
        }
      }
      if (lastState.get(s.id) !== state) {
        lastState.set(s.id, state);
        onEvent({ type: 'apply_progress', address: s.address, action: 'deploy', state, elapsed_seconds: elapsed() });
      }
      const outcome = deployStateOutcome(state);
      if (outcome === 'pending') continue;
      pending.delete(s.id);
      if (outcome === 'failure') {
        failures.push({ address: s.address, state, reason: `deployment ended in ${state}`, logs: await lastLogLines(api, s, opts.logLines) });
      }
    }
  }
  if (failures.length > 0) throw new DeployFailedError(failures, undefined, notes);
  return notes;
}

/**
 * The deployment this apply requested, identified by the request id the deploy answered, and
 * the execution id the statuses carry with it (one execution per request: learnt from any service
 * of the batch, or from the deployment history when no status of ours was ever seen).
 * When the deploy's answer was lost and no single running request could be taken for ours
 * (`fromHistoryOnly`), only the execution the history names is ours. Without a request id in an
 * answer that did arrive (an API that gives none), every status is taken as ours, as nothing
 * better can be known.
 */
export class OwnDeployment {
  executionId?: string;
  /** Services on which a status of our request was seen. */
  readonly seenOn = new Set<string>();
  /** Executions seen on the stage's services that are not ours (never taken from the history). */
  readonly foreignExecutions = new Set<string>();
  constructor(
    readonly requestId: string | undefined,
    readonly fromHistoryOnly = false,
  ) {}

  owns(st: StatusRecord): boolean {
    if (this.fromHistoryOnly) return this.executionId !== undefined && st.execution_id === this.executionId;
    return this.requestId === undefined || !st.deployment_request_id || st.deployment_request_id === this.requestId;
  }

  learn(statuses: Array<StatusRecord | undefined>): void {
    if (this.requestId === undefined || this.executionId !== undefined) return;
    for (const st of statuses) {
      if (st?.deployment_request_id === this.requestId && typeof st.execution_id === 'string' && st.execution_id !== '') {
        this.executionId = st.execution_id;
        return;
      }
    }
  }
}

/** The one request id every status carries, or undefined when they differ or one has none. */
function singleRequestId(statuses: Array<StatusRecord | undefined>): string | undefined {
  const ids = new Set(statuses.map((st) => st?.deployment_request_id ?? ''));
  const [only] = [...ids];
  return ids.size === 1 && only ? only : undefined;
}

/**
 * Tolerated difference between this machine's clock and the API's when matching our request to a
 * history entry by its creation time.
 */
export const CLOCK_SKEW_MS = 2000;

/** One deployment of the environment's history: its execution, start and per-service states. */
export interface HistoryEntrySummary {
  executionId: string;
  /** Epoch ms of `auditing_data.created_at` (or `created_at`); NaN when absent. */
  createdAt: number;
  /** service id -> the service's state in that deployment. */
  services: Map<string, string>;
}

type HistoryEntry = {
  created_at?: string;
  auditing_data?: { created_at?: string };
  identifier?: { execution_id?: string };
  stages?: Array<{ services?: Array<{ identifier?: { service_id?: string }; status?: string }> }>;
};

/**
 * Our deployment of `serviceId` in the history, when the statuses never showed our request: an
 * entry deploying that service, created at or after our request (`sentAt`, less the clock skew),
 * that is not the other request's. When the other request's entry is in the page, ours is the
 * latest such entry before it (the other one took the service after ours); else the earliest one
 * (ours came first, being accepted only while the service was free). Pure.
 */
export function ourHistoryEntry(
  history: HistoryEntrySummary[],
  serviceId: string,
  sentAt: number,
  foreign: Pick<StatusRecord, 'execution_id'>,
  foreignExecutions: ReadonlySet<string> = new Set(),
): HistoryEntrySummary | undefined {
  const isForeign = (e: HistoryEntrySummary) => e.executionId === foreign.execution_id || foreignExecutions.has(e.executionId);
  const theirs = history.find((e) => e.executionId === foreign.execution_id);
  const candidates = history
    .filter((e) => e.services.has(serviceId) && !isForeign(e) && e.createdAt >= sentAt - CLOCK_SKEW_MS)
    .filter((e) => theirs === undefined || !(e.createdAt > theirs.createdAt))
    .sort((a, b) => a.createdAt - b.createdAt);
  return theirs !== undefined ? candidates.at(-1) : candidates[0];
}

/** The latest page of the environment's deployment history (20 entries: ours is among them). */
async function readHistory(api: ApiPort, environmentId: string): Promise<HistoryEntrySummary[]> {
  let resp: unknown;
  try {
    resp = await api.get<unknown>(routes.deploymentHistory(environmentId));
  } catch {
    // Unreadable history: the outcome stays unknown and the service is treated as not ours yet.
    return [];
  }
  const entries = ((resp as { results?: unknown[] } | undefined)?.results ?? []) as HistoryEntry[];
  const out: HistoryEntrySummary[] = [];
  for (const e of entries) {
    const exec = e?.identifier?.execution_id;
    if (typeof exec !== 'string') continue;
    const services = new Map<string, string>();
    for (const st of e.stages ?? []) for (const sv of st.services ?? []) if (sv?.identifier?.service_id && typeof sv.status === 'string') services.set(sv.identifier.service_id, sv.status);
    out.push({ executionId: exec, createdAt: Date.parse(e.auditing_data?.created_at ?? e.created_at ?? ''), services });
  }
  return out;
}

/** Polls the environment's statuses until none of the stage's services has an operation running. */
async function waitUntilIdle(stage: StageDeploy, deps: { api: ApiPort; timing: Timing }, opts: DeployOptions): Promise<void> {
  let interval = opts.pollIntervalMs;
  const ids = new Set(stage.services.map((s) => s.id));
  while (deps.timing.now() < opts.deadline) {
    await deps.timing.sleep(Math.min(interval, Math.max(0, opts.deadline - deps.timing.now())), opts.signal);
    interval = Math.min(opts.maxPollIntervalMs, Math.round(interval * POLL_BACKOFF));
    const statuses = collectStatuses(await deps.api.get<StatusesResponse>(routes.environmentList(stage.environmentId, 'statuses')));
    const busy = [...ids].some((id) => {
      const state = statuses.get(id)?.state;
      return state !== undefined && IN_PROGRESS.test(state);
    });
    if (!busy) return;
  }
}

/** States of an operation still running (queued or in progress). */
const IN_PROGRESS = /(QUEUED|ING)$/;

async function lastLogLines(api: ApiPort, s: DeployTarget, n: number): Promise<string[]> {
  if (n <= 0) return [];
  try {
    const resp = await api.get<unknown>(routes.serviceLog(s.kind, s.id), { tail: n });
    const lines = Array.isArray(resp) ? resp : ((resp as { results?: unknown[] })?.results ?? []);
    return lines
      .slice(-n)
      .map((l) => (typeof l === 'string' ? l : String((l as { message?: unknown })?.message ?? '')))
      .filter((l) => l !== '');
  } catch {
    // Logs are a courtesy on the failure path; their absence must not hide the failure itself.
    return [];
  }
}
