/** `driftless serve`: option checks and the one-line JSON start-up message of docs/emulator.md. */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { authorizationHeader, looksLikeJwt } from '../../src/api/auth.js';

function captureIO(interrupted?: Promise<void>) {
  let out = '';
  let err = '';
  let onOut: (() => void) | undefined;
  const io: CliIO = {
    stdout: { write: (s: string) => ((out += s), onOut?.(), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    env: {},
    cwd: process.cwd(),
    interrupted,
  };
  return { io, out: () => out, err: () => err, firstLine: () => new Promise<string>((r) => (onOut = () => out.includes('\n') && r(out.split('\n')[0]))) };
}

describe('driftless serve', () => {
  it('prints exactly one JSON line with url, organization_id and one token per scope, then serves until interrupted', async () => {
    let stop!: () => void;
    const cap = captureIO(new Promise<void>((r) => (stop = r)));
    const exit = main(['serve', '--port', '0', '--latency', '0'], cap.io);
    const line = await cap.firstLine();
    const info = JSON.parse(line);
    expect(Object.keys(info)).toEqual(['url', 'organization_id', 'tokens']);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(info.tokens).sort()).toEqual(['ADMIN', 'CONSOLE', 'DEPLOY', 'READ', 'WRITE']);
    // CONSOLE is the console user's JWT: the CLI sends it as Bearer by itself, and it is accepted.
    expect(looksLikeJwt(info.tokens.CONSOLE)).toBe(true);
    const asConsole = await fetch(`${info.url}/organization`, { headers: { authorization: authorizationHeader(info.tokens.CONSOLE) } });
    expect(asConsole.status).toBe(200);
    const r = await fetch(`${info.url}/organization`, { headers: { authorization: `Bearer ${info.tokens.READ}` } });
    expect((await r.json() as any).id).toBe(info.organization_id);
    stop();
    expect(await exit).toBe(0);
    expect(cap.out().trim().split('\n')).toHaveLength(1);
    expect(cap.err()).toContain('listening on');
    for (const t of Object.values(info.tokens) as string[]) expect(cap.err()).not.toContain(t);
  });

  it('refuses bad options with a message naming the option and what is allowed', async () => {
    const cap = captureIO();
    expect(await main(['serve', '--fault-rate', '2', '--port', '70000'], cap.io)).toBe(1);
    expect(cap.err()).toContain('--fault-rate must be a number from 0 to 1, got 2');
    expect(cap.err()).toContain('--port must be an integer from 0 to 65535, got 70000');
    expect(cap.out()).toBe('');
  });

  it('reports an unreadable seed file without a stack trace', async () => {
    const cap = captureIO();
    expect(await main(['serve', '--seed', '/nonexistent/seed.json'], cap.io)).toBe(1);
    expect(cap.err()).toMatch(/^driftless serve: cannot start: cannot read seed \/nonexistent\/seed.json/);
    expect(cap.err()).not.toMatch(/\n\s+at /);
  });

  it('starts from a --seed fixture merged over the default state', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'driftless-seed-'));
    try {
      const id = '22222222-2222-4222-8222-222222222222';
      writeFileSync(join(dir, 'seed.json'), JSON.stringify({ projects: { [id]: { id, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', name: 'seeded', description: null, organization: { id: 'x' } } } }));
      let stop!: () => void;
      const cap = captureIO(new Promise<void>((r) => (stop = r)));
      const exit = main(['serve', '--seed', join(dir, 'seed.json')], cap.io);
      const info = JSON.parse(await cap.firstLine());
      const r = await fetch(`${info.url}/project/${id}`, { headers: { authorization: `Token ${info.tokens.READ}` } });
      expect(((await r.json()) as any).name).toBe('seeded');
      stop();
      expect(await exit).toBe(0);
      const bad = captureIO();
      writeFileSync(join(dir, 'bad.json'), JSON.stringify({ projectz: {} }));
      expect(await main(['serve', '--seed', join(dir, 'bad.json')], bad.io)).toBe(1);
      expect(bad.err()).toContain("unknown key 'projectz'");
      const broken = captureIO();
      writeFileSync(join(dir, 'broken.json'), JSON.stringify({ environments: { e1: { id: 'e1', name: 'x', cluster_id: 'c' } } }));
      expect(await main(['serve', '--seed', join(dir, 'broken.json')], broken.io)).toBe(1);
      expect(broken.err()).toContain("environments.e1 lacks 'project.id'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
