#!/usr/bin/env node
/**
 * `driftless` as bin/driftless.js runs it, but from DIST (see paths.mjs), so that the benchmark
 * can run a private build while others rebuild dist/. Same exit codes and output.
 */
import { dist } from './paths.mjs';

// BENCH_REPORT_CPU=1: on exit, one line `##bench {"cpu_ms":...,"max_rss_mb":...}` on stderr with
// the process's own CPU time and peak memory (robust figures on a shared, noisy machine).
if (process.env.BENCH_REPORT_CPU) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    process.stderr.write(`##bench ${JSON.stringify({ cpu_ms: Math.round((u.userCPUTime + u.systemCPUTime) / 1000), max_rss_mb: Math.round(u.maxRSS / 1024) })}\n`);
  });
}
const { main } = await dist('cli/main.js');
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`driftless: internal error: ${err && err.name ? err.name : 'Error'}\n`);
    process.exitCode = 1;
  },
);
