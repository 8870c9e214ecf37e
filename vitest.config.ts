import { defineConfig } from 'vitest/config';

export default defineConfig({
  // vite's own warnings are not test results; with @actions/workflow-parser inlined below, they
  // would be one "Sourcemap ... points to missing source files" line per module of that package.
  logLevel: 'error',
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**', '.stryker-tmp/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // @actions/workflow-parser imports its JSON schemas without an import attribute (it is meant
    // to be bundled, as in GitHub's VS Code extension): vite transforms it instead of Node loading it.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
