/**
 * Auth header choice, and the guarantee that neither the token nor a secret sent in a body ever
 * reaches an error, an event or inspect/JSON output of the client.
 */
import { inspect } from 'node:util';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, authorizationHeader, createApiClient, looksLikeJwt, parseAuthScheme, type ApiEvent } from '../../src/api/index.js';
import { SecretValue } from '../../src/model/secret.js';
import { BASE, fakeTime, half } from './helpers.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const JWT = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ sub: 'u1', exp: 1 })}.c2lnbmF0dXJl`;

describe('authorization scheme', () => {
  it('recognises a JWT by its three base64url parts and JSON header', () => {
    expect(looksLikeJwt(JWT)).toBe(true);
    expect(looksLikeJwt('qov_abc123')).toBe(false);
    expect(looksLikeJwt('a.b.c')).toBe(false); // dotted, but "a" is not a JSON header
    expect(looksLikeJwt(`${JWT}.extra`)).toBe(false);
  });

  it('sends Token for an API token and Bearer for a JWT, unless told otherwise', async () => {
    const scope = nock(BASE)
      .get('/organization')
      .matchHeader('authorization', 'Token qov_abc123')
      .reply(200, {})
      .get('/organization')
      .matchHeader('authorization', `Bearer ${JWT}`)
      .reply(200, {})
      .get('/organization')
      .matchHeader('authorization', 'Bearer qov_abc123')
      .reply(200, {})
      .get('/organization')
      .matchHeader('authorization', `Token ${JWT}`)
      .reply(200, {});
    await createApiClient({ baseUrl: BASE, token: 'qov_abc123' }).get('/organization');
    await createApiClient({ baseUrl: BASE, token: JWT }).get('/organization');
    await createApiClient({ baseUrl: BASE, token: 'qov_abc123', authScheme: 'bearer' }).get('/organization');
    await createApiClient({ baseUrl: BASE, token: JWT, authScheme: 'Token' }).get('/organization');
    expect(scope.isDone()).toBe(true);
  });

  it('rejects an unknown scheme, a missing token and a bad URL with a clear message', () => {
    expect(() => parseAuthScheme('basic')).toThrow('unknown auth scheme "basic": allowed values are token, bearer, auto');
    expect(() => createApiClient({ baseUrl: BASE, token: '' })).toThrow('no API token: set DRIFTLESS_API_TOKEN');
    expect(() => createApiClient({ baseUrl: 'ftp://x', token: 't' })).toThrow('the protocol must be http or https');
    expect(() => createApiClient({ baseUrl: 'not a url', token: 't' })).toThrow('invalid API URL "not a url"');
    expect(() => createApiClient({ baseUrl: BASE, token: 't', parallelism: 0 })).toThrow('parallelism must be a positive integer, got 0');
    expect(authorizationHeader('x')).toBe('Token x');
  });
});

describe('secret hygiene', () => {
  const TOKEN = 'tok-CANARY-7f3a9c';
  const SECRET = 'pw-CANARY-b81d20';

  it('no token or body secret in errors, events, inspect or JSON output', async () => {
    const time = fakeTime();
    const events: ApiEvent[] = [];
    const c = createApiClient({ baseUrl: BASE, token: TOKEN, now: time.clock, sleep: time.sleep, random: half, retries: 1, onEvent: (e) => events.push(e) });
    const scope = nock(BASE)
      // A careless server echoing the credentials and the rejected value.
      .get('/organization')
      .reply(401, { message: `invalid token ${TOKEN} (header: Token ${TOKEN})` })
      .post('/variable')
      .reply(400, { message: `value ${SECRET} is not allowed` })
      .post('/variable')
      .reply(500, { message: `failed to store ${SECRET}` })
      .put('/variable/v1')
      .times(2)
      .reply(503, `upstream said ${SECRET}`)
      .get('/project/p1')
      .times(2)
      .replyWithError({ code: 'ECONNRESET', message: `reset while sending ${TOKEN}` });

    const errors: unknown[] = [];
    const attempt = (p: Promise<unknown>) => p.then(() => errors.push(new Error('unexpected success')), (e: unknown) => errors.push(e));
    await attempt(c.get('/organization'));
    await attempt(c.post('/variable', { body: { key: 'DB_PASSWORD', value: new SecretValue(SECRET), is_secret: true } }));
    await attempt(c.post('/variable', { body: { key: 'DB_PASSWORD', value: new SecretValue(SECRET), is_secret: true } }));
    await attempt(c.put('/variable/{variableId}', { params: { variableId: 'v1' }, body: { key: 'K', value: new SecretValue(SECRET) } }));
    await attempt(c.get('/project/{projectId}', { params: { projectId: 'p1' } }));
    expect(scope.isDone()).toBe(true);

    expect(errors.map((e) => (e as ApiError).kind)).toEqual(['unauthorized', 'validation', 'ambiguous', 'server', 'network']);
    // The scrubbed message keeps its meaning.
    expect((errors[1] as ApiError).serverMessage).toBe('value (sensitive value) is not allowed');

    const everything = [
      ...errors.flatMap((e) => [String(e), (e as Error).stack ?? '', inspect(e, { depth: 10, showHidden: true }), JSON.stringify(e)]),
      JSON.stringify(events),
      inspect(events, { depth: 10 }),
      inspect(c, { depth: 10, showHidden: true }),
      JSON.stringify(c),
      String(c),
      JSON.stringify(c.stats()),
    ].join('\n');
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('CANARY');
  });
});

describe('token validation', () => {
  it('refuses a token that cannot travel in a header, without echoing it', () => {
    for (const bad of ['tok en-CANARY', 'tok\nCANARY', 'tökCANARY']) {
      let message = '';
      try {
        createApiClient({ baseUrl: BASE, token: bad });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toBe('the API token contains spaces, line breaks or non-ASCII characters: check DRIFTLESS_API_TOKEN');
    }
  });

  it('trims surrounding whitespace (a trailing newline from a file or a secret store)', async () => {
    const scope = nock(BASE).get('/organization').matchHeader('authorization', 'Token qov_abc').reply(200, {});
    await createApiClient({ baseUrl: BASE, token: '  qov_abc\n' }).get('/organization');
    expect(scope.isDone()).toBe(true);
  });
});
