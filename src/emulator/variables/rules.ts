/**
 * The rules of variables and secrets (seed 2.2, 2.3, 4.2; api-notes §6), shared by the unified
 * `/variable` API, the legacy per-parent `environmentVariable` / `secret` routes and the import
 * (import.ts, which names the offending var's field, e.g. `vars[3].name`, through `checkKey`):
 *
 * - keys are case-sensitive and unique per parent (409 on a clash);
 * - secret values are stored apart (`state.secretValues`) and never rendered;
 * - aliases and overrides point only to a variable of a strictly higher scope that the parent
 *   inherits (400 otherwise); no alias or override of an alias or override;
 * - deleting a variable deletes its aliases and overrides;
 * - BUILT_IN variables are read-only; an edit cannot change is_secret, mount_path or scope;
 * - databases have no variables; helm and terraform only through the unified API (route level).
 *
 * Functions here throw `ApiError`s and change state only through the VariableIndex; the caller
 * commits and marks services out of date.
 */
import { ApiError, badRequest, conflict, invalidField, notFound } from '../errors.js';
import type { ApiRecord, EmulatorState } from '../state.js';
import { removeWithDependents } from './builtins.js';
import { type CreatableScope, type VariableParent, levelOfScope, resolveParent } from './scopes.js';
import type { VariableIndex } from './variable-index.js';
import { kindOfType } from '../services/kinds.js';

export const MAX_DESCRIPTION = 255;
/** Environment variable names as a shell and Kubernetes accept them. */
const KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

export interface VariableDeps {
  state: EmulatorState;
  index: VariableIndex;
  nowIso(): string;
  newId(): string;
}

export interface CreateInput {
  key: string;
  value: string;
  is_secret: boolean;
  mount_path?: string | null;
  description?: string | null;
  enable_interpolation_in_file?: boolean | null;
  secret_manager_access_id?: string | null;
}

export interface EditInput {
  key: string;
  value?: string | null;
  description?: string | null;
  enable_interpolation_in_file?: boolean | null;
  secret_manager_access_id?: string | null;
}

export interface AliasInput {
  key: string;
  description?: string | null;
  enable_interpolation_in_file?: boolean | null;
}

export interface OverrideInput {
  value: string;
  description?: string | null;
  enable_interpolation_in_file?: boolean | null;
}

/** The parent for (scope, id), or a 400/404 that says which. */
export function requireParent(state: EmulatorState, scope: CreatableScope, id: string, field = 'variable_parent_id'): VariableParent {
  const parent = resolveParent(state, scope, id);
  if (parent) return parent;
  const holding = Object.hasOwn(state.services, id) ? kindOfType(state.services[id].service_type) : undefined;
  if (holding && !holding.holdsVariables) throw invalidField(field, `'${id}' is a ${holding.kind}; ${holding.kind}s have no variables`);
  const kindHolding = Object.hasOwn(state.services, id)
    ? String(state.services[id].service_type)
    : Object.hasOwn(state.environments, id)
      ? 'ENVIRONMENT'
      : Object.hasOwn(state.projects, id)
        ? 'PROJECT'
        : undefined;
  if (kindHolding) throw invalidField(field, `'${id}' is a ${kindHolding}, not a ${scope} (scope and parent must agree)`);
  throw new ApiError(404, `${scope.toLowerCase()} '${id}' not found`);
}

export function requireVariable(index: VariableIndex, id: string): ApiRecord {
  const v = index.get(id);
  if (!v) throw notFound('variable', id);
  return v;
}

/** Every variable visible from `parent`: its own, then each ancestor's (built-ins included). */
export function visibleVariables(index: VariableIndex, parent: VariableParent): ApiRecord[] {
  const out = index.ofParent(parent.id);
  for (const a of parent.ancestors) out.push(...index.ofParent(a));
  return out;
}

