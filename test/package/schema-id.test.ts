/**
 * The manifest schema's `$id` is the URL of the schema itself: the file in the published package,
 * at this version, on the jsDelivr npm CDN. Exported manifests point editors at it (their modeline),
 * so it must follow the package: its name and version come from package.json (a version bump that
 * forgets the schema fails here), and its path is a file that `npm pack` puts in the tarball.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestSchema } from '../../src/manifest/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

describe('the manifest schema $id', () => {
  const id = String(manifestSchema().$id);

  it('is the jsDelivr URL of a file of this package at this version', () => {
    const m = /^https:\/\/cdn\.jsdelivr\.net\/npm\/((?:@[^/]+\/)?[^@/]+)@([^/]+)\/(.+)$/.exec(id);
    expect(m, id).not.toBeNull();
    expect(m![1]).toBe(pkg.name);
    expect(m![2]).toBe(pkg.version);
  });

  it('names a file that `npm pack` ships, and that file is this schema', () => {
    const filePath = new URL(id).pathname.split('/').slice(3).join('/');
    // --dry-run lists the tarball without writing it; --ignore-scripts skips the prepack build.
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    const files = (packed[0].files as Array<{ path: string }>).map((f) => f.path);
    expect(files).toContain(filePath);
    expect(JSON.parse(readFileSync(path.join(ROOT, filePath), 'utf8')).$id).toBe(id);
  }, 60_000);
});
