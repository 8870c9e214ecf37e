/**
 * Finding 13 of issue 11 (client part): a dropped connection on alert receiver validation was not
 * retried like other calls without side effect. End to end: `apply` goes through a TCP proxy in
 * front of the emulator that lets the first validations reach the emulator and then cuts the
 * connection before the answer (a lost answer, the worst case); apply must still validate and
 * save the receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { startHarness, type Harness } from '../e2e/helpers.js';

const MANIFEST = `version: 1
alert_receivers:
  - name: oncall
    type: SLACK
    description: the on-call channel
    send_resolved: true
    webhook_url: \${env:SLACK_WEBHOOK_URL}
`;

/**
 * Forwards TCP to `target`; the first `drops` validation requests are forwarded, and the
 * connection that carried each is then cut instead of returning the emulator's answer.
 */
function lossyProxy(target: URL, drops: number): Promise<{ server: Server; url: string; validations: () => number }> {
  let seen = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(client).add(upstream);
    let doomed = false;
    client.on('data', (chunk) => {
      const text = chunk.toString('latin1');
      if (/^POST \/alert-receivers\/(?:[^/ ]+\/)?validate /m.test(text)) {
        seen++;
        if (seen <= drops) doomed = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (doomed) {
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const close = () => (client.destroy(), upstream.destroy());
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({ server, url: `http://127.0.0.1:${port}`, validations: () => seen });
    }),
  );
}

let h: Harness;
let proxy: Awaited<ReturnType<typeof lossyProxy>>;

beforeAll(async () => {
  h = await startHarness();
  // Three lost answers in a row: more than apply's own loop of three attempts absorbed.
  proxy = await lossyProxy(new URL(h.emu.url), 3);
  h.write({ 'm/driftless.yaml': MANIFEST });
}, 30_000);
afterAll(async () => {
  await new Promise((r) => proxy.server.close(r));
  await h.close();
});

describe('finding 13: alert receiver validation is retried after a dropped connection', () => {
  it('finding 13: apply validates and saves the receiver although the first validation answers were lost', async () => {
    const r = await h.run(['apply', 'm', '--auto-approve'], { env: { DRIFTLESS_API_URL: proxy.url, SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T000/B000/XXXX' } });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(proxy.validations()).toBeGreaterThan(3);
    const receivers = await fetch(`${h.emu.url}/organization/${h.emu.organizationId}/alert-receivers`, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } }).then((x) => x.json());
    expect((receivers as any).results.map((x: any) => x.name)).toEqual(['oncall']);
    // Each attempt reached the emulator: it recorded one test message per validation.
    expect(h.emu.state.receiverValidations.length).toBe(proxy.validations());
  });
});
