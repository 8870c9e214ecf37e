#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build`; `npm pack` and `npm ci`
// build it through the prepack and prepare scripts). Loaded dynamically so that a missing or broken
// build is one line on stderr, never a stack trace.
let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (err) {
  const text = String(err && err.message);
  const dependency = /Cannot find package '([^']+)'/.exec(text);
  process.stderr.write(
    err && err.code === 'ERR_MODULE_NOT_FOUND'
      ? dependency
        ? `driftless: a dependency is missing (${dependency[1]}): reinstall the package\n`
        : 'driftless: this installation has no compiled CLI (dist/ is missing): run `npm run build` in a source checkout, or reinstall the package\n'
      : `driftless: cannot load the CLI: ${err && err.name ? err.name : 'Error'}\n`,
  );
  process.exit(1);
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    // Last-resort guard: never print a stack trace or anything that could hold a secret.
    process.stderr.write(`driftless: internal error: ${err && err.name ? err.name : 'Error'}\n`);
    process.exitCode = 1;
  },
);
