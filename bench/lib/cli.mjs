#!/usr/bin/env node
/**
 * `driftless` as bin/driftless.js runs it, but from DIST (see paths.mjs), so that the benchmark
 * can run a private build while others rebuild dist/. Same exit codes and output.
 */
import { dist } from './paths.mjs';

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
