/**
 * The published package installs and runs (issue "Installable and CI-native"): a copy of the
 * repository's tracked files is packed with `npm pack` (so its `prepack` script builds dist/ there,
 * never touching this checkout's dist/ while other tests run), the tarball is installed into an
 * empty directory, and the installed `driftless` command is run: `--version`, `validate` of the
 * shipped minimal example, and a `plan` against a real emulator on loopback. The tarball's file
 * list is checked against what the runtime needs and nothing else.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** What the installed package may hold: the launcher, the build, the schemas and what the runtime reads. */
const ALLOWED = [/^bin\/driftless\.js$/, /^dist\//, /^schemas\//, /^src\/emulator\/fixtures\//, /^examples\/(minimal|realistic|platform|github-actions|gitlab-ci)\//, /^examples\/README\.md$/, /^docs\/[a-z-]+\.md$/, /^package\.json$/, /^README\.md$/, /^LICENSE/];

describe('the npm package', () => {
  let work: string;
  let tarball: string;
  let files: string[];
  let bin: string;
  let emu: RunningEmulator;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'driftless-pack-'));
    // A copy of what Git tracks (what a clean clone has), with this checkout's dependencies.
    const src = join(work, 'src-copy');
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const f of tracked) {
      mkdirSync(dirname(join(src, f)), { recursive: true });
      cpSync(join(ROOT, f), join(src, f));
    }
    symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: src, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    tarball = join(work, packed[0].filename);
    files = (packed[0].files as Array<{ path: string }>).map((f) => f.path).sort();

    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'driftless-install-check', private: true }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
    bin = join(app, 'node_modules', '.bin', 'driftless');
    emu = await startEmulator({ port: 0, deployDurationMs: 50 });
  }, 300_000);

  afterAll(async () => {
    await emu?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Runs the installed command without blocking this process, which serves the emulator it talks to. */
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(bin, args, { env: { PATH: process.env.PATH ?? '', HOME: work, ...env }, cwd: work });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  it('is named so that it installs this project (the registry name "driftless" is another package)', () => {
    expect(pkg.name).toBe('driftless-cli');
  });

  it('ships the launcher, the build, the schemas and the runtime files, and nothing else', () => {
    expect(files).toContain('bin/driftless.js');
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('dist/manifest/manifest-schema.validator.cjs');
    expect(files).toContain('schemas/manifest.schema.json');
    expect(files.some((f) => f.startsWith('examples/realistic/'))).toBe(true); // what `driftless demo` applies
    expect(files.filter((f) => !ALLOWED.some((re) => re.test(f)))).toEqual([]);
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('bench/') || /^src\/.*\.ts$/.test(f))).toBe(false);
  });

  it('prints its version from the install', async () => {
    const r = await run(['--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`driftless ${pkg.version}`);
  });

  it('validates the shipped minimal example offline', async () => {
    const r = await run(['validate', join(work, 'app', 'node_modules', pkg.name, 'examples', 'minimal')]);
    expect(r.status, r.stderr).toBe(0);
  });

  it('plans against the emulator over HTTP', async () => {
    const r = await run(['plan', join(work, 'app', 'node_modules', pkg.name, 'examples', 'minimal'), '--no-color'], {
      DRIFTLESS_API_URL: emu.url,
      DRIFTLESS_API_TOKEN: emu.tokens.READ,
      DRIFTLESS_FINGERPRINT_KEY: 'pack-install-fingerprint-key-0123456789',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Plan: \d+ to add/);
    expect(r.stdout).toContain('project.hello');
  });

  it("the demo's \"What next\" names only what the install has, and suggests no apply (its emulator is gone by then)", async () => {
    const r = await run(['demo', '--deploy-duration', '40'], { NO_COLOR: '1' });
    expect(r.status, r.stderr).toBe(0);
    const next = r.stdout.slice(r.stdout.lastIndexOf('What next:')).split('\n').slice(1).filter((l) => l.trim() !== '');
    expect(next.length).toBeGreaterThanOrEqual(3);
    const shown = next.map((l) => l.trim().split(/\s{2,}/)[0]!);
    for (const s of shown) expect(s, s).not.toMatch(/\bapply\b/);
    // Every path it names (relative to where the demo ran) exists in the install.
    const paths = shown.flatMap((s) => s.split(' ').filter((w) => w.includes('/')));
    expect(paths.some((p) => p.includes('github-actions'))).toBe(true);
    for (const p of paths) {
      const abs = resolve(work, p);
      expect(abs.startsWith(join(work, 'app', 'node_modules', pkg.name)), p).toBe(true);
      expect(existsSync(abs), p).toBe(true);
    }
  }, 120_000);

  it('says in one line, without a stack trace, when its build is missing', async () => {
    rmSync(join(work, 'app', 'node_modules', pkg.name, 'dist'), { recursive: true, force: true });
    const r = await run(['--version']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('dist/ is missing');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
