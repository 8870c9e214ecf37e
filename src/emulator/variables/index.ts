/**
 * The variables part of the emulator: the route plugin and the initializer that keeps variables
 * in step with the resources they belong to (a deleted project, environment or service takes its
 * variables, and their aliases and overrides elsewhere, with it).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { forgetService, removeVariablesOf } from './cascade.js';
import { legacyVariableRoutes, unifiedVariableRoutes } from './routes.js';

export { forgetService, markParentOutOfDate, removeVariablesOf, variableDeps } from './cascade.js';
export { syncBuiltIns, shortId } from './builtins.js';
export { variableIndex } from './variable-index.js';

export function variableRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  unifiedVariableRoutes(app, ctx);
  legacyVariableRoutes(app, ctx);
}

export function initVariables(ctx: EmulatorContext): void {
  ctx.events.on('deleted', ({ kind, id }) => {
    if (kind === 'service') forgetService(ctx, id);
    else if (kind === 'environment' || kind === 'project') removeVariablesOf(ctx, id);
  });
}
