/**
 * What a transition of an operation does to the rest of the state: the service's status record,
 * its and its environment's deployment history, its log lines, the deployment events webhooks
 * listen to, and, at the end of a delete, the removal of the service.
 */
import { createHash } from 'node:crypto';
import { removeServiceNow, type EmulatorContext } from '../context.js';
import { initialServiceStatus } from '../service-status.js';
import type { ApiRecord } from '../state.js';
import { shortId } from '../variables/builtins.js';
import { projectIdOfEnvironment } from '../variables/scopes.js';
import type { OpService, Operation, OperationEffects } from './engine.js';
import { currentState } from './engine.js';
import { upsertEntry } from './history.js';
import { appendLog, linesFor } from './logs.js';
import { TERMINAL_STATES, detailStatus, isErrorState, isoDuration } from './timeline.js';
import { recordOutcome } from './audit.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function statusOf(ctx: EmulatorContext, serviceId: string): ApiRecord {
  return ctx.state.serviceStatuses[serviceId] ?? initialServiceStatus(serviceId);
}

/** A fake but stable commit id for a deployment that did not pin one. */
export function headCommit(svc: ApiRecord): string {
  return createHash('sha1').update(`${svc.id}:${svc.git_repository?.branch ?? 'main'}`).digest('hex');
}

function versionLabel(svc: ApiRecord, s: OpService): string | undefined {
  return s.version?.git_commit_id ?? s.version?.image_tag ?? s.version?.chart_version ?? svc.tag ?? svc.git_repository?.deployed_commit_id;
}

/** The history's schedule leaves unset hooks and fields out (JobLifecyleSchedule has no nullable field). */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, withoutNulls(x)]));
}

function commitOf(op: Operation, commit: string, url: unknown): Record<string, string> {
  return {
    created_at: iso(op.started_at),
    git_commit_id: commit,
    tag: commit.slice(0, 7),
    message: `Deploy ${commit.slice(0, 7)}`,
    author_name: 'driftless emulator',
    author_avatar_url: '',
    commit_page_url: `${String(url ?? '').replace(/\.git$/, '')}/commit/${commit}`,
  };
}

export function serviceEntry(ctx: EmulatorContext, op: Operation, s: OpService, svc: ApiRecord | undefined, at: number): ApiRecord {
  const state = s.phase === -2 ? 'CANCELED' : currentState(s);
  const details: Record<string, unknown> = {};
  if (svc?.git_repository) {
    const commit = s.version?.git_commit_id ?? headCommit(svc);
    details.commit = commitOf(op, commit, svc.git_repository.url);
    details.build_pod_name = `${shortId(s.service_id).toLowerCase()}-build-${op.execution_id.slice(0, 8)}`;
  } else if (svc?.service_type === 'CONTAINER') {
    // The reference's ContainerDeploymentHistoryData: image_name, tag, arguments (required), entrypoint.
    details.image_name = svc.image_name;
    details.tag = s.version?.image_tag ?? svc.tag;
    details.arguments = Array.isArray(svc.arguments) ? svc.arguments : [];
    if (typeof svc.entrypoint === 'string') details.entrypoint = svc.entrypoint;
  } else if (svc?.service_type === 'JOB') {
    // JobDeploymentHistoryDetails: image_name, tag, job_type (required), schedule; a job built from
    // git also has the commit and its build pod, its image being named after the job.
    const image = svc.source?.image;
    const git = svc.source?.docker?.git_repository;
    if (git) {
      const commit = s.version?.git_commit_id ?? git.deployed_commit_id ?? headCommit({ ...svc, git_repository: git });
      details.commit = commitOf(op, commit, git.url);
      details.build_pod_name = `${shortId(s.service_id).toLowerCase()}-build-${op.execution_id.slice(0, 8)}`;
      details.image_name = svc.name;
      details.tag = commit;
    } else {
      details.image_name = image?.image_name ?? svc.name;
      details.tag = s.version?.image_tag ?? image?.tag ?? '';
    }
    details.job_type = svc.job_type;
    if (svc.schedule) details.schedule = withoutNulls(svc.schedule);
  } else if (svc?.service_type === 'HELM' && svc.source?.repository) {
    // HelmDeploymentHistoryDetails: the chart deployed.
    details.repository = { chart_name: svc.source.repository.chart_name, chart_version: s.version?.chart_version ?? svc.source.repository.chart_version };
  }
  const started = s.started_at ?? op.started_at;
  return {
    id: op.execution_id,
    created_at: iso(op.started_at),
    identifier: { name: s.name, service_id: s.service_id, service_type: s.service_type, execution_id: op.execution_id },
    status: state,
    auditing_data: { created_at: iso(op.started_at), updated_at: iso(at), triggered_by: op.triggered_by, origin: op.origin ?? 'API' },
    details,
    status_details: { action: op.action, status: detailStatus(state), sub_action: s.sub_action },
    icon_uri: svc?.icon_uri ?? `app://qovery-console/${s.service_type.toLowerCase()}`,
    total_duration: isoDuration(Math.max(0, at - started)),
  };
}

