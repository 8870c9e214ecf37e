/**
 * Deployment history (seed 2.10, 4.1; api-notes §9): one entry per operation for the environment
 * and one per service, newest last in the state, served newest first.
 *
 * Paging: `pageSize` (default 20) entries per page; the next page is asked with
 * `startId=<execution_id of the last entry of the previous page>` and starts right after it.
 */
import { ApiError } from '../errors.js';
import type { ApiRecord } from '../state.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface HistoryPage {
  page: number;
  page_size: number;
  results: ApiRecord[];
}

/** The id an entry is paged by: environment entries and service entries both have one. */
export function entryId(e: ApiRecord): string {
  return String(e.identifier?.execution_id ?? e.id);
}

export function pageOf(entries: ApiRecord[], pageSize: number | null | undefined, startId: string | undefined): HistoryPage {
  const size = pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new ApiError(400, `query parameter 'pageSize' must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  const newestFirst = [...entries].reverse();
  let from = 0;
  if (startId !== undefined && startId !== '') {
    const at = newestFirst.findIndex((e) => entryId(e) === startId);
    if (at < 0) throw new ApiError(400, `query parameter 'startId': no history entry with id '${startId.slice(0, 80)}' (use the execution_id of the last entry of the previous page)`);
    from = at + 1;
  }
  return { page: Math.floor(from / size) + 1, page_size: size, results: newestFirst.slice(from, from + size) };
}

/** Replaces the entry with the same id, or appends it. Returns a new array (assign it back). */
export function upsertEntry(entries: ApiRecord[] | undefined, entry: ApiRecord): ApiRecord[] {
  const list = entries ? [...entries] : [];
  const id = entryId(entry);
  for (let i = list.length - 1; i >= 0; i--) {
    if (entryId(list[i]) === id) {
      list[i] = entry;
      return list;
    }
  }
  list.push(entry);
  return list;
}
