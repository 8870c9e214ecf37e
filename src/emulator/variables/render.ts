/**
 * Stored variable records -> API responses. The three shapes:
 *
 * - unified `VariableResponse` (api-notes §6b): `value` is null for secrets;
 * - legacy environment variable (seed 2.2, where `is_secret` is required): as unified;
 * - legacy secret (seed 2.3, "same as the variable record" but): no `value` at all,
 *   `overridden_secret` / `aliased_secret`.
 *
 * The internal fields `parent_id` / `target_id` are never output, and no secret value is read here.
 */
import type { ApiRecord } from '../state.js';
import type { VariableIndex } from './variable-index.js';

function pointer(target: ApiRecord | undefined, withValue: boolean): Record<string, unknown> | undefined {
  if (!target) return undefined;
  const out: Record<string, unknown> = {
    id: target.id,
    key: target.key,
    mount_path: target.mount_path ?? null,
    scope: target.scope,
    variable_type: target.variable_type,
  };
  if (withValue) out.value = target.is_secret ? null : (target.value ?? null);
  return out;
}

function common(v: ApiRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: v.id,
    created_at: v.created_at,
    updated_at: v.updated_at ?? null,
    key: v.key,
    mount_path: v.mount_path ?? null,
    scope: v.scope,
    variable_type: v.variable_type,
    description: v.description ?? null,
    enable_interpolation_in_file: Boolean(v.enable_interpolation_in_file),
    secret_manager_access_id: v.secret_manager_access_id ?? null,
    owned_by: v.owned_by ?? 'QOVERY',
  };
  if (v.service_id) {
    out.service_id = v.service_id;
    out.service_name = v.service_name;
    out.service_type = v.service_type;
  }
  return out;
}

export function toUnified(v: ApiRecord, index: VariableIndex): Record<string, unknown> {
  const out = common(v);
  out.value = v.is_secret ? null : (v.value ?? null);
  out.is_secret = Boolean(v.is_secret);
  const target = v.target_id ? index.get(v.target_id) : undefined;
  if (v.variable_type === 'ALIAS' && target) out.aliased_variable = pointer(target, true);
  if (v.variable_type === 'OVERRIDE' && target) out.overridden_variable = pointer(target, true);
  return out;
}

export function toLegacyVariable(v: ApiRecord, index: VariableIndex): Record<string, unknown> {
  const out = common(v);
  out.value = v.value ?? null;
  out.is_secret = Boolean(v.is_secret);
  const target = v.target_id ? index.get(v.target_id) : undefined;
  if (v.variable_type === 'ALIAS' && target) out.aliased_variable = pointer(target, true);
  if (v.variable_type === 'OVERRIDE' && target) out.overridden_variable = pointer(target, true);
  return out;
}

export function toLegacySecret(v: ApiRecord, index: VariableIndex): Record<string, unknown> {
  const out = common(v);
  out.is_secret = true;
  const target = v.target_id ? index.get(v.target_id) : undefined;
  const secretPointer = (t: ApiRecord) => ({
    ...pointer(t, false),
    description: t.description ?? null,
    enable_interpolation_in_file: Boolean(t.enable_interpolation_in_file),
  });
  if (v.variable_type === 'ALIAS' && target) out.aliased_secret = secretPointer(target);
  if (v.variable_type === 'OVERRIDE' && target) out.overridden_secret = secretPointer(target);
  return out;
}
