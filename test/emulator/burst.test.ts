/**
 * Bursts of 2,000 concurrent connections against a real `driftless serve --data` process (issue 11,
 * finding 13: bursts saw connection resets): every request is answered, whether each comes on a
 * fresh connection or over a pool of 2,000 keep-alive connections, while deployments commit state
 * in the background and half the requests write (journal + fdatasync before each answer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';

const BIN = join(import.meta.dirname, '../../bin/driftless.js');
const BURST = 2000;
let proc: ChildProcess;
let dir: string;
let stderr = '';
let info: { url: string; organization_id: string; tokens: Record<string, string> };
let envId: string;
let headers: Record<string, string>;
let deploying = true;
let deployLoop: Promise<void>;

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(info.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(r.status, `${method} ${path}`).toBeLessThan(300);
  const text = await r.text();
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  expect(existsSync(join(import.meta.dirname, '../../dist/cli/main.js')), 'run `npm run build` first').toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'driftless-burst-'));
  proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', join(dir, 'state.json'), '--rate-limit', '1000000', '--deploy-duration', '400'], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stderr!.on('data', (d) => (stderr += d));
  info = JSON.parse(await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  }));
  headers = { authorization: `Token ${info.tokens.ADMIN}`, 'content-type': 'application/json' };
  const project = await call('POST', `/organization/${info.organization_id}/project`, { name: 'burst' });
  envId = (await call('POST', `/project/${project.id}/environment`, { name: 'production', mode: 'PRODUCTION' })).id;
  const registry = (await call('GET', `/organization/${info.organization_id}/containerRegistry`)).results[0].id;
  for (let i = 0; i < 8; i++) await call('POST', `/environment/${envId}/container`, { name: `c${i}`, registry_id: registry, image_name: 'nginx', tag: '1.27' });
  // Deployments keep running: their state transitions are committed from timers during the bursts.
  deployLoop = (async () => {
    while (deploying) {
      await fetch(`${info.url}/environment/${envId}/deploy`, { method: 'POST', headers }).then((r) => r.text()).catch(() => {});
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
}, 60_000);

afterAll(async () => {
  deploying = false;
  await deployLoop;
  if (proc.exitCode === null) {
    proc.kill('SIGINT');
    await new Promise((r) => proc.once('exit', r));
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Outcomes other than a 2xx answer, counted by kind ("ECONNRESET", "503"...). */
function failures(outcomes: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) if (!/^2\d\d$/.test(o)) out[o] = (out[o] ?? 0) + 1;
  return out;
}

const writeBody = (tag: string) => JSON.stringify({ key: `BURST_${tag}`, value: 'v'.repeat(200), is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: envId });

describe('bursts of 2,000 concurrent connections with --data', () => {
  it('every request on its own fresh connection is answered (no reset), writes included', async () => {
    const one = (i: number) =>
      new Promise<string>((resolve) => {
        const body = i % 2 === 0 ? writeBody(`fresh_${i}`) : undefined;
        const req = httpRequest(info.url + (body ? '/variable' : `/environment/${envId}/services`), {
          method: body ? 'POST' : 'GET',
          agent: false, // one connection per request: the burst is 2,000 connections at once
          headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.statusCode)));
          res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        });
        req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        req.end(body);
      });
    const outcomes = await Promise.all(Array.from({ length: BURST }, (_, i) => one(i)));
    expect(failures(outcomes)).toEqual({});
    const keys = (await call('GET', `/variable?parent_id=${envId}&scope=ENVIRONMENT`)).results.map((v: any) => v.key);
    expect(keys.filter((k: string) => k.startsWith('BURST_fresh_'))).toHaveLength(BURST / 2);
  }, 120_000);

  it('two bursts in a row over a pool of 2,000 keep-alive connections are answered', async () => {
    const pool = new Agent({ connections: BURST, pipelining: 1 });
    try {
      for (const round of [1, 2]) {
        const outcomes = await Promise.all(
          Array.from({ length: BURST }, async (_, i) => {
            const body = i % 2 === 0 ? writeBody(`pool${round}_${i}`) : undefined;
            try {
              const r = await request(info.url + (body ? '/variable' : `/environment/${envId}/services`), { dispatcher: pool, method: body ? 'POST' : 'GET', headers, body });
              await r.body.text();
              return String(r.statusCode);
            } catch (e) {
              const err = e as { code?: string; cause?: { code?: string }; message: string };
              return err.code ?? err.cause?.code ?? err.message;
            }
          }),
        );
        expect(failures(outcomes), `burst ${round}`).toEqual({});
      }
    } finally {
      await pool.close();
    }
    expect(stderr).not.toMatch(/ error /);
  }, 120_000);
});