export function createVariable(deps: VariableDeps, parent: VariableParent, input: CreateInput): ApiRecord {
  checkKey(input.key);
  checkDescription(input.description);
  if (input.mount_path !== undefined && input.mount_path !== null) checkMountPath(input.mount_path);
  checkKeyFree(deps.index, parent.id, input.key);
  const now = deps.nowIso();
  const variableType = input.mount_path ? 'FILE' : input.secret_manager_access_id ? 'EXTERNAL_SECRET' : 'VALUE';
  const record: ApiRecord = {
    id: deps.newId(),
    created_at: now,
    updated_at: now,
    key: input.key,
    value: input.is_secret ? null : input.value,
    mount_path: input.mount_path ?? null,
    scope: parent.scope,
    variable_type: variableType,
    is_secret: input.is_secret,
    description: input.description ?? null,
    enable_interpolation_in_file: input.enable_interpolation_in_file ?? false,
    secret_manager_access_id: input.secret_manager_access_id ?? null,
    owned_by: 'QOVERY',
    parent_id: parent.id,
    ...serviceFields(parent),
  };
  deps.index.put(record, input.is_secret ? input.value : undefined);
  return record;
}

export function editVariable(deps: VariableDeps, id: string, input: EditInput & Record<string, unknown>): ApiRecord {
  const v = requireVariable(deps.index, id);
  if (v.variable_type === 'BUILT_IN') throw badRequest(`variable '${v.key}' is BUILT_IN and read-only`);
  // Fields that cannot change, with the stored field each one is compared to.
  const immutable: Array<[string, string]> = [['is_secret', 'is_secret'], ['mount_path', 'mount_path'], ['variable_scope', 'scope'], ['variable_parent_id', 'parent_id']];
  for (const [field, stored] of immutable) {
    if (input[field] !== undefined && input[field] !== (v[stored] ?? null)) {
      throw invalidField(field, 'cannot be changed by an edit; delete the variable and create it again');
    }
  }
  checkKey(input.key);
  checkDescription(input.description);
  if (input.key !== v.key) {
    if (v.variable_type === 'OVERRIDE') throw invalidField('key', `the key of an override cannot be changed (it is the key of the variable it overrides, '${v.key}')`);
    checkKeyFree(deps.index, v.parent_id, input.key);
  }
  let secretValue: string | undefined;
  const next: ApiRecord = { ...v, key: input.key, updated_at: laterThan(v.updated_at, deps.nowIso()) };
  if (input.value !== undefined && input.value !== null) {
    if (v.variable_type === 'ALIAS') {
      if (input.value !== v.value) throw invalidField('value', 'the value of an alias cannot be changed; delete the alias and create one for another variable');
    } else if (v.is_secret) {
      secretValue = input.value;
    } else {
      next.value = input.value;
    }
  }
  if (input.description !== undefined) next.description = input.description;
  if (input.enable_interpolation_in_file !== undefined && input.enable_interpolation_in_file !== null) {
    next.enable_interpolation_in_file = input.enable_interpolation_in_file;
  }
  if (input.secret_manager_access_id !== undefined) next.secret_manager_access_id = input.secret_manager_access_id;
  deps.index.put(next, secretValue);
  return next;
}

/** Deletes a variable and its aliases and overrides; returns the ids removed. */
export function deleteVariable(deps: VariableDeps, id: string): string[] {
  const v = requireVariable(deps.index, id);
  if (v.variable_type === 'BUILT_IN') throw badRequest(`variable '${v.key}' is BUILT_IN and read-only`);
  return removeWithDependents(deps.index, id);
}

export function createAlias(deps: VariableDeps, targetId: string, parent: VariableParent, input: AliasInput): ApiRecord {
  const target = requireVariable(deps.index, targetId);
  checkPointsUp(target, parent, 'alias');
  checkKey(input.key);
  checkDescription(input.description);
  checkKeyFree(deps.index, parent.id, input.key);
  const now = deps.nowIso();
  const record: ApiRecord = {
    id: deps.newId(),
    created_at: now,
    updated_at: now,
    key: input.key,
    // The real service shows the aliased key as the alias's value (never the target's value).
    value: target.key,
    mount_path: target.mount_path ?? null,
    scope: parent.scope,
    variable_type: 'ALIAS',
    is_secret: Boolean(target.is_secret),
    description: input.description ?? null,
    enable_interpolation_in_file: input.enable_interpolation_in_file ?? false,
    secret_manager_access_id: null,
    owned_by: 'QOVERY',
    parent_id: parent.id,
    target_id: target.id,
    ...serviceFields(parent),
  };
  deps.index.put(record);
  return record;
}

