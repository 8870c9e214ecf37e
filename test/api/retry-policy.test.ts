/** The pure decision table behind the client's retry loop. */
import { describe, expect, it } from 'vitest';
import { decideNext, serverMessage, type AttemptOutcome, type RetryPolicy } from '../../src/api/retry-policy.js';
import { T0 } from './helpers.js';

const GET: RetryPolicy = { retryable: true, retries: 2, rateLimitRetries: 3 };
const POST: RetryPolicy = { ...GET, retryable: false };
const fresh = { failures: 0, rateLimited: 0 };
const res = (status: number, text = '', headers: Record<string, string> = {}): AttemptOutcome => ({ type: 'response', status, text, headers: new Headers(headers) });

describe('decideNext', () => {
  it('returns 2xx bodies', () => {
    expect(decideNext(res(201, '{"id":"x"}'), fresh, POST, T0, [])).toEqual({ type: 'done', status: 201, text: '{"id":"x"}' });
  });

  it('retries 5xx for retryable requests until the budget is spent', () => {
    expect(decideNext(res(502), fresh, GET, T0, [])).toEqual({ type: 'retry', reason: 'HTTP 502', minDelayMs: 0 });
    expect(decideNext(res(502), { failures: 2, rateLimited: 0 }, GET, T0, [])).toEqual({ type: 'fail', error: { kind: 'server', status: 502, serverMessage: undefined } });
  });

  it('gives quick failures (5xx, dropped connection) their own budget, timeouts the plain one', () => {
    const policy = { ...GET, retries: 2, fastRetries: 4 };
    const after = (failures: number) => ({ failures, rateLimited: 0 });
    expect(decideNext(res(503), after(3), policy, T0, [])).toMatchObject({ type: 'retry' });
    expect(decideNext(res(503), after(4), policy, T0, [])).toMatchObject({ type: 'fail', error: { kind: 'server' } });
    expect(decideNext({ type: 'network', code: 'UND_ERR_SOCKET', sent: true }, after(3), policy, T0, [])).toMatchObject({ type: 'retry' });
    expect(decideNext({ type: 'network', code: 'UND_ERR_SOCKET', sent: true }, after(4), policy, T0, [])).toMatchObject({ type: 'fail', error: { kind: 'network' } });
    expect(decideNext({ type: 'timeout' }, after(1), policy, T0, [])).toMatchObject({ type: 'retry' });
    expect(decideNext({ type: 'timeout' }, after(2), policy, T0, [])).toMatchObject({ type: 'fail', error: { kind: 'timeout' } });
  });

  it('makes a failed non-retryable request ambiguous, whatever the failure', () => {
    expect(decideNext(res(500, '{"message":"x"}'), fresh, POST, T0, [])).toMatchObject({ type: 'fail', error: { kind: 'ambiguous', reason: 'server', status: 500 } });
    expect(decideNext({ type: 'timeout' }, fresh, POST, T0, [])).toMatchObject({ type: 'fail', error: { kind: 'ambiguous', reason: 'timeout' } });
    expect(decideNext({ type: 'network', code: 'UND_ERR_SOCKET', sent: true }, fresh, POST, T0, [])).toMatchObject({
      type: 'fail',
      error: { kind: 'ambiguous', reason: 'network', code: 'UND_ERR_SOCKET' },
    });
  });

  it('retries anything that was never sent', () => {
    expect(decideNext({ type: 'network', code: 'ECONNREFUSED', sent: false }, fresh, POST, T0, [])).toEqual({
      type: 'retry',
      reason: 'connection failed (ECONNREFUSED)',
      minDelayMs: 0,
    });
  });

  it('waits out 429s for any method, until rateLimitRetries', () => {
    expect(decideNext(res(429, '', { 'retry-after': '2' }), fresh, POST, T0, [])).toEqual({ type: 'rate-limited', untilMs: T0 + 2000 });
    expect(decideNext(res(429, '', { 'x-ratelimit-reset': String((T0 + 9000) / 1000) }), fresh, GET, T0, [])).toEqual({ type: 'rate-limited', untilMs: T0 + 9000 });
    expect(decideNext(res(429), fresh, GET, T0, [])).toEqual({ type: 'rate-limited', untilMs: undefined });
    expect(decideNext(res(429), { failures: 0, rateLimited: 3 }, GET, T0, [])).toMatchObject({ type: 'fail', error: { kind: 'rate-limited' } });
  });

  it('caps a 5xx Retry-After at a minute', () => {
    expect(decideNext(res(503, '', { 'retry-after': '3600' }), fresh, GET, T0, [])).toEqual({ type: 'retry', reason: 'HTTP 503', minDelayMs: 60_000 });
  });

  it('fails 4xx at once with their kind', () => {
    expect(decideNext(res(403, '{"message":"no"}'), fresh, GET, T0, [])).toEqual({ type: 'fail', error: { kind: 'forbidden', status: 403, serverMessage: 'no' } });
  });
});

describe('serverMessage', () => {
  it('takes message, detail or error; bounds and scrubs it', () => {
    expect(serverMessage('{"status":400,"error":"Bad Request","message":"name is required"}', [])).toBe('name is required');
    expect(serverMessage('{"detail":"gone"}', [])).toBe('gone');
    expect(serverMessage('"plain"', [])).toBe('plain');
    expect(serverMessage('', [])).toBeUndefined();
    expect(serverMessage(JSON.stringify({ message: 'x'.repeat(600) }), [])).toHaveLength(501);
    expect(serverMessage('{"message":"bad value hunter2"}', ['hunter2'])).toBe('bad value (sensitive value)');
  });
});
