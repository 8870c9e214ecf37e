/**
 * Figures measured by the chaos, fuzz and security tests, rendered into RELIABILITY.md.
 *
 * Each test file records its rows with `record(id, row)`: they go to test/support/results/<id>.json
 * (one file per test, so parallel test files never write the same file), and RELIABILITY.md is
 * re-rendered from every results file. Nothing in RELIABILITY.md is typed by hand.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const RESULTS = join(ROOT, 'test/support/results');

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

export function record(id: string, row: Row): void {
  mkdirSync(RESULTS, { recursive: true });
  const full: Row = { ...row, date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), node: process.version };
  const tmp = join(RESULTS, `.${id}.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(full, null, 2) + '\n');
  renameSync(tmp, join(RESULTS, `${id}.json`));
  render();
}

const ORDER = ['faults', 'kill', 'sigint', 'timeouts', 'rate-limit', 'auth', 'concurrent', 'canary', 'fuzz-manifest', 'fuzz-emulator', 'paths-and-names'];

export function render(): void {
  const files = readdirSync(RESULTS).filter((f) => f.endsWith('.json'));
  const rows = files
    .map((f) => ({ id: f.replace(/\.json$/, ''), row: JSON.parse(readFileSync(join(RESULTS, f), 'utf8')) as Row }))
    .sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id));
  const out = [
    '# Reliability and security',
    '',
    'Every figure below was measured by the test named beside it and written here by that test',
    '(`test/support/reliability.ts`); none is typed by hand. `npm test` runs the fast fuzz and security',
    'tests, `npm run test:chaos` the fault, kill, interrupt, rate-limit, auth, concurrency and secret',
    'canary tests against the real emulator over HTTP on 127.0.0.1. `.ci/run` runs both.',
    '',
    '| test | what it proves | figures | command | measured |',
    '|---|---|---|---|---|',
  ];
  for (const { row } of rows) {
    const figs = Object.entries(row.figures).map(([k, v]) => `${k}: **${v}**`).join('<br>');
    out.push(`| \`${row.file}\` | ${row.title} | ${figs} | \`${row.command}\` | ${row.date} (Node ${row.node}) |`);
  }
  out.push('', ...NOTES, '');
  const tmp = join(ROOT, `.RELIABILITY.md.${process.pid}.tmp`);
  writeFileSync(tmp, out.join('\n'));
  renameSync(tmp, join(ROOT, 'RELIABILITY.md'));
}

/** How the suite works and what it does not cover (prose; no figure in it). */
const NOTES = [
  '## How to run and tune',
  '',
  '- `npm run test:chaos` builds, then runs `test/chaos/**` (the SIGKILL and SIGINT tests drive `node bin/driftless.js`;',
  '  the others run the CLI in-process through `main(argv, io)`), all against `startEmulator` on 127.0.0.1, most through',
  '  `test/support/proxy.ts`, a counting HTTP proxy that also injects 401/403/429, holds, hangs or swallows requests.',
  '- Knobs for a longer run: `CHAOS_SEEDS` (faults, default 20 per rate), `CHAOS_RATES` (default `0.1,0.3`), `CHAOS_KILLS`',
  '  (default 20), `CHAOS_CONCURRENT` (default 5 pairs), `CHAOS_POOL` (runs in parallel, default 4), `FUZZ_RUNS`',
  '  (default 10,000) and `FUZZ_SEED`.',
  '- Duplicates and losses are counted through the API (`test/support/census.ts`, the list endpoints the export reads),',
  '  against the census of one fault-free apply of the same manifest.',
  '- The per-request timeout is `DRIFTLESS_REQUEST_TIMEOUT` (seconds, default 30); every retry the client makes is printed',
  '  on stderr (`API: GET /path failed (timeout); retrying (attempt 2) in 180ms`).',
  '',
  '## Known limits (not covered, or covered differently)',
  '',
  '- Two concurrent applies end with one copy of each object; the run that loses a race exits 1 with the API\'s 409',
  '  naming the object (it does not adopt it); running apply again is a no-op. Webhooks, which the API does not keep',
  '  unique, are de-duplicated after their create (the oldest copy is kept).',
  '- A step of two calls cut by Ctrl-C between them (an alert receiver validated, not yet created) is listed as',
  '  `failed: interrupted before the request was sent`, not as `not started`.',
  '- The client keeps the later of two reset times announced within one rate-limit window: a gateway answering 429 with',
  '  an earlier `X-RateLimit-Reset` than the window the API announced is waited out to the later one (safe, slower).',
];

function rank(id: string): number {
  const i = ORDER.findIndex((p) => id.startsWith(p));
  return i < 0 ? ORDER.length : i;
}
