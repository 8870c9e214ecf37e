/**
 * Helpers of the export / drift / demo / workflow tests: an in-process emulator on 127.0.0.1, a
 * raw HTTP client for building organizations "by hand" (as a person would in the console), and
 * `run(argv)` which runs the real CLI entry point in-process with captured streams.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { planHasChanges, type Plan } from '../../src/plan/types.js';
import { startEmulator, type RunningEmulator, type StartOptions } from '../../src/emulator/server.js';
import { main } from '../../src/cli/main.js';

export interface Emu {
  em: RunningEmulator;
  /** Sends a request as the ADMIN token; throws with the server's message on a non-2xx answer. */
  api<T = any>(method: string, p: string, body?: unknown): Promise<T>;
  /** The environment a command needs to reach this emulator (token with the given scope). */
  env(extra?: Record<string, string>, scope?: 'ADMIN' | 'WRITE' | 'DEPLOY' | 'READ'): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function startEmu(options: StartOptions = {}): Promise<Emu> {
  const em = await startEmulator({ rateLimit: 100_000, deployDurationMs: 30, ...options });
  const api: Emu['api'] = async (method, p, body) => {
    const r = await fetch(em.url + p, {
      method,
      headers: { authorization: `Token ${em.tokens.ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    const parsed = text ? JSON.parse(text) : undefined;
    if (!r.ok) throw new Error(`${method} ${p} -> ${r.status}: ${parsed?.message ?? text}`);
    return parsed;
  };
  return {
    em,
    api,
    env: (extra = {}, scope = 'ADMIN') => ({ DRIFTLESS_API_URL: em.url, DRIFTLESS_API_TOKEN: em.tokens[scope], DRIFTLESS_FINGERPRINT_KEY: 'test-fingerprint-key-0123456789abcdef', NO_COLOR: '1', ...extra }),
    close: () => em.close(),
  };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `driftless <argv>` in-process, as a CI job would, with captured output. */
export async function run(argv: string[], env: NodeJS.ProcessEnv, cwd: string = process.cwd()): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (s: string) => ((stdout += s), true), isTTY: false, columns: 120 },
    stderr: { write: (s: string) => ((stderr += s), true), isTTY: false },
    env,
    cwd,
  });
  return { code, stdout, stderr };
}

export function tempDir(prefix = 'driftless-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Polls the emulator until no service of these environments is still in a transient state. */
export async function waitForDeployments(emu: Emu, envIds: string[]): Promise<void> {
  for (let i = 0; i < 400; i++) {
    let busy = false;
    for (const id of envIds) {
      const st = await emu.api('GET', `/environment/${id}/statuses`);
      for (const [k, list] of Object.entries(st)) {
        if (k === 'environment' || !Array.isArray(list)) continue;
        if ((list as any[]).some((s) => /QUEUED|ING$/.test(String(s.state)))) busy = true;
      }
    }
    if (!busy) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('deployments did not finish');
}

/** The manifest at `file` validates and its plan against the emulator is `No changes.` (exit 0). */
export async function expectValidAndInSync(file: string, env: NodeJS.ProcessEnv): Promise<void> {
  const validate = await run(['validate', file], env);
  expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  const plan = await run(['plan', file, '--detailed-exitcode'], env);
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  expect(plan.stdout).toContain('No changes.');
}

/**
 * An export writes `protect: true` on every database (issue 18): the first plan of the export has
 * no changes ("No changes.", all counts 0), and notes only that apply records that mark on each
 * live database that does not carry it yet (`protect_mark`, no field change, no deploy). Returns
 * the addresses it records it on.
 */
export function protectMarksOnly(plan: Plan): string[] {
  const other = plan.changes.filter((c) => c.actions[0] !== 'no-op' || c.deploy !== undefined || c.status !== 'planned' || c.fields.length > 0);
  expect(other.map((c) => c.address)).toEqual([]);
  const marked = plan.changes.filter((c) => c.protect_mark !== undefined);
  for (const c of marked) {
    expect(c.kind, c.address).toBe('database');
    expect(c.protect_mark, c.address).toBe(true);
  }
  expect(plan.summary).toMatchObject({ add: 0, destroy: 0, change: 0, deploy: 0, unmanaged: 0, blocked: 0 });
  expect(planHasChanges(plan)).toBe(false);
  return marked.map((c) => c.address).sort();
}
