/**
 * Figures measured by the chaos, fuzz and security tests, for RELIABILITY.md.
 *
 * Each test file records its rows with `record(id, row)` (one file per test, so parallel test files
 * never write the same file). A plain test run must leave the working tree clean, so the rows go to
 * a temporary directory (`resultsDir()`, printed nowhere, kept for a look) unless
 * DRIFTLESS_WRITE_RESULTS=1 asks for them in test/support/results/<id>.json, the tracked figures.
 * RELIABILITY.md is then rendered from those files by `npm run reliability`
 * (scripts/render-reliability.mjs), never by a test.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
/** The tracked results, rendered into RELIABILITY.md. */
export const TRACKED_RESULTS = join(ROOT, 'test/support/results');

export interface Row {
  /** What the test proves, in a sentence. */
  title: string;
  /** The test file, relative to the repository. */
  file: string;
  /** How to run it. */
  command: 'npm test' | 'npm run test:chaos';
  figures: Record<string, number | string>;
  /** Measured on (ISO date, set by record). */
  date?: string;
  node?: string;
}

/** Where `record` writes: the tracked results only when DRIFTLESS_WRITE_RESULTS=1. */
export function resultsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.DRIFTLESS_WRITE_RESULTS === '1' ? TRACKED_RESULTS : join(tmpdir(), 'driftless-results');
}

/** Writes the row of test `id`; returns the file written. */
export function record(id: string, row: Row, env: NodeJS.ProcessEnv = process.env): string {
  const dir = resultsDir(env);
  mkdirSync(dir, { recursive: true });
  const full: Row = { ...row, date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), node: process.version };
  const tmp = join(dir, `.${id}.${process.pid}.tmp`);
  const file = join(dir, `${id}.json`);
  writeFileSync(tmp, JSON.stringify(full, null, 2) + '\n');
  renameSync(tmp, file);
  return file;
}
