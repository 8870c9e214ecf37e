/**
 * The asynchronous-operations part of the emulator: its route plugin, and the initializer that
 * installs the ops hooks (asynchronous service deletion, OUT_OF_DATE marking) and resumes the
 * operations found in the state after a restart with --data.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import type { ApiRecord } from '../state.js';
import { environmentIdOfService } from '../variables/scopes.js';
import { databaseRoutes } from './database-routes.js';
import { type Operation, busyServices, drive } from './engine.js';
import { operationEffects } from './effects.js';
import { environmentActionRoutes } from './environment-routes.js';
import { serviceActionRoutes } from './service-routes.js';
import { startOperation } from './start.js';

export { BILLING_REFUSAL_STATUS, startOperation } from './start.js';
export { environmentStatus, environmentStatuses } from './status-view.js';
export { statusOf } from './effects.js';

export function opsRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  serviceActionRoutes(app, ctx);
  environmentActionRoutes(app, ctx);
  databaseRoutes(app, ctx);
}

/**
 * A deployed service whose configuration or variables changed becomes OUT_OF_DATE; if a deployment
 * of it is running, that deployment ends OUT_OF_DATE too (it deploys the configuration it started
 * with).
 */
export function markOutOfDate(ctx: EmulatorContext, serviceId: string): void {
  const st = ctx.state.serviceStatuses[serviceId];
  if (st && st.service_deployment_status === 'UP_TO_DATE') {
    ctx.state.serviceStatuses[serviceId] = { ...st, service_deployment_status: 'OUT_OF_DATE' };
  }
  const op = busyServices(ctx.state.operations).get(serviceId);
  if (op && op.action === 'DEPLOY' && !op.services[serviceId].changed_during) {
    const copy = structuredClone(op) as Operation;
    copy.services[serviceId].changed_during = true;
    ctx.state.operations[op.id] = copy;
  }
}

/** DELETE /<kind>/{id}: DELETE_QUEUED -> DELETING -> gone, in the background (409 when busy). */
export function deleteServiceAsync(ctx: EmulatorContext, serviceId: string): void {
  const svc: ApiRecord | undefined = ctx.state.services[serviceId];
  if (!svc) return;
  const environmentId = environmentIdOfService(svc);
  if (!environmentId) return;
  startOperation(ctx, { action: 'DELETE', environmentId, services: [{ service: svc }], staged: false });
}

export function initOps(ctx: EmulatorContext): void {
  ctx.hooks.deleteService = deleteServiceAsync;
  ctx.hooks.markOutOfDate = markOutOfDate;
  ctx.events.on('serviceConfigChanged', ({ service_id, redeploy }) => {
    if (redeploy !== false) markOutOfDate(ctx, service_id);
  });
  const fx = operationEffects(ctx);
  // Operations interrupted by a restart: catch up on the transitions that fell due meanwhile
  // (stamped at their due time), then carry on with timers.
  for (const id of Object.keys(ctx.state.operations)) drive(ctx, id, fx);
  ctx.commit();
}
