/**
 * Bulk import of variables into a service (`POST /variable/import`, and the legacy
 * `POST /{application|container|job}/{id}/environmentVariable/import`): one body
 * `{overwrite, vars: [{name, value, scope, is_secret}]}` → `{total_variables_to_import,
 * successful_imported_variables}`.
 *
 * Each var lands at the parent its `scope` designates relative to the service: the service itself
 * (its own kind's scope), its environment (ENVIRONMENT) or its project (PROJECT). A name that
 * already exists at that parent is left alone with `overwrite: false` and gets the new value with
 * `overwrite: true` (it keeps being what it was: a secret stays a secret).
 *
 * The import is planned in full before anything is written: every refusal (400) happens in
 * `planImport`, which changes nothing, so a refused import leaves every record as it was (the
 * emulator's rule after any 4xx). `applyImport` then only performs writes the plan has already
 * checked, through the same `createVariable` / `editVariable` as the single-variable routes.
 */
import type { EmulatorContext } from '../context.js';
import { invalidField } from '../errors.js';
import type { ApiRecord } from '../state.js';
import { markParentOutOfDate } from './cascade.js';
import { checkKey, createVariable, editVariable, ownVariableWithKey, type VariableDeps } from './rules.js';
import { type VariableParent, resolveParent } from './scopes.js';

export interface ImportVar {
  name: string;
  value: string;
  scope: string;
  is_secret: boolean;
}

export interface ImportBody {
  overwrite: boolean;
  vars: ImportVar[];
}

/** What the import does with one var, decided before any write. */
type Step =
  | { kind: 'create'; item: ImportVar; parent: VariableParent }
  | { kind: 'overwrite'; item: ImportVar; parent: VariableParent; existing: ApiRecord }
  | { kind: 'skip' };

export interface ImportedVariable {
  name: string;
  value?: string;
  scope: string;
  is_secret: boolean;
}

export interface ImportResult {
  total_variables_to_import: number;
  successful_imported_variables: ImportedVariable[];
}

/** The scopes a var may name for this service, in the order messages list them. */
function allowedScopes(service: VariableParent): string[] {
  return [service.scope, 'ENVIRONMENT', 'PROJECT'];
}

/** The parent a var's scope designates, or a 400 naming `vars[i].scope` and the allowed values. */
function targetParent(deps: VariableDeps, service: VariableParent, scope: string, field: string): VariableParent {
  const allowed = `allowed for this ${service.scope.toLowerCase()}: ${allowedScopes(service).join(', ')}`;
  if (scope === 'BUILT_IN') throw invalidField(field, `BUILT_IN variables are created by the platform and are read-only; ${allowed}`);
  let parent: VariableParent | undefined;
  if (scope === service.scope) parent = service;
  else if (scope === 'ENVIRONMENT' && service.environmentId) parent = resolveParent(deps.state, 'ENVIRONMENT', service.environmentId);
  else if (scope === 'PROJECT') parent = resolveParent(deps.state, 'PROJECT', service.projectId);
  else throw invalidField(field, `'${scope}' is not the scope of this service (it is a ${service.scope}); ${allowed}`);
  // resolveParent(service) succeeded, so its environment and project exist; this is a guard only.
  if (!parent) throw invalidField(field, `the ${scope.toLowerCase()} of this service cannot be found`);
  return parent;
}

/** Why an existing variable cannot take an imported value (overwrite: true), or undefined if it can. */
function overwriteRefusal(existing: ApiRecord, item: ImportVar, i: number): Error | undefined {
  const where = `'${existing.key}' exists at ${existing.scope} scope`;
  if (existing.variable_type === 'BUILT_IN') {
    return invalidField(`vars[${i}].name`, `${where} as a BUILT_IN variable, which is read-only; leave it out of the import or set overwrite to false`);
  }
  if (existing.variable_type === 'ALIAS') {
    return invalidField(`vars[${i}].name`, `${where} as an alias, whose value cannot be replaced; delete the alias first or set overwrite to false`);
  }
  // A plain value kept plain would serve the caller's secret in clear; is_secret never changes.
  if (item.is_secret && !existing.is_secret) {
    return invalidField(`vars[${i}].is_secret`, `${where} as a plain variable and is_secret cannot change; delete it first, or import it with is_secret false`);
  }
  return undefined;
}

/** Checks the whole import and decides each var's fate; throws the first 400, writes nothing. */
export function planImport(deps: VariableDeps, service: VariableParent, body: ImportBody): Step[] {
  const firstIndexOf = new Map<string, number>();
  const steps: Step[] = [];
  body.vars.forEach((item, i) => {
    checkKey(item.name, `vars[${i}].name`);
    const seen = firstIndexOf.get(item.name);
    if (seen !== undefined) {
      throw invalidField(`vars[${i}].name`, `'${item.name}' is also vars[${seen}].name; a name may appear once per import (at any scope)`);
    }
    firstIndexOf.set(item.name, i);
    const parent = targetParent(deps, service, item.scope, `vars[${i}].scope`);
    const existing = ownVariableWithKey(deps.index, parent.id, item.name);
    if (!existing) {
      steps.push({ kind: 'create', item, parent });
    } else if (!body.overwrite) {
      steps.push({ kind: 'skip' });
    } else {
      const refusal = overwriteRefusal(existing, item, i);
      if (refusal) throw refusal;
      steps.push({ kind: 'overwrite', item, parent, existing });
    }
  });
  return steps;
}

/** Performs a checked plan, marks the services that see a change, and renders the answer. */
export function applyImport(ctx: EmulatorContext, deps: VariableDeps, steps: Step[]): ImportResult {
  const imported: ImportedVariable[] = [];
  const changedParents = new Map<string, VariableParent>();
  for (const step of steps) {
    if (step.kind === 'skip') continue;
    const { item, parent } = step;
    const v =
      step.kind === 'create'
        ? createVariable(deps, parent, { key: item.name, value: item.value, is_secret: item.is_secret })
        : editVariable(deps, step.existing.id, { key: step.existing.key, value: item.value });
    changedParents.set(parent.id, parent);
    const out: ImportedVariable = { name: String(v.key), scope: String(v.scope), is_secret: Boolean(v.is_secret) };
    if (!v.is_secret) out.value = item.value;
    imported.push(out);
  }
  for (const parent of changedParents.values()) markParentOutOfDate(ctx, parent);
  return { total_variables_to_import: steps.length, successful_imported_variables: imported };
}
