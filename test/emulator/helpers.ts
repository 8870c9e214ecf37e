/**
 * Test helpers: an in-process emulator on 127.0.0.1 and a tiny HTTP client over global fetch
 * (real HTTP, no mocks). Responses keep status, headers and parsed body.
 */
import { startEmulator, type RunningEmulator, type StartOptions } from '../../src/emulator/server.js';

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Client {
  em: RunningEmulator;
  call<T = any>(method: string, path: string, body?: unknown, opts?: { token?: string | null; scheme?: string; raw?: string; headers?: Record<string, string> }): Promise<Res<T>>;
  get<T = any>(path: string, token?: string | null): Promise<Res<T>>;
  post<T = any>(path: string, body?: unknown, token?: string | null): Promise<Res<T>>;
  put<T = any>(path: string, body?: unknown, token?: string | null): Promise<Res<T>>;
  del<T = any>(path: string, token?: string | null): Promise<Res<T>>;
  /** Every exchange so far, for the contract test. */
  log: Array<{ method: string; path: string; body?: unknown; res: Res }>;
}

export async function startClient(options: StartOptions = {}): Promise<Client> {
  // No route may log an internal error (a double reply, an exception): unless a test brings its
  // own logger, every error line fails the file when the emulator is closed.
  const errors: string[] = [];
  const logger = options.logger ?? { info: () => {}, warn: () => {}, error: (m: string) => errors.push(m) };
  const em = await startEmulator({ rateLimit: 100_000, ...options, logger });
  const close = em.close.bind(em);
  em.close = async () => {
    await close();
    if (errors.length > 0) throw new Error(`the emulator logged ${errors.length} internal error(s):\n${errors.join('\n')}`);
  };
  const log: Client['log'] = [];
  const call: Client['call'] = async (method, path, body, opts = {}) => {
    const token = opts.token === undefined ? em.tokens.ADMIN : opts.token;
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (token !== null) headers.authorization = `${opts.scheme ?? 'Token'} ${token}`;
    let payload: string | undefined = opts.raw;
    if (body !== undefined && payload === undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const r = await fetch(em.url + path, { method, headers, body: payload });
    const text = await r.text();
    let parsed: unknown = undefined;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const res = { status: r.status, headers: r.headers, body: parsed as any };
    log.push({ method, path, body, res });
    return res;
  };
  return {
    em,
    call,
    log,
    get: (p, t) => call('GET', p, undefined, { token: t }),
    post: (p, b, t) => call('POST', p, b, { token: t }),
    put: (p, b, t) => call('PUT', p, b, { token: t }),
    del: (p, t) => call('DELETE', p, undefined, { token: t }),
  };
}
