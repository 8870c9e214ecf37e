/**
 * Commands that never talk to the API do not load the HTTP library. undici is about a hundred files;
 * loading it was a fifth of the start-up of `validate` (issue 21: every command's floor counts).
 * The built CLI runs in a child process with a module resolve hook that records every module the
 * process resolves, so the assertion is on what Node.js really loaded, not on an import list.
 * A command that sends requests still loads it (the second test), so the hook is seen to work.
 *
 * The same for the rest of what an offline command has no use for (issue 21, second pass): an
 * offline validate loads neither the API client, nor the live-state reader and its refresh cache,
 * nor plan's session and the organization checks (`--remote` loads them, and still works), and
 * `--version` does not even load the command-line parser (yargs); plan loads the line-diff package
 * only when it renders a multi-line change.
 *
 * And a run that parses nothing (a plan whose manifest comes from the load cache) does not load the
 * `yaml` package (72 CommonJS files): CommonJS files are required past the resolve hook, so the
 * process also writes the files of its require cache to the log as it exits. Nor does a `validate`
 * whose files the fast parse accepts and that has no diagnostic (the fast parse types scalars and
 * indexes lines itself); a diagnostic's position comes from the positioned parse, which loads it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'driftless.js');
const run = promisify(execFile);

let dir: string;
// Answers every request 401 at once: plan sends its first request and stops (no retries to wait for).
let server: Server;
let apiUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driftless-startup-'));
  server = createServer((_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"unauthorized"}'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The hook runs on the loader thread: it appends each resolved URL to a file named by the env.
  await writeFile(join(dir, 'hook.mjs'), [
    "import { appendFileSync } from 'node:fs';",
    'export async function resolve(specifier, context, next) {',
    '  const result = await next(specifier, context);',
    "  appendFileSync(process.env.STARTUP_IMPORTS_LOG, result.url + '\\n');",
    '  return result;',
    '}',
  ].join('\n'));
  // A resolve hook sees ES modules and what ES modules import, not what a CommonJS file requires:
  // at exit the process also writes every CommonJS file it loaded (the require cache), as URLs.
  await writeFile(join(dir, 'register.mjs'), [
    "import { register, createRequire } from 'node:module';",
    "import { appendFileSync } from 'node:fs';",
    "import { pathToFileURL } from 'node:url';",
    `register(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});`,
    "const cache = createRequire(import.meta.url)('node:module')._cache;",
    "process.on('exit', () => appendFileSync(process.env.STARTUP_IMPORTS_LOG, Object.keys(cache).map((f) => pathToFileURL(f).href + '\\n').join('')));",
  ].join('\n'));
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await rm(dir, { recursive: true, force: true });
});

async function loadedBy(name: string, args: string[]): Promise<string[]> {
  const log = join(dir, `${name}.log`);
  await writeFile(log, '');
  await run(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, STARTUP_IMPORTS_LOG: log, NO_COLOR: '1', DRIFTLESS_API_URL: apiUrl, DRIFTLESS_API_TOKEN: 'startup-test-token' },
  }).catch((e: { code?: number }) => e);
  return (await readFile(log, 'utf8')).split('\n').filter((l) => l !== '');
}

const undici = (urls: string[]) => urls.filter((u) => u.includes('/node_modules/undici/'));
const dist = (urls: string[], file: string) => urls.filter((u) => u.endsWith(`/dist/${file}`));
/** What only a command that talks to the API needs: the client, the live reader, plan's session. */
const ONLINE_ONLY = ['api/client.js', 'api/index.js', 'live/read.js', 'live/refresh.js', 'live/verify.js', 'live/cache-file.js', 'cli/run-plan.js', 'cli/live-cache.js', 'cli/validate-remote.js', 'checks/index.js', 'manifest/remote-names.js', 'pipeline/plan.js'];

