/**
 * Deployment stage rules shared by the environment, service and stage routes: an environment always
 * has at least one stage; every new service lands in the first one; a service is in exactly one
 * stage of its environment; `deployment_order` is the 0-based position, kept contiguous.
 */
import type { EmulatorContext } from './context.js';
import type { ApiRecord } from './state.js';
import { newRecord, nextTimestamp } from './store.js';

export const DEFAULT_STAGE_NAME = 'DEFAULT';

export function stagesOf(ctx: EmulatorContext, environmentId: string): ApiRecord[] {
  return Object.values(ctx.state.deploymentStages)
    .filter((s) => s.environment?.id === environmentId)
    .sort((a, b) => a.deployment_order - b.deployment_order);
}

export function createStage(ctx: EmulatorContext, environmentId: string, name: string, description: string | null): ApiRecord {
  const order = stagesOf(ctx, environmentId).length;
  const stage = newRecord(ctx, { environment: { id: environmentId }, name, description, deployment_order: order, services: [] });
  ctx.state.deploymentStages[stage.id] = stage;
  return stage;
}

export function firstStage(ctx: EmulatorContext, environmentId: string): ApiRecord {
  return stagesOf(ctx, environmentId)[0] ?? createStage(ctx, environmentId, DEFAULT_STAGE_NAME, 'Default deployment stage');
}

/** Puts the service into `stageId`, removing it from any other stage of the environment. */
export function placeService(ctx: EmulatorContext, stageId: string, service: ApiRecord, isSkipped = false): void {
  const envId = service.environment.id;
  for (const stage of stagesOf(ctx, envId)) {
    const members = stage.services as ApiRecord[];
    if (stage.id === stageId) continue;
    if (members.some((m) => m.service_id === service.id)) {
      ctx.state.deploymentStages[stage.id] = {
        ...stage,
        services: members.filter((m) => m.service_id !== service.id),
        updated_at: nextTimestamp(ctx, stage.updated_at),
      };
    }
  }
  const target = ctx.state.deploymentStages[stageId];
  const now = ctx.nowIso();
  const members = (target.services as ApiRecord[]).filter((m) => m.service_id !== service.id);
  members.push({ id: ctx.newId(), created_at: now, updated_at: now, service_id: service.id, service_type: service.service_type, is_skipped: isSkipped });
  ctx.state.deploymentStages[stageId] = { ...target, services: members, updated_at: nextTimestamp(ctx, target.updated_at) };
}

/** Rewrites deployment_order of the environment's stages to follow `ordered`. */
export function renumber(ctx: EmulatorContext, ordered: ApiRecord[]): void {
  ordered.forEach((stage, i) => {
    const current = ctx.state.deploymentStages[stage.id];
    if (current && current.deployment_order !== i) {
      ctx.state.deploymentStages[stage.id] = { ...current, deployment_order: i, updated_at: nextTimestamp(ctx, current.updated_at) };
    }
  });
}

export function stageOfService(ctx: EmulatorContext, serviceId: string): ApiRecord | undefined {
  return Object.values(ctx.state.deploymentStages).find((s) => (s.services as ApiRecord[]).some((m) => m.service_id === serviceId));
}
