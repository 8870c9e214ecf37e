/**
 * Read models of operations: a service's status record, an environment's status (EnvironmentStatus,
 * api-notes §0) and the one-call `GET /environment/{id}/statuses`.
 */
import type { EmulatorContext } from '../context.js';
import type { ApiRecord } from '../state.js';
import { servicesOfEnvironment } from '../variables/builtins.js';
import { type Operation } from './engine.js';
import { environmentEntry, statusOf } from './effects.js';

const KIND_LISTS: Record<string, string> = {
  APPLICATION: 'applications',
  CONTAINER: 'containers',
  JOB: 'jobs',
  DATABASE: 'databases',
  HELM: 'helms',
  TERRAFORM: 'terraforms',
};

function ongoingOperation(ctx: EmulatorContext, environmentId: string): Operation | undefined {
  let found: Operation | undefined;
  for (const id in ctx.state.operations) {
    const op = ctx.state.operations[id] as Operation;
    if (op.environment_id === environmentId && (!found || op.started_at > found.started_at)) found = op;
  }
  return found;
}

/** NEVER_DEPLOYED when nothing was deployed, OUT_OF_DATE when any service is, else UP_TO_DATE. */
function aggregateDeploymentStatus(statuses: ApiRecord[]): string {
  if (statuses.some((s) => s.service_deployment_status === 'OUT_OF_DATE')) return 'OUT_OF_DATE';
  if (statuses.length === 0 || statuses.every((s) => s.service_deployment_status === 'NEVER_DEPLOYED')) return 'NEVER_DEPLOYED';
  return statuses.some((s) => s.service_deployment_status === 'NEVER_DEPLOYED') ? 'OUT_OF_DATE' : 'UP_TO_DATE';
}

export function environmentStatus(ctx: EmulatorContext, environmentId: string, statuses?: ApiRecord[]): ApiRecord {
  const history = ctx.state.environmentHistory[environmentId] ?? [];
  const last = history.at(-1);
  const op = ongoingOperation(ctx, environmentId);
  const current = op ? environmentEntry(ctx, op, ctx.clock.now().getTime()) : last;
  const serviceStatuses = statuses ?? servicesOfEnvironment(ctx.state, environmentId).map((s) => statusOf(ctx, s.id));
  const started = last ? Date.parse(last.auditing_data?.created_at) : NaN;
  const ended = last ? Date.parse(last.auditing_data?.updated_at) : NaN;
  return {
    id: environmentId,
    created_at: last?.auditing_data?.created_at ?? ctx.nowIso(),
    state: current?.status ?? 'READY',
    last_deployment_date: last?.auditing_data?.updated_at ?? null,
    last_deployment_state: last?.status ?? 'READY',
    last_deployment_id: last?.identifier?.execution_id ?? null,
    total_deployment_duration_in_seconds: Number.isFinite(started) && Number.isFinite(ended) ? Math.round((ended - started) / 1000) : null,
    origin: 'API',
    triggered_by: last?.auditing_data?.triggered_by ?? null,
    deployment_status: aggregateDeploymentStatus(serviceStatuses),
    deployment_request_id: op?.deployment_request_id ?? last?.deployment_request_id ?? null,
    metrics: [],
  };
}

/**
 * The `Status` record the real service answers to `POST /environment/{id}/deploy` and
 * `POST /environment/{id}/service/restart-service` (deployEnvironment, rebootServices: 202 Status,
 * unlike stop/redeploy/service/deploy, which answer an EnvironmentStatus): the environment's id and
 * state, with the request just queued.
 */
export function environmentActionStatus(ctx: EmulatorContext, environmentId: string, action: 'DEPLOY' | 'RESTART'): Record<string, unknown> {
  const env = environmentStatus(ctx, environmentId);
  const op = ongoingOperation(ctx, environmentId);
  return {
    id: environmentId,
    state: env.state,
    service_deployment_status: env.deployment_status,
    last_deployment_date: env.last_deployment_date ?? undefined,
    is_part_last_deployment: true,
    ...(op ? { execution_id: op.execution_id } : {}),
    status_details: { action, status: op ? 'QUEUED' : 'SUCCESS', sub_action: 'NONE' },
    deployment_request_id: env.deployment_request_id ?? null,
    deployment_requests_count: op ? 1 : 0,
  };
}

export function environmentStatuses(ctx: EmulatorContext, environmentId: string): Record<string, unknown> {
  const out: Record<string, ApiRecord[]> = { applications: [], containers: [], jobs: [], databases: [], helms: [], terraforms: [] };
  const all: ApiRecord[] = [];
  for (const svc of servicesOfEnvironment(ctx.state, environmentId)) {
    const list = KIND_LISTS[String(svc.service_type)];
    if (!list) continue;
    const st = statusOf(ctx, svc.id);
    out[list].push(st);
    all.push(st);
  }
  return { environment: environmentStatus(ctx, environmentId, all), ...out };
}
