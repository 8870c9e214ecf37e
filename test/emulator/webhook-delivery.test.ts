/**
 * Webhook delivery (seed section 6) against a loopback receiver: deployment events reach the
 * subscribed, enabled webhooks, signed when they have a secret; non-2xx answers are retried with
 * backoff a bounded number of times; deliveries are recorded and listable; a slow receiver never
 * blocks the API.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { verifySignature, webhookDispatcher } from '../../src/emulator/webhooks/index.js';
import { startClient, type Client } from './helpers.js';
import { createApp, createEnvironment, settle, sleep } from './ops-helpers.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  /** The exact bytes received, which the signature covers. */
  bytes: Buffer;
  body: any;
}

/** A loopback HTTP receiver whose answers the test decides. */
class Receiver {
  readonly received: Received[] = [];
  handler: (r: Received, res: ServerResponse) => void = (_r, res) => res.writeHead(200).end('ok');
  #server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString('utf8');
      const r: Received = { path: req.url ?? '/', headers: req.headers, raw, bytes, body: JSON.parse(raw) };
      this.received.push(r);
      this.handler(r, res);
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

let c: Client;
let rx: Receiver;
let envId: string;
let projectId: string;
const SECRET = 'whsec_test_0123456789';

beforeAll(async () => {
  c = await startClient({ deployDurationMs: 40, failDeployGlob: 'broken-*' });
  rx = new Receiver();
  await rx.start();
  webhookDispatcher(c.em.ctx).config = { maxAttempts: 4, baseDelayMs: 10, timeoutMs: 2000 };
  projectId = (await c.post(`/organization/${c.em.organizationId}/project`, { name: 'hooks' })).body.id;
  envId = (await createEnvironment(c, projectId, 'prod')).id;
});
afterEach(() => {
  rx.handler = (_r, res) => res.writeHead(200).end('ok');
});
afterAll(async () => {
  await c.em.close();
  await rx.close();
});

async function webhook(body: Record<string, unknown>): Promise<any> {
  const r = await c.post(`/organization/${c.em.organizationId}/webhook`, body);
  expect(r.status).toBe(201);
  return r.body;
}

async function deliveries(webhookId: string): Promise<any[]> {
  const r = await c.get(`/organization/${c.em.organizationId}/webhook/${webhookId}/event`);
  expect(r.status).toBe(200);
  return r.body.results;
}

/** Waits until every recorded delivery is DELIVERED or FAILED (deadline guards against a hang only). */
async function deliveriesSettled(): Promise<void> {
  const end = Date.now() + 10_000;
  while (Object.values(c.em.state.webhookDeliveries).some((d) => d.status === 'PENDING')) {
    if (Date.now() > end) throw new Error('deliveries still pending');
    await sleep(5);
  }
}

async function deploy(name: string): Promise<string> {
  const app = await createApp(c, envId, name);
  expect((await c.post(`/application/${app.id}/deploy`, {})).status).toBe(202);
  await settle(c);
  await deliveriesSettled();
  return app.id;
}

describe('webhook delivery', () => {
  test('start and success reach every enabled, subscribed webhook, signed with its secret', async () => {
    const all = await webhook({ target_url: `${rx.url}/all`, target_secret: SECRET, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_FAILED'] });
    const off = await webhook({ target_url: `${rx.url}/off`, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED'], enabled: false });
    const failuresOnly = await webhook({ target_url: `${rx.url}/failures`, events: ['DEPLOYMENT_FAILED'] });
    const otherProjects = await webhook({ target_url: `${rx.url}/filtered`, events: ['DEPLOYMENT_STARTED'], project_names_filter: ['billing-*'] });

    const appId = await deploy('api');
    // Ordered by the event's own timestamp (two deliveries may race on separate connections).
    const got = rx.at('/all').filter((r) => r.body.payload.application_id === appId).sort((a, b) => Date.parse(a.body.payload.timestamp) - Date.parse(b.body.payload.timestamp));
    expect(got.map((r) => r.body.event_type)).toEqual(['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED']);
    for (const r of got) {
      expect(r.body.payload).toMatchObject({ application_id: appId, service_type: 'APPLICATION', service_name: 'api', environment_id: envId, project_id: projectId });
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['qovery-event']).toBe(r.body.event_type);
      expect(verifySignature(SECRET, r.raw, r.headers['qovery-signature'] as string)).toBe(true);
      expect(verifySignature('wrong-secret', r.raw, r.headers['qovery-signature'] as string)).toBe(false);
      expect(r.raw).not.toContain(SECRET);
    }
    expect(rx.at('/off')).toHaveLength(0);
    expect(rx.at('/failures')).toHaveLength(0);
    expect(rx.at('/filtered')).toHaveLength(0);

    const log = await deliveries(all.id);
    expect(log.map((d) => d.matched_event)).toEqual(['DEPLOYMENT_SUCCEEDED', 'DEPLOYMENT_STARTED']);
    for (const d of log) {
      expect(d).toMatchObject({ kind: 'STANDARD', target_url_used: `${rx.url}/all`, target_response_status_code: 200, status: 'DELIVERED', attempts: 1 });
      expect(d.request.payload.application_id).toBe(appId);
    }
    expect(JSON.stringify(log)).not.toContain(SECRET);
    expect(await deliveries(off.id)).toEqual([]);
    expect(await deliveries(failuresOnly.id)).toEqual([]);
    expect(await deliveries(otherProjects.id)).toEqual([]);
    expect((await c.get(`/organization/${c.em.organizationId}/webhook/00000000-0000-4000-8000-000000000000/event`)).status).toBe(404);
    for (const w of [all, off, failuresOnly, otherProjects]) await c.del(`/organization/${c.em.organizationId}/webhook/${w.id}`);
  });

  test('the signature header is the documented HMAC, computed here with node:crypto over the bytes received', async () => {
    // The documented algorithm (src/emulator/README.md, "Webhook delivery and how to verify a
    // signature"): Qovery-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body, keyed with
    // the secret>. Computed independently of the emulator's signBody/verifySignature, so an encoding
    // slip (base64 for hex, a re-serialized body) fails here.
    const secret = 'whsec_indépendant_✓_42';
    const hook = await webhook({ target_url: `${rx.url}/independent`, target_secret: secret, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED'] });
    const appId = await deploy('signed');
    const got = rx.at('/independent').filter((r) => r.body.payload.application_id === appId);
    expect(got.map((r) => r.body.event_type).sort()).toEqual(['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED']);
    for (const r of got) {
      const header = r.headers['qovery-signature'];
      expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
      const expected = 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(r.bytes).digest('hex');
      expect(header).toBe(expected);
      // The same bytes with one changed byte no longer match: the header covers the body received.
      const tampered = Buffer.from(r.bytes);
      tampered[tampered.length - 2] ^= 1;
      expect(header).not.toBe('sha256=' + createHmac('sha256', secret).update(tampered).digest('hex'));
    }
    await c.del(`/organization/${c.em.organizationId}/webhook/${hook.id}`);
  });

  test('HMAC-SHA256 known answer: the published test vector, no crypto call in the expectation', () => {
    // HMAC_SHA256("key", "The quick brown fox jumps over the lazy dog"), the widely published
    // vector: pins the emulator's verifier to hex HMAC-SHA256 without trusting node:crypto either.
    const header = 'sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8';
    expect(verifySignature('key', 'The quick brown fox jumps over the lazy dog', header)).toBe(true);
    expect(createHmac('sha256', 'key').update('The quick brown fox jumps over the lazy dog').digest('hex')).toBe(header.slice('sha256='.length));
  });

  test('a failed deployment sends DEPLOYMENT_FAILED; a webhook without a secret sends no signature', async () => {
    const w = await webhook({ target_url: `${rx.url}/failed`, events: ['DEPLOYMENT_FAILED'] });
    const appId = await deploy('broken-api');
    const got = rx.at('/failed');
    expect(got).toHaveLength(1);
    expect(got[0].body).toMatchObject({ event_type: 'DEPLOYMENT_FAILED', payload: { application_id: appId } });
    expect(got[0].headers['qovery-signature']).toBeUndefined();
    await c.del(`/organization/${c.em.organizationId}/webhook/${w.id}`);
  });

  test('non-2xx answers are retried with backoff until acknowledged', async () => {
    const w = await webhook({ target_url: `${rx.url}/flaky`, events: ['DEPLOYMENT_SUCCEEDED'] });
    let calls = 0;
    rx.handler = (_r, res) => {
      calls += 1;
      if (calls <= 2) res.writeHead(503).end('try later');
      else res.writeHead(204).end();
    };
    await deploy('retried');
    expect(rx.at('/flaky')).toHaveLength(3);
    const [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'DELIVERED', attempts: 3, target_response_status_code: 204, next_attempt_at: null });
    // The same delivery each time: one id, one body.
    const ids = new Set(rx.at('/flaky').map((r) => r.headers['qovery-delivery']));
    expect(ids.size).toBe(1);
    expect(new Set(rx.at('/flaky').map((r) => r.raw)).size).toBe(1);
    await c.del(`/organization/${c.em.organizationId}/webhook/${w.id}`);
  });

  test('retries are bounded: a receiver that keeps failing gets maxAttempts requests, then the delivery is FAILED', async () => {
    const w = await webhook({ target_url: `${rx.url}/down`, events: ['DEPLOYMENT_STARTED'] });
    rx.handler = (_r, res) => res.writeHead(500).end('boom');
    await deploy('never-acked');
    expect(rx.at('/down')).toHaveLength(4);
    const [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'FAILED', attempts: 4, target_response_status_code: 500, target_response_body: 'boom' });
    await c.del(`/organization/${c.em.organizationId}/webhook/${w.id}`);
  });

  test('an unreachable receiver is recorded as a failure with no status code', async () => {
    const closed = new Receiver();
    await closed.start();
    const url = `${closed.url}/gone`;
    await closed.close();
    const w = await webhook({ target_url: url, events: ['DEPLOYMENT_STARTED'] });
    await deploy('unreachable');
    const [d] = await deliveries(w.id);
    expect(d).toMatchObject({ status: 'FAILED', attempts: 4, target_response_status_code: 0, target_response_body: 'connection refused' });
    await c.del(`/organization/${c.em.organizationId}/webhook/${w.id}`);
  });

  test('a receiver that does not answer never blocks the API; the attempt times out and is retried', async () => {
    webhookDispatcher(c.em.ctx).config = { maxAttempts: 2, baseDelayMs: 10, timeoutMs: 150 };
    const held: ServerResponse[] = [];
    rx.handler = (_r, res) => {
      held.push(res);
    };
    const w = await webhook({ target_url: `${rx.url}/slow`, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED'] });
    try {
      const app = await createApp(c, envId, 'slow-receiver');
      expect((await c.post(`/application/${app.id}/deploy`, {})).status).toBe(202);
      // While the receiver sits on the STARTED delivery, the deployment completes and the API answers.
      await settle(c);
      expect((await c.get(`/application/${app.id}/status`)).body.state).toBe('DEPLOYED');
      await deliveriesSettled();
      expect(rx.at('/slow').length).toBe(4); // 2 deliveries x 2 attempts, none answered
      expect(held.length).toBe(4);
      const log = await deliveries(w.id);
      expect(log).toHaveLength(2);
      for (const d of log) expect(d).toMatchObject({ status: 'FAILED', attempts: 2, target_response_status_code: 0 });
      expect(log[0].target_response_body).toMatch(/timeout/);
    } finally {
      for (const res of held) res.destroy();
      webhookDispatcher(c.em.ctx).config = { maxAttempts: 4, baseDelayMs: 10, timeoutMs: 2000 };
      await c.del(`/organization/${c.em.organizationId}/webhook/${w.id}`);
    }
  });

  test('the delivery log keeps the newest finished deliveries of each webhook', async () => {
    webhookDispatcher(c.em.ctx).config = { maxAttempts: 4, baseDelayMs: 10, timeoutMs: 2000, keepPerWebhook: 2 };
    const w = await webhook({ target_url: `${rx.url}/bounded`, events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED'] });
    try {
      await deploy('bounded-1');
      const second = await deploy('bounded-2');
      expect(rx.at('/bounded')).toHaveLength(4);
      const log = await deliveries(w.id);
      expect(log.map((d) => [d.matched_event, d.request.payload.application_id])).toEqual([
        ['DEPLOYMENT_SUCCEEDED', second],
        ['DEPLOYMENT_STARTED', second],
      ]);
    } finally {
      webhookDispatcher(c.em.ctx).config = { maxAttempts: 4, baseDelayMs: 10, timeoutMs: 2000 };
      await c.del(`/organization/${c.em.organizationId}/webhook/${w.id}`);
    }
  });
});
