/**
 * Finding 13 of issue 11 (emulator part): the emulator must be as strict as the platform, or the
 * suite that runs driftless against it proves nothing. Before: a token of another organization read
 * and wrote this one; `1e308` and lone surrogates were stored; every alert receiver validation
 * logged "Cannot write headers after they are sent"; a large body sent with
 * `Expect: 100-continue` got a broken pipe. End to end through the CLI where a user would meet it,
 * over HTTP otherwise. (Bursts of 2,000 connections with `--data`: test/emulator/burst.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { startHarness, type Harness } from '../e2e/helpers.js';

const FOREIGN_TOKEN = `dl_admin_${'cd'.repeat(20)}`;
const MANIFEST = `version: 1
alert_receivers:
  - name: oncall
    type: SLACK
    description: the on-call channel
    send_resolved: true
    webhook_url: https://hooks.slack.com/services/T000/B000/XXXX
projects:
  - name: tenant
    environments:
      - name: production
        cluster: production-cluster
        mode: PRODUCTION
`;

const logged: string[] = [];
let h: Harness;

async function http(method: string, path: string, raw?: string, token = h.emu.tokens.ADMIN): Promise<{ status: number; body: any }> {
  const r = await fetch(h.emu.url + path, { method, headers: { authorization: `Token ${token}`, ...(raw ? { 'content-type': 'application/json' } : {}) }, body: raw });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  h = await startHarness({ logger: { info: () => {}, warn: (m) => logged.push(`warn ${m}`), error: (m) => logged.push(`error ${m}`) } });
  // Another customer's ADMIN token, known to the same platform.
  h.emu.state.tokens = [...h.emu.state.tokens, { token: FOREIGN_TOKEN, scope: 'ADMIN', name: 'another customer', organization_id: '0f0f0f0f-0000-4000-8000-00000000f0f0' }];
  h.write({ 'm/driftless.yaml': MANIFEST });
}, 30_000);
afterAll(async () => h.close());

describe('finding 13: the emulator is as strict as the platform', () => {
  it('finding 13: a token of another organization can neither plan nor apply against this one, and nothing is written', async () => {
    const env = { DRIFTLESS_API_TOKEN: FOREIGN_TOKEN };
    const plan = await h.run(['plan', 'm'], { env });
    expect(plan.code, plan.stdout).toBe(1);
    expect(plan.stderr).toContain('cannot act in another organization');
    const apply = await h.run(['apply', 'm', '--auto-approve'], { env });
    expect(apply.code, apply.stdout).toBe(1);
    expect((await http('GET', `/organization/${h.emu.organizationId}/project`)).body.results).toEqual([]);
    expect((await http('GET', `/organization/${h.emu.organizationId}/alert-receivers`)).body.results).toEqual([]);
    // The same manifest with this organization's token applies.
    const own = await h.run(['apply', 'm', '--auto-approve']);
    expect(own.code, own.stderr + own.stdout).toBe(0);
    expect((await http('GET', `/organization/${h.emu.organizationId}/project`)).body.results.map((p: any) => p.name)).toEqual(['tenant']);
  });

  it('finding 13: validating an alert receiver (as apply does before saving one) logs no internal error', async () => {
    // The apply of the previous test validated the receiver; validate the saved one too.
    const receiver = (await http('GET', `/organization/${h.emu.organizationId}/alert-receivers`)).body.results[0];
    expect(receiver.name).toBe('oncall');
    expect((await http('POST', `/alert-receivers/${receiver.id}/validate`, '{"message":"hi"}')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(logged).toEqual([]);
  });

  it('finding 13: 1e308 and integers beyond the platform\'s range are a 400 naming the field and the range', async () => {
    const projects = (await http('GET', `/organization/${h.emu.organizationId}/project`)).body.results;
    const env = (await http('GET', `/project/${projects[0].id}/environment`)).body.results[0];
    const app = (extra: string) =>
      `{"name":"api","git_repository":{"url":"https://github.com/acme/api.git","branch":"main"},"cpu":500,"memory":512${extra}}`;
    for (const [extra, field, range] of [
      [',"max_running_instances":1e308', 'max_running_instances', 'from 0 to 2147483647'],
      [',"min_running_instances":9007199254740993', 'min_running_instances', 'from 0 to 2147483647'],
      [',"cpu":1e309', 'cpu', ''],
    ] as const) {
      const r = await http('POST', `/environment/${env.id}/application`, app(extra));
      expect(r.status, extra).toBe(400);
      expect(r.body.message, extra).toContain(`'${field}'`);
      if (range) expect(r.body.message, extra).toContain(range);
    }
    expect((await http('GET', `/environment/${env.id}/services`)).body.results).toEqual([]);
  });

  it('finding 13: a name with a lone surrogate is a 400 naming the field, and nothing is stored', async () => {
    const r = await http('POST', `/organization/${h.emu.organizationId}/project`, '{"name":"shop\\udc00"}');
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("field 'name' is not well-formed Unicode");
    expect((await http('GET', `/organization/${h.emu.organizationId}/project`)).body.results.map((p: any) => p.name)).toEqual(['tenant']);
  });

  it('finding 13: a large body sent with Expect: 100-continue is served, and one over the limit is refused before it is sent', async () => {
    const post = (bytes: number) =>
      new Promise<{ status: number; continued: boolean; error?: string }>((resolve) => {
        const body = JSON.stringify({ name: `big-${bytes}`, description: 'd', padding: 'x'.repeat(bytes) });
        let continued = false;
        let error: string | undefined;
        const req = httpRequest(`${h.emu.url}/organization/${h.emu.organizationId}/project`, {
          method: 'POST',
          headers: { authorization: `Token ${h.emu.tokens.ADMIN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
        });
        req.on('continue', () => ((continued = true), req.end(body)));
        req.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => setTimeout(() => resolve({ status: res.statusCode ?? 0, continued, error }), 50));
        });
      });
    expect(await post(900_000)).toEqual({ status: 200, continued: true, error: undefined });
    expect(await post(3_000_000)).toEqual({ status: 413, continued: false, error: undefined });
  });
});
