/**
 * Finding 12: when another deployment of a service started between the end of apply's deployment
 * and apply's next status read, apply took that request for its own queued one, waited out its
 * whole timeout, then reported a failure for a service its own request had DEPLOYED.
 *
 * Here the other deployment (a console user's, slow) starts the instant apply's own deployment of
 * `web` succeeds, before apply reads the statuses again.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { SECRET_ENV, appManifest, servicesByName } from '../e2e/fixtures.js';
import { startOperation } from '../../src/emulator/ops/start.js';
import { startProxy, type Proxy } from '../support/proxy.js';

let h: Harness;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await h?.close();
});

const WEB = 'project.e2e/environment.dev/container.web';

describe('finding 12: apply waits only for its own deployments', () => {
  it('finding 12: a foreign deployment started between two polls is reported, not waited for, and ours counts as deployed', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': appManifest() });
    const foreign: { requestId?: string; executionId?: string } = {};
    const ourExecutions = new Set<string>();
    const stop = h.emu.ctx.events.on('deployment', (e) => {
      if (e.service_name !== 'web' || e.event_type !== 'DEPLOYMENT_SUCCEEDED' || foreign.requestId) return;
      ourExecutions.add(e.execution_id);
      // Synchronously after our deployment's end (no status read can come in between): a console
      // user deploys web again, and that deployment takes far longer than apply's timeout.
      queueMicrotask(() => {
        const web = Object.values(h.emu.state.services).find((s) => s.name === 'web')!;
        const options = h.emu.ctx.options as { deployDurationMs: number };
        const usual = options.deployDurationMs;
        options.deployDurationMs = 120_000;
        try {
          const op = startOperation(h.emu.ctx, { action: 'DEPLOY', environmentId: e.environment_id, services: [{ service: web }], staged: false, triggeredBy: 'console-user@example.com' });
          foreign.requestId = op.deployment_request_id;
          foreign.executionId = op.execution_id;
        } finally {
          options.deployDurationMs = usual;
        }
      });
    });
    try {
      const started = Date.now();
      const r = await h.run(['apply', 'm', '--auto-approve', '--timeout', '20s', ...FAST], { env: SECRET_ENV });
      const seconds = (Date.now() - started) / 1000;
      expect(foreign.requestId).toBeDefined();
      expect(r.code).toBe(0);
      // Nowhere near the 20 s timeout, nor the foreign deployment's 120 s.
      expect(seconds).toBeLessThan(10);
      expect(r.stdout).toContain(`${WEB}: Deployed after`);
      expect(r.stdout).toContain(`another deployment (request ${foreign.requestId}) started on it after this apply's deployment ended; driftless did not wait for it`);
      expect(r.stdout).toContain('Apply complete! Resources: 7 added, 0 changed, 0 destroyed; 2 deployed.');
      // The foreign deployment is still running: apply really did not wait for it.
      const web = servicesByName(h).get('web')!;
      expect(h.emu.state.serviceStatuses[web.id]).toMatchObject({ deployment_request_id: foreign.requestId });
      expect(String(h.emu.state.serviceStatuses[web.id]!.state)).not.toBe('DEPLOYED');
      expect(ourExecutions.has(foreign.executionId!)).toBe(false);
    } finally {
      stop();
    }
  }, 60_000);

  for (const foreignMs of [120_000, 60]) {
    it(`finding 12: apply's deployment ends before its first status read and a foreign one (${foreignMs} ms) starts at once: apply finishes promptly with success and reports it`, async () => {
      // Our deployment (60 ms) is far shorter than the default first poll interval (500 ms, no
      // --poll-interval here): apply never sees a status carrying its own request id.
      h = await startHarness({ deployDurationMs: 60 });
      // web alone in its stage: no other service of the batch shows apply's request either.
      h.write({ 'm/main.yaml': appManifest({ stages: true }) });
      const foreign: { requestId?: string; done?: Promise<void> } = {};
      const stop = h.emu.ctx.events.on('deployment', (e) => {
        if (e.service_name !== 'web' || e.event_type !== 'DEPLOYMENT_SUCCEEDED' || foreign.done) return;
        // The moment ours succeeds, another user deploys web through the API with a token of
        // their own; the emulator takes that deployment's duration when it is requested.
        const web = Object.values(h.emu.state.services).find((s) => s.name === 'web')!;
        const options = h.emu.ctx.options as { deployDurationMs: number };
        options.deployDurationMs = foreignMs;
        foreign.done = (async () => {
          try {
            const res = await fetch(`${h.emu.url}/environment/${e.environment_id}/service/deploy`, {
              method: 'POST',
              headers: { authorization: `Token ${h.emu.tokens.DEPLOY}`, 'content-type': 'application/json' },
              body: JSON.stringify({ containers: [{ id: web.id }] }),
            });
            expect(res.status).toBe(202);
            foreign.requestId = ((await res.json()) as { deployment_request_id: string }).deployment_request_id;
          } finally {
            options.deployDurationMs = 60;
          }
        })();
      });
      try {
        const started = Date.now();
        const r = await h.run(['apply', 'm', '--auto-approve', '--timeout', '20s'], { env: SECRET_ENV });
        const seconds = (Date.now() - started) / 1000;
        await foreign.done;
        expect(foreign.requestId).toBeDefined();
        expect(r.stdout + r.stderr).not.toContain('timed out');
        expect(r.code).toBe(0);
        expect(seconds).toBeLessThan(10);
        expect(r.stdout).toContain(`${WEB}: Deployed after`);
        expect(r.stdout).toContain(`another deployment (request ${foreign.requestId}) started on it after this apply's deployment ended; driftless did not wait for it`);
        // 7 resources and the 2 deployment stages.
        expect(r.stdout).toContain('Apply complete! Resources: 9 added, 0 changed, 0 destroyed; 2 deployed.');
        const web = servicesByName(h).get('web')!;
        expect(h.emu.state.serviceStatuses[web.id]).toMatchObject({ deployment_request_id: foreign.requestId });
      } finally {
        stop();
      }
    }, 60_000);
  }

  it("finding 12: when the deploy's answer is lost, a foreign deployment after ours is not taken for apply's own", async () => {
    // Ours lasts longer than the request timeout, so apply finds it running after the lost answer.
    h = await startHarness({ deployDurationMs: 1500 });
    proxy = await startProxy(h.emu.url);
    h.write({ 'm/main.yaml': appManifest({ stages: true }) });
    let swallowed = 0;
    proxy.rule = ({ method, path }) => (method === 'POST' && path.endsWith('/service/deploy') && swallowed++ === 0 ? 'swallow' : undefined);
    const foreign: { requestId?: string } = {};
    const stop = h.emu.ctx.events.on('deployment', (e) => {
      if (e.service_name !== 'web' || e.event_type !== 'DEPLOYMENT_SUCCEEDED' || foreign.requestId) return;
      // Synchronously after our deployment's end: a console user deploys web again, for longer
      // than apply's timeout.
      queueMicrotask(() => {
        const web = Object.values(h.emu.state.services).find((s) => s.name === 'web')!;
        const options = h.emu.ctx.options as { deployDurationMs: number };
        options.deployDurationMs = 120_000;
        try {
          foreign.requestId = startOperation(h.emu.ctx, { action: 'DEPLOY', environmentId: e.environment_id, services: [{ service: web }], staged: false, triggeredBy: 'console-user@example.com' }).deployment_request_id;
        } finally {
          options.deployDurationMs = 1500;
        }
      });
    });
    try {
      const started = Date.now();
      const r = await h.run(['apply', 'm', '--auto-approve', '--timeout', '25s', ...FAST], { env: { ...SECRET_ENV, DRIFTLESS_API_URL: proxy.url, DRIFTLESS_REQUEST_TIMEOUT: '0.5' } });
      const seconds = (Date.now() - started) / 1000;
      expect(swallowed).toBeGreaterThan(0);
      expect(foreign.requestId).toBeDefined();
      expect(r.stdout + r.stderr).not.toContain('timed out');
      expect(r.code).toBe(0);
      expect(seconds).toBeLessThan(15);
      expect(r.stdout).toContain(`${WEB}: Deployed after`);
      expect(r.stdout).toContain(`another deployment (request ${foreign.requestId}) started on it after this apply's deployment ended; driftless did not wait for it`);
      // One deploy request per stage: the lost one was followed, not sent again.
      expect(proxy.seen.filter((x) => x.method === 'POST' && x.path.endsWith('/service/deploy'))).toHaveLength(2);
    } finally {
      stop();
    }
  }, 60_000);

  it('finding 12: two concurrent applies of examples/realistic both finish promptly, neither waiting out its timeout', async () => {
    h = await startHarness();
    cpSync(join(import.meta.dirname, '../../examples/realistic'), join(h.dir, 'r'), { recursive: true });
    const env = { STRIPE_API_KEY: 'sk_test_example', SESSION_SECRET: 'session-example', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T000/B000/first', WEBHOOK_SIGNING_SECRET: 'whsec_example' };
    expect((await h.run(['apply', 'r', '--auto-approve', ...FAST], { env })).code).toBe(0);
    // A change every service of production sees: each apply redeploys them all.
    const file = join(h.dir, 'r/shop.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('value: info', 'value: debug'));
    const started = Date.now();
    const [a, b] = await Promise.all([0, 1].map(() => h.run(['apply', 'r', '--auto-approve', '--timeout', '25s', ...FAST], { env })));
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(15);
    for (const r of [a!, b!]) expect(r.stdout + r.stderr).not.toContain('timed out');
    // Whatever the interleaving, the organization ends as the manifest says.
    const p = await h.run(['plan', 'r'], { env });
    expect(p.stdout).toContain('No changes.');
  }, 90_000);
});
