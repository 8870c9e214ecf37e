/**
 * The variables part of the emulator: the route plugin and the initializer that keeps variables
 * in step with the resources they belong to (a deleted project, environment or service takes its
 * variables, and their aliases and overrides elsewhere, with it).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { syncBuiltIns, forgetSynced } from './builtins.js';
import { forgetService, removeVariablesOf, variableDeps } from './cascade.js';
import { trackServices } from './services-by-environment.js';
import { importVariableRoutes } from './import-routes.js';
import { legacyVariableRoutes, unifiedVariableRoutes } from './routes.js';

export { forgetService, markParentOutOfDate, removeVariablesOf, variableDeps } from './cascade.js';
export { ensureBuiltIns, servicesOfEnvironment, shortId, syncBuiltIns } from './builtins.js';
export { servicesIndex } from './services-by-environment.js';
export { variableIndex } from './variable-index.js';

export function variableRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  unifiedVariableRoutes(app, ctx);
  legacyVariableRoutes(app, ctx);
  importVariableRoutes(app, ctx);
}

export function initVariables(ctx: EmulatorContext): void {
  const deps = variableDeps(ctx);
  // Built-ins follow the services: created, renamed (configuration change) or deleted.
  trackServices(ctx, (serviceId, environmentId) => {
    if (!ctx.state.services[serviceId]) forgetService(ctx, serviceId, environmentId);
    else if (environmentId) syncBuiltIns(deps, environmentId);
  });
  ctx.events.on('deleted', ({ kind, id }) => {
    if (kind !== 'environment' && kind !== 'project') return;
    removeVariablesOf(ctx, id);
    if (kind === 'environment') forgetSynced(ctx.state, id);
  });
}