export function createOverride(deps: VariableDeps, targetId: string, parent: VariableParent, input: OverrideInput): ApiRecord {
  const target = requireVariable(deps.index, targetId);
  checkPointsUp(target, parent, 'override');
  checkDescription(input.description);
  if (typeof input.value !== 'string') throw invalidField('value', 'is required and must be a string');
  checkKeyFree(deps.index, parent.id, target.key);
  const now = deps.nowIso();
  const secret = Boolean(target.is_secret);
  const record: ApiRecord = {
    id: deps.newId(),
    created_at: now,
    updated_at: now,
    key: target.key,
    value: secret ? null : input.value,
    mount_path: target.mount_path ?? null,
    scope: parent.scope,
    variable_type: 'OVERRIDE',
    is_secret: secret,
    description: input.description ?? null,
    enable_interpolation_in_file: input.enable_interpolation_in_file ?? false,
    secret_manager_access_id: null,
    owned_by: 'QOVERY',
    parent_id: parent.id,
    target_id: target.id,
    ...serviceFields(parent),
  };
  deps.index.put(record, secret ? input.value : undefined);
  return record;
}

/** `now`, or 1 ms after `previous` when the clock has not moved: every write changes updated_at. */
export function laterThan(previous: string | null | undefined, now: string): string {
  const prev = previous ? Date.parse(previous) : NaN;
  return Number.isFinite(prev) && prev >= Date.parse(now) ? new Date(prev + 1).toISOString() : now;
}

function serviceFields(parent: VariableParent): Record<string, unknown> {
  if (!parent.service) return {};
  return { service_id: parent.service.id, service_name: parent.service.name, service_type: parent.service.service_type };
}

/** Aliases and overrides go from a lower scope to a variable its parent inherits. */
function checkPointsUp(target: ApiRecord, parent: VariableParent, what: 'alias' | 'override'): void {
  if (target.variable_type === 'ALIAS' || target.variable_type === 'OVERRIDE') {
    throw badRequest(`cannot create an ${what} of variable '${target.key}': it is itself an ${String(target.variable_type).toLowerCase()} (point at the original variable instead)`);
  }
  const targetLevel = levelOfScope(String(target.scope));
  const ownLevel = levelOfScope(parent.scope);
  if (!(ownLevel > targetLevel)) {
    throw badRequest(
      `an ${what} must be created at a lower scope than the variable it points to: '${target.key}' has scope ${target.scope}, ` +
        `the ${what} would have scope ${parent.scope} (order: PROJECT > ENVIRONMENT > service)`,
    );
  }
  if (!parent.ancestors.includes(target.parent_id)) {
    throw badRequest(
      `variable '${target.key}' (scope ${target.scope}) is not inherited by the ${parent.scope.toLowerCase()} '${parent.id}': ` +
        `an ${what} can only point to a variable of its own environment or project`,
    );
  }
}

/** Key syntax; `field` names the key in the request (`key`, or `vars[3].name` for an import). */
export function checkKey(key: unknown, field = 'key'): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) throw invalidField(field, 'is required and must be a non-empty string');
  if (key.length > 255) throw invalidField(field, 'must be at most 255 characters');
  if (!KEY_PATTERN.test(key)) {
    throw invalidField(field, `'${key}' is not a valid variable name (letters, digits, '_', '.', '-', not starting with a digit)`);
  }
}

function checkDescription(description: unknown): void {
  if (description === undefined || description === null) return;
  if (typeof description !== 'string') throw invalidField('description', 'must be a string or null');
  if (description.length > MAX_DESCRIPTION) throw invalidField('description', `must be at most ${MAX_DESCRIPTION} characters (got ${description.length})`);
}

function checkMountPath(mountPath: string): void {
  if (!mountPath.startsWith('/')) throw invalidField('mount_path', `must be an absolute path starting with '/' (got '${mountPath}')`);
}

/** The variable of `parentId` itself (not inherited) whose key is `key` (case-sensitive). */
export function ownVariableWithKey(index: VariableIndex, parentId: string, key: string): ApiRecord | undefined {
  return index.ofParent(parentId).find((v) => v.key === key);
}

function checkKeyFree(index: VariableIndex, parentId: string, key: string): void {
  const clash = ownVariableWithKey(index, parentId, key);
  if (clash) throw conflict(`a variable with key '${key}' already exists at this scope (id ${clash.id}); keys are unique per scope and case-sensitive`);
}