function aggregateState(op: Operation): string {
  const states = Object.values(op.services).map((s) => (s.phase === -2 ? 'CANCELED' : currentState(s)));
  const error = states.find(isErrorState);
  const running = states.filter((st) => !st.endsWith('QUEUED') && detailStatus(st) === 'ONGOING');
  if (op.stage < op.stages.length) return running[0] ?? states.find((st) => st.endsWith('QUEUED')) ?? states[0];
  return error ?? states.find((st) => st !== 'CANCELED') ?? 'CANCELED';
}

export function environmentEntry(ctx: EmulatorContext, op: Operation, at: number): ApiRecord {
  const status = aggregateState(op);
  return {
    id: op.execution_id,
    created_at: iso(op.started_at),
    identifier: { execution_id: op.execution_id, environment_id: op.environment_id },
    auditing_data: { created_at: iso(op.started_at), updated_at: iso(at), triggered_by: op.triggered_by, origin: op.origin ?? 'API' },
    status,
    trigger_action: op.action,
    total_duration: isoDuration(at - op.started_at),
    stages: op.stages.map((st) => {
      const states = st.service_ids.map((id) => (op.services[id].phase === -2 ? 'CANCELED' : op.services[id].phase < 0 ? 'QUEUED' : currentState(op.services[id])));
      // Stage statuses are the reference's StageStatusEnum: QUEUED (seed 2.10's observed value),
      // ONGOING, DONE, ERROR, CANCELED (SKIPPED is never produced).
      const stStatus = st.started_at === undefined ? (states.every((x) => x === 'CANCELED') ? 'CANCELED' : 'QUEUED') : (states.some(isErrorState) ? 'ERROR' : st.finished_at !== undefined ? 'DONE' : 'ONGOING');
      return {
        name: st.name,
        status: stStatus,
        duration: isoDuration((st.finished_at ?? at) - (st.started_at ?? at)),
        services: st.service_ids.map((id) => serviceEntry(ctx, op, op.services[id], ctx.state.services[id], at)),
      };
    }),
    // Not part of the published entry (the serializer drops it); read by the environment status.
    deployment_request_id: op.deployment_request_id,
    action_status: op.stage < op.stages.length ? (op.stages[0].started_at === undefined ? 'QUEUED' : 'ONGOING') : detailStatus(status),
  };
}

function recordHistory(ctx: EmulatorContext, op: Operation, s: OpService, at: number): void {
  const svc = ctx.state.services[s.service_id];
  if (svc) ctx.state.serviceHistory[s.service_id] = upsertEntry(ctx.state.serviceHistory[s.service_id], serviceEntry(ctx, op, s, svc, at));
  recordEnvironmentHistory(ctx, op, at);
}

/** The environment's entry for this operation (unless the environment itself was deleted meanwhile). */
function recordEnvironmentHistory(ctx: EmulatorContext, op: Operation, at: number): void {
  if (!ctx.state.environments[op.environment_id]) return;
  ctx.state.environmentHistory[op.environment_id] = upsertEntry(ctx.state.environmentHistory[op.environment_id], environmentEntry(ctx, op, at));
}

