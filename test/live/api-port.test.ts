/**
 * How the reader and apply classify what the API client threw (a create retried only after a
 * look-up when its outcome is unknown, an object gone on 404, a refused token stopping the run),
 * the message a failure is reported with, and the port over the real client (each call passed on
 * as the client takes it; the request count is the client's).
 */
import { describe, expect, it } from 'vitest';
import { errorMessage, errorStatus, isAmbiguousFailure, isAuthRefusal, isNotFound, isRateLimitWaitRefusal, portFromClient, type ClientLike } from '../../src/live/api-port.js';

describe('what an API failure is', () => {
  it('has the status the server answered, under either name, and none when it did not answer', () => {
    expect(errorStatus({ status: 409 })).toBe(409);
    expect(errorStatus({ statusCode: 502 })).toBe(502);
    expect(errorStatus({ status: '409', statusCode: 500 })).toBe(500);
    expect(errorStatus({ status: '409' })).toBeUndefined();
    expect(errorStatus(new Error('socket hang up'))).toBeUndefined();
    expect(errorStatus(null)).toBeUndefined();
    expect(errorStatus(404)).toBeUndefined();
  });

  it('is ambiguous (the write may have happened) on no answer, a 5xx, a timeout or a dropped connection; not on a 4xx', () => {
    for (const kind of ['ambiguous', 'server', 'timeout', 'network']) expect(isAmbiguousFailure({ kind, status: 400 }), kind).toBe(true);
    for (const kind of ['not-found', 'conflict', 'unauthorized']) expect(isAmbiguousFailure({ kind, status: 503 }), kind).toBe(false);
    expect(isAmbiguousFailure({ status: 500 })).toBe(true);
    expect(isAmbiguousFailure({ status: 503 })).toBe(true);
    expect(isAmbiguousFailure({ status: 499 })).toBe(false);
    expect(isAmbiguousFailure({ status: 409 })).toBe(false);
    expect(isAmbiguousFailure({ status: 0 })).toBe(true);
    expect(isAmbiguousFailure(new Error('ECONNRESET'))).toBe(true);
    expect(isAmbiguousFailure(null)).toBe(true);
  });

  it('is "gone" on a 404 or the client\'s not-found, nothing else', () => {
    expect(isNotFound({ kind: 'not-found' })).toBe(true);
    expect(isNotFound({ status: 404 })).toBe(true);
    expect(isNotFound({ statusCode: 404 })).toBe(true);
    expect(isNotFound({ status: 410 })).toBe(false);
    expect(isNotFound({ kind: 'server', status: 500 })).toBe(false);
    expect(isNotFound(null)).toBe(false);
  });

  it('is a refused token on 401 or 403, by status or kind', () => {
    for (const e of [{ kind: 'unauthorized' }, { kind: 'forbidden' }, { status: 401 }, { status: 403 }, { statusCode: 403 }]) expect(isAuthRefusal(e), JSON.stringify(e)).toBe(true);
    for (const e of [{ kind: 'not-found' }, { status: 404 }, { status: 400 }, null]) expect(isAuthRefusal(e), JSON.stringify(e)).toBe(false);
  });

  it('is a refusal to wait for the rate limit only when the client says so', () => {
    expect(isRateLimitWaitRefusal({ kind: 'rate-limit-wait' })).toBe(true);
    expect(isRateLimitWaitRefusal({ kind: 'timeout', status: 429 })).toBe(false);
    expect(isRateLimitWaitRefusal(null)).toBe(false);
  });

  it('is reported with the API\'s own message first, then the error\'s, then as it is', () => {
    expect(errorMessage({ message: 'HTTP 400', body: { message: 'name is taken' } })).toBe('name is taken');
    expect(errorMessage({ message: 'HTTP 400', body: { message: '' } })).toBe('HTTP 400');
    expect(errorMessage({ message: 'HTTP 400', body: { message: 42 } })).toBe('HTTP 400');
    expect(errorMessage(new Error('socket hang up'))).toBe('socket hang up');
    expect(errorMessage({ message: '' })).toBe('[object Object]');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(null)).toBe('null');
  });
});

describe('the port over the real client', () => {
  it('passes each call on with its query and body, and counts the client\'s requests', async () => {
    const calls: unknown[] = [];
    let total = 0;
    const client: ClientLike = {
      get: async (path, opts) => (calls.push(['get', path, opts]), total++, { got: path }) as never,
      post: async (path, opts) => (calls.push(['post', path, opts]), total++, { posted: path }) as never,
      put: async (path, opts) => (calls.push(['put', path, opts]), total++, { put: path }) as never,
      delete: async (path, opts) => (calls.push(['delete', path, opts]), total++, { ignored: true }) as never,
      stats: () => ({ total }),
      serverDate: () => new Date('2026-11-25T16:00:00Z'),
    };
    const port = portFromClient(client);
    expect(port.requestCount).toBe(0);
    expect(await port.get('/project/p1', { a: 1 })).toEqual({ got: '/project/p1' });
    expect(await port.post('/project', { name: 'x' }, { dry: true })).toEqual({ posted: '/project' });
    expect(await port.put('/project/p1', { name: 'y' })).toEqual({ put: '/project/p1' });
    expect(await port.delete('/project/p1', { force: false })).toBeUndefined();
    expect(calls).toEqual([
      ['get', '/project/p1', { query: { a: 1 } }],
      ['post', '/project', { body: { name: 'x' }, query: { dry: true } }],
      ['put', '/project/p1', { body: { name: 'y' } }],
      ['delete', '/project/p1', { query: { force: false } }],
    ]);
    expect(port.requestCount).toBe(4);
    expect(port.serverDate!()).toEqual(new Date('2026-11-25T16:00:00Z'));
  });

  it('has no server date from a client that keeps none', () => {
    const client = { get: async () => ({}), post: async () => ({}), put: async () => ({}), delete: async () => ({}), stats: () => ({ total: 0 }) } as unknown as ClientLike;
    expect(portFromClient(client).serverDate!()).toBeUndefined();
  });
});
