import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { loadManifest, type LoadOptions } from '../../src/manifest/index.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A temporary directory holding `files` (path -> content), removed after the test. */
export function tempTree(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'driftless-manifest-'));
  dirs.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
  return dir;
}

/** Loads `paths` with cwd = `dir`, so that diagnostics show short relative file names. */
export function load(dir: string, paths: string[] = ['.'], opts: Partial<LoadOptions> = {}) {
  return loadManifest(paths, { env: {}, cwd: dir, ...opts });
}

/** Loads one file `m.yaml` holding `text`. */
export const loadText = (text: string) => load(tempTree({ 'm.yaml': text }));

export const APP = `
          - type: application
            name: api
            git_repository: { url: "https://github.com/acme/api.git" }
            dockerfile_path: Dockerfile`;

/** A valid one-project manifest, with extra YAML appended to the environment's services. */
export function manifestWith(services = APP, extraTop = ''): string {
  return `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: production-cluster
        services:${services}
${extraTop}`;
}
