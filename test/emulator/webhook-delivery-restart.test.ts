/**
 * A delivery still being retried when the emulator stops is resumed after a restart with the same
 * --data file, and is delivered once the receiver recovers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { webhookDispatcher } from '../../src/emulator/webhooks/index.js';
import { startClient, type Client } from './helpers.js';
import { createApp, createEnvironment, sleep } from './ops-helpers.js';

let dir: string;
let server: Server;
let url: string;
let healthy = false;
const hits: Array<{ delivery: string; status: number }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'driftless-hooks-'));
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = healthy ? 200 : 503;
      hits.push({ delivery: String(req.headers['qovery-delivery']), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function waitFor(c: Client, done: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not settled: ${JSON.stringify(Object.values(c.em.state.webhookDeliveries).map((d) => [d.status, d.attempts]))}`);
    await sleep(10);
  }
}

test('pending deliveries resume after a restart', async () => {
  const dataFile = join(dir, 'state.json');
  const first = await startClient({ dataFile, deployDurationMs: 100_000 });
  // Retries far apart: the delivery is certainly still pending when the emulator stops.
  webhookDispatcher(first.em.ctx).config = { maxAttempts: 5, baseDelayMs: 60_000, timeoutMs: 2000 };
  const project = (await first.post(`/organization/${first.em.organizationId}/project`, { name: 'p' })).body;
  const env = await createEnvironment(first, project.id, 'e');
  const hook = (await first.post(`/organization/${first.em.organizationId}/webhook`, { target_url: url, events: ['DEPLOYMENT_STARTED'] })).body;
  const app = await createApp(first, env.id, 'api');
  expect((await first.post(`/application/${app.id}/deploy`, {})).status).toBe(202);
  await waitFor(first, () => hits.length >= 1);
  await waitFor(first, () => Object.values(first.em.state.webhookDeliveries).some((d) => d.attempts === 1));
  const [pending] = Object.values(first.em.state.webhookDeliveries);
  expect(pending).toMatchObject({ status: 'PENDING', attempts: 1, target_response_status_code: 503 });
  await first.em.close();

  healthy = true;
  // Held clock one minute later: the retry is due at start.
  const later = { now: () => new Date(Date.now() + 61_000) };
  const second = await startClient({ dataFile, deployDurationMs: 100_000, clock: later });
  try {
    await waitFor(second, () => second.em.state.webhookDeliveries[pending.id]?.status !== 'PENDING');
    const log = (await second.get(`/organization/${second.em.organizationId}/webhook/${hook.id}/event`)).body.results;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ id: pending.id, status: 'DELIVERED', attempts: 2, target_response_status_code: 200 });
    expect(hits.map((h) => h.delivery)).toEqual([pending.id, pending.id]);
  } finally {
    await second.em.close();
  }
});
