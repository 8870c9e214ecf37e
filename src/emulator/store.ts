/**
 * Small helpers every route module uses to read and write the state with the API's rules:
 * 404 for unknown ids, 409 for name clashes, fresh timestamps on every write.
 */
import type { EmulatorContext } from './context.js';
import { ApiError, conflict, notFound } from './errors.js';
import type { ApiRecord } from './state.js';

export function mustGet(collection: Record<string, ApiRecord>, id: string, what: string): ApiRecord {
  const r = Object.prototype.hasOwnProperty.call(collection, id) ? collection[id] : undefined;
  if (!r) throw notFound(what, id);
  return r;
}

/** The organization path parameter must name the (single) organization. */
export function checkOrganization(ctx: EmulatorContext, organizationId: string): void {
  if (ctx.state.organization.id !== organizationId) throw notFound('organization', organizationId);
}

/**
 * 409 when another record (other than `exceptId`) already has this name. Names are compared
 * case-insensitively: the seed says so for organizations, databases and stages, and the real
 * service refuses `API` beside `api` for the other kinds too, so driftless treats all alike.
 */
export function assertUniqueName(records: Iterable<ApiRecord>, name: string, what: string, exceptId?: string): void {
  const lower = name.toLowerCase();
  for (const r of records) {
    if (r.id !== exceptId && typeof r.name === 'string' && r.name.toLowerCase() === lower) {
      throw conflict(`a ${what} named '${r.name}' already exists here (names are case-insensitive)`);
    }
  }
}

/** A new record: id and timestamps first, then the body. */
export function newRecord(ctx: EmulatorContext, fields: Record<string, unknown>): ApiRecord {
  const now = ctx.nowIso();
  return { id: ctx.newId(), created_at: now, updated_at: now, ...fields };
}

/**
 * The updated record. `updated_at` strictly increases on every write, even two writes in the same
 * millisecond, because the reconciler uses it to detect a change after its plan.
 */
export function updatedRecord(ctx: EmulatorContext, old: ApiRecord, fields: Record<string, unknown>): ApiRecord {
  return { ...old, ...fields, id: old.id, created_at: old.created_at, updated_at: nextTimestamp(ctx, old.updated_at) };
}

export function nextTimestamp(ctx: EmulatorContext, previous: string | null | undefined): string {
  const now = ctx.clock.now().getTime();
  const prev = previous ? Date.parse(previous) : NaN;
  return new Date(Number.isFinite(prev) && prev >= now ? prev + 1 : now).toISOString();
}

export function values<T extends ApiRecord>(collection: Record<string, T>): T[] {
  return Object.values(collection);
}

export { ApiError };
