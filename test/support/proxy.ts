/**
 * A counting HTTP proxy in front of the emulator (real sockets on 127.0.0.1). Chaos tests use it to
 * see every request the CLI sends (method, path, time, status, injected faults), and to change the
 * answers mid-run: a 401 or 403 from some request on, a server that stops answering, requests held
 * back until released.
 */
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Seen {
  n: number;
  method: string;
  path: string;
  /** The query string, without the `?` ('' when none). */
  query: string;
  /** Status sent back; 0 when the connection was dropped or never answered. */
  status: number;
  /** The emulator's --fault-rate injected this failure (5xx body or dropped connection). */
  injected: boolean;
  /** Answered by the proxy's own rule instead of the emulator. */
  synthetic: boolean;
  at: number;
  /** With `startProxy(url, { bodies: true })`: the request and response bodies as sent (UTF-8). */
  requestBody?: string;
  responseBody?: string;
}

/** What to do with a request instead of forwarding it. */
export type Rule =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | 'hang'
  | 'hold'
  /** Forwarded (the write is committed), but the answer never comes back. */
  | 'swallow'
  | undefined;

export interface Proxy {
  url: string;
  seen: Seen[];
  /** Decides per request (n counts from 1); undefined forwards it. */
  rule: (req: { n: number; method: string; path: string }) => Rule;
  /** Requests currently held by a 'hold' rule. */
  held(): number;
  /** Response headers removed from the emulator's answers (lower case). */
  stripHeaders: string[];
  /** Called when a request is held. */
  onHold?: (s: Seen) => void;
  /** Forwards every held request; resolves once the emulator answered them all. */
  release(): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(target: string, opts: { bodies?: boolean } = {}): Promise<Proxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();
  let heldQueue: Array<() => Promise<void>> = [];
  let n = 0;

  const proxy: Proxy = {
    url: '',
    seen: [],
    rule: () => undefined,
    stripHeaders: [],
    held: () => heldQueue.length,
    async release() {
      const q = heldQueue;
      heldQueue = [];
      await Promise.all(q.map((go) => go()));
    },
    async close() {
      for (const r of hung) r.destroy();
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, entry: Seen, swallow = false) =>
    new Promise<void>((done) => {
    const up = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
        agent,
      },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('error', () => {
          entry.status = 0;
          entry.injected = true;
          res.destroy();
          done();
        });
        upRes.on('end', () => {
          const out = Buffer.concat(chunks);
          entry.status = upRes.statusCode ?? 0;
          if (opts.bodies) entry.responseBody = out.toString('utf8');
          entry.injected = entry.status >= 500 && out.toString('utf8').includes('injected fault');
          const headers = { ...upRes.headers };
          delete headers['transfer-encoding'];
          for (const name of proxy.stripHeaders) delete headers[name];
          headers['content-length'] = String(out.length);
          if (swallow) {
            hung.add(res);
            res.on('close', () => hung.delete(res));
          } else if (!res.destroyed) {
            res.writeHead(entry.status, headers);
            res.end(out);
          }
          done();
        });
      },
    );
    up.on('error', () => {
      // The emulator dropped the connection (an injected fault): drop ours too.
      entry.status = 0;
      entry.injected = true;
      res.destroy();
      done();
    });
    up.end(body);
  });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [path, query = ''] = (req.url ?? '/').split('?') as [string, string?];
      const entry: Seen = { n: ++n, method: req.method ?? 'GET', path, query, status: 0, injected: false, synthetic: false, at: Date.now() };
      proxy.seen.push(entry);
      const rule = proxy.rule({ n: entry.n, method: entry.method, path });
      const body = Buffer.concat(chunks);
      if (opts.bodies) entry.requestBody = body.toString('utf8');
      if (rule === 'hang') {
        entry.synthetic = true;
        hung.add(res);
        res.on('close', () => hung.delete(res));
        return;
      }
      if (rule === 'swallow') {
        entry.synthetic = true;
        void forward(req, res, body, entry, true);
        return;
      }
      if (rule === 'hold') {
        heldQueue.push(() => forward(req, res, body, entry));
        proxy.onHold?.(entry);
        return;
      }
      if (rule) {
        entry.synthetic = true;
        entry.status = rule.status;
        const text = JSON.stringify(rule.body ?? { status: rule.status, error: 'proxy', message: `answered ${rule.status} by the test proxy` });
        res.writeHead(rule.status, { 'content-type': 'application/json', ...(rule.headers ?? {}) });
        res.end(text);
        return;
      }
      void forward(req, res, body, entry);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

export const isWrite = (s: { method: string }) => s.method !== 'GET' && s.method !== 'HEAD';
