/**
 * Seed 4.1: any list endpoint given `page` and/or `page_size` returns that page of `results` and a
 * `pagination` object {page, page_size, total_count, total_pages} beside it. Without them the whole
 * list is returned (as the real service does). Applied to every GET answer with a `results` array.
 */
import { ApiError } from './errors.js';

export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;

/** Refuses malformed page/page_size before the handler runs (so no work is done for a bad request). */
export function checkPageParams(query: unknown): void {
  const q = (query ?? {}) as Record<string, unknown>;
  if (q.page !== undefined) positiveInt(q.page, 'page', 1);
  if (q.page_size !== undefined && positiveInt(q.page_size, 'page_size', 1) > MAX_PAGE_SIZE) {
    throw new ApiError(400, `query parameter 'page_size' must be at most ${MAX_PAGE_SIZE}`);
  }
}

export function paginate(method: string, query: unknown, payload: unknown): unknown {
  if (method !== 'GET' || !payload || typeof payload !== 'object') return payload;
  const q = (query ?? {}) as Record<string, unknown>;
  if (q.page === undefined && q.page_size === undefined) return payload;
  const body = payload as { results?: unknown[] };
  if (!Array.isArray(body.results)) return payload;
  // Deployment histories page themselves (pageSize/startId) and already carry page/page_size.
  if ('page_size' in body) return payload;
  const page = positiveInt(q.page, 'page', 1);
  const pageSize = positiveInt(q.page_size, 'page_size', DEFAULT_PAGE_SIZE);
  if (pageSize > MAX_PAGE_SIZE) throw new ApiError(400, `query parameter 'page_size' must be at most ${MAX_PAGE_SIZE}`);
  const total = body.results.length;
  return {
    ...body,
    results: body.results.slice((page - 1) * pageSize, page * pageSize),
    pagination: { page, page_size: pageSize, total_count: total, total_pages: Math.ceil(total / pageSize) },
  };
}

function positiveInt(v: unknown, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < 1) throw new ApiError(400, `query parameter '${name}' must be a positive integer, got '${s.slice(0, 40)}'`);
  return Number(s);
}
