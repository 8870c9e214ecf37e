/**
 * What other parts of the emulator do to variables: remove them with their owner, and mark the
 * services that see a changed variable OUT_OF_DATE.
 */
import type { EmulatorContext } from '../context.js';
import { removeWithDependents, servicesOfEnvironment, syncBuiltIns } from './builtins.js';
import { projectIdOfEnvironment, type VariableParent } from './scopes.js';
import { servicesIndex } from './services-by-environment.js';
import type { VariableDeps } from './rules.js';
import { variableIndex } from './variable-index.js';
import { kindOfType } from '../services/kinds.js';

export function variableDeps(ctx: EmulatorContext): VariableDeps {
  return { state: ctx.state, index: variableIndex(ctx.state), nowIso: ctx.nowIso, newId: ctx.newId };
}

/** Removes every variable owned by `parentId` (and their aliases and overrides elsewhere). */
export function removeVariablesOf(ctx: EmulatorContext, parentId: string): void {
  const index = variableIndex(ctx.state);
  for (const v of index.ofParent(parentId)) removeWithDependents(index, v.id);
}

/**
 * Cleans up after a service left the state: its own variables, and the BUILT_IN variables its
 * environment carried for it (with any alias or override pointing at them).
 */
export function forgetService(ctx: EmulatorContext, serviceId: string, environmentId: string | undefined): void {
  removeVariablesOf(ctx, serviceId);
  const index = variableIndex(ctx.state);
  if (environmentId) {
    syncBuiltIns(variableDeps(ctx), environmentId);
    return;
  }
  // The environment is unknown (the service was never indexed): look for its built-ins.
  for (const id in ctx.state.variables) {
    const v = ctx.state.variables[id];
    if (v.variable_type === 'BUILT_IN' && v.service_id === serviceId) removeWithDependents(index, v.id);
  }
}

/**
 * Marks every deployed service that sees variables of `parent` as OUT_OF_DATE. A database sees no
 * variable (it is not given the environment's variables, and has none of its own), so a variable
 * change never makes it out of date.
 */
export function markParentOutOfDate(ctx: EmulatorContext, parent: VariableParent): void {
  const state = ctx.state;
  if (parent.service) {
    ctx.hooks.markOutOfDate(ctx, parent.service.id);
    return;
  }
  if (parent.scope === 'ENVIRONMENT') {
    for (const svc of servicesOfEnvironment(state, parent.id)) if (seesVariables(svc)) ctx.hooks.markOutOfDate(ctx, svc.id);
    return;
  }
  const index = servicesIndex(state);
  for (const envId of index.environments()) {
    const env = state.environments[envId];
    if (!env || projectIdOfEnvironment(env) !== parent.id) continue;
    for (const svc of index.of(envId)) if (seesVariables(svc)) ctx.hooks.markOutOfDate(ctx, svc.id);
  }
}

/** A service of a kind that holds no variables sees none of its parents' either (services/kinds.ts: a database). */
function seesVariables(service: Record<string, unknown>): boolean {
  return kindOfType(service.service_type)?.holdsVariables ?? true;
}