function setStatus(ctx: EmulatorContext, op: Operation, s: OpService, state: string, at: number): void {
  const prev = statusOf(ctx, s.service_id);
  const terminal = detailStatus(state) !== 'QUEUED' && detailStatus(state) !== 'ONGOING';
  const next: ApiRecord = {
    ...prev,
    id: s.service_id,
    state,
    is_part_last_deployment: true,
    status_details: { action: op.action, status: detailStatus(state), sub_action: s.sub_action },
    deployment_request_id: op.deployment_request_id,
    deployment_requests_count: terminal ? 0 : 1,
    execution_id: op.execution_id,
  };
  if (op.action === 'DEPLOY' && state === 'DEPLOYED') {
    next.service_deployment_status = s.changed_during ? 'OUT_OF_DATE' : 'UP_TO_DATE';
  }
  if (terminal && state !== 'CANCELED') {
    next.last_deployment_date = iso(at);
    const started = s.started_at ?? op.started_at;
    const secs = Math.round((at - started) / 1000);
    next.steps = {
      total_duration_sec: secs,
      total_computing_duration_sec: secs,
      details: s.phases.slice(0, -1).map((p, i) => ({
        // The reference's ServiceStepMetricNameEnum: the queued phase is REGISTRY_CREATE_REPOSITORY
        // (seed 2.9's observed step), a build BUILD, the deploy/stop/restart/delete work DEPLOYMENT.
        step_name: p.state === 'BUILDING' ? 'BUILD' : p.state.endsWith('QUEUED') ? 'REGISTRY_CREATE_REPOSITORY' : 'DEPLOYMENT',
        status: isErrorState(state) && i === s.phases.length - 2 ? 'ERROR' : 'SUCCESS',
        duration_sec: Math.round(p.ms / 1000),
      })),
    };
  }
  ctx.state.serviceStatuses[s.service_id] = next;
}

/** Records what the deployment installed: the commit of a git service, the tag of a container. */
function applyDeployedVersion(ctx: EmulatorContext, s: OpService): void {
  const svc = ctx.state.services[s.service_id];
  if (!svc) return;
  if (svc.service_type === 'CONTAINER' && s.version?.image_tag && svc.tag !== s.version.image_tag) {
    ctx.state.services[svc.id] = { ...svc, tag: s.version.image_tag };
  } else if (svc.git_repository && typeof svc.git_repository === 'object') {
    const commit = s.version?.git_commit_id ?? headCommit(svc);
    ctx.state.services[svc.id] = { ...svc, git_repository: { ...svc.git_repository, deployed_commit_id: commit, deployed_commit_date: new Date(ctx.clock.now()).toISOString() } };
  } else if (svc.service_type === 'HELM' && svc.source?.git?.git_repository && typeof svc.source.git.git_repository === 'object') {
    // A chart kept in git: its repository lives in source.git (HelmResponse), not at the top.
    const commit = s.version?.git_commit_id ?? headCommit(svc);
    const git = { ...svc.source.git.git_repository, deployed_commit_id: commit, deployed_commit_date: new Date(ctx.clock.now()).toISOString() };
    ctx.state.services[svc.id] = { ...svc, source: { git: { ...svc.source.git, git_repository: git } } };
  } else if (svc.service_type === 'JOB' && svc.source?.docker?.git_repository && typeof svc.source.docker.git_repository === 'object') {
    // A job built from git: its repository is source.docker's (JobResponse), like the history's commit above.
    const repo = svc.source.docker.git_repository;
    const commit = s.version?.git_commit_id ?? headCommit({ ...svc, git_repository: repo });
    const git = { ...repo, deployed_commit_id: commit, deployed_commit_date: new Date(ctx.clock.now()).toISOString() };
    ctx.state.services[svc.id] = { ...svc, source: { ...svc.source, docker: { ...svc.source.docker, git_repository: git } } };
  } else if (svc.service_type === 'TERRAFORM' && svc.terraform_files_source?.git_repository && typeof svc.terraform_files_source.git_repository === 'object') {
    // A terraform service's code: terraform_files_source.git_repository (TerraformResponse).
    const repo = svc.terraform_files_source.git_repository;
    const commit = s.version?.git_commit_id ?? headCommit({ ...svc, git_repository: repo });
    const git = { ...repo, deployed_commit_id: commit, deployed_commit_date: new Date(ctx.clock.now()).toISOString() };
    ctx.state.services[svc.id] = { ...svc, terraform_files_source: { ...svc.terraform_files_source, git_repository: git } };
  }
}

