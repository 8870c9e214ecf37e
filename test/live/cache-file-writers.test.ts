/**
 * Several processes writing one cache directory at the same moment (parallel CI jobs on one
 * runner, six `plan`s from a script): each writes its own temporary file and renames it, so no
 * write fails and a reader only ever sees a whole file, one writer's or another's, never a mix and
 * never a missing file once one was written. With a shared temporary name (a planted bug the suite
 * missed), one writer renames another's half-written file or finds its own gone.
 * Real processes (the built dist/, as the CLI runs it), real files; no timing is asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_FILE_NAME, readCacheFile } from '../../src/live/cache-file.js';

const DIST_CACHE_FILE = pathToFileURL(resolve(import.meta.dirname, '../../dist/live/cache-file.js')).href;
const KEY = { key: 'writers-test-fingerprint-key', source: 'env' as const };
const plainIdentity = { apiUrl: 'http://127.0.0.1:8080', driftlessVersion: '1.2.3' };
const identity = { ...plainIdentity, keyOf: () => KEY };
const WRITERS = 4;
const WRITES = 25;

/** A child process that writes a ~1 MB snapshot of its own WRITES times; prints each failure. */
const writerScript = (dir: string, writer: number) => `
const { writeCacheFile } = await import(${JSON.stringify(DIST_CACHE_FILE)});
const identity = { ...${JSON.stringify(plainIdentity)}, keyOf: () => (${JSON.stringify(KEY)}) };
let failures = 0;
for (let n = 0; n < ${WRITES}; n++) {
  const snapshot = {
    organizationId: 'org-${writer}',
    cursor: { timestamp: '2026-11-25T16:00:00.000000001Z', ids: ['e' + n] },
    readAt: '2026-11-25T16:00:01.000Z',
    responses: { '/organization/org/project': { results: Array.from({ length: 8000 }, (_, i) => ({ id: 'w${writer}-' + n + '-' + i, name: 'project of writer ${writer} number ' + i })) } },
  };
  try { writeCacheFile(${JSON.stringify(dir)}, snapshot, identity); } catch (e) { failures++; console.log('write failed: ' + (e.code ?? e.message)); }
}
console.log('failures=' + failures);
`;

function runWriter(dir: string, writer: number): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const proc = spawn(process.execPath, ['--input-type=module', '-e', writerScript(dir, writer)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (out += d));
    proc.on('close', (code) => done({ code, out }));
  });
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('concurrent writers of one cache directory', () => {
  it('never fail, never leave a partial or mixed file, and leave no temporary file behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftless-writers-'));
    dirs.push(dir);
    const writers = Array.from({ length: WRITERS }, (_, w) => runWriter(dir, w));
    // Read while they write: each read is a whole file of one writer, or none yet.
    const reads: string[] = [];
    let done = false;
    const all = Promise.all(writers).finally(() => (done = true));
    while (!done) {
      const got = readCacheFile(dir, identity);
      if ('unusable' in got) reads.push(got.unusable.startsWith('no cache in') ? 'none yet' : got.unusable);
      else {
        const ids = (got.responses['/organization/org/project'] as { results: Array<{ id: string }> }).results.map((r) => r.id.split('-').slice(0, 2).join('-'));
        reads.push(new Set(ids).size === 1 && ids[0]!.startsWith(`w${got.organizationId.slice(4)}-`) ? 'whole' : 'mixed');
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const results = await all;
    for (const r of results) {
      expect(r.code, r.out).toBe(0);
      expect(r.out.trim(), r.out).toBe('failures=0');
    }
    expect(reads.filter((r) => r !== 'whole' && r !== 'none yet')).toEqual([]);
    expect(reads.indexOf('none yet') === -1 || reads.lastIndexOf('none yet') < reads.indexOf('whole') || !reads.includes('whole')).toBe(true);
    expect(readdirSync(dir)).toEqual([CACHE_FILE_NAME]);
    expect('unusable' in readCacheFile(dir, identity)).toBe(false);
  });
});
