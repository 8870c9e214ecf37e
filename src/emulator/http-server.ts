/**
 * The emulator's HTTP server (given to fastify as its `serverFactory`): node's http server with the
 * settings a burst of clients and `Expect: 100-continue` need.
 *
 * - `Expect: 100-continue` (curl sends it for bodies over 1 MB): node answers "100 Continue" at once
 *   by default, so a client would upload a body the emulator then refuses (too large, bad token,
 *   rate limit) and get a broken pipe while still writing it. Here a body declared larger than the
 *   limit is refused with 413 before anything is uploaded, and "100 Continue" is only sent once the
 *   request has passed authentication, scopes and the rate limit (`continueIfExpected`, called by a
 *   fastify preParsing hook). A request answered without asking for its body closes the connection
 *   (`closeIfBodyNeverAsked`), since the client may still send the body it was holding back.
 * - Bursts: a listen backlog of 511 (node's default) overflows when 2,000 clients connect at once;
 *   `LISTEN_BACKLOG` is passed to `listen` (the kernel caps it at net.core.somaxconn).
 * - Timeouts: the headers timeout must exceed the keep-alive timeout, or a client that reuses a
 *   connection idle for between the two has its request cut (node's 60 s headers timeout is below
 *   fastify's 72 s keep-alive timeout).
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { errorBody } from './errors.js';

export const LISTEN_BACKLOG = 4096;
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;
export const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 8_000;

const CONTINUE_PENDING = Symbol('continuePending');
type PendingRequest = IncomingMessage & { [CONTINUE_PENDING]?: boolean };

export function createEmulatorServer(handler: RequestListener, bodyLimitBytes: number): Server {
  const server = createServer(handler);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = 0; // a slow upload of an allowed body is not an error on loopback
  server.on('checkContinue', (req: PendingRequest, res: ServerResponse) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > bodyLimitBytes) {
      const body = JSON.stringify(errorBody(413, `request body is too large: ${declared} bytes declared, at most ${bodyLimitBytes} accepted`));
      res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
      res.end(body);
      return;
    }
    req[CONTINUE_PENDING] = true;
    server.emit('request', req, res);
  });
  return server;
}

/** Sends the "100 Continue" a request is waiting for, if any: its body is about to be read. */
export function continueIfExpected(req: IncomingMessage, res: ServerResponse): void {
  const pending = req as PendingRequest;
  if (!pending[CONTINUE_PENDING]) return;
  pending[CONTINUE_PENDING] = false;
  if (!res.headersSent) res.writeContinue();
}

/** True when the request announced a body with Expect and was answered before asking for it. */
export function bodyNeverAsked(req: IncomingMessage): boolean {
  return (req as PendingRequest)[CONTINUE_PENDING] === true;
}
