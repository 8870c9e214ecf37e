#!/usr/bin/env node
/**
 * Requests per second the emulator sustains on loopback, so that the reconciler's benchmarks
 * measure the reconciler and not the emulator (target: list calls >= 2,000 req/s).
 *
 *   node bench/emulator-throughput.mjs [--seconds 3] [--connections 16] [--json]
 *
 * The emulator runs as a real `driftless serve` child process (its CPU is not shared with the
 * load generator's event loop); the client is undici with a keep-alive pool. Rows:
 *   - list projects (20 records)                      GET /organization/{id}/project
 *   - list every service of an environment (50, full)  GET /environment/{id}/services
 *   - create a project (in memory)                     POST /organization/{id}/project
 *   - create a project with --data (journal + fsync)   POST /organization/{id}/project
 * Prints a markdown table (or one JSON document with --json).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { BIN } from './lib/paths.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SECONDS = opt('seconds', 3);
const CONNECTIONS = opt('connections', 16);
const JSON_OUT = args.includes('--json');

async function serve(extra = []) {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--rate-limit', '1000000000', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`driftless serve exited with ${code}: ${err}`)));
  });
  const info = JSON.parse(line);
  const pool = new Pool(info.url, { connections: CONNECTIONS, pipelining: 1 });
  const headers = { authorization: `Token ${info.tokens.ADMIN}`, 'content-type': 'application/json' };
  const call = async (method, p, body) => {
    const r = await pool.request({ method, path: p, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.body.text();
    return { status: r.statusCode, body: text ? JSON.parse(text) : undefined };
  };
  /** The load loop's call: reads the whole answer but does not parse it (the client must not be the bottleneck). */
  const hit = async (method, p, body) => {
    const r = await pool.request({ method, path: p, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    await r.body.text();
    return { status: r.statusCode };
  };
  const stop = async () => {
    await pool.close();
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  };
  return { info, call, hit, stop };
}

/** Runs `fn` from CONNECTIONS concurrent loops for SECONDS; returns counts and latency percentiles. */
async function load(fn) {
  // Warm-up (JIT, first-use validator compilation, keep-alive sockets) is not measured.
  let w = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (w < 500) await fn(1e9 + w++);
  }));
  const deadline = performance.now() + SECONDS * 1000;
  const latencies = [];
  let errors = 0;
  let i = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const r = await fn(i++);
        latencies.push(performance.now() - t);
        if (r.status >= 400) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { requests: latencies.length, seconds: elapsed, rps: latencies.length / elapsed, p50_ms: pct(50), p99_ms: pct(99), errors };
}

async function populate(em) {
  const org = em.info.organization_id;
  for (let i = 0; i < 20; i++) await em.call('POST', `/organization/${org}/project`, { name: `bench-${i}`, description: 'benchmark project' });
  const project = (await em.call('GET', `/organization/${org}/project`)).body.results[0];
  const env = (await em.call('POST', `/project/${project.id}/environment`, { name: 'bench', mode: 'STAGING' })).body;
  for (let i = 0; i < 50; i++) {
    await em.call('POST', `/environment/${env.id}/application`, {
      name: `app-${i}`, git_repository: { url: `https://github.com/acme/app-${i}.git` }, cpu: 500, memory: 512,
      ports: [{ internal_port: 8080, publicly_accessible: true }],
    });
  }
  return { org, env: env.id };
}

const rows = [];
{
  const em = await serve();
  try {
    const { org, env } = await populate(em);
    rows.push({ call: 'list projects (20)', request: `GET /organization/{id}/project`, ...(await load(() => em.hit('GET', `/organization/${org}/project`))) });
    rows.push({ call: 'list services of an environment (50, full records)', request: 'GET /environment/{id}/services', ...(await load(() => em.hit('GET', `/environment/${env}/services`))) });
    rows.push({ call: 'create a project (in memory)', request: 'POST /organization/{id}/project', ...(await load((i) => em.hit('POST', `/organization/${org}/project`, { name: `created-${i}` }))) });
  } finally {
    await em.stop();
  }
}
{
  const dir = mkdtempSync(path.join(tmpdir(), 'driftless-bench-'));
  const em = await serve(['--data', path.join(dir, 'state.json')]);
  try {
    const org = em.info.organization_id;
    rows.push({ call: 'create a project (--data: journal + fsync)', request: 'POST /organization/{id}/project', ...(await load((i) => em.hit('POST', `/organization/${org}/project`, { name: `persisted-${i}` }))) });
  } finally {
    await em.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const env = { node: process.version, cpus: cpus().length, connections: CONNECTIONS, seconds: SECONDS };
if (JSON_OUT) {
  process.stdout.write(`${JSON.stringify({ benchmark: 'emulator-throughput', env, rows }, null, 2)}\n`);
} else {
  const f = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const out = [
    `### Emulator throughput (loopback, ${env.connections} keep-alive connections, ${env.seconds} s per row, Node ${env.node}, ${env.cpus} CPUs)`,
    '',
    '| call | request | requests | req/s | p50 ms | p99 ms | errors |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.call} | \`${r.request}\` | ${f(r.requests)} | ${f(r.rps)} | ${f(r.p50_ms, 1)} | ${f(r.p99_ms, 1)} | ${r.errors} |`),
    '',
  ];
  process.stdout.write(out.join('\n'));
}
