/**
 * Fuzzing the emulator with 10,000+ random and mutated requests (fastify inject, the real app with
 * its validation, auth, routes and serializer) against an organization a real apply of
 * examples/realistic populated: paths from its own OpenAPI document with real, random and hostile
 * ids; random query strings; valid, wrong, missing and hostile Authorization and Content-Type
 * headers; bodies mutated from real records, random JSON, malformed JSON and oversized bodies.
 * Never a 5xx; after any 4xx, the state is exactly what it was.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';
import { copyRealistic, secretEnv } from '../support/realistic.js';
import { record } from '../support/reliability.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;

/** Background work (webhook deliveries) may write at any time; everything else only through a request. */
function snapshot(h: Harness): string {
  const { webhookDeliveries: _d, ...rest } = h.emu.state as unknown as Record<string, unknown>;
  return JSON.stringify(rest);
}

describe('emulator fuzz', () => {
  it(`${RUNS} random and mutated requests: never a 5xx, never a change after a 4xx`, { timeout: 120_000 }, async () => {
    const h = await startHarness({ rateLimit: 10_000_000 });
    try {
      const dir = copyRealistic(h);
      const applied = await h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env: secretEnv() });
      expect(applied.code).toBe(0);
      // Operations the fuzz starts (deploy, restart, stop...) then never advance during the run, so
      // any change seen after a 4xx is that request's; let the apply's last background work settle.
      h.emu.ctx.options.deployDurationMs = 1e9;
      await new Promise((r) => setTimeout(r, 300));

      const app = h.emu.app;
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json', headers: { authorization: `Token ${h.emu.tokens.READ}` } })).json() as { paths: Record<string, Record<string, unknown>> };
      const templates = Object.entries(doc.paths).map(([p, ops]) => ({ path: p, methods: Object.keys(ops).map((m) => m.toUpperCase()) }));
      expect(templates.length).toBeGreaterThan(50);
      const st = h.emu.state as unknown as Record<string, Record<string, Record<string, unknown>>>;
      const ids = ['organization', 'projects', 'environments', 'services', 'variables', 'deploymentStages', 'alertRules', 'alertReceivers', 'webhooks', 'annotationsGroups', 'labelsGroups', 'clusters']
        .flatMap((k) => (k === 'organization' ? [String((h.emu.state.organization as { id: string }).id)] : Object.keys(st[k] ?? {})));
      const records = ['projects', 'environments', 'services', 'variables', 'deploymentStages', 'alertRules', 'alertReceivers', 'webhooks', 'annotationsGroups', 'labelsGroups'].flatMap((k) => Object.values(st[k] ?? {}));
      const tokens = h.emu.tokens;

      const hostile = fc.constantFrom('..', '../../etc/passwd', '%2e%2e%2f', '%00', 'null', 'undefined', '0', '-1', '1e309', 'x'.repeat(3000), '%E2%80%AE', '<script>', '{id}', '__proto__', ' ', '%20', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff');
      const idArb = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ids) }, { weight: 2, arbitrary: fc.uuid() }, { weight: 2, arbitrary: hostile }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) });
      /** Real ids of the kind a path parameter names (projectId -> a project's id), so requests reach the routes' logic. */
      const kindIds = (param: string): string[] => {
        const p = param.toLowerCase();
        const svc = (t: string) => Object.values(st.services ?? {}).filter((x) => x.service_type === t).map((x) => String(x.id));
        if (p.includes('organization')) return [String((h.emu.state.organization as { id: string }).id)];
        if (p.includes('project')) return Object.keys(st.projects ?? {});
        if (p.includes('environmentvariable') || p.includes('variable') || p.includes('secret')) return Object.keys(st.variables ?? {});
        if (p.includes('environment')) return Object.keys(st.environments ?? {});
        if (p.includes('application')) return svc('APPLICATION');
        if (p.includes('container')) return svc('CONTAINER');
        if (p.includes('database')) return svc('DATABASE');
        if (p.includes('job')) return svc('JOB');
        if (p.includes('stage')) return Object.keys(st.deploymentStages ?? {});
        if (p.includes('rule')) return Object.keys(st.alertRules ?? {});
        if (p.includes('receiver')) return Object.keys(st.alertReceivers ?? {});
        if (p.includes('webhook')) return Object.keys(st.webhooks ?? {});
        if (p.includes('annotation')) return Object.keys(st.annotationsGroups ?? {});
        if (p.includes('label')) return Object.keys(st.labelsGroups ?? {});
        if (p.includes('cluster')) return Object.keys(st.clusters ?? {});
        return [];
      };
      const paramArb = (param: string) => {
        const real = kindIds(param);
        return real.length ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...real) }, { weight: 3, arbitrary: idArb }) : idArb;
      };
      const pathArb = fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...templates).chain((t) => {
          const params = [...t.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
          return fc.record({ fill: fc.tuple(...params.map(paramArb)), prefix: fc.constantFrom('', '', '/api/v1') }).map(({ fill, prefix }) => {
            let i = 0;
            return { path: prefix + t.path.replace(/\{[^}]+\}/g, () => fill[i++]!), methods: t.methods };
          });
        }) },
        { weight: 1, arbitrary: fc.array(fc.oneof(fc.constantFrom('organization', 'project', 'environment', 'application', 'container', 'variable', 'deploy', 'webhook', 'alert-rules'), idArb), { minLength: 1, maxLength: 6 }).map((parts) => ({ path: '/' + parts.join('/'), methods: [] as string[] })) },
        { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => ({ path: '/' + encodeURI(s).replace(/[?#]/g, ''), methods: [] as string[] })) },
      );
      const queryArb = fc.dictionary(fc.constantFrom('page', 'page_size', 'pageSize', 'startId', 'tail', 'parent_id', 'scope', 'forceEvent', 'is_secret', 'x'), fc.oneof(fc.constantFrom('1', '0', '-5', '101', 'abc', 'PROJECT', 'APPLICATION', 'START', ''), idArb), { maxKeys: 3 });
      const authArb = fc.oneof(
        { weight: 8, arbitrary: fc.constant(`Token ${tokens.ADMIN}`) },
        { weight: 1, arbitrary: fc.constantFrom(`Token ${tokens.READ}`, `Token ${tokens.DEPLOY}`, `Bearer ${tokens.WRITE}`, `token ${tokens.ADMIN}`) },
        { weight: 2, arbitrary: fc.oneof(fc.constant(undefined), fc.constantFrom('', 'Token', 'Token ', 'Bearer a.b.c', 'Basic YTpi', `Token ${tokens.ADMIN}x`, `Token ${'A'.repeat(5000)}`), fc.string({ maxLength: 40 }).map((s) => `Token ${s.replace(/[^\x20-\x7e]/g, '')}`)) },
      );
      const mutatedRecord = fc.record({ rec: fc.constantFrom(...records), key: fc.string({ maxLength: 12 }), pick: fc.nat(), value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom('x'.repeat(70_000), '\u0000', '${env:X}', '<b>x</b>', -1, 1e308, null)) }).map(({ rec, key, pick, value }) => {
        const o: Record<string, unknown> = { ...rec };
        const keys = Object.keys(o);
        if (pick % 3 === 0) o[keys[pick % keys.length]!] = value;
        else if (pick % 3 === 1) delete o[keys[pick % keys.length]!];
        else o[key] = value;
        if (pick % 5 === 0) delete o.id;
        if (pick % 7 === 0) { delete o.created_at; delete o.updated_at; }
        return JSON.stringify(o);
      });
      const bodyArb = fc.oneof(
        { weight: 4, arbitrary: mutatedRecord },
        { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.constantFrom('{', '{"name": }', '[1,2', 'null', '""', '{"__proto__": {"x": 1}}', '{"constructor": {"prototype": {"x": 1}}}', '\u0000', '{"a":' + '['.repeat(5000) + ']'.repeat(5000) + '}', 'x'.repeat(1_100_000)) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      );
      const ctypeArb = fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/json\u0000') });
      const reqArb = fc.record({ p: pathArb, method: fc.oneof({ weight: 3, arbitrary: fc.constant('template') }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }), query: queryArb, auth: authArb, ctype: ctypeArb, body: bodyArb });

      let before = snapshot(h);
      if (process.env.FUZZ_DEBUG) {
        const t0 = performance.now();
        for (let i = 0; i < 100; i++) snapshot(h);
        console.log('snapshot', before.length, ((performance.now() - t0) / 100).toFixed(2), 'ms', Object.entries(h.emu.state).map(([k, v]) => `${k}:${JSON.stringify(v).length}`).join(' '));
      }
      const statuses = new Map<number, number>();
      let checked4xx = 0;
      let writes2xx = 0;
      await fc.assert(
        fc.asyncProperty(reqArb, async ({ p, method, query, auth, ctype, body }) => {
          const m = method === 'template' ? (p.methods[(p.path.length + (body?.length ?? 0)) % Math.max(1, p.methods.length)] ?? 'GET') : method;
          const qs = new URLSearchParams(query).toString();
          const headers: Record<string, string> = {};
          if (auth !== undefined) headers.authorization = auth;
          if (ctype !== undefined && body !== undefined) headers['content-type'] = ctype.replace(/\u0000/g, '');
          const res = await app.inject({ method: m as 'GET', url: p.path + (qs ? `?${qs}` : ''), headers, ...(body !== undefined && m !== 'GET' && m !== 'HEAD' ? { payload: body } : {}) });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          expect(res.statusCode, `${m} ${p.path}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
          if (res.statusCode >= 400) {
            checked4xx++;
            const now = snapshot(h);
            if (now !== before) {
              const a = JSON.parse(before) as Record<string, unknown>;
              const b = JSON.parse(now) as Record<string, unknown>;
              const changed = Object.keys(b).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
              expect.fail(`${m} ${p.path} answered ${res.statusCode} but changed the state: ${changed.map((k) => `${k}: ${JSON.stringify(a[k]).slice(0, 300)} -> ${JSON.stringify(b[k]).slice(0, 300)}`).join('; ')}`);
            }
          } else if (m !== 'GET' && m !== 'HEAD') {
            writes2xx++;
            before = snapshot(h);
          }
        }),
        { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261122) },
      );
      const by = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
      record('fuzz-emulator', {
        title: 'Random and mutated requests to the emulator (fastify inject) over an organization populated by a real apply: paths from its OpenAPI document with real, random and hostile ids, random queries, valid/wrong/missing/hostile auth and content types, bodies mutated from real records, random, malformed and oversized',
        file: 'test/fuzz/emulator.fuzz.test.ts',
        command: 'npm test',
        figures: { 'requests sent': RUNS, 'answers by status': by, '5xx answers': 0, '4xx answers checked against a state snapshot': checked4xx, 'state changed after a 4xx': 0, 'accepted writes': writes2xx },
      });
    } finally {
      await h.close();
    }
  });
});
