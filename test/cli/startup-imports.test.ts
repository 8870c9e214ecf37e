/**
 * Commands that never talk to the API do not load the HTTP library. undici is about a hundred files;
 * loading it was a fifth of the start-up of `validate` (issue 21: every command's floor counts).
 * The built CLI runs in a child process with a module resolve hook that records every module the
 * process resolves, so the assertion is on what Node.js really loaded, not on an import list.
 * A command that sends requests still loads it (the second test), so the hook is seen to work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
  await writeFile(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`);
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

describe('start-up: what a command loads', () => {
  it('validate, --help and --version never load undici', async () => {
    for (const [name, args] of [['validate', ['validate', 'examples/minimal']], ['help', ['--help']], ['version', ['--version']]] as const) {
      const urls = await loadedBy(name, [...args]);
      expect(urls.some((u) => u.includes('/dist/cli/')), `${name}: the hook saw the CLI load`).toBe(true);
      expect(undici(urls), name).toEqual([]);
    }
  });

  it('a command that sends requests (plan) does load it', async () => {
    const urls = await loadedBy('plan', ['plan', 'examples/minimal']);
    expect(undici(urls).length).toBeGreaterThan(0);
  });
});
