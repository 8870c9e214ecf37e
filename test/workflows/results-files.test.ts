/**
 * A plain test run leaves the working tree clean: the chaos, fuzz and security tests record their
 * figures in a temporary directory, and in the tracked test/support/results/ only when
 * DRIFTLESS_WRITE_RESULTS=1 asks for it (RELIABILITY.md is rendered by `npm run reliability`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { record, resultsDir, TRACKED_RESULTS } from '../support/reliability.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');

describe('recorded figures', () => {
  it('go to a temporary directory unless DRIFTLESS_WRITE_RESULTS=1', () => {
    expect(TRACKED_RESULTS).toBe(path.join(repoRoot, 'test/support/results'));
    expect(resultsDir({})).toBe(path.join(tmpdir(), 'driftless-results'));
    expect(resultsDir({ DRIFTLESS_WRITE_RESULTS: '0' })).toBe(path.join(tmpdir(), 'driftless-results'));
    expect(resultsDir({ DRIFTLESS_WRITE_RESULTS: '1' })).toBe(TRACKED_RESULTS);

    const id = `results-files-probe-${process.pid}`;
    const file = record(id, { title: 'probe', file: 'test/workflows/results-files.test.ts', command: 'npm test', figures: { n: 1 } }, {});
    try {
      expect(path.dirname(file)).toBe(path.join(tmpdir(), 'driftless-results'));
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ title: 'probe', figures: { n: 1 }, node: process.version });
      expect(existsSync(path.join(TRACKED_RESULTS, `${id}.json`))).toBe(false);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('RELIABILITY.md is what `npm run reliability` renders from the tracked results (checked without writing)', () => {
    const check = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/render-reliability.mjs'), '--check'], { cwd: repoRoot, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
