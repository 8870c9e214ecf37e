/**
 * --data FILE: every acknowledged write survives a restart and a SIGKILL of a real
 * `driftless serve` process, and the file is never corrupt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startEmulator } from '../../src/emulator/server.js';
import { DataFile } from '../../src/emulator/persistence.js';
import { startClient } from './helpers.js';
import { appBody, projectAndEnv } from './fixtures.js';

const BIN = join(import.meta.dirname, '../../bin/driftless.js');
const dirs: string[] = [];
const children: ChildProcess[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'driftless-data-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Child {
  proc: ChildProcess;
  info: { url: string; organization_id: string; tokens: Record<string, string> };
  stderr: () => string;
}

async function serve(args: string[]): Promise<Child> {
  expect(existsSync(join(import.meta.dirname, '../../dist/cli/main.js')), 'run `npm run build` first').toBe(true);
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--rate-limit', '100000', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: proc.stdout! });
    rl.once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { proc, info: JSON.parse(line), stderr: () => err };
}

const post = (ch: Child, path: string, body: unknown) =>
  fetch(ch.info.url + path, { method: 'POST', headers: { authorization: `Token ${ch.info.tokens.ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const get = async (ch: Child, path: string) => (await fetch(ch.info.url + path, { headers: { authorization: `Token ${ch.info.tokens.READ}` } })).json() as Promise<any>;

describe('persistence', () => {
  it('keeps every write across a clean restart, including tokens and secrets', async () => {
    const file = join(tmp(), 'state.json');
    const c = await startClient({ dataFile: file });
    const { project, env } = await projectAndEnv(c, 'persisted');
    const app = (await c.post(`/environment/${env.id}/application`, appBody())).body;
    await c.put(`/project/${project.id}`, { name: 'persisted-2' });
    const hook = (await c.post(`/organization/${c.em.organizationId}/webhook`, { target_url: 'https://h.example/x', events: ['DEPLOYMENT_FAILED'], target_secret: 'k' })).body;
    const tokens = c.em.tokens;
    await c.em.close();

    const again = await startClient({ dataFile: file });
    try {
      expect(again.em.tokens).toEqual(tokens);
      expect(again.em.organizationId).toBe(c.em.organizationId);
      expect((await again.get(`/project/${project.id}`)).body.name).toBe('persisted-2');
      expect((await again.get(`/application/${app.id}`)).body).toEqual(app);
      expect((await again.get(`/organization/${again.em.organizationId}/webhook/${hook.id}`)).body.target_secret_set).toBe(true);
      expect((await again.get(`/environment/${env.id}/deploymentStage`)).body.results[0].services).toHaveLength(1);
    } finally {
      await again.em.close();
    }
  });

  it('replays the journal over the snapshot and ignores a torn last line', async () => {
    const file = join(tmp(), 'state.json');
    const em = await startEmulator({ dataFile: file });
    await em.close();
    const org = JSON.parse(readFileSync(file, 'utf8')).organization.id;
    const p = { id: '11111111-1111-4111-8111-111111111111', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', name: 'from-journal', description: null, organization: { id: org } };
    appendFileSync(`${file}.journal`, `${JSON.stringify({ c: 'projects', k: p.id, v: p })}\n{"c":"projects","k":"torn`);
    const loaded = new DataFile(file).load()!;
    expect(loaded.projects[p.id]).toEqual(p);
    expect(Object.keys(loaded.projects)).toEqual([p.id]);
  });

  it('refuses a data file that is not an emulator state, with a clear message', async () => {
    const file = join(tmp(), 'state.json');
    writeFileSync(file, '{"hello":');
    await expect(startEmulator({ dataFile: file })).rejects.toThrow(/not a driftless emulator state/);
    writeFileSync(file, '{"version": 7}');
    await expect(startEmulator({ dataFile: file })).rejects.toThrow(/expected version 1/);
    await expect(startEmulator({ dataFile: join(file, 'no-such-dir', 'state.json') })).rejects.toThrow(/cannot write data file .*(ENOTDIR|ENOENT)/);
  });

  it('loses no acknowledged write when the serve process is killed with SIGKILL mid-stream', async () => {
    const file = join(tmp(), 'state.json');
    const first = await serve(['--data', file]);
    const org = first.info.organization_id;
    const acknowledged: string[] = [];
    // Writers run flat out; the kill lands while requests are in flight.
    let stop = false;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          const r = await post(first, `/organization/${org}/project`, { name: `w${w}-${i}` });
          if (r.status === 200) acknowledged.push(((await r.json()) as any).id);
        } catch {
          return; // connection died with the process
        }
      }
    });
    while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 5));
    const exited = new Promise((r) => first.proc.once('exit', r));
    first.proc.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await exited;

    const second = await serve(['--data', file]);
    expect(second.info.tokens).toEqual(first.info.tokens);
    const ids = new Set((await get(second, `/organization/${org}/project`)).results.map((p: any) => p.id));
    for (const id of acknowledged) expect(ids.has(id), `acknowledged project ${id} lost`).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    const code = new Promise((r) => second.proc.once('exit', r));
    second.proc.kill('SIGTERM');
    expect(await code).toBe(0);
    expect(second.stderr()).not.toContain(second.info.tokens.ADMIN);
    // After a clean stop the snapshot alone holds everything and parses.
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).projects).length).toBe(ids.size);
  });
});
