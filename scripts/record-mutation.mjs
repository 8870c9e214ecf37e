#!/usr/bin/env node
/**
 * Records the score of a StrykerJS run (`npm run test:mutation`) for RELIABILITY.md:
 *
 *   node scripts/record-mutation.mjs [REPORT[#FILE,...]...] [--command "what was run"] [--note "what to know"] [--keep-earlier]
 *
 * Each REPORT is a Stryker JSON report (default reports/mutation/mutation.json; the incremental file
 * has the same shape); several (runs over parts of the scope) are merged, the last one winning for
 * a file in more than one. Writes test/support/results/mutation.json (tracked: run it on purpose, then
 * `npm run reliability`). Each surviving mutant is listed with the explanation given for it in
 * test/support/mutation-equivalents.json (keyed "file:line:column Mutator -> replacement"), or as not yet killed.
 *
 * Scores are given per directory, per file, and per area of AREAS (what issue 18 holds to 85% each).
 * `--keep-earlier`: the record already there (and the earlier ones it kept) stays in `earlier`, with
 * its own command and date, when some of its files were not measured again (those measured again
 * are named in its `superseded` and their survivors left out of it): a run over a part of the scope
 * does not erase what an earlier run measured of another part. The areas and the per-file table
 * then count every file of an area by its latest measurement, a file carried from an earlier run
 * marked with that run's date (`measured`).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const commandAt = args.indexOf('--command');
const command = commandAt >= 0 ? args.splice(commandAt, 2)[1] : 'npm run test:mutation';
const keepAt = args.indexOf('--keep-earlier');
const keepEarlier = keepAt >= 0 && args.splice(keepAt, 1).length > 0;
const noteAt = args.indexOf('--note');
const note = noteAt >= 0 ? args.splice(noteAt, 2)[1] : undefined;
// `REPORT#FILE,FILE`: only those files of that report (a run over one area also carries, from the
// incremental file, what earlier runs measured of the others).
const reportArgs = (args.length > 0 ? args : ['reports/mutation/mutation.json']).map((a) => {
  const [path, only] = a.split('#');
  return { path: resolve(ROOT, path), only: only ? only.split(',') : undefined };
});
const report = { files: {} };
const parsed = reportArgs.map(({ path, only }) => ({ files: JSON.parse(readFileSync(path, 'utf8')).files, only }));
// A mutant Stryker marked static in any report stays static: a result reused from the incremental
// file loses the mark.
const mutantKey = (file, m) => `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${m.replacement ?? ''}`;
const staticKeys = new Set(parsed.flatMap(({ files }) => Object.entries(files).flatMap(([f, x]) => x.mutants.filter((m) => m.static).map((m) => mutantKey(f, m)))));
for (const { files, only } of parsed) {
  for (const [file, x] of Object.entries(files)) {
    if (only && !only.includes(file)) continue;
    report.files[file] = { ...x, mutants: x.mutants.map((m) => (staticKeys.has(mutantKey(file, m)) ? { ...m, static: true } : m)) };
  }
}
/** Parts of the scope held to the target each (issue 18): a directory (prefix ending in `/`) or files. */
const AREAS = [
  { name: 'src/live', files: (f) => f.startsWith('src/live/') },
  { name: 'src/graph/target.ts', files: (f) => f === 'src/graph/target.ts' },
  { name: 'src/manifest (merge, templates, completeness)', files: (f) => ['src/manifest/merge.ts', 'src/manifest/templates.ts', 'src/manifest/completeness.ts'].includes(f) },
];
const equivalents = JSON.parse(readFileSync(join(ROOT, 'test/support/mutation-equivalents.json'), 'utf8'));

