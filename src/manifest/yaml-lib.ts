/**
 * The `yaml` package, loaded on first use (issue 21). It is 72 CommonJS files, about 50 ms of a
 * process's start-up, and a run whose manifest comes from the load cache (load-cache.ts) parses
 * nothing: it never needs it, and neither does a file the fast parse accepts (its scalar typing and
 * line index are local: core-scalars.ts, line-counter.ts). The positioned parse (parse-yaml.ts)
 * asks for it here.
 *
 * Loaded with `require`: the callers are synchronous. Under Node.js the package's `import` and
 * `require` resolve to the same file (the "node" condition of its exports map names one CommonJS entry file), so this is the
 * one instance a static import elsewhere (export/yaml.ts, the tests) gets too.
 */
import { createRequire } from 'node:module';

type YamlLib = typeof import('yaml');

let lib: YamlLib | undefined;

export function yamlLib(): YamlLib {
  return (lib ??= createRequire(import.meta.url)('yaml') as YamlLib);
}
