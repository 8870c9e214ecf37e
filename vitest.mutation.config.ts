import { defineConfig } from 'vitest/config';

// The tests StrykerJS runs against each mutant of the pure core (`npm run test:mutation`):
// the fast unit tests of src/plan, src/graph, src/manifest, src/drift, src/live and
// src/apply/steps.ts. No emulator, no CLI in a child process, no chaos: each mutant must be judged
// in seconds, and a test that talks HTTP would measure the network, not the core.
//
// MUTATION_TESTS (comma-separated globs) narrows the tests to those of one area, for a run over that
// area on a loaded machine: fewer tests can only kill fewer mutants, so the score it measures is a
// lower bound of the one the whole list would give. The recorded command says when it was used.
const narrowed = process.env.MUTATION_TESTS?.split(',').map((g) => g.trim()).filter((g) => g !== '');

export default defineConfig({
  test: {
    include: narrowed?.length ? narrowed : [
      'test/plan/**/*.test.ts',
      'test/graph/**/*.test.ts',
      'test/manifest/**/*.test.ts',
      'test/drift/detect.test.ts',
      'test/drift/render.test.ts',
      'test/drift/stale-secrets.test.ts',
      'test/live/**/*.test.ts',
      'test/apply/steps.test.ts',
    ],
    exclude: [
      'node_modules/**',
      'test/**/*.e2e.test.ts',
      'test/manifest/validate-remote.test.ts',
      // Seconds each, and about robustness rather than the core's logic: the hostile-input fuzzing
      // and the precompiled validator's equivalence with the runtime one (8 s of ajv compilation).
      'test/manifest/hostile.test.ts',
      'test/manifest/precompiled-validator.test.ts',
      // The refresh's property test drives the emulator over HTTP for 40 s: with perTest coverage it
      // would re-run for every mutant of read/refresh/normalize. The writers' test spawns the built
      // dist/, which a mutant of src/ never reaches.
      'test/live/refresh.property.test.ts',
      'test/live/cache-file-writers.test.ts',
    ],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
