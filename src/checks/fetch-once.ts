/**
 * The API reads of the plan-time checks: each distinct listing is asked for once per run, however
 * many resources need it, with a few requests in flight at a time. A failed read is remembered
 * too, so that one unreachable listing costs one request, not one per resource.
 */
import { errorMessage, isRateLimitWaitRefusal } from '../live/api-port.js';

export type Fetched<T> = { ok: true; value: T } | { ok: false; message: string };

export class OnceCache<T> {
  readonly #entries = new Map<string, Promise<Fetched<T>>>();
  readonly #limit: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit = 4) {
    this.#limit = Math.max(1, limit);
  }

  /** The value of `key`, fetched by `load` on its first request in this cache's life only. */
  get(key: string, load: () => Promise<T>): Promise<Fetched<T>> {
    let p = this.#entries.get(key);
    if (!p) {
      p = this.#run(load);
      this.#entries.set(key, p);
    }
    return p;
  }

  /** How many distinct keys were asked for. */
  get size(): number {
    return this.#entries.size;
  }

  async #run(load: () => Promise<T>): Promise<Fetched<T>> {
    await this.#acquire();
    try {
      return { ok: true, value: await load() };
    } catch (e) {
      // A wait beyond --max-wait is not a listing that failed (a check left undone, a warning):
      // the run must stop there, exit 1, as anywhere else.
      if (isRateLimitWaitRefusal(e)) throw e;
      return { ok: false, message: errorMessage(e) };
    } finally {
      this.#release();
    }
  }

  async #acquire(): Promise<void> {
    if (this.#running < this.#limit) {
      this.#running++;
      return;
    }
    // The slot is handed over by #release, never counted twice.
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }
}

/** `{results: [...]}` (the API's list convention) or a bare array; anything else is no list. */
export function resultsOf(body: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(body)) return body as Array<Record<string, unknown>>;
  const r = (body as { results?: unknown } | null)?.results;
  if (Array.isArray(r)) return r as Array<Record<string, unknown>>;
  throw new Error('the API answered without a list ({results: [...]})');
}
