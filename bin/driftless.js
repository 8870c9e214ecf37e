#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    // Last-resort guard: never print a stack trace or anything that could hold a secret.
    process.stderr.write(`driftless: internal error: ${err && err.name ? err.name : 'Error'}\n`);
    process.exitCode = 1;
  },
);
