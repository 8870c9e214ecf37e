#!/usr/bin/env node
/**
 * Renders RELIABILITY.md from test/support/results/*.json (`--check`: writes nothing, exits 1 when the
 * file is not up to date). Run it explicitly (`npm run reliability`)
 * after a run that recorded its figures (`DRIFTLESS_WRITE_RESULTS=1 npm test`, `... npm run
 * test:chaos`, `node scripts/record-mutation.mjs`): a plain test run writes nothing tracked, so the
 * working tree stays clean. Nothing in RELIABILITY.md is typed by hand except the prose below.
 */
import { readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'test/support/results');

const MUTATION = 'mutation.json';

/** What one recorded run measured: its command, scope, counts and scores. */
function runLines(m) {
  return [
    `- command: \`${m.command}\`, ${m.date} (Node ${m.node})`,
    ...(m.note ? [`- ${m.note}`] : []),
    `- scope: ${m.files.map((f) => `\`${f}\``).join(', ')}`,
    ...(m.superseded?.length ? [`- measured again since (its figures for these are not the current ones): ${m.superseded.map((f) => `\`${f}\``).join(', ')}`] : []),
    `- mutants: **${m.mutants}**; killed **${m.killed}**, survived **${m.survived}**, timeout **${m.timeout}**, no coverage **${m.no_coverage}**, ignored (static) **${m.ignored_static}**, errors **${m.errors}**`,
    `- mutation score: **${m.score}%** ((killed + timeout) / (killed + timeout + survived + no coverage)); **${m.score_without_equivalent}%** without the survivors explained as equivalent below`,
    ...Object.entries(m.by_directory ?? {}).map(([dir, x]) => `- \`${dir}\`: **${x.score}%** (${x.detected} of ${x.valid})`),
  ];
}

/** The mutation testing section, from results/mutation.json when it exists. */
function mutationSection() {
  let m;
  try {
    m = JSON.parse(readFileSync(join(RESULTS, MUTATION), 'utf8'));
  } catch {
    return [];
  }
  const out = [
    '',
    '## Mutation testing',
    '',
    'StrykerJS (`stryker.config.json`, vitest runner, `coverageAnalysis: perTest`, incremental) mutates the pure core and',
    'runs the fast unit tests of `vitest.mutation.config.ts` against each mutant. Not part of `.ci/run` (tens of minutes);',
    'recorded with `node scripts/record-mutation.mjs` after the run. Static mutants (module-level constants, which would',
    're-run every test) are ignored (`ignoreStatic`) and not in the score. Target: 85% of the mutants killed.',
    '',
    ...runLines(m),
  ];
  const areas = Object.entries(m.by_area ?? {});
  if (areas.length > 0) {
    out.push('', 'Per area held to the target (issue 18), and per file:', '');
    const without = (x) => (x.equivalent ? `; **${x.score_without_equivalent}%** without the ${x.equivalent} explained as equivalent` : '');
    const carried = (x) => (x.carried_files ? `, ${x.carried_files} as an earlier run measured ${x.carried_files === 1 ? 'it' : 'them'}` : '');
    for (const [area, x] of areas) out.push(`- ${area}: **${x.score}%** (${x.detected} of ${x.valid}, ${x.files} file${x.files === 1 ? '' : 's'}${carried(x)}${without(x)})`);
    out.push('', '| file | score | killed of | without equivalents | measured |', '|---|---|---|---|---|');
    for (const [file, x] of Object.entries(m.by_file ?? {})) out.push(`| \`${file}\` | ${x.score}% | ${x.detected} of ${x.valid} | ${x.equivalent ? `${x.score_without_equivalent}% (${x.equivalent} explained)` : ''} | ${x.measured ? `earlier run, ${x.measured}` : 'this run'} |`);
  }
  for (const run of m.earlier ?? []) {
    out.push('', `Measured by an earlier run, not re-run since (its own command and date):`, '', ...runLines(run));
  }
  const all = [m, ...(m.earlier ?? [])].flatMap((run) => run.survivors);
  const explained = all.filter((x) => x.equivalent);
  if (explained.length > 0) {
    out.push('', 'Surviving mutants that are equivalent (no test can tell them from the original):', '');
    for (const x of explained) out.push(`- \`${x.key.split(' -> ')[0]}\` (\`${x.replacement.replace(/\s+/g, ' ').slice(0, 80)}\`): ${x.equivalent}`);
  }
  const open = all.length - explained.length;
  if (open > 0) out.push('', `${open} other surviving mutants are not yet killed (listed in \`test/support/results/mutation.json\`).`);
  return out;
}

const ORDER = ['faults', 'kill', 'sigint', 'timeouts', 'rate-limit', 'auth', 'concurrent', 'canary', 'fuzz-manifest', 'fuzz-emulator', 'paths-and-names'];

/** The text of RELIABILITY.md for the tracked results. */
function render() {
  // mutation.json has a shape of its own (scripts/record-mutation.mjs): a section below the table.
  const files = readdirSync(RESULTS).filter((f) => f.endsWith('.json') && f !== MUTATION);
  const rows = files
    .map((f) => ({ id: f.replace(/\.json$/, ''), row: JSON.parse(readFileSync(join(RESULTS, f), 'utf8')) }))
    .sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id));
  const out = [
    '# Reliability and security',
    '',
    'Every figure below was measured by the test named beside it, recorded by that test in',
    '`test/support/results/` when run with `DRIFTLESS_WRITE_RESULTS=1` (`test/support/reliability.ts`), and',
    'rendered here by `npm run reliability`; none is typed by hand. A plain test run writes nothing tracked.',
    '`npm test` runs the fast fuzz and security tests, `npm run test:chaos` the fault, kill, interrupt, rate-limit,',
    'auth, concurrency and secret canary tests against the real emulator over HTTP on 127.0.0.1. `.ci/run` runs both.',
    '',
    '| test | what it proves | figures | command | measured |',
    '|---|---|---|---|---|',
  ];
  for (const { row } of rows) {
    const figs = Object.entries(row.figures).map(([k, v]) => `${k}: **${v}**`).join('<br>');
    out.push(`| \`${row.file}\` | ${row.title} | ${figs} | \`${row.command}\` | ${row.date} (Node ${row.node}) |`);
  }
  out.push(...mutationSection(), '', ...NOTES, '');
  return out.join('\n');
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

function rank(id) {
  const i = ORDER.findIndex((p) => id.startsWith(p));
  return i < 0 ? ORDER.length : i;
}

const target = join(ROOT, 'RELIABILITY.md');
const text = render();
if (process.argv.includes('--check')) {
  // Writes nothing: exit 1 when RELIABILITY.md is not what the tracked results render to.
  if (readFileSync(target, 'utf8') !== text) {
    process.stderr.write('RELIABILITY.md is not up to date with test/support/results: run `npm run reliability`\n');
    process.exit(1);
  }
} else {
  const tmp = join(ROOT, `.RELIABILITY.md.${process.pid}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, target);
}
