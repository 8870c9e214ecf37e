/** Seed section 5: Bearer and Token schemes, 401 for missing or unknown tokens, 403 by scope. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client } from './helpers.js';
import type { TokenScope } from '../../src/emulator/state.js';

let c: Client;
let org: string;
let clusterId: string;
beforeAll(async () => {
  c = await startClient({ deployDurationMs: 5000 });
  org = c.em.organizationId;
  clusterId = Object.keys(c.em.state.clusters)[0];
});
afterAll(async () => {
  await c.em.close();
});

describe('authentication', () => {
  it('accepts the Token and the Bearer scheme, case-insensitively', async () => {
    for (const scheme of ['Token', 'Bearer', 'bearer', 'TOKEN']) {
      const r = await c.call('GET', '/organization', undefined, { scheme, token: c.em.tokens.READ });
      expect(r.status, scheme).toBe(200);
    }
  });

  it('answers 401 with the error body when the token is missing, unknown or malformed', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Token nope' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Token` },
      { authorization: `${c.em.tokens.ADMIN}` },
    ];
    for (const headers of cases) {
      const r = await c.call('GET', '/organization', undefined, { token: null, headers });
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.body).toMatchObject({ status: 401, error: 'Unauthorized' });
      expect(r.body.message).toMatch(/Authorization/);
    }
  });

  it('never echoes the presented token', async () => {
    const r = await c.call('GET', '/organization', undefined, { token: 'leaky-token-value' });
    expect(JSON.stringify(r.body)).not.toContain('leaky-token-value');
  });
});

describe('scopes', () => {
  // [label, method, path, body, statuses expected for ADMIN, WRITE, DEPLOY, READ]
  type Row = [string, string, () => string, () => unknown, Record<TokenScope, number>];
  const rows: Row[] = [
    ['read a list', 'GET', () => `/organization/${org}/project`, () => undefined, { ADMIN: 200, WRITE: 200, DEPLOY: 200, READ: 200 }],
    ['create', 'POST', () => `/organization/${org}/project`, () => ({ name: `p-${Math.random()}` }), { ADMIN: 200, WRITE: 200, DEPLOY: 403, READ: 403 }],
    ['edit the organization', 'PUT', () => `/organization/${org}`, () => ({ name: 'Acme' }), { ADMIN: 200, WRITE: 403, DEPLOY: 403, READ: 403 }],
    ['trigger an upgrade', 'POST', () => `/cluster/${clusterId}/upgrade`, () => undefined, { ADMIN: 201, WRITE: 403, DEPLOY: 409, READ: 403 }],
  ];
  for (const [label, method, path, body, expected] of rows) {
    it(`${label}: ${JSON.stringify(expected)}`, async () => {
      for (const scope of ['ADMIN', 'WRITE', 'DEPLOY', 'READ'] as TokenScope[]) {
        const r = await c.call(method, path(), body(), { token: c.em.tokens[scope] });
        expect(r.status, `${scope} ${method} ${path()}`).toBe(expected[scope]);
        if (r.status === 403) {
          expect(r.body).toMatchObject({ status: 403, error: 'Forbidden' });
          expect(r.body.message).toContain(`scope ${scope}`);
        }
      }
    });
  }

  it('a READ token cannot delete, a DEPLOY token cannot write configuration', async () => {
    const p = (await c.post(`/organization/${org}/project`, { name: 'keep-me' })).body;
    expect((await c.del(`/project/${p.id}`, c.em.tokens.READ)).status).toBe(403);
    expect((await c.put(`/project/${p.id}`, { name: 'x' }, c.em.tokens.DEPLOY)).status).toBe(403);
    expect((await c.get(`/project/${p.id}`, c.em.tokens.READ)).body.name).toBe('keep-me');
    expect((await c.del(`/project/${p.id}`, c.em.tokens.WRITE)).status).toBe(204);
  });
});
