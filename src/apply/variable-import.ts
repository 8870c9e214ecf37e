/**
 * importVariables: the plain variables a service gains, created with one request,
 * `POST /variable/import?service_id=&service_type=` {overwrite: false, vars: [{name, value, scope,
 * is_secret: false}]}, instead of one `POST /variable` each (steps.ts decides which qualify).
 *
 * Never less safe than one create each:
 * - `overwrite: false`: a variable that exists by now is left alone, and is then created on its
 *   own like without import, which fails loudly instead of silently keeping another value;
 * - the server has no such route (404, 405, 501): one create each, and the rest of the apply
 *   skips the import (`ctx.variableImport`);
 * - the import is refused (400, 409, 422): one create each, whose errors name the variable at fault;
 * - the outcome is unknown (timeout, 5xx, lost answer): one list of the service's variables says
 *   which exist; those with the desired value are done, the missing ones are created one by one.
 * Anything else (401, 403, ...) fails every variable of the batch.
 */
import type { Address, DesiredResource } from '../model/resource.js';
import { routes } from '../api/routes.js';
import { parseAddress } from '../model/resource.js';
import type { ResourceChange } from '../plan/types.js';
import { variableScopeOf } from '../model/kinds/index.js';
import { errorStatus, isAmbiguousFailure } from '../live/api-port.js';
import { listResults, type ApiRecord } from '../live/read.js';
import { StepError, type WriteContext } from './writers.js';
import { withArticle } from '../render/words.js';

export interface ImportItem {
  change: ResourceChange;
  desired: DesiredResource;
}

export interface ImportOutcome {
  address: Address;
  /** Absent when the variable was created (or found with the desired value). */
  error?: unknown;
}

/** Whether this apply still tries the import route (false once the server showed it has none). */
export interface ImportSupport {
  variableImport: boolean;
}

const UNSUPPORTED = new Set([404, 405, 501]);
const REFUSED = new Set([400, 409, 422]);

export async function importVariables(
  service: Address,
  items: ImportItem[],
  ctx: WriteContext & ImportSupport,
  createOne: (item: ImportItem) => Promise<void>,
): Promise<ImportOutcome[]> {
  const kind = parseAddress(service).pop()!.kind;
  const scope = variableScopeOf(kind);
  if (!scope) throw new StepError(`${service}: variables cannot be declared on ${withArticle(kind)}`);
  const serviceId = ctx.refs.id(service);
  const one = (items: ImportItem[]) => createEach(items, createOne);
  if (!ctx.variableImport) return one(items);

  const body = { overwrite: false, vars: items.map((i) => ({ name: keyOf(i), value: valueOf(i), scope, is_secret: false })) };
  let answer: unknown;
  try {
    answer = await ctx.api.post(routes.variableImport(), body, { service_id: serviceId, service_type: scope });
  } catch (e) {
    const status = errorStatus(e);
    if (status !== undefined && UNSUPPORTED.has(status)) {
      ctx.variableImport = false;
      return one(items);
    }
    if (status !== undefined && REFUSED.has(status)) return one(items);
    if (isAmbiguousFailure(e)) return settleUnknown(service, serviceId, scope, items, ctx, createOne);
    return items.map((i) => ({ address: i.change.address, error: e }));
  }
  const imported = importedNames(answer);
  if (imported === undefined) return settleUnknown(service, serviceId, scope, items, ctx, createOne);
  const done = items.filter((i) => imported.has(keyOf(i)));
  return [...done.map((i) => ({ address: i.change.address })), ...(await one(items.filter((i) => !imported.has(keyOf(i)))))];
}

/** After an import whose outcome is unknown: keep what exists with the desired value, create the rest. */
async function settleUnknown(
  service: Address,
  serviceId: string,
  scope: string,
  items: ImportItem[],
  ctx: WriteContext,
  createOne: (item: ImportItem) => Promise<void>,
): Promise<ImportOutcome[]> {
  let live: ApiRecord[];
  try {
    live = listResults(await ctx.api.get(routes.variables(), { parent_id: serviceId, scope })).filter((r) => r.scope === scope);
  } catch (e) {
    // Unknown outcome and no way to tell: creating now could duplicate, so stop here.
    return items.map((i) => ({ address: i.change.address, error: e }));
  }
  const byKey = new Map(live.map((r) => [String(r.key), r]));
  const missing: ImportItem[] = [];
  const out: ImportOutcome[] = [];
  for (const i of items) {
    const rec = byKey.get(keyOf(i));
    if (!rec) missing.push(i);
    else if (String(rec.value ?? '') === valueOf(i)) out.push({ address: i.change.address });
    else out.push({ address: i.change.address, error: new StepError(`${i.change.address}: ${service} already has a variable ${keyOf(i)} with another value`, 'Someone else is writing to this service; run plan again.') });
  }
  return [...out, ...(await createEach(missing, createOne))];
}

async function createEach(items: ImportItem[], createOne: (item: ImportItem) => Promise<void>): Promise<ImportOutcome[]> {
  const out: ImportOutcome[] = [];
  for (const i of items) {
    try {
      await createOne(i);
      out.push({ address: i.change.address });
    } catch (error) {
      out.push({ address: i.change.address, error });
    }
  }
  return out;
}

function importedNames(answer: unknown): Set<string> | undefined {
  const list = (answer as { successful_imported_variables?: unknown } | null)?.successful_imported_variables;
  if (!Array.isArray(list)) return undefined;
  return new Set(list.map((v) => String((v as { name?: unknown }).name)));
}

const keyOf = (i: ImportItem) => String(i.desired.attrs.key);
const valueOf = (i: ImportItem) => String(i.desired.attrs.value ?? '');
