/**
 * The real transport, without nock: global fetch + undici Agent against a node:http server on
 * loopback. Proves headers, JSON bodies, keep-alive reuse and the parallelism bound.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { SecretValue } from '../../src/model/secret.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: string;
}

async function startServer(handler: (req: Seen, res: http.ServerResponse) => void | Promise<void>) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body,
        socket: `${req.socket.remoteAddress}:${req.socket.remotePort}`,
      };
      seen.push(s);
      void handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

function track(client: ApiClient, server: { close: () => Promise<void> }) {
  cleanup.push(() => server.close(), () => client.close());
}

describe('real HTTP transport', () => {
  it('sends the auth header, user agent and JSON body, and reuses the connection', async () => {
    const server = await startServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: 'p1', name: 'shop' }));
    });
    const client = createApiClient({ baseUrl: server.url, token: 'tok-123', userAgent: 'driftless-test/1' });
    track(client, server);

    const created = await client.post<{ id: string }>('/organization/{organizationId}/project', {
      params: { organizationId: 'org 1' },
      body: { name: 'shop', secret: new SecretValue('s3cr3t') },
    });
    expect(created).toEqual({ id: 'p1', name: 'shop' });
    for (let i = 0; i < 5; i++) await client.get('/organization');

    const [first, second] = server.seen;
    expect(first!.method).toBe('POST');
    expect(first!.url).toBe('/organization/org%201/project');
    expect(first!.headers.authorization).toBe('Token tok-123');
    expect(first!.headers['user-agent']).toBe('driftless-test/1');
    expect(first!.headers['content-type']).toBe('application/json');
    // The SecretValue is revealed into the wire body, and only there.
    expect(JSON.parse(first!.body)).toEqual({ name: 'shop', secret: 's3cr3t' });
    expect(second!.headers.connection).toBe('keep-alive');
    // Six sequential requests reuse kept-alive connections (Node 20's fetch over an undici 7 Agent
    // alternates between two sockets; without keep-alive there would be six).
    expect(new Set(server.seen.map((s) => s.socket)).size).toBeLessThanOrEqual(2);
    expect(client.stats().total).toBe(6);
  });

  it('never has more requests in flight than the parallelism', async () => {
    let active = 0;
    let peak = 0;
    const server = await startServer(async (_req, res) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 20));
      active--;
      res.end('{}');
    });
    const client = createApiClient({ baseUrl: server.url, token: 't', parallelism: 3 });
    track(client, server);

    await Promise.all(Array.from({ length: 12 }, (_, i) => client.get('/project/{projectId}', { params: { projectId: `p${i}` } })));
    expect(server.seen).toHaveLength(12);
    expect(peak).toBe(3);
    expect(client.load().peak).toBe(3);
    // A pool sized to the parallelism: no more than 3 sockets were opened.
    expect(new Set(server.seen.map((s) => s.socket)).size).toBeLessThanOrEqual(3);
  });

  it('returns undefined for an empty 200 and parses JSON lists', async () => {
    const server = await startServer((req, res) => {
      if (req.url.startsWith('/environment/e1/service/delete')) return void res.end();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ results: [{ id: 'a' }] }));
    });
    const client = createApiClient({ baseUrl: `${server.url}/`, token: 't' });
    track(client, server);
    expect(await client.post('/environment/{environmentId}/service/delete', { params: { environmentId: 'e1' }, body: {} })).toBeUndefined();
    expect(await client.get('/organization/{organizationId}/project', { params: { organizationId: 'o' } })).toEqual({ results: [{ id: 'a' }] });
  });

  it('does not follow a redirect, so the token is never sent to another address', async () => {
    const server = await startServer((_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', 'http://127.0.0.1:1/elsewhere');
      res.end();
    });
    const client = createApiClient({ baseUrl: server.url, token: 't' });
    track(client, server);
    await expect(client.get('/organization')).rejects.toMatchObject({ kind: 'validation', status: 302 });
    expect(server.seen).toHaveLength(1);
  });

  it('times out a server that stops answering, and the pool stays usable', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/hang') return; // never answers
      res.end('{"ok":true}');
    });
    const client = createApiClient({ baseUrl: server.url, token: 't', timeoutMs: 100, retries: 0 });
    track(client, server);
    await expect(client.get('/hang')).rejects.toMatchObject({ kind: 'timeout', status: 0, path: '/hang' });
    await expect(client.post('/hang', { body: {} })).rejects.toMatchObject({ kind: 'ambiguous', reason: 'timeout' });
    expect(await client.get('/ok')).toEqual({ ok: true });
  });
});
