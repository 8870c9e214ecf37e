import type { ApiPort, Query } from './api-port.js';

/** Maps over items with at most `limit` calls in flight; results keep the input order. */
export async function mapWithLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}

/**
 * The port with at most `limit` GETs in flight at once, served in the order asked: the reads of one
 * live read share it, so that lists read alongside each other (the organization's lists and the
 * walk down the tree, src/live/read.ts) keep to the parallelism asked for between them.
 */
export function withGetLimit(api: ApiPort, limit: number): ApiPort {
  let active = 0;
  const waiting: Array<() => void> = [];
  /** GETs through `port`, sharing the slots: the live reads of `live()` count against the same limit. */
  const limited =
    (port: ApiPort) =>
    async <T>(path: string, query?: Query): Promise<T> => {
      // A slot is taken here, or handed over by the GET that frees it.
      if (active < Math.max(1, limit)) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await port.get<T>(path, query);
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    };
  const over = (port: ApiPort, live?: () => ApiPort): ApiPort => ({
    get: limited(port),
    post: (path, body, query) => port.post(path, body, query),
    put: (path, body) => port.put(path, body),
    delete: (path, query) => port.delete(path, query),
    get requestCount() {
      return port.requestCount;
    },
    ...(port.serverDate ? { serverDate: () => port.serverDate!() } : {}),
    ...(live ? { live } : {}),
  });
  return over(api, api.live ? () => over(api.live!()) : undefined);
}
