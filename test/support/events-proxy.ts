/**
 * An HTTP proxy in front of the emulator (real sockets on 127.0.0.1) that rewrites the answers of
 * the audit log (`GET /organization/{id}/events`) and forwards everything else untouched: a log
 * that shows an event late (hidden, then shown with its original timestamp), never records one
 * (hidden for good), or answers in shapes the reference allows and the emulator does not use
 * (events without an id, oldest first). The CLI talks to it as to the API.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EventsProxy {
  url: string;
  /** Event ids left out of every events answer while they are in the set. */
  hidden: Set<string>;
  /** Applied to every events answer after `hidden` (default: unchanged). */
  rewrite: (body: { events: Array<Record<string, unknown>>; [k: string]: unknown }) => unknown;
  close(): Promise<void>;
}

const EVENTS = /^\/organization\/[^/]+\/events$/;

export async function startEventsProxy(target: string): Promise<EventsProxy> {
  const upstream = target.replace(/\/$/, '');
  const proxy: EventsProxy = {
    url: '',
    hidden: new Set(),
    rewrite: (b) => b,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)) as Array<[string, string]>);
    const up = await fetch(upstream + req.url, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
    let text = await up.text();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && EVENTS.test(path) && up.status === 200) {
      const body = JSON.parse(text) as { events: Array<Record<string, unknown>> };
      body.events = body.events.filter((e) => !proxy.hidden.has(String(e.id)));
      text = JSON.stringify(proxy.rewrite(body));
    }
    const out: Record<string, string> = {};
    up.headers.forEach((v, k) => {
      if (!['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'content-encoding'].includes(k)) out[k] = v;
    });
    res.writeHead(up.status, { ...out, 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  });
  // The emulator's clock (its Date header) is forwarded, not this proxy's.
  server.on('request', (_req, res) => (res.sendDate = false));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