function emitDeployment(ctx: EmulatorContext, op: Operation, s: OpService, eventType: 'DEPLOYMENT_STARTED' | 'DEPLOYMENT_SUCCEEDED' | 'DEPLOYMENT_FAILED', at: number): void {
  const env = ctx.state.environments[op.environment_id];
  ctx.events.emit('deployment', {
    event_type: eventType,
    service_id: s.service_id,
    service_type: s.service_type,
    service_name: s.name,
    environment_id: op.environment_id,
    project_id: String((env && projectIdOfEnvironment(env)) ?? ''),
    organization_id: ctx.state.organization.id,
    execution_id: op.execution_id,
    at: iso(at),
  });
}

export function operationEffects(ctx: EmulatorContext): OperationEffects & { onQueued(op: Operation, s: OpService, at: number): void } {
  return {
    /** A service of a later stage is queued at once: its stage has not started yet. */
    onQueued(op, s, at) {
      const svc = ctx.state.services[s.service_id];
      if (!svc) return;
      const state = s.phases[0].state;
      setStatus(ctx, op, s, state, at);
      recordHistory(ctx, op, s, at);
      appendLog(ctx, s.service_id, linesFor(op, s, svc, state, at));
    },
    onPhase(op, s, at) {
      const state = currentState(s);
      const svc = ctx.state.services[s.service_id];
      if (state === 'DELETED') {
        recordHistory(ctx, op, s, at);
        recordOutcome(ctx, op, s, state, svc);
        // removeServiceNow announces the deletion; the variables part drops the service's variables.
        removeServiceNow(ctx, s.service_id);
        delete ctx.state.serviceHistory[s.service_id];
        delete ctx.state.logs[s.service_id];
        return;
      }
      if (!svc) return; // deleted by someone else meanwhile: nothing left to update
      setStatus(ctx, op, s, state, at);
      if (op.action === 'DEPLOY' && state === 'DEPLOYED') applyDeployedVersion(ctx, s);
      recordHistory(ctx, op, s, at);
      appendLog(ctx, s.service_id, linesFor(op, s, svc, state, at));
      if (TERMINAL_STATES.has(state)) recordOutcome(ctx, op, s, state, svc);
      if (op.action === 'DEPLOY') {
        if (s.phase === 0) emitDeployment(ctx, op, s, 'DEPLOYMENT_STARTED', at);
        else if (state === 'DEPLOYED') emitDeployment(ctx, op, s, 'DEPLOYMENT_SUCCEEDED', at);
        else if (isErrorState(state)) emitDeployment(ctx, op, s, 'DEPLOYMENT_FAILED', at);
      }
    },
    onCanceled(op, s, at) {
      if (!ctx.state.services[s.service_id]) return;
      setStatus(ctx, op, s, 'CANCELED', at);
      recordOutcome(ctx, op, s, 'CANCELED', ctx.state.services[s.service_id]);
      recordHistory(ctx, op, s, at);
      appendLog(ctx, s.service_id, [{ at, message: `Deployment canceled: an earlier deployment stage failed (execution ${op.execution_id})` }]);
    },
    onFinished(op, at) {
      recordEnvironmentHistory(ctx, op, at);
      const outcome = Object.values(op.services).map((sv) => `${sv.name}=${sv.phase === -2 ? 'CANCELED' : currentState(sv)}`).join(' ');
      ctx.logger.info(`${op.action.toLowerCase()} ${op.execution_id} finished: ${outcome}`);
    },
  };
}