describe('start-up: what a command loads', () => {
  it('validate, --help and --version never load undici', async () => {
    for (const [name, args] of [['validate', ['validate', 'examples/minimal']], ['help', ['--help']], ['version', ['--version']]] as const) {
      const urls = await loadedBy(name, [...args]);
      expect(urls.some((u) => u.includes('/dist/cli/')), `${name}: the hook saw the CLI load`).toBe(true);
      expect(undici(urls), name).toEqual([]);
    }
  });

  it('an offline validate loads nothing of what talking to the API needs', async () => {
    const urls = await loadedBy('validate-offline', ['validate', 'examples/minimal']);
    expect(dist(urls, 'cli/commands/validate.js'), 'the hook saw validate load').toHaveLength(1);
    expect(ONLINE_ONLY.flatMap((file) => dist(urls, file))).toEqual([]);
  });

  it('validate --remote loads them, and reaches the API', async () => {
    const log = join(dir, 'validate-remote.log');
    await writeFile(log, '');
    const out = await run(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, 'validate', '--remote', 'examples/minimal'], {
      cwd: ROOT,
      env: { ...process.env, STARTUP_IMPORTS_LOG: log, NO_COLOR: '1', DRIFTLESS_API_URL: apiUrl, DRIFTLESS_API_TOKEN: 'startup-test-token' },
    }).catch((e: { code?: number; stdout: string; stderr: string }) => e);
    const urls = (await readFile(log, 'utf8')).split('\n').filter((l) => l !== '');
    expect(dist(urls, 'cli/validate-remote.js')).toHaveLength(1);
    expect(dist(urls, 'cli/run-plan.js')).toHaveLength(1);
    expect(undici(urls).length).toBeGreaterThan(0);
    // The 401 of the test server, reported as validate reports an API failure: exit 1, no stack.
    expect((out as { code?: number }).code).toBe(1);
    expect((out as { stderr: string }).stderr).toMatch(/401|unauthori[sz]ed|token/i);
    expect((out as { stderr: string }).stderr).not.toMatch(/\n\s+at /);
  });

  it('--version and -v load no command and not the command-line parser', async () => {
    for (const flag of ['--version', '-v']) {
      const urls = await loadedBy(`version${flag}`, [flag]);
      expect(dist(urls, 'cli/main.js'), `${flag}: the hook saw the CLI load`).toHaveLength(1);
      expect(urls.filter((u) => u.includes('/node_modules/yargs') || u.includes('/dist/cli/command-line.js') || u.includes('/dist/cli/commands/')), flag).toEqual([]);
    }
  });

  it('a command that sends requests (plan) does load it', async () => {
    const urls = await loadedBy('plan', ['plan', 'examples/minimal']);
    expect(undici(urls).length).toBeGreaterThan(0);
    // Only the connection pool it sends through (undici's Agent), not undici's index.js with its
    // fetch, cookies, WebSocket, mocks and caches: the requests go through Node's global fetch.
    expect(undici(urls).filter((u) => u.endsWith('/undici/lib/dispatcher/agent.js'))).toHaveLength(1);
    expect(undici(urls).filter((u) => /\/undici\/(index\.js|lib\/(web|mock|cache|interceptor|api)\/)/.test(u))).toEqual([]);
    // The line-diff package is loaded with the first multi-line change rendered, not at start-up.
    expect(urls.filter((u) => u.includes('/node_modules/diff/'))).toEqual([]);
  });

  it('a plan whose manifest comes from the load cache does not load the yaml package; a parse does', async () => {
    const yaml = (urls: string[]) => urls.filter((u) => u.includes('/node_modules/yaml/'));
    const cache = join(dir, 'load-cache');
    // The first run parses (and fills the cache directory), the second finds the same bytes there.
    const first = await loadedBy('plan-cold', ['plan', '--cache', cache, 'examples/minimal']);
    expect(yaml(first).length, 'a run that parses loads yaml (and the hook sees CommonJS files)').toBeGreaterThan(0);
    const warm = await loadedBy('plan-warm', ['plan', '--cache', cache, 'examples/minimal']);
    expect(dist(warm, 'manifest/load-cache.js'), 'the hook saw the load cache load').toHaveLength(1);
    expect(yaml(warm)).toEqual([]);
  });

  it('a validate of a clean manifest does not load the yaml package; one with a diagnostic does, for its position', async () => {
    const yaml = (urls: string[]) => urls.filter((u) => u.includes('/node_modules/yaml/'));
    const clean = await loadedBy('validate-clean', ['validate', 'examples/minimal']);
    expect(dist(clean, 'cli/commands/validate.js'), 'the hook saw validate load').toHaveLength(1);
    expect(dist(clean, 'manifest/fast-yaml.js'), 'the fast parse ran').toHaveLength(1);
    expect(yaml(clean)).toEqual([]);

    const bad = join(dir, 'unknown-key');
    await mkdir(bad, { recursive: true });
    await writeFile(join(bad, 'driftless.yaml'), 'version: 1\nprojects: []\nbogus_key: 1\n');
    const log = join(dir, 'validate-diagnostic.log');
    await writeFile(log, '');
    const out = await run(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, 'validate', bad], {
      cwd: ROOT,
      env: { ...process.env, STARTUP_IMPORTS_LOG: log, NO_COLOR: '1' },
    }).catch((e: { code?: number; stdout: string; stderr: string }) => e);
    // Reported where it is written: line 3, column 1, from the positioned parse of that file.
    expect((out as { code?: number }).code).toBe(1);
    expect(`${(out as { stdout: string }).stdout}${(out as { stderr: string }).stderr}`).toContain(`${join(bad, 'driftless.yaml')}:3:1`);
    const urls = (await readFile(log, 'utf8')).split('\n').filter((l) => l !== '');
    expect(yaml(urls).length, 'the positioned parse loaded yaml').toBeGreaterThan(0);
  });
});
