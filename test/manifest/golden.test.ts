/**
 * Validation messages as users see them: each test/golden/validate/<case>.yaml is validated and its
 * rendering (no colour) compared with <case>.txt; a few also with their GitHub annotations.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../src/manifest/index.js';
import { renderDiagnosticsGithub, renderDiagnosticsHuman } from '../../src/diag/render.js';

const dir = path.resolve(import.meta.dirname, '../golden/validate');
// Each <case>.yaml file, and each <case>/ directory (a manifest of several files).
const cases = readdirSync(dir, { withFileTypes: true })
  .filter((e) => e.name.endsWith('.yaml') || e.isDirectory())
  .map((e) => e.name)
  .sort();
const repoRoot = path.resolve(import.meta.dirname, '../..');

describe('validation messages (golden files)', () => {
  it.each(cases)('%s', async (file) => {
    const r = await loadManifest([path.join(dir, file)], { env: { SLACK_URL: 'https://hooks.slack.com/services/x' }, cwd: repoRoot });
    expect(r.manifest).toBeUndefined();
    // Secrets written in clear in these cases contain `s3cr3t`: they must be masked everywhere.
    expect(renderDiagnosticsHuman(r.diagnostics) + renderDiagnosticsGithub(r.diagnostics)).not.toContain('s3cr3t');
    await expect(renderDiagnosticsHuman(r.diagnostics)).toMatchFileSnapshot(path.join(dir, file.replace(/\.yaml$/, '') + '.txt'));
  });

  it.each(['schema-errors.yaml', 'references.yaml'])('%s as GitHub annotations', async (file) => {
    const r = await loadManifest([path.join(dir, file)], { env: { SLACK_URL: 'https://hooks.slack.com/services/x' }, cwd: repoRoot });
    await expect(renderDiagnosticsGithub(r.diagnostics)).toMatchFileSnapshot(path.join(dir, file.replace(/\.yaml$/, '.github.txt')));
  });
});
