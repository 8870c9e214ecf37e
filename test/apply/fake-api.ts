/**
 * An in-memory ApiPort for unit tests of pure-ish logic: routes are `METHOD /path` patterns with
 * `:param` segments; every call is recorded.
 */
import type { ApiPort, Query } from '../../src/live/api-port.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Handler = (args: { params: Record<string, string>; body?: unknown; query?: Query }) => unknown;

export class FakeApi implements ApiPort {
  readonly calls: Array<{ method: string; path: string; body?: unknown; query?: Query }> = [];
  private readonly routes: Array<{ method: string; re: RegExp; names: string[]; handler: Handler }> = [];

  on(method: string, pattern: string, handler: Handler): this {
    const names: string[] = [];
    const re = new RegExp(
      '^' +
        pattern.replace(/:([a-zA-Z_]+)/g, (_, n: string) => {
          names.push(n);
          return '([^/]+)';
        }) +
        '$',
    );
    this.routes.push({ method, re, names, handler });
    return this;
  }

  get requestCount(): number {
    return this.calls.length;
  }

  private async call(method: string, path: string, body?: unknown, query?: Query): Promise<any> {
    this.calls.push({ method, path, body, query });
    for (const r of this.routes) {
      const m = r.method === method ? r.re.exec(path) : null;
      if (!m) continue;
      const params = Object.fromEntries(r.names.map((n, i) => [n, m[i + 1]!]));
      return r.handler({ params, body, query });
    }
    throw new HttpError(404, `no fake route for ${method} ${path}`);
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.call('GET', path, undefined, query);
  }
  post<T>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.call('POST', path, body, query);
  }
  put<T>(path: string, body?: unknown): Promise<T> {
    return this.call('PUT', path, body);
  }
  async delete(path: string, query?: Query): Promise<void> {
    await this.call('DELETE', path, undefined, query);
  }
}

/** A virtual clock: sleep advances time instantly. */
export function virtualTiming(start = 0) {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}
