/**
 * Service log lines (`GET /<kind>/{id}/log?tail=N`): what a deployment prints, one or more lines per
 * state it enters. The real service keeps the last 1000 lines; so does the emulator.
 */
import type { EmulatorContext } from '../context.js';
import type { ApiRecord } from '../state.js';
import { shortId } from '../variables/builtins.js';
import type { OpService, Operation } from './engine.js';

export const MAX_LOG_LINES = 1000;

export interface LogLine {
  at: number;
  message: string;
}

export function linesFor(op: Operation, s: OpService, svc: ApiRecord | undefined, state: string, at: number): LogLine[] {
  const name = s.name;
  const version = s.version?.git_commit_id ?? s.version?.image_tag ?? s.version?.chart_version;
  const line = (message: string): LogLine => ({ at, message });
  switch (state) {
    case 'DEPLOYMENT_QUEUED':
      return [line(`Deployment request ${op.deployment_request_id} queued for ${name} (execution ${op.execution_id})`)];
    case 'BUILDING':
      return [
        line(`Cloning ${svc?.git_repository?.url ?? 'repository'} (branch ${svc?.git_repository?.branch ?? 'main'})${version ? ` at ${version}` : ''}`),
        line(`Building image with ${svc?.dockerfile_path ?? 'Dockerfile'}`),
      ];
    case 'DEPLOYING':
      return [line(`Deploying ${name}${version ? ` version ${version}` : ''}`)];
    case 'DEPLOYED':
      return [line(`Deployment of ${name} succeeded`)];
    case 'BUILD_ERROR':
      return [line(`Build of ${name} failed: the build step exited with code 1 (simulated failure: --fail-deploy)`)];
    case 'DEPLOYMENT_ERROR':
      return [line(`Deployment of ${name} failed: the readiness probe never succeeded (simulated failure: --fail-deploy)`)];
    case 'STOP_QUEUED':
    case 'RESTART_QUEUED':
    case 'DELETE_QUEUED':
      return [line(`${op.action[0]}${op.action.slice(1).toLowerCase()} request ${op.deployment_request_id} queued for ${name}`)];
    case 'STOPPING':
      return [line(`Stopping ${name}`)];
    case 'STOPPED':
      return [line(`${name} stopped`)];
    case 'RESTARTING':
      return [line(`Restarting ${name}`)];
    case 'RESTARTED':
      return [line(`${name} restarted`)];
    case 'DELETING':
      return [line(`Deleting ${name}`)];
    default:
      return [line(`${name}: ${state}`)];
  }
}

export function appendLog(ctx: EmulatorContext, serviceId: string, lines: LogLine[]): void {
  if (lines.length === 0) return;
  const podName = `${shortId(serviceId).toLowerCase()}-${serviceId.slice(0, 5)}`;
  const existing = ctx.state.logs[serviceId] ?? [];
  const added = lines.map((l) => ({ id: ctx.newId(), created_at: new Date(l.at).toISOString(), message: l.message, pod_name: podName }));
  const all = existing.length + added.length > MAX_LOG_LINES ? [...existing, ...added].slice(-MAX_LOG_LINES) : [...existing, ...added];
  ctx.state.logs[serviceId] = all;
}

export function tail(lines: ApiRecord[] | Array<{ id: string }> | undefined, n: number | undefined): unknown[] {
  const all = lines ?? [];
  if (n === undefined) return all;
  return n <= 0 ? [] : all.slice(-n);
}