const counts = { Killed: 0, Survived: 0, Timeout: 0, NoCoverage: 0, Ignored: 0, RuntimeError: 0, CompileError: 0 };
/** Per directory (src/plan, src/graph, ...): killed + timeout, and the mutants that count. */
const byDir = {};
/** Per file, the same. */
const byFile = {};
const survivors = [];
const files = Object.keys(report.files).sort();
for (const file of files) {
  for (const reported of report.files[file].mutants) {
    // A static mutant (a module-level constant, `static: true` in the report) is in effect only if
    // the module is loaded with it active; the vitest runner activates a mutant per test, after the
    // module was loaded, so one Stryker runs anyway (it is also covered by tests) is never in effect
    // and its "Survived" says nothing of the tests. It counts as ignored, as `ignoreStatic` intends.
    const m = reported.static ? { ...reported, status: 'Ignored' } : reported;
    counts[m.status] = (counts[m.status] ?? 0) + 1;
    const dir = file.split('/').slice(0, -1).join('/');
    byDir[dir] ??= { detected: 0, valid: 0 };
    byFile[file] ??= { detected: 0, valid: 0 };
    for (const tally of [byDir[dir], byFile[file]]) {
      if (m.status === 'Killed' || m.status === 'Timeout') tally.detected++;
      if (['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(m.status)) tally.valid++;
    }
    if (m.status === 'Survived' || m.status === 'NoCoverage') {
      const key = `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${(m.replacement ?? '').replace(/\s+/g, ' ')}`;
      survivors.push({ key, status: m.status, replacement: m.replacement ?? '', equivalent: equivalents[key] ?? null });
      if (equivalents[key]) byFile[file].equivalent = (byFile[file].equivalent ?? 0) + 1;
    }
  }
}
// Stryker's mutation score: (killed + timeout) / (killed + timeout + survived + no coverage).
const detected = counts.Killed + counts.Timeout;
const valid = detected + counts.Survived + counts.NoCoverage;
const equivalent = survivors.filter((s) => s.equivalent).length;
const pct = (d, v) => (v ? Math.round((1000 * d) / v) / 10 : 0);
const scored = ({ equivalent = 0, ...x }) => ({ ...x, score: pct(x.detected, x.valid), ...(equivalent ? { equivalent, score_without_equivalent: pct(x.detected, x.valid - equivalent) } : {}) });
const target = join(ROOT, 'test/support/results/mutation.json');
let earlier = [];
if (keepEarlier) {
  let previous;
  try {
    previous = JSON.parse(readFileSync(target, 'utf8'));
  } catch {
    previous = undefined;
  }
  if (previous) {
    const { earlier: older = [], ...last } = previous;
    const fileOfKey = (key) => key.split(':')[0];
    earlier = [last, ...older]
      .filter((run) => run.files.some((f) => !files.includes(f)))
      .map((run) => {
        const superseded = [...new Set([...(run.superseded ?? []), ...run.files.filter((f) => files.includes(f))])].sort();
        return superseded.length === 0 ? run : { ...run, superseded, survivors: run.survivors.filter((x) => !superseded.includes(fileOfKey(x.key))) };
      });
  }
}
// A file of an area not measured by this run counts by its latest earlier measurement.
const carried = {};
for (const run of earlier) {
  for (const [f, x] of Object.entries(run.by_file ?? {})) {
    if (files.includes(f) || carried[f] || (run.superseded ?? []).includes(f)) continue;
    carried[f] = { ...x, measured: x.measured ?? run.date };
  }
}
const byArea = {};
for (const area of AREAS) {
  const mine = files.filter(area.files);
  const theirs = Object.keys(carried).filter(area.files);
  if (mine.length + theirs.length === 0) continue;
  const sum = (k) => mine.reduce((n, f) => n + (byFile[f][k] ?? 0), 0) + theirs.reduce((n, f) => n + (carried[f][k] ?? 0), 0);
  byArea[area.name] = { ...scored({ files: mine.length + theirs.length, detected: sum('detected'), valid: sum('valid'), equivalent: sum('equivalent') }), ...(theirs.length > 0 ? { carried_files: theirs.length } : {}) };
}
const out = {
  command,
  ...(note ? { note } : {}),
  date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  node: process.version,
  files,
  mutants: valid + counts.Ignored + counts.RuntimeError + counts.CompileError,
  killed: counts.Killed,
  timeout: counts.Timeout,
  survived: counts.Survived,
  no_coverage: counts.NoCoverage,
  ignored_static: counts.Ignored,
  errors: counts.RuntimeError + counts.CompileError,
  score: valid ? Math.round((1000 * detected) / valid) / 10 : 0,
  score_without_equivalent: valid - equivalent ? Math.round((1000 * detected) / (valid - equivalent)) / 10 : 0,
  by_directory: Object.fromEntries(Object.entries(byDir).map(([d, x]) => [d, scored(x)])),
  by_area: byArea,
  by_file: Object.fromEntries([...Object.entries(byFile).map(([f, x]) => [f, scored(x)]), ...Object.entries(carried).filter(([f]) => AREAS.some((a) => a.files(f)))].sort(([a], [b]) => (a < b ? -1 : 1))),
  survivors,
  ...(earlier.length > 0 ? { earlier } : {}),
};
const tmp = `${target}.${process.pid}.tmp`;
writeFileSync(tmp, JSON.stringify(out, null, 2) + '\n');
renameSync(tmp, target);
process.stdout.write(`mutation score ${out.score}% (${detected} of ${valid}; ${counts.Survived} survived, ${counts.NoCoverage} without coverage, ${equivalent} explained as equivalent) -> ${target}\n`);
