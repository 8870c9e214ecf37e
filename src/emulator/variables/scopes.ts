/**
 * Variable scopes and the parents they hang off (seed 2.1, 2.2; api-notes §6).
 *
 * The hierarchy is PROJECT > ENVIRONMENT > service. A variable is visible from its own parent and
 * from everything below it; aliases and overrides may only point upwards (to a strictly higher
 * level that is an ancestor of their own parent).
 */
import type { ApiRecord, EmulatorState } from '../state.js';
import { KINDS } from '../services/kinds.js';

/** The service kinds that hold variables, by scope (services/kinds.ts: a database holds none). */
export const SERVICE_SCOPES: readonly string[] = KINDS.filter((k) => k.holdsVariables).map((k) => k.type);
/** A service kind's `type` (SERVICE_SCOPES). */
export type ServiceScope = string;
export const CREATABLE_SCOPES = ['PROJECT', 'ENVIRONMENT', ...SERVICE_SCOPES] as const;
export type CreatableScope = (typeof CREATABLE_SCOPES)[number];
export const ALL_SCOPES = [...CREATABLE_SCOPES, 'BUILT_IN'] as const;
export type VariableScope = (typeof ALL_SCOPES)[number];

export const VARIABLE_TYPES = ['VALUE', 'ALIAS', 'OVERRIDE', 'BUILT_IN', 'FILE', 'EXTERNAL_SECRET'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

/** 0 = project, 1 = environment, 2 = service. Lower number = higher scope. */
export type Level = 0 | 1 | 2;

export interface VariableParent {
  scope: CreatableScope;
  id: string;
  level: Level;
  projectId: string;
  environmentId?: string;
  /** The service record when the parent is a service. */
  service?: ApiRecord;
  /** Parents whose variables this parent inherits, nearest first. */
  ancestors: string[];
}

export function isServiceScope(s: string): s is ServiceScope {
  return (SERVICE_SCOPES as readonly string[]).includes(s);
}

export function isCreatableScope(s: string): s is CreatableScope {
  return (CREATABLE_SCOPES as readonly string[]).includes(s);
}

/** `environment.project.id`, tolerating the flat `project_id` spelling too. */
export function projectIdOfEnvironment(env: ApiRecord): string | undefined {
  return env.project?.id ?? env.project_id;
}

export function environmentIdOfService(svc: ApiRecord): string | undefined {
  return svc.environment?.id ?? svc.environment_id;
}

/**
 * The parent a (scope, id) pair designates, or undefined when no such parent exists (unknown id,
 * or a service of another kind than the scope says).
 */
export function resolveParent(state: EmulatorState, scope: CreatableScope, id: string): VariableParent | undefined {
  if (scope === 'PROJECT') {
    if (!Object.hasOwn(state.projects, id)) return undefined;
    return { scope, id, level: 0, projectId: id, ancestors: [] };
  }
  if (scope === 'ENVIRONMENT') {
    const env = Object.hasOwn(state.environments, id) ? state.environments[id] : undefined;
    const projectId = env && projectIdOfEnvironment(env);
    if (!env || !projectId) return undefined;
    return { scope, id, level: 1, projectId, environmentId: id, ancestors: [projectId] };
  }
  const svc = Object.hasOwn(state.services, id) ? state.services[id] : undefined;
  if (!svc || svc.service_type !== scope) return undefined;
  const environmentId = environmentIdOfService(svc);
  const env = environmentId ? state.environments[environmentId] : undefined;
  const projectId = env && projectIdOfEnvironment(env);
  if (!environmentId || !projectId) return undefined;
  return { scope, id, level: 2, projectId, environmentId, service: svc, ancestors: [environmentId, projectId] };
}

/** Finds the parent of an id whatever its kind (used by the legacy routes and by cascades). */
export function parentOfId(state: EmulatorState, id: string): VariableParent | undefined {
  if (Object.hasOwn(state.projects, id)) return resolveParent(state, 'PROJECT', id);
  if (Object.hasOwn(state.environments, id)) return resolveParent(state, 'ENVIRONMENT', id);
  const svc = Object.hasOwn(state.services, id) ? state.services[id] : undefined;
  if (svc && isServiceScope(String(svc.service_type))) return resolveParent(state, svc.service_type, id);
  return undefined;
}

export function levelOfScope(scope: string): Level {
  if (scope === 'PROJECT') return 0;
  if (scope === 'ENVIRONMENT' || scope === 'BUILT_IN') return 1;
  return 2;
}
